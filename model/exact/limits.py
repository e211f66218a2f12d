"""When an exact search gives up, and the limits an admission uses.

Apart from :mod:`.search` so that the command line can show the defaults
without loading the search (and Z3, which its tick model imports).
"""

from __future__ import annotations

import attrs

__all__ = ["Limits", "DEFAULT_LIMITS"]


@attrs.frozen
class Limits:
    """When the search gives up (``UNKNOWN``): more than *states* states kept, or more
    than *seconds* spent.  The state limit is the deterministic one; the time limit is
    a guard (its answer depends on the machine)."""

    states: int = 2_000_000
    seconds: float = 60.0


#: The search's limits in an admission (per pCPU asked).
DEFAULT_LIMITS = Limits(states=2_000_000, seconds=60.0)

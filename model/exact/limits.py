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
    than *seconds* spent.  The state limit is the deterministic one, the limit that
    decides; the time limit is an outer guard (its answer depends on the machine's
    load, and says it is the wall-clock guard)."""

    states: int = 2_000_000
    seconds: float = 60.0


#: The search's limits in an admission (per pCPU asked): 600,000 states, about a minute
#: of this machine's quiet work (the search keeps about 10,000 states a second on the
#: pCPUs of bench/exact.py), so that the count, not the clock, decides; the clock is a
#: guard ten times as long, for a pCPU whose states cost far more than usual.
DEFAULT_LIMITS = Limits(states=600_000, seconds=600.0)

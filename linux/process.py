"""Whether a process still exists, the one test the controller's clean-up paths share.

Stale cpusets and tracing instances are named after the controller's pid
(:mod:`.cpuset`, :mod:`.tracefs`), and the watchdog (:mod:`.watchdog`) waits
for that pid to end: each asks :func:`alive`.
"""

from __future__ import annotations

import os

__all__ = ["alive"]


def alive(pid: int) -> bool:
    """Whether process *pid* exists (signal 0: nothing is sent).  A process we may not
    signal exists too."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

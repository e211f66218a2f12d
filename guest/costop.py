"""Relaxed co-scheduling, the prior approach compared with ballooning.

VMware ESX schedules the vCPUs of an SMP VM independently but keeps them
from drifting apart: it tracks each vCPU's *skew*, how far it lags the
most advanced sibling, and when the skew exceeds a threshold it *co-stops*
the vCPUs that lead, until the laggards catch up (VMware, "The CPU
Scheduler in VMware vSphere 5.1", technical white paper, 2013: "relaxed
co-scheduling").  FlexCore's literature counts co-scheduling among the
prior approaches that address double scheduling at a cost (the CPU a
co-stopped vCPU could have used).

Here a vCPU's *progress* is the time it was not held back by the host:
the time since the start less its steal time and its co-stopped time
(:mod:`.observe`), so that an idle (halted) vCPU progresses.  Every check
period (1 ms by default, the guest's ``period``) among the vCPUs that hold
a thread the slowest one sets the pace; a vCPU that leads it by more than
:data:`SKEW_THRESHOLD` is co-stopped, and a co-stopped one is co-started
once it no longer leads, or when the slowest has no thread any more
(decision 94).  The guest does not know: a co-stopped vCPU's thread stays
on it, frozen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .kernel import GuestKernel
    from .observe import DoubleScheduling

__all__ = ["CoStop", "SKEW_THRESHOLD"]

#: The skew beyond which a leading vCPU is co-stopped (ns; decision 94).
SKEW_THRESHOLD = 3_000_000


class CoStop:
    """Relaxed co-scheduling of one VM's vCPUs."""

    def __init__(self, kernel: GuestKernel, account: DoubleScheduling, start: int) -> None:
        self.kernel = kernel
        self.account = account
        self.start = start

    def step(self, t: int) -> None:
        """One check at *t* (the account is up to date)."""
        kernel, account = self.kernel, self.account
        n = len(kernel.states)
        progress = [t - self.start - account.steal[v] - account.stopped[v] for v in range(n)]
        busy = [v for v in range(n) if kernel.busy(v) and kernel.online[v]]
        pace = min((progress[v] for v in busy), default=None)
        for v in range(n):
            if kernel.stopped[v]:
                if pace is None or progress[v] <= pace:
                    kernel.co_start(v, t)
            elif pace is not None and v in busy and progress[v] - pace > SKEW_THRESHOLD:
                kernel.co_stop(v, t)

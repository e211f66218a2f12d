"""The simulator's view of one vCPU: where it runs and the work it holds.

Work is a FIFO of jobs (arrival, remaining demand); a vCPU is *runnable*
while it holds work.  A cpu-bound vCPU holds one endless job.  The policy
keeps its own per-vCPU state in :attr:`VCPUState.sched`.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from akita.model import VCPU

__all__ = ["VCPUState", "ENDLESS"]

#: The remaining demand of a cpu-bound vCPU's single job.
ENDLESS = -1


class VCPUState:
    """One vCPU during a simulation (mutable; owned by the core)."""

    __slots__ = (
        "vcpu", "name", "vm", "vm_index", "order", "cpu", "is_hi", "jobs", "backlog",
        "runnable", "waiting_since", "ran_ns", "sched", "stats",
    )

    def __init__(self, vcpu: VCPU, vm_index: int, order: int, cpu: int, endless: bool) -> None:
        self.vcpu = vcpu
        self.name = vcpu.name
        self.vm = vcpu.vm
        self.vm_index = vm_index
        #: position in the host (VM order, then vCPU index): the final tie-break.
        self.order = order
        self.cpu = cpu
        self.is_hi = vcpu.vm.is_hi
        #: jobs as [arrival, remaining]; remaining ENDLESS for a cpu-bound vCPU.
        self.jobs: deque[list[int]] = deque([[0, ENDLESS]]) if endless else deque()
        #: total remaining demand (ns), or None when endless.
        self.backlog: int | None = None if endless else 0
        self.runnable = endless
        #: when the vCPU last became runnable without having run since (for CPU access latency).
        self.waiting_since: int | None = 0 if endless else None
        self.ran_ns = 0
        self.sched: Any = None
        #: the VM's metrics (set by the simulator), updated on the hot path.
        self.stats: Any = None

    def __repr__(self) -> str:
        return f"<vCPU {self.name} on pCPU {self.cpu}>"

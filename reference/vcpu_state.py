"""The simulator's view of one vCPU: where it runs and the work it holds.

Work is a FIFO of jobs (arrival, remaining demand); a vCPU is *runnable*
while it holds work.  A cpu-bound vCPU holds one endless job.  The policy
keeps its own per-vCPU state in :attr:`VCPUState.sched`, of a type of its
own: ``VCPUState[Server]`` for the periodic-server policies
(:class:`.policies.server.Server`).  A vCPU an SMP guest drives holds at
most one piece of its guest's work at a time, and names the guest in
:attr:`VCPUState.guest` (:mod:`.guest_hook`).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Generic, TypeVar

from akita.model import VCPU

from .metrics import VMMetrics

__all__ = ["VCPUState", "ENDLESS"]

#: The type of a policy's per-vCPU state.
S = TypeVar("S")

#: The remaining demand of a cpu-bound vCPU's single job.
ENDLESS = -1


class VCPUState(Generic[S]):
    """One vCPU during a simulation (mutable; owned by the core).

    ``S`` is the type of :attr:`sched`, the policy's state for the vCPU.
    """

    __slots__ = (
        "vcpu", "name", "vm", "vm_index", "order", "cpu", "is_hi", "jobs", "endless", "backlog",
        "runnable", "waiting_since", "ran_ns", "sched", "stats", "guest",
    )

    #: the policy's state for this vCPU (set by the policy's ``setup``, before any use).
    sched: S

    def __init__(self, vcpu: VCPU, vm_index: int, order: int, cpu: int, endless: bool,
                 stats: VMMetrics) -> None:
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
        #: whether the vCPU is cpu-bound: one endless job, always runnable.
        self.endless = endless
        #: total remaining demand (ns) of its jobs; 0 when endless (its job is not counted).
        self.backlog = 0
        self.runnable = endless
        #: when the vCPU last became runnable without having run since (for CPU access latency).
        self.waiting_since: int | None = 0 if endless else None
        self.ran_ns = 0
        #: the VM's metrics, updated on the hot path.
        self.stats = stats
        #: the guest that drives the vCPU (guest_hook.GuestHook), or None: its workload does.
        self.guest: Any = None

    def __repr__(self) -> str:
        return f"<vCPU {self.name} on pCPU {self.cpu}>"

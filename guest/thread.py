"""A guest thread: its program, where it is in it, and where it runs.

A thread is in one of four states: ``READY`` (on a vCPU's run queue),
``CURRENT`` (the thread a vCPU runs, in the guest's view -- whether the
host runs that vCPU is another matter), ``BLOCKED`` (asleep on a barrier,
lock or queue) or ``DONE``.  A thread waiting for a spin lock is
:attr:`~Thread.spinning`: it stays ``CURRENT`` and burns its vCPU; one that
gave up spinning on a pv spin lock is :attr:`~Thread.parked`: it stays
``CURRENT`` on its halted vCPU until the releaser kicks it.
"""

from __future__ import annotations

from .program import Op

__all__ = ["Thread", "READY", "CURRENT", "BLOCKED", "DONE"]

READY, CURRENT, BLOCKED, DONE = "ready", "current", "blocked", "done"


class Thread:
    """One guest thread (mutable; owned by its :class:`~.kernel.GuestKernel`)."""

    __slots__ = ("tid", "ops", "pc", "left", "vruntime", "vcpu", "state", "spinning", "parked",
                 "in_cs", "spun", "window")

    def __init__(self, tid: int, ops: list[Op], vcpu: int) -> None:
        self.tid = tid
        self.ops = ops
        #: the index of the operation it is at
        self.pc = 0
        #: the CPU time its operation still needs (ns)
        self.left = 0
        #: the guest scheduler's virtual runtime (ns; every thread has the same weight)
        self.vruntime = 0
        #: the vCPU it runs or waits on (an index in its VM)
        self.vcpu = vcpu
        self.state = READY
        self.spinning = False
        #: whether it waits for a pv spin lock with its vCPU halted (``pv_wait``)
        self.parked = False
        #: whether it holds the lock of its current Critical operation
        self.in_cs = False
        #: the time it spun in its present wait for a lock, and its pause-loop window (ns)
        self.spun = 0
        self.window = 0

    def __repr__(self) -> str:
        return f"<thread {self.tid} {self.state} pc {self.pc} on vCPU {self.vcpu}>"

"""Double scheduling, measured: what one VM loses to the host's decisions.

FlexCore (``../shared/seeds/002``) names the problems double scheduling
causes; four are measured here per VM, each as a time in ns, integrated
exactly between the instants at which anything it depends on changes (a
pCPU switching vCPUs, a vCPU waking or halting, a thread spinning,
arriving at a barrier or taking a lock):

``spin_ns``
    vCPU time burnt spinning for a lock;
``spin_preempted_holder_ns``
    the part of it spent while the lock's holder was not running -- its
    vCPU preempted or co-stopped by the host, or its thread moved off an
    offline vCPU (*lock-holder preemption*);
``barrier_wait_ns``
    thread time spent waiting at barriers, and ``barrier_wait_descheduled_ns``
    the part of it while a thread that had not yet arrived was the current
    thread of a vCPU the host was not running (a barrier wait caused by a
    descheduled vCPU);
``stacked_ns``
    vCPU time spent queued on a pCPU that holds another runnable vCPU of
    the same VM, running or queued too (*vCPU stacking*: the host will run
    them one after the other, though the guest counts on them at once);
``steal_ns``
    vCPU time spent runnable but not running (the guest's steal time), per
    vCPU in :attr:`DoubleScheduling.steal` -- what the ballooning estimator
    reads.

A vCPU's pCPU is its ``cpu`` in the core (:mod:`akita.reference.simulator`):
the one it runs on or last ran on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .program import Critical
from .thread import CURRENT

from akita.reference.vcpu_state import VCPUState

if TYPE_CHECKING:  # pragma: no cover
    from akita.reference.simulator import Simulator

    from .kernel import GuestKernel
    from .thread import Thread

__all__ = ["DoubleScheduling", "MEASURES"]

#: The VM-wide measures, in the order of the result.
MEASURES = ("spin_ns", "spin_preempted_holder_ns", "barrier_wait_ns",
            "barrier_wait_descheduled_ns", "stacked_ns", "steal_ns")


class DoubleScheduling:
    """The measures of one VM's :class:`~.kernel.GuestKernel` under simulator *sim*."""

    def __init__(self, kernel: GuestKernel, sim: Simulator) -> None:
        self.kernel = kernel
        self.sim = sim
        n = len(kernel.states)
        self.totals = dict.fromkeys(MEASURES, 0)
        self._rates = dict.fromkeys(MEASURES, 0)
        #: per vCPU: ns runnable but not running, and ns co-stopped
        self.steal = [0] * n
        self.stopped = [0] * n
        self._waiting = [False] * n
        self._stopped = [False] * n
        self._last = 0

    def running(self, v: int) -> bool:
        """Whether the host runs vCPU *v* now."""
        state = self.kernel.states[v]
        return self.sim.running[state.cpu] is state

    def touch(self, t: int) -> None:
        """Account up to *t* at the rates of before, then read the rates of now."""
        dt = t - self._last
        if dt > 0:
            totals, rates = self.totals, self._rates
            for key in MEASURES:
                totals[key] += rates[key] * dt
            for v, waiting in enumerate(self._waiting):
                if waiting:
                    self.steal[v] += dt
                if self._stopped[v]:
                    self.stopped[v] += dt
            self._last = t
        self._read()

    def _read(self) -> None:
        kernel = self.kernel
        states = kernel.states
        running = [self.running(v) for v in range(len(states))]
        waiting = [s.runnable and not r for s, r in zip(states, running)]
        self._waiting = waiting
        self._stopped = list(kernel.stopped)
        rates = dict.fromkeys(MEASURES, 0)
        rates["steal_ns"] = sum(waiting)
        rates["stacked_ns"] = _stacked(states, waiting)
        for v, th in enumerate(kernel.cur):
            if th is not None and th.spinning and running[v]:
                rates["spin_ns"] += 1
                holder = kernel.locks[_lock_of(th)].holder
                if holder is None or holder.state is not CURRENT or not running[holder.vcpu]:
                    rates["spin_preempted_holder_ns"] += 1
        for barrier in kernel.barriers:
            if barrier.arrived:
                rates["barrier_wait_ns"] += len(barrier.arrived)
                arrived = set(map(id, barrier.arrived))
                if any(p.state is CURRENT and id(p) not in arrived and not running[p.vcpu]
                       for p in barrier.parties):
                    rates["barrier_wait_descheduled_ns"] += len(barrier.arrived)
        self._rates = rates

    def as_json(self) -> dict[str, Any]:
        return dict(self.totals)


def _stacked(states: list[VCPUState[Any]], waiting: list[bool]) -> int:
    """The waiting vCPUs of one VM that share their pCPU with another of its runnable vCPUs."""
    runnable: dict[int, int] = {}
    for state in states:
        if state.runnable:
            runnable[state.cpu] = runnable.get(state.cpu, 0) + 1
    return sum(1 for state, w in zip(states, waiting) if w and runnable[state.cpu] > 1)


def _lock_of(th: Thread) -> int:
    op = th.ops[th.pc]
    assert isinstance(op, Critical)  # a spinning thread is at its critical section
    return op.lock

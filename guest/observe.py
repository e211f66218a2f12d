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
    reads;
``lock_wait_ns`` and ``lock_wait_preempted_holder_ns``
    thread time spent waiting for a lock, of any kind (spinning, parked or
    asleep), and the part of it while the holder was not running
    (lock-holder preemption whatever the waiters do);
``fragmented_ns``
    thread time spent with CPU work to do (ready on a run queue, or the
    current thread of a vCPU the host is not running) while some pCPU of
    the host was idle: CPU the host had and the VM could not use (*CPU
    fragmentation*, decision 295);
``inverted_ns``
    thread time a thread that others wait on (a lock's holder with waiters,
    or a thread yet to arrive at a barrier others wait at) spent as the
    current thread of a vCPU the host was not running, while the host ran
    another vCPU of the same VM whose thread no one waits on (*priority
    inversion*: the guest's most urgent work behind its least; decision 295).

A vCPU's pCPU is its ``cpu`` in the core (:mod:`akita.reference.simulator`):
the one it runs on or last ran on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .program import Critical
from .thread import CURRENT, DONE

from akita.reference.vcpu_state import VCPUState

if TYPE_CHECKING:  # pragma: no cover
    from akita.reference.simulator import Simulator

    from .kernel import GuestKernel
    from .thread import Thread

__all__ = ["DoubleScheduling", "MEASURES"]

#: The VM-wide measures, in the order of the result.
MEASURES = ("spin_ns", "spin_preempted_holder_ns", "barrier_wait_ns",
            "barrier_wait_descheduled_ns", "stacked_ns", "steal_ns", "lock_wait_ns",
            "lock_wait_preempted_holder_ns", "fragmented_ns", "inverted_ns")


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
        urgent: set[int] = set()
        for lock in kernel.locks:
            if lock.waiters and lock.holder is not None:
                rates["lock_wait_ns"] += len(lock.waiters)
                holder = lock.holder
                urgent.add(id(holder))
                if holder.state is not CURRENT or not running[holder.vcpu]:
                    rates["lock_wait_preempted_holder_ns"] += len(lock.waiters)
        for barrier in kernel.barriers:
            if barrier.arrived:
                rates["barrier_wait_ns"] += len(barrier.arrived)
                arrived = set(map(id, barrier.arrived))
                late = [p for p in barrier.parties if id(p) not in arrived and p.state is not DONE]
                urgent.update(map(id, late))
                if any(p.state is CURRENT and not running[p.vcpu] for p in late):
                    rates["barrier_wait_descheduled_ns"] += len(barrier.arrived)
        rates["fragmented_ns"] = self._fragmented(running)
        rates["inverted_ns"] = _inverted(kernel.cur, running, urgent)
        self._rates = rates

    def _fragmented(self, running: list[bool]) -> int:
        """The VM's threads with CPU work but no running vCPU, if a pCPU is idle."""
        if all(state is not None for state in self.sim.running):
            return 0
        kernel = self.kernel
        ready = sum(len(queue) for queue in kernel.rq)
        return ready + sum(1 for v, th in enumerate(kernel.cur)
                           if th is not None and not running[v] and not th.parked)

    def as_json(self) -> dict[str, Any]:
        return dict(self.totals)


def _stacked(states: list[VCPUState[Any]], waiting: list[bool]) -> int:
    """The waiting vCPUs of one VM that share their pCPU with another of its runnable vCPUs."""
    runnable: dict[int, int] = {}
    for state in states:
        if state.runnable:
            runnable[state.cpu] = runnable.get(state.cpu, 0) + 1
    return sum(1 for state, w in zip(states, waiting) if w and runnable[state.cpu] > 1)


def _inverted(cur: list[Any], running: list[bool], urgent: set[int]) -> int:
    """The urgent current threads on vCPUs not running, if a vCPU runs a thread not urgent."""
    if not any(r and th is not None and id(th) not in urgent for th, r in zip(cur, running)):
        return 0
    return sum(1 for th, r in zip(cur, running)
               if th is not None and not r and id(th) in urgent)


def _lock_of(th: Thread) -> int:
    op = th.ops[th.pc]
    assert isinstance(op, Critical)  # a spinning thread is at its critical section
    return op.lock

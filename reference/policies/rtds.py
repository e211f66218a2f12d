"""``rtds``: Xen's RTDS scheduler, global EDF over deferrable servers.

Source: Xen ``xen/common/sched/rt.c`` (``rt_schedule``, ``runq_pick``,
``burn_budget``, ``rt_update_deadline``, ``repl_timer_handler``,
``rt_unit_wake``, ``rt_context_saved``, ``runq_tickle``,
``compare_unit_priority``, ``rt_alloc_udata``).

*Servers.*  Each vCPU is a deferrable server of period ``T`` (the VM's period)
and budget ``C_opt`` for a LO VM, ``C_pes`` for a HI VM.  At each period
boundary ``p + k*T`` (``p`` the VM's phase, :mod:`akita.model.phases`: Xen
starts a vCPU's first period when it is inserted, ``rt_unit_insert``; before
``p`` the vCPU is depleted and does not run) its budget is refilled and its deadline set to the next
boundary (``rt_update_deadline``); unused budget is lost.  A running vCPU
burns its budget (``burn_budget``); a vCPU that blocks keeps what is left
until the next boundary.  At 0, a vCPU without *extratime* is depleted until
the boundary; a vCPU with extratime instead drops one ``priority_level`` and
gets a fresh budget, so it runs only when no vCPU of a lower level (any vCPU
with budget proper) wants the pCPU.  Extratime is the policy's ``extratime``
setting, on by default as Xen sets ``__RTDS_extratime`` in ``rt_alloc_udata``.

*Global EDF.*  Priority is ``(priority_level, deadline)``, lowest first
(``compare_unit_priority``); equal priorities go by host order, where Xen
keeps the run queue's insertion order.  A pCPU that decides runs the
highest-priority runnable vCPU that may run on it and is not running
elsewhere (``runq_pick``), unless its current vCPU, with budget, comes
first; ``until`` is the budget's end.  A vCPU that wakes, is replenished
after depletion, or is preempted (``rt_context_saved``) *tickles* one pCPU
(``runq_tickle``): an idle allowed pCPU (its previous one first, then in
cyclic order), else the allowed pCPU whose vCPU has the lowest priority, if
that priority is below its own; pCPUs tickled and not yet decided are
skipped.  When a running vCPU is replenished, the head of the queue is
tickled if it now comes first (``repl_timer_handler``).  ``pin`` is the hard
affinity; every VM is admitted (:func:`.place_all`).

HI misses are counted by the core for every policy alike (:mod:`..misses`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from ..policy import Policy
from ..vcpu_state import VCPUState

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["RTDSPolicy"]


class _Unit:
    __slots__ = ("budget", "full", "period", "deadline", "level", "depleted", "allowed",
                 "token")

    def __init__(self, full: int, period: int, allowed: frozenset[int] | None) -> None:
        self.full = full
        self.budget = full
        self.period = period
        self.deadline = 0  # replenished at 0 (rt_unit_insert: now >= cur_deadline)
        self.level = 0  # Xen's priority_level: extratime demotions this period
        self.depleted = False
        self.allowed = allowed  # frozenset of pCPUs, or None for any
        self.token = 0  # the live replenishment timer


#: A vCPU under RTDS.
_UnitState: TypeAlias = "VCPUState[_Unit]"


def _key(state: _UnitState) -> tuple[int, int, int]:
    unit = state.sched
    return (unit.level, unit.deadline, state.order)


class RTDSPolicy(Policy):
    """Xen RTDS: deferrable servers under global EDF, with extratime."""

    name = "rtds"
    admits = False  # every VM runs (place_all)
    #: Xen's default for new vCPUs (``rt_alloc_udata`` sets ``__RTDS_extratime``).
    extratime = True

    def __init__(self, extratime: bool | None = None) -> None:
        if extratime is not None:
            self.extratime = extratime

    def setup(self, sim: Simulator) -> None:
        super().setup(sim)
        self.wake_preempts = sim.host.options.wake_preempts
        m = sim.host.pcpus
        self.curr: list[_UnitState | None] = [None] * m  # what each pCPU runs, as last decided
        self.runq: list[_UnitState] = []  # runnable vCPUs with budget, not running
        self.tickled: set[int] = set()
        for state in sim.vcpus:
            vm = state.vm
            unit = _Unit(vm.c_max, vm.period,
                         frozenset(vm.share.pin) if vm.share.pin else None)
            state.sched = unit
            phase = vm.phase or 0
            if phase > 0:  # not created yet: depleted until its first boundary, the phase
                unit.deadline, unit.budget, unit.depleted = phase, 0, True
            elif state.runnable:
                self.runq.append(state)
            sim.set_timer(phase, state.cpu, (state, 0))

    # -- helpers -------------------------------------------------------------------------

    def _allowed(self, state: _UnitState, cpu: int) -> bool:
        allowed = state.sched.allowed
        return allowed is None or cpu in allowed

    def _head(self, cpu: int | None) -> _UnitState | None:
        """``runq_pick``: the first queued vCPU allowed on *cpu* (any pCPU if ``None``)."""
        best = None
        for state in self.runq:
            if cpu is not None and not self._allowed(state, cpu):
                continue
            if best is None or _key(state) < _key(best):
                best = state
        return best

    def _tickle(self, state: _UnitState, preempt: bool = True) -> None:
        """``runq_tickle``: ask one pCPU to decide again for *state*."""
        m = len(self.curr)
        start = state.cpu
        lowest: tuple[tuple[int, int, int], int] | None = None  # key and pCPU of the lowest
        for i in range(m):
            c = (start + i) % m
            if c in self.tickled or not self._allowed(state, c):
                continue
            running = self.curr[c]
            if running is None or running.sched.depleted:
                self._kick(c)
                return
            key = _key(running)
            if lowest is None or key > lowest[0]:
                lowest = (key, c)
        if preempt and lowest is not None and _key(state) < lowest[0]:
            self._kick(lowest[1])

    def _kick(self, cpu: int) -> None:
        self.tickled.add(cpu)
        self.sim.resched(cpu)

    def _replenish(self, state: _UnitState, t: int) -> None:
        """``rt_update_deadline``: next boundary after *t*, full budget, level 0."""
        unit = state.sched
        while unit.deadline <= t:
            unit.deadline += unit.period
        unit.budget = unit.full
        unit.level = 0
        if self.sim.tracing:
            self.sim.emit(t, state.cpu, "release", vcpu=state.name, deadline=unit.deadline,
                          key=str(unit.deadline), budget=unit.budget)

    # -- hooks ---------------------------------------------------------------------------

    def on_timer(self, t: int, payload: tuple[_UnitState, int]) -> None:
        state, token = payload
        unit = state.sched
        if token != unit.token:
            return  # re-armed on the pCPU the vCPU moved to
        if unit.deadline > t:  # replenished already, as it woke at this instant
            self.sim.set_timer(unit.deadline, state.cpu, payload)
            return
        was_depleted = unit.depleted
        self._replenish(state, t)
        unit.depleted = False
        self.sim.set_timer(unit.deadline, state.cpu, payload)
        if self.curr[state.cpu] is state:
            head = self._head(None)
            if head is not None and _key(head) < _key(state):
                self._tickle(head)
        elif state.runnable:
            if was_depleted:
                self.runq.append(state)
            if state in self.runq:
                self._tickle(state)

    def on_wake(self, state: _UnitState, t: int) -> None:
        unit = state.sched
        if unit.deadline <= t:  # rt_unit_wake: a boundary passed (this very instant)
            self._replenish(state, t)
            unit.depleted = False
        if not unit.depleted:
            self.runq.append(state)
            self._tickle(state, self.wake_preempts)

    def on_block(self, state: _UnitState, t: int) -> None:
        if self.curr[state.cpu] is state:
            self.curr[state.cpu] = None
        self.sim.resched(state.cpu)

    def charge(self, state: _UnitState, ran: int, t: int) -> None:
        unit = state.sched
        if unit.depleted:
            return
        unit.budget -= ran if ran < unit.budget else unit.budget
        if unit.budget == 0:  # burn_budget
            if self.sim.tracing:
                self.sim.emit(t, state.cpu, "exhaust", vcpu=state.name)
            if self.extratime:
                unit.level += 1
                unit.budget = unit.full
            else:
                unit.depleted = True
            self.sim.resched(state.cpu)

    def pick(self, cpu: int, t: int) -> tuple[_UnitState | None, int | None]:
        self.tickled.discard(cpu)
        curr = self.curr[cpu]
        head = self._head(cpu)
        if curr is not None and not curr.sched.depleted:
            if head is None or _key(curr) < _key(head):
                return curr, t + curr.sched.budget
            self.runq.append(curr)  # preempted: rt_context_saved re-queues and tickles
        else:
            curr = None
        if head is None:
            self.curr[cpu] = None
            return None, None
        self.runq.remove(head)
        self.curr[cpu] = head
        if head.cpu != cpu:  # it moves here: its replenishment timer follows it
            unit = head.sched
            unit.token += 1
            self.sim.set_timer(unit.deadline, cpu, (head, unit.token))
        if curr is not None:
            self._tickle(curr)
        return head, t + head.sched.budget

    def describe(self, state: _UnitState) -> tuple[int, str, int]:
        unit = state.sched
        return unit.deadline, str(unit.deadline), unit.budget

"""Periodic servers (rule R2, R3): the common part of the EDF-family policies.

Each vCPU is a periodic server with its own timer.  At each period start
``s`` (the first at its VM's phase ``p``, :mod:`akita.model.phases`, then
every ``T``) its budget is set to
:meth:`ServerPolicy.budget_of` (``C_opt`` for a LO vCPU; the policy decides
for a HI one), its deadline to ``s + T`` and its ordering key by the policy.
A running vCPU's budget drops by the time it runs (R3); at 0 the vCPU is
*inactive* until its next period start.  Before ``p`` its VM does not exist
yet: it has no work (the simulator starts its workload at ``p``), and its
deadline is ``p``.

Queue order (``queue_order``): with ``"fifo"`` (the default) equal keys
come in the order the vCPUs were inserted in the run queue -- the paper's
scheduling function "inserts the currently running vCPU into the run-queue",
"sorted based on their deadlines" -- so each vCPU carries its *insertion
instant*: it is inserted when its period starts, when it wakes, when its
budget runs out, and when it is descheduled while still runnable
(:meth:`ServerPolicy.on_deschedule`); vCPUs inserted in the same instant go
in host order.  A vCPU that wakes with a key equal to the running one's does
not preempt it, and vCPUs with equal keys take turns.  With ``"host"``
equal keys go HI before LO, then in host order, and a preempted vCPU keeps
its place (the order before the paper's was read this way).

Work conservation (R7): when no active vCPU is runnable, the pCPU runs an
inactive runnable one -- the one with the earliest deadline, ties in queue
order -- as background, without charging its budget.

A vCPU that wakes at its own period start (a job released with the period)
is queued once, by the period start that follows the arrival in the same
instant, not twice.

HI misses are counted by the core for every policy alike (:mod:`..misses`),
not here.
"""

from __future__ import annotations

from abc import abstractmethod
from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias

from ..budgets import BudgetAccount
from ..policy import Policy
from ..runqueue import Key, RunQueue, Tie
from ..vcpu_state import VCPUState

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["Server", "ServerPolicy", "ServerState", "ServerQueue", "exact", "key_text"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("ServerPolicy.on_timer",),
    "R3": ("ServerPolicy.charge", "ServerPolicy.account_past_budget",
           "ServerPolicy.on_overrun"),
    "R4": ("ServerPolicy.tie_of", "ServerPolicy.on_deschedule"),
    "R10": ("ServerPolicy.on_wake", "ServerPolicy.on_block", "ServerPolicy.charge"),
}


def exact(value: Fraction | int) -> int | Fraction:
    """*value* as an ``int`` when it is one (cheaper to compare), else the Fraction."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


def key_text(key: Key) -> str:
    """An ordering key as the trace writes it: ``"52000000"`` or ``"104000000/3"``."""
    return str(key)


class Server:
    """A vCPU's server state."""

    __slots__ = (
        "budget", "deadline", "key", "consumed", "stamp", "asked", "temperature", "inserted",
        "past",
    )

    def __init__(self, phase: int = 0) -> None:
        self.budget = 0
        self.deadline = phase  # before its first period: inactive until the phase
        self.key: Key = phase
        #: the instant it was last inserted in its run queue ("fifo" ties)
        self.inserted = 0
        self.consumed = 0
        self.stamp = 0
        self.asked = False
        self.temperature = 0
        #: the CPU it got past its budget in its current period (:mod:`..budgets`)
        self.past = 0


#: A vCPU of a periodic-server policy.
ServerState: TypeAlias = "VCPUState[Server]"
#: A run queue of such vCPUs.
ServerQueue: TypeAlias = "RunQueue[VCPUState[Server]]"


def phase_of(state: ServerState) -> int:
    """The instant the first period of *state* starts (its VM's phase; 0 if unresolved)."""
    return state.vm.phase or 0


def _live(state: ServerState, stamp: int) -> bool:
    return state.sched.stamp == stamp and state.runnable


class ServerPolicy(Policy):
    """Periodic servers on pinned vCPUs; subclasses order them and add modes."""

    def setup(self, sim: Simulator) -> None:
        super().setup(sim)
        self.resched = sim.resched
        options = sim.host.options
        self.wake_preempts = options.wake_preempts
        self.fifo = options.fifo
        for state in sim.vcpus:
            state.sched = Server(phase_of(state))
            if state.stats.budget is None:
                state.stats.budget = BudgetAccount()
        self.setup_cpus(sim)
        for state in sim.vcpus:
            sim.set_timer(phase_of(state), state.cpu, state)

    @abstractmethod
    def setup_cpus(self, sim: Simulator) -> None:
        """Create the per-pCPU state (run queues, modes) before time 0."""

    def new_queue(self, cpu: int) -> ServerQueue:
        """An empty run queue for pCPU *cpu*."""
        return RunQueue(_live, size_hint=len(self.sim.on_cpu[cpu]))

    def tie_of(self, state: ServerState) -> Tie:
        """What orders equal keys: the insertion instant, then host order (``"fifo"``);
        or HI before LO, then host order (``"host"``)."""
        if self.fifo:
            return (state.sched.inserted, state.order)
        return (0 if state.is_hi else 1, state.order)

    # -- policy-specific -------------------------------------------------------------

    @abstractmethod
    def budget_of(self, state: ServerState) -> int:
        """The budget of the period that starts now."""

    def key_of(self, state: ServerState, release: int) -> Key:
        """The ordering key of the period released at *release* (its deadline by default)."""
        return release + state.vm.period

    @abstractmethod
    def enqueue(self, state: ServerState) -> None:
        """Put a runnable vCPU, whose stamp just moved, in the right queues."""

    def on_release(self, state: ServerState, t: int) -> None:
        """Hook after a period start has been applied."""

    def on_charged(self, state: ServerState, before: int, t: int) -> None:
        """Hook after an active vCPU was charged (``before``: its consumption before)."""

    # -- hooks -------------------------------------------------------------------------

    def on_timer(self, t: int, state: ServerState) -> None:
        server, sim = state.sched, self.sim
        period = state.vm.period
        server.budget = self.budget_of(state)
        server.deadline = t + period
        server.key = self.key_of(state, t)
        server.consumed = 0
        server.past = 0
        server.stamp += 1
        server.inserted = t
        account = state.stats.budget
        assert account is not None
        account.periods += 1
        if sim.tracing:
            sim.emit(t, state.cpu, "release", vcpu=state.name, deadline=server.deadline,
                     key=key_text(server.key), budget=server.budget)
        self.on_release(state, t)
        if state.runnable:
            self.enqueue(state)
        sim.set_timer(t + period, state.cpu, state)
        self.resched(state.cpu)

    def on_wake(self, state: ServerState, t: int) -> None:
        server = state.sched
        server.stamp += 1
        if server.deadline == t:
            return  # its period starts at this instant too (after arrivals): that queues it
        server.inserted = t
        self.enqueue(state)
        if self.wake_preempts or self.sim.running[state.cpu] is None:
            self.resched(state.cpu)

    def on_deschedule(self, state: ServerState, t: int) -> None:
        """A runnable vCPU that ran until *t* was not picked again: with ``"fifo"`` ties it is
        inserted again, behind the vCPUs of equal key already queued (R4)."""
        if self.fifo:
            server = state.sched
            server.stamp += 1
            server.inserted = t
            self.enqueue(state)

    def on_block(self, state: ServerState, t: int) -> None:
        state.sched.stamp += 1
        self.resched(state.cpu)

    def charge(self, state: ServerState, ran: int, t: int) -> None:
        server = state.sched
        if server.budget <= 0:
            self.account_past_budget(state, ran)
            return  # background work (R7): free
        before = server.consumed
        spent = ran if ran < server.budget else server.budget
        server.consumed += spent
        server.budget -= spent
        if server.budget == 0:
            server.stamp += 1
            server.inserted = t
            if self.sim.tracing:
                self.sim.emit(t, state.cpu, "exhaust", vcpu=state.name)
            if state.runnable:
                self.enqueue(state)
                self.on_overrun(state)
            self.resched(state.cpu)
        self.on_charged(state, before, t)

    def on_overrun(self, state: ServerState) -> None:
        """*state* used its whole budget and still holds work: its demand in this period
        exceeds its declaration (:mod:`..budgets`)."""
        account = state.stats.budget
        assert account is not None
        account.overrun_periods += 1

    def account_past_budget(self, state: ServerState, ran: int) -> None:
        """*state* ran *ran* ns past its budget (R7): the budget account, and whether it ran
        ahead of a vCPU that held work and budget, or (HI) of a LO vCPU with work."""
        server = state.sched
        server.past += ran
        ahead = False
        for other in self.sim.on_cpu[state.cpu]:
            if other is state or not other.runnable:
                continue
            if other.sched.budget > 0:
                ahead = True
                kept = other.stats.budget
                assert kept is not None
                kept.kept_from_budget_ns += ran
            elif state.is_hi and not other.is_hi:
                ahead = True
        account = state.stats.budget
        assert account is not None
        account.past_budget(ran, server.past, ahead)

    def describe(self, state: ServerState) -> tuple[int, str, int]:
        server = state.sched
        return server.deadline, key_text(server.key), server.budget

    def slice_end(self, state: ServerState, t: int) -> int:
        """When an active vCPU dispatched at *t* must be looked at again: its budget's end."""
        return t + state.sched.budget

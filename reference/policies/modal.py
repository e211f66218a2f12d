"""Modal servers (rules R4-R7, R10, R13): the mode machinery of ``akita``, ``edf-vd`` and ``amc``.

Mixed-criticality scheduling after Vestal (RTSS 2007) runs each processor in
one of two modes.  Every vCPU is a periodic server (:mod:`.server`); each
pCPU is in LO mode at first (R13) and its run queues order the vCPUs two ways:

* **LO mode** (R4): the active runnable vCPU with the lowest LO-mode key
  (:meth:`~.server.ServerPolicy.key_of`) runs, with its remaining budget as
  the slice.
* **LO -> HI** (R5): a HI vCPU that has consumed its :meth:`switch point
  <ModalServerPolicy.switch_point>` (``C_opt``) in its period and is still
  runnable asks for its pessimistic budget (:meth:`~ModalServerPolicy.ask_pessimistic`):
  the pCPU :meth:`switches <ModalServerPolicy.switch>` to HI mode.  It is
  checked when the vCPU reaches the point (so a HI vCPU short of it is looked
  at again then, R10: :meth:`~ModalServerPolicy.slice_end`) and when it is
  picked having passed it (it blocked exactly there and woke).
* **HI mode** (R6): the active runnable HI vCPU with the lowest HI-mode key
  (:meth:`~ModalServerPolicy.hi_key`) runs.
* **Background** (R7, work conservation): with no eligible active vCPU, LO
  mode runs an inactive runnable vCPU in
  :meth:`~ModalServerPolicy.background_key` order, uncharged.  HI mode, with
  ``hi_mode_order = "capped"`` (the default: budgets enforced, R3), runs --
  only if :attr:`~ModalServerPolicy.lo_in_hi_mode` -- the active runnable LO
  vCPUs in queue order (charged), then the inactive runnable LO ones, and
  the inactive runnable HI vCPUs only when no LO vCPU is runnable: a HI
  vCPU past ``C_pes`` is held to its budget while a LO vCPU wants the pCPU.
  With ``"hi-first"`` it runs the inactive runnable HI vCPUs first, then the
  active LO vCPUs, then the inactive LO ones: "in the high critical mode,
  Akita ignores low-criticality vCPUs" while a HI vCPU is runnable.  With
  ``"budget-first"`` it runs the active runnable LO vCPUs by deadline, then
  all inactive runnable vCPUs in background-key order.

What the switch does and how a pCPU leaves HI mode are the policy's.  The
defaults are the classic rule of AMC (Baruah, Burns and Davis, RTSS 2011) and
EDF-VD (Baruah et al., ECRTS 2012): at the switch, LO work is **dropped** --
the LO vCPUs' remaining budgets go to 0 (traced as ``exhaust``), LO periods
starting in HI mode get no budget, and LO vCPUs do not run in HI mode at all;
the pCPU returns to LO mode at the first instant in HI mode at which no HI
vCPU is both runnable and holds budget, an idle instant of the HI work the
analysis accounts for.  ``akita`` (:mod:`akita.reference.policies.akita`)
keeps serving LO work and leaves HI mode by temperatures instead.

The public hooks a policy (or a mutant, :mod:`akita.reference.mutants`)
overrides: :meth:`~ModalServerPolicy.switch_point`,
:meth:`~ModalServerPolicy.ask_pessimistic`, :meth:`~ModalServerPolicy.switch`
and :meth:`~ModalServerPolicy.on_switch`,
:meth:`~ModalServerPolicy.returns_to_lo`, :meth:`~ModalServerPolicy.hi_key`,
:meth:`~ModalServerPolicy.background_key`, :meth:`~ModalServerPolicy.background`
and :meth:`~ModalServerPolicy.slice_end`.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Callable

from ..runqueue import Key
from .server import ServerPolicy, ServerQueue, ServerState, key_text

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["ModeCPU", "ModalServerPolicy"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R4": ("ModalServerPolicy.pick",),
    "R5": ("ModalServerPolicy.on_charged", "ModalServerPolicy.switch_point",
           "ModalServerPolicy.ask_pessimistic", "ModalServerPolicy.switch",
           "ModalServerPolicy.pick"),
    "R6": ("ModalServerPolicy.pick",),
    "R7": ("ModalServerPolicy.pick", "ModalServerPolicy.background"),
    "R3": ("ModalServerPolicy.background", "ModalServerPolicy.on_overrun"),
    "R10": ("ModalServerPolicy.slice_end",),
    "R13": ("ModeCPU",),
}


class ModeCPU:
    """One pCPU's mode and run queues; every pCPU starts in LO mode (R13)."""

    __slots__ = ("hi", "lo_mode", "hi_mode", "lo_active", "inactive_hi", "inactive_lo")

    def __init__(self, queue: Callable[[], ServerQueue]) -> None:
        self.hi = False  # R13
        self.lo_mode = queue()  # active runnable, LO-mode key (R4)
        self.hi_mode = queue()  # active runnable HI, HI-mode key (R6)
        self.lo_active = queue()  # active runnable LO, background key (R7 in HI mode)
        self.inactive_hi = queue()  # inactive runnable HI, background key (R7)
        self.inactive_lo = queue()  # inactive runnable LO, background key (R7)


class ModalServerPolicy(ServerPolicy):
    """Periodic servers with a LO/HI mode per pCPU; LO work dropped in HI mode by default."""

    #: Whether LO vCPUs run in HI mode when no HI vCPU does (R7); never, by default.
    lo_in_hi_mode: bool = False

    cpus: list[ModeCPU]

    #: What HI mode runs when no HI vCPU with budget is runnable (R3, R7): the host's
    #: ``hi_mode_order``, ``"capped"``, ``"hi-first"`` or ``"budget-first"``, and the same
    #: as :class:`~akita.model.SchedulerOptions` decodes it.
    hi_mode_order: str = "capped"
    #: Whether HI mode runs the HI vCPUs without budget before any LO vCPU (R7).
    hi_first: bool = False
    #: Whether budgets are enforced in HI mode: a HI vCPU past its budget runs only when no
    #: LO vCPU can (R3).
    capped: bool = True
    #: Whether HI mode runs the LO vCPUs with budget by deadline (R7).
    budget_first: bool = False

    def setup_cpus(self, sim: Simulator) -> None:
        self.cpus = [ModeCPU(partial(self.new_queue, c)) for c in range(sim.host.pcpus)]
        options = sim.host.options
        self.hi_mode_order = options.hi_mode_order
        self.hi_first, self.capped, self.budget_first = (
            options.hi_first, options.capped, options.budget_first)

    # -- server parameters and queues ---------------------------------------------------

    def budget_of(self, state: ServerState) -> int:
        """``C_pes`` for a HI vCPU; ``C_opt`` for a LO one, but none in HI mode (dropped)."""
        if state.is_hi:
            return state.vm.c_max  # C_pes
        return 0 if self.cpus[state.cpu].hi else state.vm.c_opt

    def hi_key(self, state: ServerState) -> Key:
        """A HI vCPU's key in HI mode (R6): its actual deadline by default."""
        return state.sched.deadline

    def background_key(self, state: ServerState) -> Key:
        """The key of a vCPU run as background work (R7): its deadline by default."""
        return state.sched.deadline

    def lo_key_in_hi_mode(self, state: ServerState) -> Key:
        """The key of a LO vCPU with budget in HI mode (R7): none with ``"capped"`` and
        ``"hi-first"`` -- HI mode ignores LO vCPUs' deadlines, so they run in queue order --
        its deadline with ``"budget-first"``."""
        return self.background_key(state) if self.budget_first else 0

    def enqueue(self, state: ServerState) -> None:
        server = state.sched
        cpu = self.cpus[state.cpu]
        tie = self.tie_of(state)
        if server.budget > 0:
            cpu.lo_mode.push(server.key, tie, server.stamp, state)
            if state.is_hi:
                cpu.hi_mode.push(self.hi_key(state), tie, server.stamp, state)
            else:
                cpu.lo_active.push(self.lo_key_in_hi_mode(state), tie, server.stamp, state)
        else:
            queue = cpu.inactive_hi if state.is_hi else cpu.inactive_lo
            queue.push(self.background_key(state), tie, server.stamp, state)

    # -- modes (R5, R9) ----------------------------------------------------------------

    def switch_point(self, state: ServerState) -> int:
        """The consumption in its period at which a running HI vCPU asks for its
        pessimistic budget (R5): ``C_opt``."""
        return state.vm.c_opt

    def ask_pessimistic(self, state: ServerState, t: int) -> None:
        """R5: HI vCPU *state* passed its switch point and is still runnable; the
        pCPU switches to HI mode if it is not there yet."""
        if not self.cpus[state.cpu].hi:
            self.switch(state.cpu, True, t, trigger=state)

    def switch(self, c: int, hi: bool, t: int, trigger: ServerState | None = None) -> None:
        """Put pCPU *c* in HI (``hi``) or LO mode at *t*; *trigger* is the HI vCPU that
        asked for its pessimistic budget (LO -> HI only).  Then :meth:`on_switch`."""
        self.cpus[c].hi = hi
        self.sim.metrics.mode(c, t, hi)
        if trigger is None:
            self.sim.emit(t, c, "mode", mode="HI" if hi else "LO")
        else:
            self.sim.emit(t, c, "mode", mode="HI", vcpu=trigger.name)
        self.on_switch(c, hi, t)
        self.resched(c)

    def on_switch(self, c: int, hi: bool, t: int) -> None:
        """What a switch of pCPU *c* does: into HI mode, LO work is dropped."""
        if hi:
            self.drop_lo_budgets(c, t)

    def drop_lo_budgets(self, c: int, t: int) -> None:
        """The LO vCPUs of pCPU *c* lose what is left of their budgets (traced as ``exhaust``)."""
        sim = self.sim
        for state in sim.on_cpu[c]:
            server = state.sched
            if state.is_hi or server.budget <= 0:
                continue
            server.budget = 0
            server.stamp += 1
            server.inserted = t
            if sim.tracing:
                sim.emit(t, c, "exhaust", vcpu=state.name)
            if state.runnable:
                self.enqueue(state)

    def on_overrun(self, state: ServerState) -> None:
        """A HI vCPU past ``C_pes`` in HI mode holds the pCPU there (:mod:`...budgets`)."""
        super().on_overrun(state)
        if state.is_hi and self.cpus[state.cpu].hi:
            self.sim.metrics.overran(state.cpu, state.name)

    def returns_to_lo(self, cpu: ModeCPU) -> bool:
        """Whether a pCPU in HI mode that decides goes back to LO mode first: at an
        idle instant of HI work (no HI vCPU runnable with budget), by default."""
        return cpu.hi_mode.peek() is None

    def on_charged(self, state: ServerState, before: int, t: int) -> None:
        """R5: a running HI vCPU that reaches its switch point and is still runnable."""
        if (state.is_hi and before < self.switch_point(state) <= state.sched.consumed
                and state.runnable):
            self.ask_pessimistic(state, t)

    # -- the choice (R4, R5 on pick, R6, R7, R10) -------------------------------------

    def pick(self, c: int, t: int) -> tuple[ServerState | None, int | None]:
        cpu = self.cpus[c]
        if cpu.hi and self.returns_to_lo(cpu):
            self.switch(c, False, t)
        if not cpu.hi:
            state = cpu.lo_mode.peek()
            if state is None:
                return self.background(cpu), None
            if state.is_hi and state.sched.consumed >= self.switch_point(state):
                self.ask_pessimistic(state, t)  # R5 on pick: woke having passed it
            if not cpu.hi:
                return state, self.slice_end(state, t)
        state = cpu.hi_mode.peek()
        if state is not None:
            return state, self.slice_end(state, t)
        if self.hi_first:
            state = cpu.inactive_hi.peek()
            if state is not None:
                return state, None
        if self.lo_in_hi_mode:
            state = cpu.lo_active.peek()
            if state is not None:
                return state, self.slice_end(state, t)
        return self.background(cpu), None

    def slice_end(self, state: ServerState, t: int) -> int:
        """The budget's end; a HI vCPU short of its switch point is looked at again
        when it reaches the point (R10)."""
        server = state.sched
        if state.is_hi:
            point = self.switch_point(state)
            if server.consumed < point:
                return t + min(server.budget, point - server.consumed)
        return t + server.budget

    def background(self, cpu: ModeCPU) -> ServerState | None:
        """R7: the inactive runnable vCPU to run uncharged, first in background-key
        order (ties in queue order); LO ones in HI mode only if :attr:`lo_in_hi_mode`, and
        there, with ``hi_mode_order = "capped"`` (R3), before every HI one."""
        hi = cpu.inactive_hi.peek_entry()
        lo = cpu.inactive_lo.peek_entry() if (self.lo_in_hi_mode or not cpu.hi) else None
        if lo is not None and cpu.hi and self.capped:
            return lo[3]  # R3: a HI vCPU past C_pes only when no LO vCPU can run
        if hi is None or (lo is not None and lo[:2] < hi[:2]):
            return lo[3] if lo is not None else None
        return hi[3]

    def describe(self, state: ServerState) -> tuple[int, str, int]:
        server = state.sched
        cpu = self.cpus[state.cpu]
        if server.budget <= 0 or (cpu.hi and not state.is_hi):
            key = self.background_key(state)
        elif cpu.hi:
            key = self.hi_key(state)
        else:
            key = server.key
        return server.deadline, key_text(key), server.budget

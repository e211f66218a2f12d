"""``akita``: the Akita policy (rules R2-R10, R13) on each pCPU.

Source: Asyabi et al., "Akita: A CPU scheduler for virtualized Clouds",
Sections 3.3-3.5.  Every vCPU is a periodic server (:mod:`.server`); a LO
vCPU's budget is ``C_opt``, a HI vCPU's ``C_pes``.

* **R13** Every pCPU starts in LO mode.
* **R2** At a HI vCPU's period start ``s`` its virtual deadline is
  ``s + x T``, with ``x`` from the EDF-VD verdict of its pCPU (exact).
* **R4** LO mode: the active runnable vCPU with the earliest key runs --
  the virtual deadline of a HI vCPU, the deadline of a LO one -- with its
  remaining budget as the slice.
* **R5** LO -> HI: when a running HI vCPU has consumed ``C_opt`` in its
  period and is still runnable, the pCPU switches to HI mode at once and
  the vCPU's temperature is set to ``initial_temperature``.  (In HI mode the
  same event re-heats the vCPU.)  A HI vCPU found at the head of the LO
  queue having already consumed ``C_opt`` (it blocked exactly there and
  woke) triggers the switch when it is picked.
* **R6** HI mode: the active runnable HI vCPU with the earliest *actual*
  deadline runs (``hi_mode_deadline = "virtual"`` keeps the virtual ones).
* **R7** Work conservation: with no eligible active vCPU, HI mode runs the
  active runnable LO vCPUs by deadline (if ``lo_in_hi_mode``), then either
  mode runs an inactive runnable vCPU by deadline (LO ones in HI mode only
  if ``lo_in_hi_mode``).  Background time is not charged to budgets.
* **R8** At a HI vCPU's period start, a positive temperature drops by one
  if the vCPU did not ask for its pessimistic budget in the period just
  ended.
* **R9** HI -> LO: evaluated right after each HI vCPU's period start (the
  only instants a temperature falls): when no HI vCPU of the pCPU has a
  positive temperature.
* **R10** The pCPU decides again at a period start, a block, a budget
  exhaustion, a HI vCPU reaching ``C_opt``, and -- if ``wake_preempts`` -- a
  wake.
"""

from __future__ import annotations

from fractions import Fraction

from .server import ServerPolicy, exact, key_text

__all__ = ["AkitaPolicy"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/test_traceability.py checks every name).
__rules__ = {
    "R2": ("AkitaPolicy.budget_of", "AkitaPolicy.key_of"),
    "R4": ("AkitaPolicy.pick",),
    "R5": ("AkitaPolicy.on_charged", "AkitaPolicy._ask_pessimistic"),
    "R6": ("AkitaPolicy.pick", "AkitaPolicy.hi_key"),
    "R7": ("AkitaPolicy.pick", "AkitaPolicy._background"),
    "R8": ("AkitaPolicy.on_release",),
    "R9": ("AkitaPolicy.on_release", "AkitaPolicy._switch"),
    "R10": ("AkitaPolicy._slice_end",),
    "R13": ("_CPU",),
}


class _CPU:
    """One pCPU's mode, ``x`` and run queues."""

    __slots__ = ("hi", "x", "lo_mode", "hi_mode", "lo_active", "inactive_hi", "inactive_lo")

    def __init__(self, x: Fraction, queue) -> None:
        self.hi = False  # R13
        self.x = x
        self.lo_mode = queue()  # active runnable, LO-mode key (R4)
        self.hi_mode = queue()  # active runnable HI, HI-mode key (R6)
        self.lo_active = queue()  # active runnable LO, by deadline (R7 in HI mode)
        self.inactive_hi = queue()  # inactive runnable HI, by deadline (R7)
        self.inactive_lo = queue()  # inactive runnable LO, by deadline (R7)


class AkitaPolicy(ServerPolicy):
    """Akita: EDF-VD with LO/HI modes and temperatures, per pCPU."""

    name = "akita"

    def setup_cpus(self, sim) -> None:
        options = sim.host.options
        self.initial_temperature = options.initial_temperature
        self.virtual_in_hi = options.hi_mode_deadline == "virtual"
        self.lo_in_hi_mode = options.lo_in_hi_mode
        self.cpus = []
        for c, load in enumerate(sim.placement.pcpus):
            x = load.verdict.x if load.verdict.x is not None else Fraction(1)
            self.cpus.append(_CPU(x, lambda c=c: self.new_queue(c)))

    # -- server parameters (R2) ------------------------------------------------------

    def budget_of(self, state) -> int:
        return state.vm.c_pes if state.is_hi else state.vm.c_opt

    def key_of(self, state, release: int):
        """LO-mode key: the virtual deadline of a HI vCPU, the deadline of a LO one."""
        period = state.vm.period
        if state.is_hi:
            return exact(release + self.cpus[state.cpu].x * period)
        return release + period

    def hi_key(self, state):
        server = state.sched
        return server.key if self.virtual_in_hi else server.deadline

    def enqueue(self, state) -> None:
        server = state.sched
        cpu = self.cpus[state.cpu]
        tie = self.tie_of(state)
        if server.budget > 0:
            cpu.lo_mode.push(server.key, tie, server.stamp, state)
            if state.is_hi:
                cpu.hi_mode.push(self.hi_key(state), tie, server.stamp, state)
            else:
                cpu.lo_active.push(server.deadline, tie, server.stamp, state)
        else:
            queue = cpu.inactive_hi if state.is_hi else cpu.inactive_lo
            queue.push(server.deadline, tie, server.stamp, state)

    # -- modes and temperatures (R5, R8, R9) --------------------------------------------

    def _switch(self, cpu: int, hi: bool, t: int, trigger=None) -> None:
        self.cpus[cpu].hi = hi
        self.sim.metrics.mode(cpu, t, hi)
        if trigger is None:
            self.sim.emit(t, cpu, "mode", mode="HI" if hi else "LO")
        else:
            self.sim.emit(t, cpu, "mode", mode="HI", vcpu=trigger.name)
        self.sim.resched(cpu)

    def _ask_pessimistic(self, state, t: int) -> None:
        """R5: a HI vCPU consumed C_opt and is still runnable."""
        server = state.sched
        server.asked = True
        if server.temperature != self.initial_temperature:
            server.temperature = self.initial_temperature
            self.sim.emit(t, state.cpu, "temperature", vcpu=state.name,
                          temperature=server.temperature)
        if not self.cpus[state.cpu].hi:
            self._switch(state.cpu, True, t, trigger=state)

    def on_charged(self, state, before: int, t: int) -> None:
        if state.is_hi and before < state.vm.c_opt <= state.sched.consumed and state.runnable:
            self._ask_pessimistic(state, t)

    def on_release(self, state, t: int) -> None:
        if not state.is_hi:
            return
        server = state.sched
        if server.temperature > 0 and not server.asked:  # R8
            server.temperature -= 1
            self.sim.emit(t, state.cpu, "temperature", vcpu=state.name,
                          temperature=server.temperature)
        server.asked = False
        cpu = self.cpus[state.cpu]
        if cpu.hi and all(  # R9
            peer.sched.temperature == 0 for peer in self.sim.on_cpu[state.cpu] if peer.is_hi
        ):
            self._switch(state.cpu, False, t)

    # -- the choice (R4, R6, R7) ---------------------------------------------------------

    def pick(self, c: int, t: int):
        cpu = self.cpus[c]
        if not cpu.hi:
            state = cpu.lo_mode.peek()
            if state is None:
                return self._background(cpu), None
            if not (state.is_hi and state.sched.consumed >= state.vm.c_opt):
                return state, self._slice_end(state, t)
            self._ask_pessimistic(state, t)  # R5 on pick: woke having consumed C_opt
        state = cpu.hi_mode.peek()
        if state is not None:
            return state, self._slice_end(state, t)
        if self.lo_in_hi_mode:
            state = cpu.lo_active.peek()
            if state is not None:
                return state, self.slice_end(state, t)
        return self._background(cpu), None

    def _slice_end(self, state, t: int) -> int:
        """A HI vCPU short of C_opt is looked at again when it reaches C_opt (R10)."""
        server = state.sched
        if state.is_hi and server.consumed < state.vm.c_opt:
            return t + min(server.budget, state.vm.c_opt - server.consumed)
        return t + server.budget

    def _background(self, cpu: _CPU):
        hi = cpu.inactive_hi.peek_entry()
        lo = cpu.inactive_lo.peek_entry() if (self.lo_in_hi_mode or not cpu.hi) else None
        if hi is None or (lo is not None and lo[:2] < hi[:2]):
            return lo[3] if lo is not None else None
        return hi[3]

    def describe(self, state):
        server = state.sched
        cpu = self.cpus[state.cpu]
        if server.budget <= 0:
            key = server.deadline
        elif cpu.hi and state.is_hi:
            key = self.hi_key(state)
        elif cpu.hi:
            key = server.deadline
        else:
            key = server.key
        return server.deadline, key_text(key), server.budget

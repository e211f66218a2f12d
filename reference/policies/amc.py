"""``amc``: Adaptive Mixed Criticality, fixed priorities, per pCPU.

Baruah, Burns and Davis, "Response-Time Analysis for Mixed Criticality
Systems", RTSS 2011 (AMC, analysed by AMC-rtb, :mod:`akita.model.amc`).
Every vCPU is a periodic server (:mod:`.server`): a LO vCPU's budget is
``C_opt``, a HI vCPU's ``C_pes``.  Priorities are fixed per pCPU, by
Audsley's assignment for AMC-rtb (rate monotonic whenever that passes);
the trace's ``key`` is the priority rank (0 highest).

* Every pCPU starts in LO mode.
* **LO mode**: the active runnable vCPU of highest priority runs, with its
  remaining budget as the slice -- but a HI vCPU runs at most ``C_opt`` per
  period in LO mode.
* **LO -> HI**: when a HI vCPU has consumed ``C_opt`` in its period and is
  still runnable (checked when it reaches ``C_opt``, and when it is picked
  having consumed it), the pCPU switches to HI mode.  LO work is
  **dropped**: the LO vCPUs' remaining budgets go to 0 (traced as
  ``exhaust``), and LO periods starting in HI mode get no budget.
* **HI mode**: the active runnable HI vCPU of highest priority runs, up to
  its ``C_pes``.  LO vCPUs do not run at all, not even as background.
* **HI -> LO**: at the first instant in HI mode at which no HI vCPU is both
  runnable and holds budget -- an idle instant of the HI work the analysis
  accounts for.  LO vCPUs get budget again at their next period start.
* **Background** (work conservation, as ``edf``): with no eligible active
  vCPU, the inactive runnable vCPU of highest priority runs uncharged -- any
  vCPU in LO mode (which, by the rule above, is where that happens).

The return rule is AMC's "idle instant" read for servers: the processor is
never idle while a cpu-bound vCPU exists, but once every HI vCPU's budgeted
demand is served and no LO budget is left (dropped at the switch), no work
the analysis counts is pending, so LO mode restarts from a clean state.
Placement is first fit with ``"amc-rtb"``, whatever the host's test names.
"""

from __future__ import annotations

from akita.model import amc_priorities, rm_order

from .rm import place_with, ranks
from .server import ServerPolicy

__all__ = ["AMCPolicy", "drop_lo_budgets"]


def drop_lo_budgets(policy, cpu: int, t: int) -> None:
    """At a switch to HI mode: the LO vCPUs of *cpu* lose what is left of their budgets."""
    sim = policy.sim
    for state in sim.on_cpu[cpu]:
        server = state.sched
        if state.is_hi or server.budget <= 0:
            continue
        server.budget = 0
        server.stamp += 1
        if sim.tracing:
            sim.emit(t, cpu, "exhaust", vcpu=state.name)
        if state.runnable:
            policy.enqueue(state)


class _CPU:
    __slots__ = ("hi", "active", "hi_active", "inactive_hi", "inactive_lo")

    def __init__(self, queue) -> None:
        self.hi = False
        self.active = queue()  # active runnable, all (LO mode)
        self.hi_active = queue()  # active runnable HI (HI mode)
        self.inactive_hi = queue()
        self.inactive_lo = queue()


def _amc_order(vcpus):
    order = amc_priorities(vcpus)
    return rm_order(vcpus) if order is None else order  # a pCPU AMC-rtb did not admit


class AMCPolicy(ServerPolicy):
    """AMC: fixed priorities, LO work dropped in HI mode."""

    name = "amc"
    test = "amc-rtb"

    def place(self, host):
        return place_with(host, self.test)

    def setup_cpus(self, sim) -> None:
        self.rank = ranks(sim, _amc_order)
        self.cpus = [_CPU(lambda c=c: self.new_queue(c)) for c in range(sim.host.pcpus)]

    def budget_of(self, state) -> int:
        if state.is_hi:
            return state.vm.c_pes
        return 0 if self.cpus[state.cpu].hi else state.vm.c_opt

    def key_of(self, state, release: int) -> int:
        return self.rank[state.name]

    def enqueue(self, state) -> None:
        server = state.sched
        cpu = self.cpus[state.cpu]
        key, tie, stamp = server.key, state.order, server.stamp
        if server.budget > 0:
            cpu.active.push(key, tie, stamp, state)
            if state.is_hi:
                cpu.hi_active.push(key, tie, stamp, state)
        else:
            (cpu.inactive_hi if state.is_hi else cpu.inactive_lo).push(key, tie, stamp, state)

    # -- modes -----------------------------------------------------------------------------

    def _switch(self, c: int, hi: bool, t: int, trigger=None) -> None:
        self.cpus[c].hi = hi
        self.sim.metrics.mode(c, t, hi)
        fields = {"vcpu": trigger.name} if trigger is not None else {}
        self.sim.emit(t, c, "mode", mode="HI" if hi else "LO", **fields)
        if hi:
            drop_lo_budgets(self, c, t)
        self.resched(c)

    def on_charged(self, state, before: int, t: int) -> None:
        vm = state.vm
        if state.is_hi and before < vm.c_opt <= state.sched.consumed and state.runnable:
            if not self.cpus[state.cpu].hi:
                self._switch(state.cpu, True, t, trigger=state)

    # -- the choice ------------------------------------------------------------------------

    def pick(self, c: int, t: int):
        cpu = self.cpus[c]
        if cpu.hi and cpu.hi_active.peek() is None:
            self._switch(c, False, t)  # an idle instant of HI work
        if not cpu.hi:
            state = cpu.active.peek()
            if state is None:
                return self._background(cpu), None
            if not (state.is_hi and state.sched.consumed >= state.vm.c_opt):
                return state, self._slice_end(state, t)
            self._switch(c, True, t, trigger=state)  # woke having consumed C_opt
        state = cpu.hi_active.peek()
        return state, self._slice_end(state, t)

    def _slice_end(self, state, t: int) -> int:
        """A HI vCPU short of ``C_opt`` is looked at again when it reaches it."""
        server = state.sched
        if state.is_hi and server.consumed < state.vm.c_opt:
            return t + min(server.budget, state.vm.c_opt - server.consumed)
        return t + server.budget

    @staticmethod
    def _background(cpu: _CPU):
        hi = cpu.inactive_hi.peek_entry()
        lo = cpu.inactive_lo.peek_entry()
        if hi is None or (lo is not None and lo[:2] < hi[:2]):
            return lo[3] if lo is not None else None
        return hi[3]

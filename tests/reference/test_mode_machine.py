"""R5, R8, R9 driven period by period by a Hypothesis state machine.

One pCPU holds a HI vCPU (T = 10ms, C_opt = 2ms, C_pes = 6ms) and a
cpu-bound LO vCPU (C_opt = 3ms); x = 1, and the HI vCPU, first on ties, runs
at each period start.  Each step chooses the HI job of the next period: none,
quiet (at most C_opt, C_opt itself included) or hot (more than C_opt).  The
machine keeps the rules' abstract state -- mode, temperature, LO->HI
switches -- and after each step the simulator, run from time 0 over the
periods so far, must agree.
"""

import pytest

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine, initialize, invariant, precondition, rule,
)

from akita.model import VM, Criticality, Host, SchedulerOptions, Workload, first_fit
from akita.reference.policies import AkitaPolicy
from akita.reference.simulator import Simulator

pytestmark = pytest.mark.rule("R5", "R8", "R9", "R13")

MS = 1_000_000
T, C_OPT, C_PES = 10 * MS, 2 * MS, 6 * MS


class ModeRules(RuleBasedStateMachine):
    @initialize(initial=st.integers(1, 3))
    def start(self, initial):
        self.initial = initial
        self.demands: list[int | None] = []
        self.hi = False  # R13
        self.temperature = 0
        self.switches = 0
        self.asked = False

    @rule(demand=st.sampled_from([None, MS, C_OPT, C_OPT + 100_000, 4 * MS, C_PES]))
    def period(self, demand):
        if self.demands:  # a period start after the first: R8, then R9
            if self.temperature > 0 and not self.asked:
                self.temperature -= 1
            if self.hi and self.temperature == 0:
                self.hi = False
        self.asked = demand is not None and demand > C_OPT  # R5 condition
        if self.asked:
            self.temperature = self.initial
            if not self.hi:
                self.hi = True
                self.switches += 1
        self.demands.append(demand)

    @precondition(lambda self: bool(getattr(self, "demands", None)))  # after a first period
    @invariant()
    def simulator_agrees(self):
        policy = self._simulate()
        assert policy.cpus[0].hi == self.hi
        hi = next(v for v in policy.sim.vcpus if v.is_hi)
        assert hi.sched.temperature == self.temperature
        assert policy.sim.metrics.cpus[0].mode_switches == self.switches
        assert policy.sim.metrics.vms["hi"].hi_misses == 0

    def _simulate(self, tmp=None):
        import os
        import tempfile

        lines = [f"{k * 10}ms, {d}ns" for k, d in enumerate(self.demands) if d is not None]
        handle, path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(handle, "w") as out:
            out.write("\n".join(lines) + "\n")
        try:
            host = Host(1, [
                VM("hi", Criticality.HI, T, C_OPT, C_PES, workload=Workload("trace", path=path)),
                VM("lo", Criticality.LO, T, 3 * MS),
            ], options=SchedulerOptions(initial_temperature=self.initial))
            policy = AkitaPolicy()
            Simulator(host, first_fit(host), policy, duration=len(self.demands) * T).run()
            return policy
        finally:
            os.unlink(path)


ModeRules.TestCase.settings = settings(max_examples=60, stateful_step_count=12, deadline=None)
test_mode_rules = ModeRules.TestCase

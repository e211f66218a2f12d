"""budgets_hold (R3, R7): budget isolation proved for the Type1 pair, refuted for the other
readings, with a counterexample in domain words."""

from __future__ import annotations

import pytest

from akita.proofs import budget_isolation as bi
from akita.proofs.verdict import PROVED, REFUTED


def by_name(name: str):
    return next(o for o in bi.OBLIGATIONS if o.name == name)


@pytest.mark.rule("R3", "R7")
def test_the_pair_is_the_issue_host_over_two_hyperperiods_with_every_phase():
    pcpu = bi.type1_beside_type2()
    assert [(v.name, v.hi, v.period, v.c_opt, v.full) for v in pcpu.vcpus] == [
        ("hi/0", True, 20, 1, 5), ("lo/0", False, 20, 5, 5)]  # 5 ms ticks
    assert all(v.phase is None for v in pcpu.vcpus)
    assert pcpu.hi_mode_order == "capped" and bi.HORIZON == 40


@pytest.mark.rule("R3", "R7")
def test_budgets_hold_under_capped():
    verdict = by_name("budgets_hold").check(60)
    assert verdict.verdict == PROVED, verdict.reason


@pytest.mark.rule("R3", "R7")
@pytest.mark.parametrize("control", ["control_hi_first_overruns",
                                     "control_budget_first_overruns"])
def test_the_other_readings_are_refuted_with_the_hi_vcpu_past_its_budget(control):
    obligation = by_name(control)
    assert obligation.controls == ("budgets_hold",)
    verdict = obligation.check(60)
    assert verdict.verdict == REFUTED, verdict.reason
    schedule = verdict.counterexample["schedule"]
    assert any(s["vcpu"] == "hi/0" for s in schedule)
    assert any(job["vcpu"] == "hi/0" and job["demand_ns"] > 25_000_000
               for job in verdict.counterexample["jobs"])

"""The Z3 encoding of R11 and the EDF-VD proof obligations.

Every obligation of :mod:`akita.proofs.edf_vd_formula` and
:mod:`akita.proofs.edf_vd_bounds` reaches its expected verdict within its
timeout; the Z3 formula agrees with the exact reference test on generated
task sets and on the boundary sets that floats get wrong; negative controls
are refuted with counterexamples that name vCPUs and fields, and that the
reference test confirms when replayed.
"""

from fractions import Fraction as F

import pytest
import z3
from hypothesis import given
from hypothesis import strategies as st
from strategies import vcpu_sets
from boundary import EXACTLY_ONE, MS, sums

from akita.model import VM, Criticality, UtilizationSums, edf_vd_test, parse_duration
from akita.model.smt.edf_vd import (
    NO_X,
    SymbolicVCPU,
    as_real,
    concrete_sums,
    decide,
    evaluate,
    schedulable,
    schedulable_by_cases,
    symbolic_sums,
    x_of,
)
from akita.model.smt.named import Constraints, solve
from akita.proofs import edf_vd_bounds, edf_vd_formula
from akita.proofs.support import realize

pytestmark = pytest.mark.rule("R11")

OBLIGATIONS = edf_vd_formula.OBLIGATIONS + edf_vd_bounds.OBLIGATIONS


@pytest.mark.parametrize("obligation", OBLIGATIONS, ids=lambda o: o.name)
def test_each_statement_cites_its_source(obligation):
    statement = obligation.statement
    assert any(source in statement for source in ("Baruah", "Akita paper", "docs/")), statement
    if obligation.expected == "refuted" and obligation.name.startswith("negative_control"):
        assert statement.startswith("Negative control (false)")


# -- the formula against the reference --------------------------------------


@given(vcpu_sets())
def test_z3_formula_agrees_with_the_reference_on_generated_sets(vcpus):
    sums_ = UtilizationSums.of(vcpus)
    verdict = edf_vd_test(sums_)
    assert decide(sums_) == (verdict.schedulable, verdict.x)
    assert evaluate(schedulable_by_cases(*concrete_sums(sums_))) == verdict.schedulable


@pytest.mark.parametrize("los, his", EXACTLY_ONE)
def test_z3_decides_the_float_boundary_sets_exactly(los, his):
    s = sums(los, his, MS)
    schedulable_, x = decide(s)
    assert schedulable_ and x * s.lo_lo + s.hi_hi == 1


def test_z3_rejects_one_plus_an_attosecond_fraction():
    t1, t2 = 10**9 + 7, 10**9 + 9
    s = sums(
        [(50 * MS, 100 * MS)], [(100_000_000, 400_000_004, t1), (100_000_000, 400_000_004, t2)], 1
    )
    assert decide(s)[0] is False


def test_x_of_marks_an_undefined_x():
    # Type6 + four Type2: U1 = 1, U3 = 1/2: the reference has no x.
    assert evaluate(x_of(F(1), F(1, 10), F(1, 2))) == NO_X
    assert evaluate(x_of(F(3, 4), F(1, 10), F(1, 2))) == F(2, 5)  # Fig. 7
    assert evaluate(x_of(F(3, 4), F(1, 20), F(1, 4))) == 1  # Fig. 5


def test_no_float_enters_a_formula():
    with pytest.raises(TypeError, match="Fraction"):
        schedulable(0.5, 0, 0)
    with pytest.raises(TypeError):
        as_real(True)


def test_evaluate_refuses_a_formula_with_free_variables():
    with pytest.raises(ValueError, match="not a ground formula"):
        evaluate(schedulable(z3.Real("U1"), 0, 0))


def test_generated_sets_are_fixed_balanced_and_reach_the_boundary():
    sets = edf_vd_formula.generated_sets()
    assert len(sets) == 520 and sets == edf_vd_formula.generated_sets()
    verdicts = [edf_vd_test(UtilizationSums.of(vm.vcpu(0) for vm in s)) for s in sets]
    assert 0.3 < sum(v.schedulable for v in verdicts) / len(sets) < 0.7
    assert {len(s) for s in sets[:500]} == set(range(1, 7))
    for s, v in zip(sets[500:], verdicts[500:]):
        assert s[-1].name == "hi" and v.sums.lo_lo + v.sums.hi_hi > 1
        assert v.schedulable and v.x * v.sums.lo_lo + v.sums.hi_hi == 1 and v.x < 1


# -- domain names -------------------------------------------------------------


def test_symbolic_vcpus_carry_domain_names_and_named_constraints():
    vcpu = SymbolicVCPU("vm3")
    assert (str(vcpu.c_opt), str(vcpu.period), str(vcpu.is_hi)) == (
        "vm3.c_opt",
        "vm3.period",
        "vm3.is_hi",
    )
    constraints = Constraints()
    u1, _, _ = symbolic_sums([vcpu], constraints, max_period=10)
    names = [name for name, _ in constraints.items]
    assert "vm3: 1 <= c_opt <= period" in names and "U1 = sum of C_opt/T over LO vCPUs" in names
    # An impossible demand is explained by an unsat core in domain words.
    constraints.add("vm3 is LO", z3.Not(vcpu.is_hi))
    constraints.add("U1 > 1", u1 > 1)
    answer = solve(constraints, timeout=10, core=True)
    assert answer.status == "unsat"
    assert "U1 > 1" in answer.core and "vm3: 1 <= c_opt <= period" in answer.core


def test_a_symbolic_set_solves_to_a_task_set_the_reference_agrees_with():
    constraints = Constraints()
    vcpus = [SymbolicVCPU(f"vm{i}") for i in range(3)]
    sums_ = symbolic_sums(vcpus, constraints, max_period=20)
    constraints.add("needs EDF-VD: U1 + U3 > 1", sums_[0] + sums_[2] > 1)
    constraints.add("schedulable", schedulable(*sums_))
    answer = solve(constraints, timeout=10)
    assert answer.status == "sat"
    vms = []
    for vcpu in vcpus:
        d = vcpu.describe(answer.model, "ms")
        vms.append(
            VM(
                vcpu.name,
                Criticality(d["criticality"]),
                parse_duration(d["period"]),
                parse_duration(d["c_opt"]),
                parse_duration(d["c_pes"]) if "c_pes" in d else None,
            )
        )
    verdict = edf_vd_test(UtilizationSums.of(vm.vcpu(0) for vm in vms))
    assert verdict.schedulable and verdict.x < 1


# -- negative controls read in domain words and replay ------------------------


def test_no_guard_counterexample_names_vcpus_and_fields(outcomes):
    example = outcomes["negative_control_no_guard"].verdict.counterexample
    vcpus = {k: v for k, v in example.items() if k.startswith("vm")}
    assert vcpus and all({"criticality", "c_opt", "period"} <= set(v) for v in vcpus.values())
    assert F(example["U1"]) >= 1  # where the guard matters
    assert example["unguarded formula"] == "schedulable" and example["R11"] == "not schedulable"
    vms = [
        VM(
            name,
            Criticality(v["criticality"]),
            parse_duration(v["period"]),
            parse_duration(v["c_opt"]),
            parse_duration(v["c_pes"]) if "c_pes" in v else None,
        )
        for name, v in vcpus.items()
    ]
    assert not edf_vd_test(UtilizationSums.of(vm.vcpu(0) for vm in vms)).schedulable


@pytest.mark.parametrize(
    "name, schedulable_",
    [
        ("negative_control_corollary_4_5", False),
        ("utilization_bound_3_4_plus_1_100_fails", False),
        ("negative_control_tightness_at_eps_0", True),
        ("negative_control_x_below_9_10", True),
    ],
)
def test_sum_counterexamples_are_task_sets_that_replay(outcomes, name, schedulable_):
    example = outcomes[name].verdict.counterexample
    assert example["vcpus"]
    vms = [
        VM(
            vcpu.split("/")[0],
            Criticality(v["criticality"]),
            parse_duration(v["period"]),
            parse_duration(v["c_opt"]),
            parse_duration(v["c_pes"]) if "c_pes" in v else None,
        )
        for vcpu, v in example["vcpus"].items()
    ]
    verdict = edf_vd_test(UtilizationSums.of(vm.vcpu(0) for vm in vms))
    assert (verdict.sums.lo_lo, verdict.sums.hi_lo, verdict.sums.hi_hi) == tuple(
        F(example[k]) for k in ("U1", "U2", "U3")
    )
    assert verdict.schedulable is schedulable_
    assert example["reference"].startswith("schedulable" if schedulable_ else "not schedulable")


def test_tightness_counterexamples_sit_just_above_three_quarters(outcomes):
    example = outcomes["utilization_bound_3_4_plus_1_100_fails"].verdict.counterexample
    assert F(3, 4) < max(F(example["U1 + U2"]), F(example["U3"])) <= F(3, 4) + F(1, 100)
    assert outcomes["negative_control_tightness_at_eps_0"].verdict.counterexample["eps"] == "0"


def test_boundary_controls_point_at_a_boundary_set(outcomes):
    strict = outcomes["negative_control_strict_boundary"].verdict.counterexample
    floats = outcomes["negative_control_float_boundary"].verdict.counterexample
    for example in (strict, floats):
        task_set = edf_vd_formula.generated_sets()[example["set"]]
        assert set(example["vcpus"]) == {vm.vcpu(0).name for vm in task_set}
        verdict = edf_vd_test(UtilizationSums.of(vm.vcpu(0) for vm in task_set))
        u1, u3 = verdict.sums.lo_lo, verdict.sums.hi_hi
        assert verdict.schedulable and (u1 + u3 == 1 or verdict.x * u1 + u3 == 1)
        assert example["reference"].startswith("schedulable")
    assert floats["set"] >= 500  # one of the x*U1 + U3 = 1 sets


def test_realize_builds_exact_sums():
    for sums_ in [(F(5, 2), F(1, 3), F(7, 5)), (F(0), F(0), F(0)), (F(1, 7), F(0), F(0))]:
        vms = realize(*sums_)
        got = UtilizationSums.of(vm.vcpu(0) for vm in vms)
        assert (got.lo_lo, got.hi_lo, got.hi_hi) == sums_


@given(
    st.fractions(0, 3, max_denominator=60),
    st.fractions(0, 2, max_denominator=60),
    st.fractions(0, 2, max_denominator=60),
)
def test_division_free_formula_equals_the_cases_on_random_fractions(u1, u2, u3):
    assert evaluate(schedulable(u1, u2, u3)) == evaluate(schedulable_by_cases(u1, u2, u3))

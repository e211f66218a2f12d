"""R11: the exact EDF-VD test, by hand-computed cases and by its known properties."""

from fractions import Fraction as F

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import vcpu_sets, vms

from akita.model import PRESETS, VM, UtilizationSums, edf_test, edf_vd_test
from akita.model.edf import edf_capacity
from akita.model.edf_vd import edf_vd_capacity

pytestmark = pytest.mark.rule("R11")


def preset_vcpus(*names):
    return [
        VM(f"vm{i}", PRESETS[n].criticality, PRESETS[n].period, PRESETS[n].c_opt, PRESETS[n].c_pes)
        .vcpu(0)
        for i, n in enumerate(names)
    ]


def verdict_of(*names, test=edf_vd_test):
    return test(UtilizationSums.of(preset_vcpus(*names)))


def test_fig5_type1_and_three_type2_need_no_virtual_deadlines():
    v = verdict_of("Type1", "Type2", "Type2", "Type2")
    assert (v.sums.lo_lo, v.sums.hi_lo, v.sums.hi_hi) == (F(3, 4), F(1, 20), F(1, 4))
    assert v.schedulable and v.x == 1
    assert "plain EDF" in v.reason


def test_fig7_type6_and_three_type2_shrink_hi_deadlines_to_two_fifths():
    v = verdict_of("Type6", "Type2", "Type2", "Type2")
    assert (v.sums.lo_lo, v.sums.hi_lo, v.sums.hi_hi) == (F(3, 4), F(1, 10), F(1, 2))
    assert v.schedulable and v.x == F(2, 5)
    assert "x*U1 + U3 = 4/5 <= 1" in v.reason


def test_a_fourth_type2_beside_type6_is_too_much():
    # U1 = 1 with HI load present: no x is defined, no division by zero.
    v = verdict_of("Type6", "Type2", "Type2", "Type2", "Type2")
    assert not v.schedulable and v.x is None
    assert "U1 >= 1: no x exists" in v.reason


def test_type3_type3_type1_is_rejected_with_its_inequality():
    # U1 = 1: rejected; and Type3 + Type6 + Type2: U1 = 3/4, U2 = 1/10, U3 = 1/2 -> admitted
    assert not verdict_of("Type3", "Type3", "Type1").schedulable
    v = verdict_of("Type3", "Type6", "Type6")
    # U1 = 1/2, U2 = 1/5, U3 = 1: x = 2/5, x*U1 + U3 = 6/5 > 1
    assert not v.schedulable and v.x == F(2, 5) and "6/5 > 1" in v.reason


def test_empty_and_lo_only_pcpus():
    assert edf_vd_test(UtilizationSums()).schedulable
    assert verdict_of("Type3", "Type3").schedulable  # U1 = 1 exactly
    assert not verdict_of("Type3", "Type3", "Type5").schedulable


def test_edf_accepts_what_edf_vd_refuses():
    # Type3 + Type6 + Type6: LO mode U1 + U2 = 7/10, HI mode U3 = 1.
    assert verdict_of("Type3", "Type6", "Type6", test=edf_test).schedulable
    assert not verdict_of("Type3", "Type6", "Type6").schedulable


@given(vcpu_sets())
def test_admitted_implies_x_in_zero_one(vcpus):
    v = edf_vd_test(UtilizationSums.of(vcpus))
    if v.schedulable:
        assert 0 < v.x <= 1


def _longest_prefix_within(vcpus, bound):
    s = UtilizationSums()
    for vcpu in vcpus:
        t = s.plus(vcpu)
        if max(t.lo_mode, t.hi_hi) > bound:
            break
        s = t
    return s


@given(vcpu_sets(max_size=10))
def test_utilization_corollary(vcpus):
    """Baruah et al. 2012, Corollary: max(U1 + U2, U3) <= 3/4 implies EDF-VD-schedulable."""
    s = _longest_prefix_within(vcpus, F(3, 4))
    assert edf_vd_test(s).schedulable


def test_utilization_corollary_at_its_bound():
    MS = 1_000_000
    lo = VM("lo", PRESETS["Type2"].criticality, 100 * MS, 70 * MS).vcpu(0)
    hi = VM("hi", PRESETS["Type1"].criticality, 100 * MS, 5 * MS, 75 * MS).vcpu(0)
    s = UtilizationSums.of([lo, hi])
    assert (s.lo_mode, s.hi_hi) == (F(3, 4), F(3, 4))
    v = edf_vd_test(s)
    assert v.schedulable and v.x == F(1, 6)


@given(vcpu_sets(), st.data())
def test_removing_a_vcpu_keeps_a_pcpu_schedulable(vcpus, data):
    s = UtilizationSums.of(vcpus)
    assume(vcpus and edf_vd_test(s).schedulable)
    gone = data.draw(st.sampled_from(vcpus))
    assert edf_vd_test(s.minus(gone)).schedulable


@given(vcpu_sets(), st.data())
def test_lowering_a_budget_keeps_a_pcpu_schedulable(vcpus, data):
    assume(vcpus and edf_vd_test(UtilizationSums.of(vcpus)).schedulable)
    i = data.draw(st.integers(0, len(vcpus) - 1))
    vm = vcpus[i].vm
    c_opt = data.draw(st.integers(1, vm.c_opt))
    c_pes = data.draw(st.integers(max(c_opt, 1), vm.c_pes)) if vm.is_hi else None
    lowered = VM(vm.name, vm.criticality, vm.period, c_opt, c_pes).vcpu(0)
    assert edf_vd_test(UtilizationSums.of(vcpus[:i] + [lowered] + vcpus[i + 1:])).schedulable


@given(vcpu_sets())
def test_edf_vd_admits_only_what_the_per_mode_bounds_admit(vcpus):
    """The first-fit slack tree relies on this (model/admission_tests.py)."""
    s = UtilizationSums.of(vcpus)
    if edf_vd_test(s).schedulable:
        assert edf_test(s).schedulable
        assert s.lo_mode <= 1 and s.hi_hi <= 1


@pytest.mark.parametrize("test, capacity", [(edf_vd_test, edf_vd_capacity), (edf_test, edf_capacity)])
@given(vcpu_sets(), vms(name="new"))
def test_capacity_is_exact_for_lo_and_necessary_for_hi(test, capacity, vcpus, new):
    """The first-fit picker may skip a pCPU on its capacity alone: check that is sound."""
    s = UtilizationSums.of(vcpus)
    assume(test(s).schedulable)
    cap = capacity(s)
    fits = test(s.plus(new.vcpu(0))).schedulable
    if new.is_hi:
        assert not fits or new.u_pes <= cap.hi
    else:
        assert fits == (new.u_opt <= cap.lo)


@pytest.mark.parametrize("test", [edf_vd_test, edf_test])
def test_verdict_is_not_a_bool(test):
    with pytest.raises(TypeError):
        bool(test(UtilizationSums()))

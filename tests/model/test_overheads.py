"""Overhead-aware admission (akita.model.overheads): the inflation rule, exactly."""

from fractions import Fraction

import pytest

from akita.model import VM, Host, first_fit
from akita.model.admission_tests import admission_test
from akita.model.criticality import Criticality
from akita.model.errors import ModelError
from akita.model.options import SchedulerOptions
from akita.model.overheads import admission_test_with_overheads, inflate, inflated, switch_ins
from akita.model.utilization import UtilizationSums

pytestmark = pytest.mark.rule("R11")

HI, LO = Criticality.HI, Criticality.LO


def _hi(name: str, period: int, c_opt: int, c_pes: int) -> VM:
    return VM(name, HI, period=period, c_opt=c_opt, c_pes=c_pes)


def _lo(name: str, period: int, c_opt: int) -> VM:
    return VM(name, LO, period=period, c_opt=c_opt)


def test_switch_ins_count_releases_and_mode_switches():
    a = _lo("a", 1_000_000, 100_000).vcpu(0)
    b = _lo("b", 300_000, 10_000).vcpu(0)
    h = _hi("h", 400_000, 10_000, 20_000).vcpu(0)
    assert switch_ins(a, []) == 1
    assert switch_ins(a, [b]) == 1 + 4          # ceil(1000/300) releases of b
    assert switch_ins(a, [h]) == 1 + 2 * 3 + 1  # ceil(1000/400) releases, one more overrun
    assert switch_ins(b, [a]) == 1 + 1


def test_inflated_budgets_are_exact_integers_and_sums_fractions():
    vcpus = (_hi("h", 1_000_000, 200_000, 500_000).vcpu(0), _lo("l", 500_000, 100_000).vcpu(0))
    each = inflated(vcpus, 2_460)
    assert [i.switches for i in each] == [3, 4]
    assert each[0].c_opt == 200_000 + 3 * 2_460 and each[0].c_pes == 500_000 + 3 * 2_460
    grown, _ = inflate(UtilizationSums.of(vcpus), 2_460)
    assert grown is not None
    assert grown.hi_hi == Fraction(500_000 + 3 * 2_460, 1_000_000)
    assert grown.lo_lo == Fraction(100_000 + 4 * 2_460, 500_000)


def test_cost_zero_is_the_declared_test():
    options = SchedulerOptions()
    assert admission_test_with_overheads("edf-vd", options) is admission_test("edf-vd", options)


def test_boundary_set_admitted_without_the_cost_rejected_with_it():
    host = Host(pcpus=1, vms=(_hi("h1", 1_000_000, 200_000, 500_000),
                              _hi("h2", 500_000, 100_000, 250_000)),
                options=SchedulerOptions(context_switch_cost=2_460))
    ignoring = first_fit(host, test=admission_test("edf-vd", host.options))
    counting = first_fit(host, test=admission_test_with_overheads("edf-vd", host.options))
    assert ignoring.admitted
    assert [vm.admitted for vm in counting.vms] == [True, False]


def test_inflation_past_the_period_rejects_with_the_vcpu_named():
    host = Host(pcpus=1, vms=(_lo("tight", 10_000, 9_000), _lo("fast", 1_000, 10)),
                options=SchedulerOptions(context_switch_cost=200))
    placement = first_fit(host, test=admission_test_with_overheads("edf-vd", host.options))
    assert not placement.vms[1].admitted
    test = admission_test_with_overheads("edf-vd", host.options)
    verdict = test(UtilizationSums.of(vm.vcpu(0) for vm in host.vms))
    assert not verdict.schedulable and "tight/0" in verdict.reason


def test_sums_without_vcpus_are_refused():
    test = admission_test_with_overheads("edf-vd", SchedulerOptions(context_switch_cost=1))
    with pytest.raises(ModelError):
        test(UtilizationSums(Fraction(1, 2), Fraction(0), Fraction(0)))


def test_exact_decides_the_inflated_set():
    host = Host(pcpus=1, test="exact", vms=(_hi("h1", 4, 1, 2), _lo("l1", 4, 2)),
                options=SchedulerOptions(context_switch_cost=1))
    counting = admission_test_with_overheads("exact", host.options)
    verdict = counting(UtilizationSums.of(vm.vcpu(0) for vm in host.vms))
    # inflated: l1 (4; 2 + 4 switches x 1) does not fit in its period: rejected unsearched
    assert not verdict.schedulable
    declared = admission_test("exact", SchedulerOptions())(
        UtilizationSums.of(vm.vcpu(0) for vm in host.vms))
    assert declared.schedulable


def test_exact_searches_the_inflated_budgets():
    vcpus = (_hi("h1", 20, 2, 6).vcpu(0), _lo("l1", 20, 4).vcpu(0))
    counting = admission_test_with_overheads("exact", SchedulerOptions(context_switch_cost=1))
    verdict = counting(UtilizationSums.of(vcpus))
    assert verdict.schedulable
    assert verdict.sums.hi_hi == Fraction(6 + 2, 20) and verdict.sums.lo_lo == Fraction(4 + 4, 20)
    assert verdict.detail is not None and verdict.detail["switch_cost_ns"] == 1


def test_a_grain_rounds_each_inflated_budget_up():
    vcpu = _hi("h", 100_000_000, 25_000_000, 50_000_000).vcpu(0)
    other = _lo("l", 100_000_000, 25_000_000).vcpu(0)
    (each, _) = inflated((vcpu, other), 2_460, grain=1_000_000)
    assert each.switches == 2 and each.extra == 4_920
    assert (each.c_opt, each.c_pes) == (26_000_000, 51_000_000)
    with pytest.raises(ModelError):
        inflated((vcpu,), 2_460, grain=0)


def test_with_a_grain_the_fast_path_decides_first_and_the_search_the_rounded_set():
    from akita.model.admission_tests import ADMISSION_TESTS
    from akita.model.overheads import overhead_aware
    seen = []

    def record(sums):
        seen.append(sums)
        return ADMISSION_TESTS["edf"].decide(sums)

    slow = type(ADMISSION_TESTS["edf"])("edf", record, ADMISSION_TESTS["edf"].capacity)
    test = overhead_aware(slow, 2_460, grain=1_000_000, fast=ADMISSION_TESTS["edf-vd"])
    light = UtilizationSums.of([_lo("a", 10_000_000, 1_000_000).vcpu(0)])
    assert test(light).schedulable and seen == []  # EDF-VD admitted it: no search
    full = UtilizationSums.of([_lo("a", 10_000_000, 5_000_000).vcpu(0),
                               _lo("b", 10_000_000, 5_000_000).vcpu(0)])
    verdict = test(full)
    assert not verdict.schedulable and verdict.detail["grain_ns"] == 1_000_000
    assert seen and seen[0].lo_lo == Fraction(12_000_000, 10_000_000)  # 2 x (5 + 1) ms

"""The fixed-priority admission tests: rm-ll, rm-rta and amc-rtb (model/rm.py, model/amc.py)."""

from fractions import Fraction
from itertools import permutations
from math import isqrt, lcm

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import MS, hosts, vcpu_sets

from akita.model import (
    ADMISSION_TESTS,
    VM,
    Criticality,
    FirstFit,
    Host,
    UtilizationSums,
    amc_priorities,
    first_fit,
    rm_order,
)
from akita.model.amc import amc_response_times
from akita.model.rm import fp_budget
from akita.model.rta import response_time, response_times

LO, HI = Criticality.LO, Criticality.HI
FP_TESTS = ("rm-ll", "rm-rta", "amc-rtb")


def lo(name, period, c):
    return VM(name, LO, period * MS, c * MS)


def hi(name, period, c_opt, c_pes):
    return VM(name, HI, period * MS, c_opt * MS, c_pes * MS)


def decide(test, vms_):
    return ADMISSION_TESTS[test](UtilizationSums.of(vm.vcpu(0) for vm in vms_))


# -- hand cases ------------------------------------------------------------------------------


def test_textbook_set_fails_liu_layland_but_passes_rta():
    # U = 1/4 + 1/3 + 1/4 = 5/6 > 3(2^(1/3) - 1) ~ 0.7798; R = 1, 3, 10 <= 4, 6, 12 (ms).
    vms_ = [lo("a", 4, 1), lo("b", 6, 2), lo("c", 12, 3)]
    ll, rta = decide("rm-ll", vms_), decide("rm-rta", vms_)
    assert not ll.schedulable and "5/6 > n(2^(1/n) - 1) for n = 3" in ll.reason
    assert rta.schedulable and "R = 10000000 ns of T = 12000000 ns" in rta.reason
    assert ll.x is None and rta.x is None
    assert response_times([(1, 4), (2, 6), (3, 12)]) == [1, 3, 10]


def test_harmonic_set_at_full_utilization_passes_rta_only():
    vms_ = [lo("a", 2, 1), lo("b", 4, 1), lo("c", 8, 2)]  # U = 1, R = 1, 2, 8
    assert response_times([(1, 2), (1, 4), (2, 8)]) == [1, 2, 8]
    assert decide("rm-rta", vms_).schedulable
    assert not decide("rm-ll", vms_).schedulable


def test_rta_names_the_first_vcpu_that_misses_and_its_response_time():
    verdict = decide("rm-rta", [lo("b", 6, 3), lo("a", 4, 2)])  # U = 1, not harmonic
    assert not verdict.schedulable
    assert verdict.reason == (
        "rate-monotonic RTA: b/0 (priority 2 of 2, C = 3000000 ns, T = 6000000 ns) "
        "misses: R reaches 7000000 ns > T"
    )


def test_rm_budgets_are_pessimistic_for_hi_vcpus():
    # Under C_opt the HI VM would fit beside the LO one; under C_pes it does not.
    vms_ = [lo("l", 4, 2), hi("h", 8, 2, 5)]  # R_h = 5 + 2 ceil(R/4) -> 9 > 8
    assert not decide("rm-rta", vms_).schedulable
    assert not decide("rm-ll", vms_).schedulable


def test_amc_rtb_by_hand():
    # tau1 LO (T 4, C 2) above tau2 HI (T 12, C(LO) 2, C(HI) 7):
    # R^LO = 2 + 2 ceil(R/4) = 4; R^HI = 7 + 2 ceil(R^LO/4) = 9 <= 12.
    t1, t2 = lo("t1", 4, 2), hi("t2", 12, 2, 7)
    assert amc_response_times(t2.vcpu(0), [t1.vcpu(0)]) == (4 * MS, 9 * MS)
    assert amc_response_times(t1.vcpu(0), []) == (2 * MS, None)
    assert decide("amc-rtb", [t1, t2]).schedulable
    # rm-rta charges tau1 for all of R: R = 7 + 2 ceil(R/4) -> 13 > 12.
    assert not decide("rm-rta", [t1, t2]).schedulable
    assert amc_priorities([t2.vcpu(0), t1.vcpu(0)]) == (t1.vcpu(0), t2.vcpu(0))


def test_amc_rtb_uses_audsley_when_rate_monotonic_order_fails():
    # tau2 HI (T 20, C 4/18) below tau1 LO (T 10, C 3): R^HI = 18 + 3 = 21 > 20.
    # Above it: tau1 has R^LO = 3 + 4 = 7 <= 10 and tau2 R^HI = 18 <= 20.
    t1, t2 = lo("t1", 10, 3), hi("t2", 20, 4, 18)
    assert amc_response_times(t2.vcpu(0), [t1.vcpu(0)])[1] == 21 * MS
    assert decide("amc-rtb", [t1, t2]).schedulable
    assert amc_priorities([t1.vcpu(0), t2.vcpu(0)]) == (t2.vcpu(0), t1.vcpu(0))
    t3 = lo("t3", 10, 4)  # now no order works: reason names the rate-monotonic candidate
    verdict = decide("amc-rtb", [t1, t2, t3])
    assert not verdict.schedulable
    assert verdict.reason.startswith("AMC-rtb: no vCPU can take priority 3 of 3; t2/0")
    assert "misses in HI mode: R^HI reaches 32000000 ns > T" in verdict.reason


def test_liu_layland_is_exact_at_the_irrational_bound():
    # n = 2: the bound is 2(sqrt 2 - 1) = sqrt 8 - 2; D * bound lies in (k, k + 1).
    d = 10**30
    k = isqrt(8 * d * d) - 2 * d
    for c, passes in ((k, True), (k + 1, False)):
        # two LO vCPUs with the same period d ns: U = c / d
        vms_ = [VM("a", LO, d, d // 2), VM("b", LO, d, c - d // 2)]
        verdict = decide("rm-ll", vms_)
        assert verdict.sums.lo_lo == Fraction(c, d)
        assert verdict.schedulable is passes
        assert decide("rm-rta", vms_).schedulable  # U < 1 with equal periods
    assert float(Fraction(k + 1, d)) == float(Fraction(k, d))  # floats cannot tell them apart


def test_liu_layland_single_vcpu_bound_is_one():
    assert decide("rm-ll", [lo("a", 10, 10)]).schedulable
    assert decide("rm-ll", []).schedulable


def test_fixed_priority_tests_need_the_vcpus():
    with pytest.raises(ValueError, match="needs the vCPUs"):
        ADMISSION_TESTS["rm-rta"](UtilizationSums(Fraction(1, 2)))
    assert ADMISSION_TESTS["amc-rtb"](UtilizationSums()).schedulable


def test_names_with_braces_do_not_break_the_reason():
    verdict = decide("rm-rta", [lo("{b}", 6, 3), lo("a", 4, 2)])
    assert "{b}/0 (priority 2 of 2" in verdict.reason


def test_host_files_and_first_fit_accept_the_new_tests():
    vms_ = [lo("a", 4, 1), lo("b", 6, 2), lo("c", 12, 3), lo("d", 12, 3)]
    placement = first_fit(Host(2, vms_, test="rm-rta"))
    assert [vm.pcpus for vm in placement.vms] == [(0,), (0,), (0,), (1,)]
    placement = first_fit(Host(2, vms_, test="rm-ll"))
    assert [vm.pcpus for vm in placement.vms] == [(0,), (0,), (1,), (1,)]
    assert first_fit(Host(1, [lo("t1", 4, 2), hi("t2", 12, 2, 7)], test="amc-rtb")).admitted


# -- properties --------------------------------------------------------------------------------


def fp_simulation_meets_deadlines(tasks):
    """Synchronous release (the critical instant), unit steps, highest priority first."""
    horizon = lcm(*(t for _, t in tasks)) if tasks else 0
    left = [0] * len(tasks)
    for now in range(horizon):
        for i, (c, t) in enumerate(tasks):
            if now % t == 0:
                if left[i]:
                    return False
                left[i] = c
        for i in range(len(tasks)):
            if left[i]:
                left[i] -= 1
                break
    return not any(left)


@given(vcpu_sets())
def test_rta_is_exact_against_a_fixed_priority_schedule(vcpus):
    order = rm_order(vcpus)
    tasks = [(fp_budget(v) // MS, v.vm.period // MS) for v in order]
    verdict = ADMISSION_TESTS["rm-rta"](UtilizationSums.of(vcpus))
    assert verdict.schedulable is fp_simulation_meets_deadlines(tasks)


@given(vcpu_sets())
def test_liu_layland_pass_implies_rta_pass(vcpus):
    sums = UtilizationSums.of(vcpus)
    if ADMISSION_TESTS["rm-ll"](sums).schedulable:
        assert ADMISSION_TESTS["rm-rta"](sums).schedulable


@given(vcpu_sets())
def test_rta_pass_implies_utilization_at_most_one(vcpus):
    sums = UtilizationSums.of(vcpus)
    if ADMISSION_TESTS["rm-rta"](sums).schedulable:
        assert sums.lo_lo + sums.hi_hi <= 1


@given(vcpu_sets())
def test_amc_rtb_pass_implies_lo_mode_set_passes_rta(vcpus):
    if ADMISSION_TESTS["amc-rtb"](UtilizationSums.of(vcpus)).schedulable:
        tasks = [(v.vm.c_opt, v.vm.period) for v in rm_order(vcpus)]
        times = response_times(tasks)
        assert len(times) == len(tasks) and all(r <= t for r, (_, t) in zip(times, tasks))


@given(vcpu_sets(), st.sampled_from(FP_TESTS), st.data())
def test_removing_a_vcpu_keeps_a_passing_set_passing(vcpus, test, data):
    if vcpus and ADMISSION_TESTS[test](UtilizationSums.of(vcpus)).schedulable:
        k = data.draw(st.integers(0, len(vcpus) - 1))
        assert ADMISSION_TESTS[test](UtilizationSums.of(vcpus[:k] + vcpus[k + 1:])).schedulable
        assert ADMISSION_TESTS[test](UtilizationSums.of(vcpus).minus(vcpus[k])).schedulable


@given(vcpu_sets(max_size=4))
def test_audsley_finds_an_order_iff_some_order_passes(vcpus):
    def passes(order):
        return all(
            max(r for r in amc_response_times(v, order[:i]) if r is not None) <= v.vm.period
            for i, v in enumerate(order)
        )

    found = amc_priorities(vcpus)
    assert (found is not None) is any(passes(p) for p in permutations(vcpus))
    if found is not None:
        assert passes(found) and sorted(map(str, found)) == sorted(map(str, vcpus))
    if passes(rm_order(vcpus)):
        assert found == rm_order(vcpus)


@given(vcpu_sets(), st.sampled_from(FP_TESTS), st.data())
def test_capacity_never_prunes_a_pcpu_that_would_pass(vcpus, test, data):
    admission = ADMISSION_TESTS[test]
    sums = UtilizationSums.of(vcpus[:-1])
    assume(vcpus and admission(sums).schedulable)
    newcomer = vcpus[-1]
    if admission(sums.plus(newcomer)).schedulable:
        capacity = admission.capacity(sums)
        if newcomer.vm.is_hi:
            assert capacity.lo >= 0 and capacity.hi >= newcomer.vm.u_pes
        else:
            assert capacity.lo >= newcomer.vm.u_opt


@given(hosts(test="rm-rta") | hosts(test="rm-ll") | hosts(test="amc-rtb"))
def test_first_fit_matches_first_fit_read_literally(host):
    test = ADMISSION_TESTS[host.test]
    loads = [[] for _ in range(host.pcpus)]
    answers = []
    for vm in host.vms:
        trial, where = [list(load) for load in loads], []
        for vcpu in vm.all_vcpus():
            fits = [i for i in range(host.pcpus) if test(UtilizationSums.of(trial[i] + [vcpu])).schedulable]
            if not fits:
                where = None
                break
            trial[fits[0]].append(vcpu)
            where.append(fits[0])
        if where is None:
            answers.append(())
        else:
            loads = trial
            answers.append(tuple(where))
    placement = first_fit(host)
    assert [vm.pcpus for vm in placement.vms] == answers
    assert [list(p.vcpus) for p in placement.pcpus] == loads
    assert all(p.verdict.schedulable for p in placement.pcpus)


def test_picker_takes_the_tests_by_name():
    for test in FP_TESTS:
        assert FirstFit(1, test).offer(lo("a", 10, 5)).pcpus == (0,)


def test_response_time_stops_past_the_limit():
    assert response_time(3, [(2, 4)], 6) == 7
    assert response_time(3, [(2, 4)], 100) == 7
    assert response_time(1, [(1, 2), (1, 4)], 100) == 4
    assert response_time(1, [(1, 2), (1, 4)], 2) == 3  # a witness past the limit, not R

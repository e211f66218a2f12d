"""``test = "exact"`` in host files, first fit and ``akita admit``."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repo import EXAMPLES
from strategies import MS

from akita.cli import run
from akita.model import (VM, Criticality, Host, ModelError, SchedulerOptions, first_fit,
                         load_host, loads_host, dumps_host, scan_fit)
from akita.model.admission_tests import ADMISSION_TESTS, admission_test
from akita.model.edf_vd import edf_vd_capacity, edf_vd_test, virtual_deadline_factor
from akita.model.exact.admission import ExactTest
from akita.model.exact.search import Limits
from akita.model.utilization import UtilizationSums


def vms_strategy():
    return st.lists(st.builds(
        lambda hi, period, a, b, i: VM(f"v{i}", Criticality.HI if hi else Criticality.LO,
                                        period * MS, min(a, period) * MS,
                                        (min(max(a, b), period) * MS) if hi else None),
        st.booleans(), st.sampled_from([2, 3, 4, 6]), st.integers(1, 3), st.integers(1, 6),
        st.integers(0, 10**6)), min_size=1, max_size=5, unique_by=lambda vm: vm.name)


def test_the_example_is_rejected_by_edf_vd_and_admitted_by_exact():
    host = load_host(EXAMPLES / "exact.toml")
    assert host.test == "exact" and host.options.phases == "seeded"
    placement = first_fit(host)
    assert placement.admitted
    verdict = placement.pcpus[0].verdict
    assert verdict.test == "exact" and verdict.x == Fraction(5, 7)
    assert verdict.detail["answer"] == "SAFE"
    assert not edf_vd_test(verdict.sums).schedulable
    assert not first_fit(Host(1, host.vms, options=host.options)).admitted


def test_exact_round_trips_in_host_files():
    host = Host(1, [VM("a", Criticality.LO, 4 * MS, MS)], test="exact",
                options=SchedulerOptions(x_rule="2/5"))
    assert loads_host(dumps_host(host)) == host
    with pytest.raises(ModelError, match="x_rule"):
        SchedulerOptions(x_rule="4/10")


@settings(max_examples=30, deadline=None)
@given(vms_strategy())
def test_exact_admits_at_least_what_edf_vd_admits(vms):
    """The fast path: a host EDF-VD places whole, the exact test places whole too."""
    edf_vd = first_fit(Host(1, vms))
    exact = first_fit(Host(1, vms, test="exact"))
    if edf_vd.admitted:
        assert exact.admitted


@settings(max_examples=30, deadline=None)
@given(vms_strategy(), st.sampled_from(["synchronous", "seeded"]))
def test_first_fit_and_the_literal_scan_agree_under_exact(vms, phases):
    """The capacity bound skips no pCPU the test would have taken (R12)."""
    host = Host(2, vms, test="exact", options=SchedulerOptions(phases=phases))
    assert first_fit(host) == scan_fit(host)


@settings(max_examples=60, deadline=None)
@given(vms_strategy())
def test_the_capacity_is_an_upper_bound_never_below_edf_vds(vms):
    test = ExactTest()
    vcpus = [v for vm in vms for v in vm.all_vcpus()]
    sums = UtilizationSums.of(vcpus[:-1])
    last = vcpus[-1]
    capacity = test.capacity(sums)
    if test.decide(sums.plus(last)).schedulable:
        bound = capacity.hi if last.vm.is_hi else capacity.lo
        assert (last.vm.u_pes if last.vm.is_hi else last.vm.u_opt) <= bound
    if edf_vd_test(sums).schedulable:
        theirs = edf_vd_capacity(sums)
        assert capacity.lo >= theirs.lo and capacity.hi >= theirs.hi


def test_unknown_rejects_with_its_reason():
    vms = [VM("hi", Criticality.HI, 4 * MS, MS, 3 * MS), VM("lo", Criticality.LO, 4 * MS, 3 * MS)]
    test = ExactTest(SchedulerOptions(phases="seeded"), Limits(states=3, seconds=60))
    placement = first_fit(Host(1, vms, test="exact"), test=test.admission_test())
    assert not placement.admitted
    assert [t.outcome.status for t in test.trials] == ["UNKNOWN"]
    assert "state limit 3" in test.trials[0].outcome.reason


def test_the_host_options_are_the_ones_decided():
    """The registry's exact test is bound to a host's options by admission_test."""
    options = SchedulerOptions(phases="seeded", queue_order="host")
    assert admission_test("exact", options) is admission_test("exact", options)
    assert admission_test("exact", options) is not ADMISSION_TESTS["exact"]
    assert admission_test("edf-vd", options) is ADMISSION_TESTS["edf-vd"]


def test_outside_the_tick_model_the_search_refuses():
    vms = [VM("hi", Criticality.HI, 4 * MS, MS, 3 * MS), VM("lo", Criticality.LO, 4 * MS, 3 * MS)]
    host = Host(1, vms, test="exact", options=SchedulerOptions(wake_preempts=False))
    placement = first_fit(host)
    assert not placement.admitted


def test_a_fixed_x_rule_is_the_scheduler_x():
    sums = UtilizationSums.of(VM("a", Criticality.HI, 4 * MS, MS, 2 * MS).all_vcpus())
    assert virtual_deadline_factor(edf_vd_test(sums), "3/7") == Fraction(3, 7)


def test_admit_json_says_which_test_decided(capsys, tmp_path):
    status = run(["admit", str(EXAMPLES / "exact.toml"), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0 and doc["test"] == "exact"
    pcpu = doc["pcpus"][0]
    assert pcpu["decided"] == "exact" and pcpu["exact"]["answer"] == "SAFE"
    assert pcpu["exact"]["states"] > 0 and pcpu["x_used"] == "5/7"
    assert [t["answer"] for t in doc["exact_trials"]] == ["SAFE"]
    assert pcpu["exact"]["certificate"]["accepted"] is True
    assert doc["exact_trials"][0]["certificate"] == pcpu["exact"]["certificate"]
    fast = tmp_path / "fig7.toml"
    fast.write_text((EXAMPLES / "fig7.toml").read_text().replace("pcpus = 1",
                                                                 'pcpus = 1\ntest = "exact"'))
    assert run(["admit", str(fast), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pcpus"][0]["decided"] == "edf-vd" and doc["pcpus"][0]["exact"] is None
    assert doc["exact_trials"] == []


def test_a_certificate_the_recheck_refuses_rejects_the_pcpu():
    """The negative control of the re-check hook: SAFE alone does not admit."""
    host = load_host(EXAMPLES / "exact.toml")
    refused = ExactTest(host.options, recheck=lambda pcpu, outcome: (False, "refused here"))
    placement = first_fit(host, test=refused.admission_test())
    assert [vm.vm.name for vm in placement.vms if not vm.admitted] == ["batch"]
    assert [t.outcome.status for t in refused.trials] == ["SAFE"]
    assert refused.trials[0].certificate == (False, "refused here")


def test_the_shipped_recheck_accepts_the_example():
    from akita.proofs.exact_certificate import recheck

    host = load_host(EXAMPLES / "exact.toml")
    test = ExactTest(host.options, recheck=recheck)
    assert first_fit(host, test=test.admission_test()).admitted
    assert test.trials[0].certificate is not None and test.trials[0].certificate[0]


def test_admit_reports_unknown_as_rejected(capsys):
    status = run(["admit", str(EXAMPLES / "exact.toml"), "--exact-states", "5"])
    out = " ".join(capsys.readouterr().out.split())
    assert status == 1 and "UNKNOWN (rejected)" in out and "state limit 5" in out


def test_admit_checks_the_exact_limits(capsys):
    assert run(["admit", str(EXAMPLES / "exact.toml"), "--exact-seconds", "0"]) == 2
    assert "--exact-seconds" in capsys.readouterr().err

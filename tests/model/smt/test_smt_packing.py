"""The Z3 encoding of first fit (R12), the optimal packing, and the packing obligations.

Every obligation of :mod:`akita.proofs.packing_obligations` reaches its
expected verdict; the Z3 first fit, evaluated on generated hosts, places
every vCPU where :func:`akita.model.first_fit` does; the linearised test
equals the reference test; the optimum never exceeds first fit and passes
the reference test; negative controls are refuted in domain words.
"""

from fractions import Fraction as F

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import vm_lists

from akita.model import PRESETS, VM, Host, UtilizationSums, edf_vd_test, first_fit
from akita.model.smt.edf_vd import evaluate
from akita.model.smt.packing import (
    first_fit as z3_first_fit,
    first_fit_choice,
    load_of,
    optimal_packing,
    pcpu_schedulable,
)
from akita.proofs import packing_obligations as packing

pytestmark = pytest.mark.rule("R12")


@pytest.mark.parametrize("obligation", packing.OBLIGATIONS, ids=lambda o: o.name)
def test_each_statement_cites_its_source(obligation):
    assert "Akita paper" in obligation.statement or "Baruah" in obligation.statement
    if obligation.expected == "refuted":
        assert obligation.statement.startswith("Negative control (false)")


# -- the Z3 first fit is akita.model.first_fit --------------------------------


def _preset(name, vm_name):
    p = PRESETS[name]
    return VM(vm_name, p.criticality, p.period, p.c_opt, p.c_pes)


def _z3_placement(vms, pcpus):
    steps = z3_first_fit([load_of(vm.vcpu(0)) for vm in vms], pcpus, simplify=True)
    where = []
    for step in steps:
        placed = [j for j, b in enumerate(step.placed) if z3.is_true(b)]
        assert len(placed) <= 1 and z3.is_true(step.rejected) == (not placed)
        where.append(tuple(placed))
    return where, steps[-1].after if steps else []


@settings(max_examples=150)
@given(vm_lists(max_size=7, max_vcpus=1), st.integers(1, 4))
def test_z3_first_fit_places_every_vcpu_where_the_reference_does(vms, pcpus):
    reference = first_fit(Host(pcpus=pcpus, vms=vms))
    where, after = _z3_placement(vms, pcpus)
    assert where == [placement.pcpus for placement in reference.vms]
    for pcpu, sums in zip(reference.pcpus, after):
        assert tuple(evaluate(u) for u in sums) == (
            pcpu.verdict.sums.lo_lo,
            pcpu.verdict.sums.hi_lo,
            pcpu.verdict.sums.hi_hi,
        )


def test_z3_first_fit_on_the_fig7_host_and_a_rejection():
    vms = [
        _preset("Type6", "hi"),
        *(_preset("Type2", f"lo{i}") for i in range(3)),
        _preset("Type3", "big"),
    ]
    where, _ = _z3_placement(vms, 1)
    assert where == [(0,), (0,), (0,), (0,), ()]  # U1 = 5/4 with big: rejected


def test_first_fit_choice_takes_the_lowest_fitting_pcpu():
    placed, rejected = first_fit_choice([z3.BoolVal(False), z3.BoolVal(True), z3.BoolVal(True)])
    assert [z3.is_true(z3.simplify(p)) for p in placed] == [False, True, False]
    assert z3.is_false(z3.simplify(rejected))
    assert z3.is_true(z3.simplify(first_fit_choice([])[1]))


# -- the linearised test and the optimum ---------------------------------------


@given(vm_lists(max_size=6, max_vcpus=1), st.data())
def test_linearised_test_equals_the_reference_test(vms, data):
    members = [data.draw(st.booleans()) for _ in vms]
    loads = []
    for vm in vms:
        sums = UtilizationSums().plus(vm.vcpu(0))
        loads.append((sums.lo_lo, sums.hi_lo, sums.hi_hi))
    formula = pcpu_schedulable([(z3.BoolVal(b), load) for b, load in zip(members, loads)])
    chosen = [vm.vcpu(0) for vm, b in zip(vms, members) if b]
    assert evaluate(formula) == edf_vd_test(UtilizationSums.of(chosen)).schedulable


@settings(max_examples=40)
@given(vm_lists(max_size=6, max_vcpus=1))
def test_the_optimum_is_valid_and_never_above_first_fit(vms):
    vcpus = [vm.vcpu(0) for vm in vms]
    optimum = optimal_packing(vcpus, timeout=30)
    assert optimum.status == "optimal"
    for j in set(optimum.assignment):
        on = [v for v, k in zip(vcpus, optimum.assignment) if k == j]
        assert edf_vd_test(UtilizationSums.of(on)).schedulable
    if vms:
        used = {
            p for placement in first_fit(Host(pcpus=len(vms), vms=vms)).vms for p in placement.pcpus
        }
        assert optimum.pcpus <= len(used)
        assert optimum.pcpus == len(set(optimum.assignment))


def test_optimum_of_hand_cases():
    assert optimal_packing([], timeout=10).pcpus == 0
    two_type3 = [_preset("Type3", f"v{i}").vcpu(0) for i in range(2)]
    assert optimal_packing(two_type3, timeout=10).pcpus == 1  # U1 = 1 exactly
    plus_type5 = two_type3 + [_preset("Type5", "v2").vcpu(0)]
    assert optimal_packing(plus_type5, timeout=10).pcpus == 2


def test_generated_hosts_are_fixed():
    hosts = packing.generated_hosts()
    assert len(hosts) == 60 and hosts == packing.generated_hosts()
    assert all(6 <= len(h.vms) <= 10 and h.pcpus == len(h.vms) for h in hosts)
    assert any(vm.preset for h in hosts for vm in h.vms) and any(
        not vm.preset for h in hosts for vm in h.vms
    )


# -- what the verdicts say ------------------------------------------------------


@pytest.mark.long  # 8 s of Z3 optimisation; the fast tier keeps the other verdicts
def test_first_fit_vs_optimum_reports_its_worst_host(outcomes):
    reason = outcomes["first_fit_vs_optimum"].verdict.reason
    assert "worst ratio 4/3 on host" in reason and "optimum 3 pCPUs" in reason and "vm0/0" in reason


def test_unchecked_first_fit_counterexample_overloads_a_pcpu(outcomes):
    example = outcomes["negative_control_unchecked_first_fit_vs_optimum"].verdict.counterexample
    host = packing.generated_hosts()[example["host"]]
    assert set(example["vcpus"]) == {vm.vcpu(0).name for vm in host.vms}
    packed = example["unchecked first fit"]
    assert packed["pCPUs"] < example["optimum"]["pCPUs"]
    by_name = {vm.vcpu(0).name: vm.vcpu(0) for vm in host.vms}
    # Replayed on the reference test, some pCPU of the wrong packing fails.
    assert any(
        not edf_vd_test(UtilizationSums.of(by_name[n] for n in pcpu)).schedulable
        for pcpu in packed["packing"]
    )


def test_wrong_first_fit_counterexample_reads_in_domain_words(outcomes):
    example = outcomes["negative_control_first_fit_without_new_vcpu"].verdict.counterexample
    assert example["first fit"] == "places v on the pCPU"
    assert example["pCPU before"]["reference"].startswith("passes")
    assert example["pCPU after"]["reference"].startswith("FAILS")
    assert {"criticality", "C_opt/T"} <= set(example["offered vCPU v"])


def test_rollback_counterexample_is_one_vm_that_fits_alone(outcomes):
    example = outcomes["negative_control_rejection_final_with_rollback"].verdict.counterexample
    vm, before = example["vm (both vCPUs)"], example["pCPU before"]
    if vm["criticality"] == "LO":
        load = (F(vm["C_opt/T"]), F(0), F(0))
    else:
        load = (F(0), F(vm["C_opt/T"]), F(vm["C_pes/T"]))
    start = [F(before[k]) for k in ("U1", "U2", "U3")]

    def with_copies(k):
        return edf_vd_test(UtilizationSums(*(u + k * du for u, du in zip(start, load)))).schedulable

    # vm/1 fits beside what was there (so after vm/0 is taken back), but not beside vm/0.
    assert with_copies(1) and not with_copies(2)
    assert example["pCPU with vm/0"]["reference"].startswith("passes")


def test_x_never_grows_counterexample_jumps_to_plain_edf(outcomes):
    example = outcomes["negative_control_x_never_grows"].verdict.counterexample
    assert F(example["smaller"]["x"]) > F(example["x"])
    assert example["smaller"]["x"] == "1"

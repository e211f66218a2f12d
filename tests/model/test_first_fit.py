"""R12: first-fit placement, all or nothing per VM."""

import pytest
from hypothesis import given
from strategies import hosts, vms

from akita.model import (
    ADMISSION_TESTS,
    PRESETS,
    VM,
    Criticality,
    FirstFit,
    Host,
    UtilizationSums,
    first_fit,
    scan_fit,
)

pytestmark = pytest.mark.rule("R12")

MS = 1_000_000


def preset(name, type_, vcpus=1):
    p = PRESETS[type_]
    return VM(name, p.criticality, p.period, p.c_opt, p.c_pes, vcpus=vcpus, preset=type_)


def test_fig5_packs_on_one_pcpu():
    host = Host(2, [preset("memcached", "Type1")] + [preset(f"lb{i}", "Type2") for i in range(3)])
    placement = first_fit(host)
    assert placement.admitted
    assert [vm.pcpus for vm in placement.vms] == [(0,), (0,), (0,), (0,)]
    assert placement.pcpus[1].vcpus == ()


def test_spills_to_the_next_pcpu_and_back_fills():
    # Four Type3 (1/2 each) and one Type4 (1/10) on 3 pCPUs: 0, 0, 1, 1, then 2.
    # A later Type5 (1/10) still goes to the first pCPU with room: pCPU 2.
    vms_ = [preset(f"t3_{i}", "Type3") for i in range(4)] + [preset("t4", "Type4"), preset("t5", "Type5")]
    placement = first_fit(Host(3, vms_))
    assert [vm.pcpus for vm in placement.vms] == [(0,), (0,), (1,), (1,), (2,), (2,)]


def test_vcpus_of_one_vm_share_a_pcpu():
    placement = first_fit(Host(2, [preset("db", "Type2", vcpus=3)]))
    assert placement.of("db").pcpus == (0, 0, 0)


def test_rejection_is_all_or_nothing_and_later_vms_still_fit():
    # "big" needs two pCPUs at 3/4 each; with one pCPU 3/4-full only one fits.
    host = Host(
        2,
        [
            VM("a", Criticality.LO, 10 * MS, 5 * MS),
            VM("big", Criticality.LO, 10 * MS, 7 * MS, vcpus=2),
            VM("small", Criticality.LO, 10 * MS, 3 * MS),
        ],
    )
    placement = first_fit(host)
    assert placement.of("big").pcpus == ()
    assert "big/1" in placement.of("big").reason
    assert "taken back" in placement.of("big").reason
    assert placement.of("small").pcpus == (0,)
    assert [v.name for v in placement.pcpus[1].vcpus] == []
    assert not placement.admitted


def test_hi_vm_rejected_by_edf_vd_but_admitted_by_edf():
    vms_ = [preset("lo", "Type3"), preset("h1", "Type6"), preset("h2", "Type6")]
    assert first_fit(Host(1, vms_, test="edf")).admitted
    placement = first_fit(Host(1, vms_, test="edf-vd"))
    assert placement.of("h2").reason.startswith("vCPU h2/0 (HI, C_opt/T = 1/10, C_pes/T = 1/2)")


@given(hosts())
def test_matches_first_fit_read_literally(host):
    assert first_fit(host) == scan_fit(host)


@given(hosts())
def test_every_pcpu_of_a_placement_passes_the_test(host):
    placement = first_fit(host)
    test = ADMISSION_TESTS[host.test]
    for pcpu in placement.pcpus:
        assert test(UtilizationSums.of(pcpu.vcpus)).schedulable
        assert pcpu.verdict.schedulable
        assert pcpu.verdict.sums == UtilizationSums.of(pcpu.vcpus)
    for vm in placement.vms:
        assert len(vm.pcpus) == (vm.vm.vcpus if vm.admitted else 0)


@given(hosts(), vms(name="newcomer"))
def test_a_rejected_vm_leaves_the_host_exactly_as_before(host, newcomer):
    picker = FirstFit(host.pcpus, host.test)
    for vm in host.vms:
        picker.offer(vm)
    before = picker.placement().pcpus
    answer = picker.offer(newcomer)
    after = picker.placement().pcpus
    if answer.admitted:
        assert sum(len(p.vcpus) for p in after) == sum(len(p.vcpus) for p in before) + newcomer.vcpus
    else:
        assert after == before
        assert answer.pcpus == ()


@given(hosts(max_pcpus=1))
def test_one_pcpu_rejection_means_the_vcpu_does_not_fit_there(host):
    placement = first_fit(host)
    test = ADMISSION_TESTS[host.test]
    load = []
    for vm in placement.vms:
        if vm.admitted:
            load += list(vm.vm.all_vcpus())
        elif vm.vm.vcpus == 1:
            assert not test(UtilizationSums.of(load + [vm.vm.vcpu(0)])).schedulable


@pytest.mark.parametrize("test", sorted(ADMISSION_TESTS))
def test_picker_accepts_a_test_function(test):
    picker = FirstFit(2, ADMISSION_TESTS[test])
    assert picker.offer(preset("x", "Type1")).pcpus == (0,)


@given(hosts())
def test_the_offer_hook_is_told_every_vm_in_order_and_changes_nothing(host):
    """``on_offer`` (the progress bar's hook) hears ``(index, vm)`` before each offer, in
    the order offered, and the placement is the one made without it."""
    heard = []
    with_hook = first_fit(host, on_offer=lambda index, vm: heard.append((index, vm)))
    assert heard == list(enumerate(host.vms))
    assert with_hook == first_fit(host)

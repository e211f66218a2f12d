"""R14: the CAL bound of a vCPU and first fit holding every IO quality (model/ioq.py),
with a deliberately wrong variant that forgets the vCPUs already on a pCPU."""

from fractions import Fraction

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.model import PRESETS, VM, Criticality, Host, ModelError, first_fit, loads_host
from akita.model.admission_tests import ADMISSION_TESTS
from akita.model.edf_vd import virtual_deadline_factor
from akita.model.ioq import cal_bound, ioq_misses, with_ioq

pytestmark = pytest.mark.rule("R14")

MS = 1_000_000


def preset(name, type_, ioq=None):
    p = PRESETS[type_]
    return VM(name, p.criticality, p.period, p.c_opt, p.c_pes, preset=type_,
              ioq=None if ioq is None else ioq * MS)


def fig5_plus(*extra, pcpus=2):
    los = [preset(f"lookbusy{i}", "Type2") for i in (1, 2, 3)]
    return Host(pcpus, (*los, preset("memcached", "Type1", ioq=20), *extra))


def test_a_hi_vcpu_bound_is_x_t_under_edf_vd_and_t_in_any_mode():
    vm = preset("m", "Type1")
    bound = cal_bound(vm, "edf-vd", Fraction(1, 5))
    assert (bound.lo_mode, bound.any_mode) == (20 * MS, 100 * MS)
    assert cal_bound(vm, "amc-rtb", Fraction(1)).lo_mode == 100 * MS


def test_a_lo_vcpu_bound_is_its_period_in_lo_mode_and_none_under_exact():
    vm = preset("l", "Type2")
    assert (cal_bound(vm, "edf-vd", Fraction(1, 5)).lo_mode, cal_bound(vm, "edf-vd", 1).any_mode) \
        == (100 * MS, None)
    assert cal_bound(vm, "exact", Fraction(1)).lo_mode is None


def test_first_fit_moves_a_hi_vm_whose_ioq_a_raised_x_would_break():
    # rpc fits pCPU 0 by its share, but x would go from 1/5 to 2/5: 40 ms > 20 ms and 30 ms
    placement = first_fit(fig5_plus(preset("rpc", "Type1", ioq=30)))
    assert placement.of("memcached").pcpus == (0,)
    assert placement.of("rpc").pcpus == (1,)
    host = fig5_plus(preset("rpc", "Type1"))
    bare = attrs.evolve(host, vms=tuple(attrs.evolve(vm, ioq=None) for vm in host.vms))
    assert first_fit(bare).of("rpc").pcpus == (0,)  # without IOQs rpc shares pCPU 0


def test_an_ioq_no_pcpu_meets_is_rejected_with_a_reason_naming_it():
    placement = first_fit(fig5_plus(preset("logger", "Type2", ioq=50)))
    answer = placement.of("logger")
    assert not answer.admitted
    assert "ioq = 50ms" in answer.reason and "CAL bound of 100ms" in answer.reason


def test_an_ioq_equal_to_the_bound_is_met():
    placement = first_fit(fig5_plus(pcpus=1))
    assert placement.admitted  # memcached: x T = 20 ms, its IOQ


def forgetful(base, x_rule):
    """Deliberately wrong: checks the IOQ of the vCPU added last only."""
    def decide(sums):
        verdict = base(sums)
        last = sums.vcpus[-1:] if sums.vcpus else ()
        if verdict.schedulable and ioq_misses(last, verdict, x_rule):
            return attrs.evolve(verdict, schedulable=False)
        return verdict
    return attrs.evolve(with_ioq(base, x_rule), decide=decide)


def test_the_variant_that_forgets_the_vcpus_already_placed_breaks_an_ioq():
    host = fig5_plus(preset("rpc", "Type1", ioq=50))  # rpc's 40 ms meets its 50 ms
    wrong = first_fit(host, test=forgetful(ADMISSION_TESTS["edf-vd"], "eq4"))
    assert wrong.of("rpc").pcpus == (0,)  # and memcached's 20 ms is broken
    right = first_fit(host)
    assert right.of("rpc").pcpus == (1,)


@given(st.lists(st.tuples(st.sampled_from(sorted(PRESETS)), st.integers(1, 120)),
                min_size=1, max_size=8), st.integers(1, 3))
def test_every_admitted_vcpu_meets_its_ioq_where_it_was_placed(specs, pcpus):
    vms = [preset(f"v{i}", type_, ioq) for i, (type_, ioq) in enumerate(specs)]
    placement = first_fit(Host(pcpus, tuple(vms)))
    for load in placement.pcpus:
        x = virtual_deadline_factor(load.verdict, "eq4")
        for vcpu in load.vcpus:
            bound = cal_bound(vcpu.vm, placement.test, x)
            assert bound.lo_mode is not None and bound.lo_mode <= vcpu.vm.ioq
    for answer in placement.vms:
        if not answer.admitted:
            assert "ioq" in answer.reason or "the edf-vd test on" in answer.reason, answer.reason


def test_a_host_file_reads_and_writes_ioq_and_refuses_a_bad_one():
    text = '[host]\npcpus = 1\n[[vm]]\nname = "m"\ntype = "Type1"\nioq = "20ms"\n'
    host = loads_host(text)
    assert host.vms[0].ioq == 20 * MS
    from akita.model import dumps_host
    assert loads_host(dumps_host(host)) == host
    with pytest.raises(ModelError) as error:
        loads_host(text.replace('"20ms"', '"-1ms"'))
    assert error.value.field == "ioq" and error.value.vm == "m"
    with pytest.raises(ModelError):
        VM("m", Criticality.HI, 100 * MS, 5 * MS, 25 * MS, ioq=0)

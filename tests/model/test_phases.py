"""Phases (R2): declared, synchronous or drawn from the seed; host files; the x rule."""

from fractions import Fraction

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import MS, sim_hosts

from akita.model import VM, Criticality, Host, ModelError, SchedulerOptions, dumps_host, first_fit
from akita.model import load_host, loads_host, resolve_phases, with_phases
from akita.model.edf_vd import virtual_deadline_factor
from akita.model.phases import drawn_phase
from repo import EXAMPLES

SEEDED = SchedulerOptions(phases="seeded")


def vm(name, period=10 * MS, c_opt=2 * MS, c_pes=None, phase=None):
    crit = Criticality.HI if c_pes is not None else Criticality.LO
    return VM(name, crit, period, c_opt, c_pes, phase=phase)


@pytest.mark.rule("R2")
def test_declared_phases_win_and_synchronous_is_zero():
    host = Host(1, [vm("a", phase=3 * MS), vm("b")])
    assert resolve_phases(host, seed=7) == {"a": 3 * MS, "b": 0}
    seeded = attrs.evolve(host, options=SEEDED)
    assert resolve_phases(seeded, seed=7)["a"] == 3 * MS


@pytest.mark.rule("R2")
@given(sim_hosts(max_vms=5, options=SEEDED), st.integers(0, 2**32))
def test_drawn_phases_are_whole_microseconds_inside_one_period(host, seed):
    for v in host.vms:
        phase = resolve_phases(host, seed)[v.name]
        if v.phase is None:
            assert 0 <= phase < v.period
            assert phase % 1_000 == 0  # whole microseconds
        else:
            assert phase == v.phase


def test_drawn_phases_are_per_vm_and_move_with_the_seed():
    vms = [vm(f"v{i}", period=100 * MS) for i in range(4)]
    one = resolve_phases(Host(1, vms, options=SEEDED), seed=1)
    more = resolve_phases(Host(1, [*vms, vm("new", period=100 * MS)], options=SEEDED), seed=1)
    assert {name: more[name] for name in one} == one  # a new VM moves no other VM's phase
    assert resolve_phases(Host(1, vms, options=SEEDED), seed=2) != one
    assert len(set(one.values())) > 1  # out of phase


def test_with_phases_makes_every_phase_explicit_and_placement_ignores_them():
    host = Host(1, [vm("a"), vm("b", c_pes=4 * MS)], options=SEEDED)
    resolved = with_phases(host, resolve_phases(host, 5))
    assert all(v.phase is not None for v in resolved.vms)
    assert [p.pcpus for p in first_fit(resolved).vms] == [p.pcpus for p in first_fit(host).vms]
    assert drawn_phase(host.vms[0], 5) == resolved.vms[0].phase


@pytest.mark.parametrize("phase", [-1, 10 * MS, 11 * MS, True, "3ms"])
def test_a_phase_outside_its_period_is_refused_naming_the_vm(phase):
    with pytest.raises(ModelError) as error:
        vm("web", phase=phase)
    assert error.value.field == "phase" and error.value.vm == "web"


def test_host_files_read_and_write_phases_and_the_timing_options(tmp_path):
    text = '''[host]
pcpus = 1
phases = "seeded"
queue_order = "host"
hi_mode_order = "budget-first"
x_rule = "baruah"

[[vm]]
name = "web"
type = "Type1"
phase = "2.5ms"
'''
    host = loads_host(text)
    assert host.vms[0].phase == 2_500_000
    assert host.options == SchedulerOptions(phases="seeded", queue_order="host",
                                            hi_mode_order="budget-first", x_rule="baruah")
    assert loads_host(dumps_host(host)) == host
    with pytest.raises(ModelError) as error:
        loads_host(text.replace('phase = "2.5ms"', 'phase = "100ms"'))
    assert "phase" in str(error.value) and "web" in str(error.value)
    with pytest.raises(ModelError) as error:
        loads_host(text.replace('queue_order = "host"', 'queue_order = "lifo"'))
    assert "host.queue_order" in str(error.value)


@pytest.mark.rule("R2")
def test_x_by_eq4_and_by_baruah():
    # fig5: U1 = 3/4, U2 = 1/20, U3 = 1/4; U1 + U3 <= 1.
    verdict = first_fit(load_host(EXAMPLES / "fig5.toml")).pcpus[0].verdict
    assert virtual_deadline_factor(verdict, "baruah") == 1
    assert virtual_deadline_factor(verdict, "eq4") == Fraction(1, 5)
    # fig7: U1 + U3 > 1, where both rules give U2 / (1 - U1) = 2/5.
    verdict = first_fit(load_host(EXAMPLES / "fig7.toml")).pcpus[0].verdict
    assert virtual_deadline_factor(verdict, "baruah") == virtual_deadline_factor(verdict, "eq4")
    assert verdict.x == Fraction(2, 5)


@given(sim_hosts(max_vms=5))
def test_eq4_never_exceeds_baruah_and_keeps_the_hi_mode_condition(host):
    for load in first_fit(host).pcpus:
        verdict = load.verdict
        if verdict.x is None or not verdict.schedulable or verdict.test != "edf-vd":
            continue
        x = virtual_deadline_factor(verdict, "eq4")
        assert 0 <= x <= virtual_deadline_factor(verdict, "baruah")
        assert x * verdict.sums.lo_lo + verdict.sums.hi_hi <= 1

"""Overhead-aware admission against the simulator at the same switch cost.

A pCPU admitted on inflated budgets (akita.model.overheads), run with those
budgets reserved and every switch charged, completes every HI job by its
deadline (and every job, LO too, while it stays in LO mode); the variant that
ignores the cost admits a boundary set whose reservations overload the pCPU,
and a job misses.
"""

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from akita.model import VM, Host, first_fit
from akita.model.admission_tests import admission_test
from akita.model.criticality import Criticality
from akita.model.options import SchedulerOptions
from akita.model.overheads import admission_test_with_overheads
from akita.model.vm import Workload
from akita.reference.policies import POLICIES
from akita.reference.reservations import job_misses, reservation_host
from akita.reference.simulator import Simulator

pytestmark = pytest.mark.rule("R11")

COST = 2_460  # bench/context_switch.py on this machine (decision 70)


def _run(host: Host, overheads: bool, duration: int):
    test = (admission_test_with_overheads(host.test, host.options) if overheads
            else admission_test(host.test, host.options))
    placement = first_fit(host, test=test)
    reserved, where = reservation_host(host, placement, COST)
    result = Simulator(reserved, where, POLICIES["akita"](), duration=duration, seed=1).run()
    return placement, where, result, reserved


def _periodic(demand: int | None = None) -> Workload:
    return Workload(kind="periodic", demand=demand)


def _boundary_hi() -> Host:
    """U3 = 1 exactly, every HI job overrunning to C_pes."""
    return Host(pcpus=1, options=SchedulerOptions(context_switch_cost=COST), vms=(
        VM("h1", Criticality.HI, 1_000_000, 200_000, 500_000, workload=_periodic(500_000)),
        VM("h2", Criticality.HI, 500_000, 100_000, 250_000, workload=_periodic(250_000))))


def _boundary_lo() -> Host:
    """U1 = 1 exactly, LO mode throughout."""
    return Host(pcpus=1, options=SchedulerOptions(context_switch_cost=COST), vms=(
        VM("l1", Criticality.LO, 1_000_000, 500_000, workload=_periodic()),
        VM("l2", Criticality.LO, 300_000, 150_000, workload=_periodic())))


@pytest.mark.parametrize("make", [_boundary_hi, _boundary_lo])
def test_ignoring_the_cost_admits_a_boundary_set_that_misses(make):
    placement, where, result, reserved = _run(make(), overheads=False, duration=30_000_000)
    assert placement.admitted
    assert not where.pcpus[0].verdict.schedulable  # its reservations do not fit the pCPU
    assert sum(job_misses(result, reserved).values()) >= 1


@pytest.mark.parametrize("make", [_boundary_hi, _boundary_lo])
def test_counting_the_cost_rejects_the_boundary_set_and_nothing_misses(make):
    placement, where, result, reserved = _run(make(), overheads=True, duration=30_000_000)
    assert not placement.admitted
    assert all(p.verdict.schedulable for p in where.pcpus)
    assert job_misses(result, reserved) and not any(job_misses(result, reserved).values())


def test_the_cost_at_zero_budget_reserved_misses():
    """The declared budgets reserved as they are (no inflation) cannot hold the switches."""
    host = _boundary_lo()
    placement = first_fit(host, test=admission_test("edf-vd", host.options))
    reserved, where = reservation_host(host, placement, 0)  # budgets as declared
    charged = attrs.evolve(reserved, options=attrs.evolve(reserved.options, context_switch_cost=COST))
    result = Simulator(charged, where, POLICIES["akita"](), duration=30_000_000, seed=1).run()
    assert sum(job_misses(result, charged).values()) >= 1


_PERIODS = st.sampled_from([200_000, 300_000, 400_000, 500_000, 600_000, 1_000_000, 1_200_000])


@st.composite
def _sets(draw):
    vms = []
    for k in range(draw(st.integers(1, 4))):
        period = draw(_PERIODS)
        c_opt = draw(st.integers(period // 50, period // 2))
        if draw(st.booleans()):
            c_pes = draw(st.integers(c_opt, period))
            demand = c_pes if draw(st.booleans()) else c_opt
            vms.append(VM(f"h{k}", Criticality.HI, period, c_opt, c_pes, workload=_periodic(demand)))
        else:
            vms.append(VM(f"l{k}", Criticality.LO, period, c_opt, workload=_periodic()))
    return Host(pcpus=1, vms=tuple(vms), options=SchedulerOptions(context_switch_cost=COST))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sets())
def test_admitted_with_overheads_never_misses(host):
    """Over a hyperperiod-bounded run (at most 6 ms, a hyperperiod of the periods drawn)."""
    placement, where, result, reserved = _run(host, overheads=True, duration=6_000_000)
    misses = job_misses(result, reserved)
    hi_mode = any(c["hi_time_ns"] for c in result.as_json()["pcpus"])
    for vm in reserved.vms:
        if vm.is_hi or not hi_mode:
            assert misses[vm.name] == 0, (vm, misses)

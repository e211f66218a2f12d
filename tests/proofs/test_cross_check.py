"""Cross-check: the event-driven reference and the unit-tick Z3 model schedule alike.

With integer parameters every event of the reference falls on a whole tick, so
for the same phases, releases and demands both must run the same vCPU in every
tick, and count the same HI misses.  Hypothesis draws the pCPU, each VM's phase
(declared in the host, on the tick grid), the options -- the defaults
(``queue_order = "fifo"``, ``hi_mode_order = "capped"``, ``x_rule = "eq4"``),
the earlier default order (``"hi-first"``) or the legacy ones (``"host"``,
``"budget-first"``, ``"baruah"``) -- whether the model's phases are fixed or
symbolic and pinned by a constraint to the drawn ones (the encoding the proofs
use), and whether jobs may ask for more than the budget (up to a whole period:
workloads that break their declaration, where the orders of vCPUs past their
budgets differ).  A fast slice runs in CI;
``pytest -m slow`` runs the long one.
"""

import tempfile

import pytest
import z3
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from akita.model import VM, Criticality, Host, SchedulerOptions, first_fit
from akita.model.smt.named import solve
from akita.model.smt.pcpu import tick_pcpu, unroll
from akita.proofs.replay import (
    behaviour_of,
    phases_of,
    reference_schedule,
    save_replay,
    schedule_of,
)

STEP = 100_000  # 0.1 ms

#: The options of issue 11: the defaults, the earlier default order, and the legacy ones.
ORDERS = {
    "default": {"queue_order": "fifo", "hi_mode_order": "capped", "x_rule": "eq4"},
    "hi-first": {"queue_order": "fifo", "hi_mode_order": "hi-first", "x_rule": "eq4"},
    "legacy": {"queue_order": "host", "hi_mode_order": "budget-first", "x_rule": "baruah"},
}


@st.composite
def concrete_pcpus(draw):
    """One pCPU of 1-4 vCPUs (periods 1-6 ms, budgets and phases in 0.1 ms), options drawn too."""
    vms = []
    for i in range(draw(st.integers(1, 4))):
        period = draw(st.sampled_from([10, 20, 30, 40, 60]))
        hi = draw(st.booleans())
        c_opt = draw(st.integers(1, period // 2))
        c_pes = draw(st.integers(c_opt, period)) if hi else None
        phase = draw(st.integers(0, period - 1))
        vms.append(VM(f"v{i}", Criticality.HI if hi else Criticality.LO, period * STEP,
                      c_opt * STEP, None if c_pes is None else c_pes * STEP, phase=phase * STEP))
    options = SchedulerOptions(
        initial_temperature=draw(st.integers(1, 3)),
        hi_mode_deadline=draw(st.sampled_from(["actual", "virtual"])),
        lo_in_hi_mode=draw(st.booleans()),
        **ORDERS[draw(st.sampled_from(sorted(ORDERS)))],
    )
    host = Host(1, vms, test=draw(st.sampled_from(["edf-vd", "edf"])), options=options)
    policy = draw(st.sampled_from(["akita", "edf"]))
    return (host, policy, draw(st.booleans()), draw(st.randoms(use_true_random=False)),
            draw(st.booleans()))


def model_schedule(pcpu, horizon, symbolic, rng, overrun=False):
    """Solve the unrolling for one concrete behaviour; return it, the model and the schedule.
    *overrun*: jobs of up to a whole period, past the budgets."""
    n = len(pcpu.vcpus)
    caps = [v.period if overrun else v.full for v in pcpu.vcpus]
    unrolling = unroll(pcpu, horizon, phases=[None] * n if symbolic else None, caps=caps)
    for i, v in enumerate(pcpu.vcpus):
        if symbolic:
            unrolling.constraints.add(f"phase {i}", unrolling.phase(i) == v.phase)
        else:
            assert unrolling.phase(i) == v.phase
    for (i, k), demand in unrolling.demand.items():
        cap = caps[i]
        unrolling.constraints.add(f"fixed {i},{k}", demand == rng.choice([0, rng.randint(1, cap)]))
    answer = solve(unrolling.constraints, timeout=60)
    assert answer.status == "sat"
    assert phases_of(unrolling, answer.model) == tuple(v.phase for v in pcpu.vcpus)
    return unrolling, answer.model


def assert_same_schedule(host, policy, symbolic, rng, overrun=False):
    placement = first_fit(host)
    assume(placement.pcpus[0].vcpus)  # an empty pCPU has no schedule to compare
    pcpu = tick_pcpu(host, placement, 0, policy)
    assert all(v.phase is not None for v in pcpu.vcpus)  # declared: on the tick grid
    horizon = min(2 * pcpu.hyperperiod(), 120)
    unrolling, model = model_schedule(pcpu, horizon, symbolic, rng, overrun)
    with tempfile.TemporaryDirectory() as folder:
        host_file = save_replay(pcpu, behaviour_of(unrolling, model), folder,
                                phases_of(unrolling, model))
        ref_schedule, ref_misses = reference_schedule(host_file, pcpu, horizon, policy)
    assert schedule_of(unrolling, model) == ref_schedule
    model_misses = {v.name: 0 for v in pcpu.vcpus}
    for (i, _), short in unrolling.misses.items():
        model_misses[pcpu.vcpus[i].name] += z3.is_true(model.eval(short, model_completion=True))
    assert model_misses == ref_misses


@settings(max_examples=40, deadline=None)
@given(concrete_pcpus())
def test_reference_and_z3_model_schedule_alike(case):
    assert_same_schedule(*case)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(concrete_pcpus())
def test_reference_and_z3_model_schedule_alike_long(case):
    assert_same_schedule(*case)


class _WholePeriods:
    """The demands of a CPU-bound pair: every job asks for its whole cap."""

    @staticmethod
    def choice(options):
        return options[-1]

    @staticmethod
    def randint(low, high):
        return high


@pytest.mark.rule("R3", "R7")
@pytest.mark.parametrize("order", ["capped", "hi-first", "budget-first"])
@pytest.mark.parametrize("demands", ["whole periods", 1, 2, 3])
def test_reference_and_z3_model_agree_past_the_budgets(order, demands):
    """A HI vCPU (0.1/0.3 ms every 1 ms) beside a LO one (0.3 ms every 1 ms, phase 0.3 ms)
    whose jobs ask for a whole period, or up to one (seeded): the orders of vCPUs past their
    budgets are exercised, and the model schedules as the reference does under each."""
    import random

    vms = [VM("hi", Criticality.HI, 10 * STEP, STEP, 3 * STEP, phase=0),
           VM("lo", Criticality.LO, 10 * STEP, 3 * STEP, phase=3 * STEP)]
    host = Host(1, vms, options=SchedulerOptions(hi_mode_order=order))
    rng = _WholePeriods() if demands == "whole periods" else random.Random(demands)
    assert_same_schedule(host, "akita", False, rng, overrun=True)

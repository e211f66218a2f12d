"""Cross-check: the Python tick step (model/exact/tick.py) and the Z3 unrolling step alike.

For the same pCPU, phases and demands, :func:`akita.model.exact.tick.run` must run the
same vCPU in every tick as :func:`akita.model.smt.pcpu.unroll` with everything fixed
(solved by Z3), and find the same periods short -- every vCPU's, so HI misses too --,
under every option and every deliberately wrong variant of the Z3 model.  A wrong
step (:func:`wrong_step`, re-inserting nobody) must be caught by the same comparison.
"""

from __future__ import annotations

import attrs
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from exact_pcpus import demands_for, tick_pcpus

from akita.model.exact import tick
from akita.model.exact.machine import machine
from akita.model.smt.named import solve
from akita.model.smt.pcpu import TickPCPU, unroll


def z3_run(pcpu: TickPCPU, horizon: int, demand: dict[tuple[int, int], int]):
    """The Z3 model's schedule and short periods for one fixed behaviour."""
    unrolling = unroll(pcpu, horizon)
    for key, value in unrolling.demand.items():
        unrolling.constraints.add(f"fixed {key}", value == demand.get(key, 0))
    answer = solve(unrolling.constraints, timeout=60)
    assert answer.status == "sat"
    model = answer.model
    schedule = []
    for run in unrolling.runs:
        ran = [i for i, r in enumerate(run) if z3.is_true(model.eval(r, model_completion=True))]
        assert len(ran) <= 1
        schedule.append(ran[0] if ran else -1)
    shorts = sorted((i, at // pcpu.vcpus[i].period - 1) for (i, at), c in unrolling.shorts.items()
                    if z3.is_true(model.eval(z3.BoolVal(c) if isinstance(c, bool) else c,
                                             model_completion=True)))
    return schedule, shorts


def python_run(pcpu: TickPCPU, horizon: int, demand: dict[tuple[int, int], int]):
    schedule, shorts = tick.run(machine(pcpu), [v.phase for v in pcpu.vcpus], demand, horizon)
    return schedule, sorted(s for s in shorts if s[1] >= 0)


def same(data, pcpu: TickPCPU) -> None:
    horizon = min(2 * pcpu.hyperperiod(), 40)
    demand = demands_for(data, pcpu, horizon)
    assert python_run(pcpu, horizon, demand) == z3_run(pcpu, horizon, demand)


@settings(max_examples=60, deadline=None)
@given(tick_pcpus(), st.data())
def test_python_step_is_the_z3_step(pcpu, data):
    same(data, pcpu)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(tick_pcpus(), st.data())
def test_python_step_is_the_z3_step_long(pcpu, data):
    same(data, pcpu)


_STEP = tick.step


def wrong_step(m, s, demands):
    """The step with the fifo re-insertion of a descheduled vCPU forgotten."""
    return _STEP(m, s._replace(last=-1), demands)


@pytest.mark.long  # 7 s; the interval re-check's wrong step stays in the fast tier
def test_a_wrong_step_is_caught(monkeypatch):
    """Negative control: the same comparison refutes a step that forgets re-insertion
    (found by a seeded search over the strategy's pCPUs)."""
    from hypothesis import find

    def differs(case):
        pcpu, demand = case
        horizon = min(2 * pcpu.hyperperiod(), 40)
        with monkeypatch.context() as patch:
            patch.setattr(tick, "step", wrong_step)
            wrong = python_run(pcpu, horizon, demand)
        return wrong != python_run(pcpu, horizon, demand)

    @st.composite
    def cases(draw):
        pcpu = draw(tick_pcpus(variants=False, policies=("akita",)))
        pcpu = attrs.evolve(pcpu, queue_order="fifo")
        horizon = min(2 * pcpu.hyperperiod(), 40)
        return pcpu, demands_for(_Draw(draw), pcpu, horizon)

    pcpu, demand = find(cases(), differs, settings=settings(max_examples=2000, database=None))
    horizon = min(2 * pcpu.hyperperiod(), 40)
    with monkeypatch.context() as patch:
        patch.setattr(tick, "step", wrong_step)
        wrong = python_run(pcpu, horizon, demand)
    assert wrong != z3_run(pcpu, horizon, demand)


class _Draw:
    """``data.draw`` for :func:`demands_for` inside a composite strategy."""

    def __init__(self, draw) -> None:
        self.draw = lambda strategy, label=None: draw(strategy)

"""Phases in the tick unrolling: the grids, the keys, the anchoring, fixed versus symbolic.

Each encoding of a symbolic phase must say what a fixed phase says, for every
phase (:mod:`akita.model.smt.grid`); key comparisons must be the integers'
(:mod:`akita.model.smt.keys`); and the earliest-phase-is-0 anchoring must not
hide a violation (it is only a shift in time).
"""

import itertools

import attrs
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from akita.model import ModelError
from akita.model.smt.grid import FixedGrid, IntGrid, OneHotGrid, grid
from akita.model.smt.keys import before, deadline_key, no_key, virtual_key
from akita.model.smt.named import solve
from akita.model.smt.pcpu import TickPCPU, TickVCPU, unroll
from akita.proofs.hi_guarantee import hi_miss
from akita.proofs.pcpus import every_phase, staggered, synchronous
from akita.proofs.replay import phases_of, schedule_of

pytestmark = pytest.mark.rule("R2")


def value(term, phase_var, phase):
    """*term* with the phase set (a Python int or bool as it is)."""
    if isinstance(term, (bool, int)):
        return term
    result = z3.simplify(z3.substitute(term, (phase_var, z3.IntVal(phase))))
    return z3.is_true(result) if z3.is_bool(result) else result.as_long()


@pytest.mark.parametrize("period", [1, 3, 7])
@pytest.mark.parametrize("make", [IntGrid, OneHotGrid])
def test_a_symbolic_grid_says_what_each_fixed_one_says(period, make):
    symbolic = make(period, "v")
    for phase in range(period):
        fixed = FixedGrid(period, phase)
        pin = [symbolic.phase == phase]
        for t in range(3 * period + 2):
            for ask in ("starts", "begun", "deadline"):
                got = getattr(symbolic, ask)(t)
                want = getattr(fixed, ask)(t)
                s = z3.Solver()
                s.add(*symbolic.constraints(), *pin)
                if isinstance(got, bool):
                    assert got == want
                else:
                    s.add(got != want)
                    assert s.check() == z3.unsat, (ask, t, phase)
        deadline = [fixed.deadline(t) for t in range(2 * period)]
        assert deadline == [next(phase + k * period for k in range(5) if phase + k * period > t)
                            for t in range(2 * period)]


def test_the_pieces_cover_every_phase_once():
    g = IntGrid(5, "v")
    for t in range(12):
        covered = sorted(p for piece in g.pieces(t) for p in range(piece.lo, piece.hi + 1))
        assert covered == list(range(5))


def test_a_phase_outside_its_period_or_an_unknown_encoding_is_an_error():
    with pytest.raises(ModelError):
        FixedGrid(4, 4)
    with pytest.raises(ModelError):
        grid(4, None, "v", "binary")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 12), st.integers(1, 3),
       st.integers(0, 3), st.sampled_from([None, True, False]), st.booleans())
def test_before_is_integer_comparison_for_every_phase_pair(ta, tb, t, q, p, tie, virtual):
    a, b = IntGrid(ta, "a"), IntGrid(tb, "b")
    ka = virtual_key(a, t, q, p) if virtual else deadline_key(a, t, q)
    kb = deadline_key(b, t, q)
    tie_var = z3.Bool("tie")
    condition = before(ka, kb, q, tie_var if tie is None else tie)
    for pa, pb in itertools.product(range(ta), range(tb)):
        da, db = FixedGrid(ta, pa).deadline(t), FixedGrid(tb, pb).deadline(t)
        key_a = q * (da - ta) + p * ta if virtual else q * da
        for tie_value in ([True, False] if tie is None else [tie]):
            want = key_a < q * db or (key_a == q * db and tie_value)
            s = z3.Solver()
            s.add(a.phase == pa, b.phase == pb, tie_var == tie_value)
            s.add(z3.Not(condition) if want else condition)
            assert s.check() == z3.unsat, (pa, pb, tie_value)


def test_no_key_leaves_only_the_tie():
    assert before(no_key(), no_key(), 1, True) is True
    assert before(no_key(), no_key(), 1, False) is False


def test_vcpus_of_one_vm_share_a_symbolic_phase():
    vcpus = (TickVCPU("vm/0", True, 4, 1, 2, 0), TickVCPU("vm/1", True, 4, 1, 2, 1),
             TickVCPU("other/0", False, 6, 1, None, 2))
    u = unroll(TickPCPU(vcpus, test="edf"), 4)
    assert u.grids[0] is u.grids[1] and u.grids[0] is not u.grids[2]


def test_fixed_and_pinned_symbolic_phases_give_the_same_schedule():
    pcpu = staggered()
    phases = (0, 3)
    fixed = unroll(pcpu, 12, phases=phases)
    pinned = unroll(pcpu, 12)
    for i, phase in enumerate(phases):
        pinned.constraints.add(f"pin {i}", pinned.phase(i) == phase)
    schedules = []
    jobs = {(0, 0): 1, (0, 1): 3, (1, 0): 3}  # hi: 1 ms at 0, 3 ms at 4; lo: 3 ms at 3
    for u in (fixed, pinned):
        for (i, k), d in u.demand.items():
            u.constraints.add(f"demand {i} {k}", d == jobs.get((i, k), 0))
        answer = solve(u.constraints, timeout=30)
        assert answer.status == "sat"
        assert phases_of(u, answer.model) == phases
        schedules.append(schedule_of(u, answer.model))
    assert schedules[0] == schedules[1]
    # lo's deadline 7 is ahead of hi's 8: hi gets 2 of its 3 ms (the staggered miss)
    assert schedules[0][:8] == ["hi/0", None, None] + ["lo/0"] * 3 + ["hi/0"] * 2
    assert any(z3.is_true(answer.model.eval(m)) for m in pinned.misses.values())


def test_synchronous_phases_hide_the_staggered_miss_and_every_phase_finds_it():
    pcpu = staggered()
    horizon = 3 * pcpu.hyperperiod()
    verdicts = {}
    for name, p in (("synchronous", synchronous(pcpu)), ("every", every_phase(pcpu))):
        u = unroll(p, horizon, anchored=True)
        u.constraints.add("miss", hi_miss(u))
        verdicts[name] = solve(u.constraints, timeout=30).status
    assert verdicts == {"synchronous": "unsat", "every": "sat"}


@pytest.mark.parametrize("anchored", [False, True])
def test_anchoring_keeps_the_verdict(anchored):
    pcpu = every_phase(staggered())
    u = unroll(pcpu, 2 * pcpu.hyperperiod(), anchored=anchored)
    u.constraints.add("miss", hi_miss(u))
    answer = solve(u.constraints, timeout=30)
    assert answer.status == "sat"
    if anchored:
        assert 0 in phases_of(u, answer.model)


def test_a_job_is_never_released_at_or_after_the_horizon():
    pcpu = every_phase(attrs.evolve(staggered(), variant=None))
    u = unroll(pcpu, 6)
    for (i, k), released in u.released.items():
        s = z3.Solver()
        s.add(*[f for _, f in u.constraints.items], released,
              u.grids[i].release(k) >= 6)
        assert s.check() == z3.unsat

"""The task-set generator: exact variates, UUniFast, periods and budgets on the grid
(model/exact_random.py, model/uunifast.py, model/taskgen.py)."""

import hashlib
import math
import random
from collections import Counter
from fractions import Fraction

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.model import Criticality, ModelError
from akita.model.exact_random import (BITS, bernoulli, largest_uniform, log_uniform_index,
                                      uniform_below)
from akita.model.taskgen import MAX_DISCARDS, TaskSetGenerator, set_random
from akita.model.uunifast import uunifast, uunifast_scaled

MS, US = 1_000_000, 1_000
seeds = st.integers(0, 2**64)
utilizations = st.fractions(min_value=Fraction(1, 1000), max_value=1, max_denominator=1000)


def rng(seed):
    return random.Random(seed)


# ------------------------------------------------------------------ exact variates


@given(seeds, st.integers(1, 10**30))
def test_uniform_below_stays_in_range(seed, n):
    assert 0 <= uniform_below(rng(seed), n) < n


def test_uniform_below_refuses_an_empty_range():
    with pytest.raises(ValueError):
        uniform_below(rng(0), 0)


@given(seeds)
def test_bernoulli_at_the_ends_is_certain(seed):
    assert bernoulli(rng(seed), Fraction(1)) and not bernoulli(rng(seed), Fraction(0))


def test_bernoulli_has_its_probability():
    r = rng(3)
    hits = sum(bernoulli(r, Fraction(1, 3)) for _ in range(30_000))
    assert abs(hits / 30_000 - 1 / 3) < 0.012  # > 4 standard deviations


@pytest.mark.parametrize("k", [1, 3, 19])
def test_largest_uniform_has_the_law_of_a_kth_root(k):
    r = rng(k)
    draws = [largest_uniform(r, k) / 2**BITS for _ in range(20_000)]
    assert all(0 <= d < 1 for d in draws)
    # P(max <= 1/2) = 2^-k, the law of r ** (1/k)
    assert abs(sum(d <= 0.5 for d in draws) / 20_000 - 0.5**k) < 0.015
    assert abs(sum(draws) / 20_000 - k / (k + 1)) < 0.01


@given(seeds, st.integers(1, 10**6), st.integers(0, 10**6))
def test_log_uniform_index_stays_in_range(seed, low, span):
    assert low <= log_uniform_index(rng(seed), low, low + span) <= low + span


@pytest.mark.parametrize("low, high", [(1, 1), (10, 25), (100, 10_000)])
def test_log_uniform_index_has_the_log_uniform_law(low, high):
    """P(k) = ln((k+1)/k) / ln((high+1)/low), Emberson et al.'s floor of a log-uniform."""
    r = rng(low)
    n = 40_000
    if high - low > 100:  # compare by decades, where a count per k would be noise
        edges = [low, 300, 1000, 3000, high + 1]
        counts = Counter(next(i for i in range(4) if edges[i] <= k < edges[i + 1])
                         for k in (log_uniform_index(r, low, high) for _ in range(n)))
        expected = [math.log(edges[i + 1] / edges[i]) / math.log((high + 1) / low)
                    for i in range(4)]
    else:
        counts = Counter(log_uniform_index(r, low, high) - low for _ in range(n))
        expected = [math.log((k + 1) / k) / math.log((high + 1) / low)
                    for k in range(low, high + 1)]
    for i, p in enumerate(expected):
        assert abs(counts[i] / n - p) < 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9, (i, p)


# ------------------------------------------------------------------ UUniFast


@given(seeds, st.integers(1, 40), utilizations)
def test_uunifast_sums_to_its_total_exactly(seed, n, total):
    shares = uunifast(rng(seed), n, total)
    assert len(shares) == n and all(s >= 0 for s in shares)
    assert sum(shares) == total


@given(seeds, st.integers(1, 40), utilizations)
def test_the_scaled_form_is_the_same_vector(seed, n, total):
    numerators, denominator = uunifast_scaled(rng(seed), n, total)
    assert sum(numerators) == total * denominator
    assert [Fraction(x, denominator) for x in numerators] == uunifast(rng(seed), n, total)


def test_uunifast_is_uniform_on_the_simplex():
    """Each share of a uniform point of the n-simplex is Beta(1, n-1): mean U/n,
    and P(u_i > U/2) = (1/2)^(n-1) -- for the first share and the last alike."""
    r, n, runs = rng(5), 4, 20_000
    vectors = [uunifast(r, n, Fraction(1)) for _ in range(runs)]
    for i in (0, n - 1):
        mean = sum(float(v[i]) for v in vectors) / runs
        assert abs(mean - 1 / n) < 0.006
        assert abs(sum(v[i] > Fraction(1, 2) for v in vectors) / runs - 0.5 ** (n - 1)) < 0.01


# ------------------------------------------------------------------ sets on the grid

generators = st.builds(
    lambda kind, n, g, low, span, dist, factor, p: TaskSetGenerator(
        kind=kind, vcpus=n, periods=(low * g, (low + span) * g), period_distribution=dist,
        granularity=g, criticality_factor=factor, p_hi=p),
    st.sampled_from(["uunifast", "uunifast-discard"]), st.integers(1, 12),
    st.sampled_from([1, 1000, 100_000]), st.integers(10, 2000), st.integers(0, 5000),
    st.sampled_from(["log-uniform", "uniform"]),
    st.fractions(min_value=1, max_value=2, max_denominator=4),
    st.fractions(0, 1, max_denominator=8))
# U <= 2/5 and a factor <= 2 with periods of >= 10 ticks: C_pes <= 0.8 k + 1.5 <= k, so
# every utilisation vector fits and uunifast-discard never needs to give up (tested apart)


@given(generators, seeds, st.fractions(min_value=Fraction(1, 100), max_value=Fraction(2, 5),
                                       max_denominator=100))
def test_a_set_is_on_the_grid_and_near_its_utilization(generator, seed, u):
    drawn = generator.draw(rng(seed), u)
    g, (low, high) = generator.granularity, generator.periods
    assert len(drawn.vms) == generator.vcpus
    bound = Fraction(0)
    for vm in drawn.vms:
        assert low <= vm.period <= high and vm.period % g == 0 and vm.c_opt % g == 0
        assert 0 < vm.c_opt <= vm.period
        bound += Fraction(g, vm.period)
        if vm.criticality is Criticality.HI:
            assert vm.c_pes % g == 0 and vm.c_opt <= vm.c_pes <= vm.period
            if vm.c_pes < vm.period:  # not clamped: C_pes is factor x C_opt to the tick
                assert abs(vm.c_pes - generator.criticality_factor * vm.c_opt) <= Fraction(g, 2)
    # each budget within half a tick of u T, or raised by less than a tick
    assert abs(drawn.u_lo - u) <= bound
    if drawn.raised == 0:
        assert abs(drawn.u_lo - u) <= bound / 2
    if generator.kind == "uunifast-discard":
        assert drawn.clamped == 0


@given(generators, seeds, st.integers(0, 10**6))
def test_a_set_depends_on_seed_utilization_and_index_only(generator, seed, index):
    u = Fraction(1, 3)
    first = generator.draw(set_random(seed, u, index), u)
    again = generator.draw(set_random(seed, u, index), u)
    assert first == again
    following = set_random(seed, u, index + 1)
    assert set_random(seed, u, index).getrandbits(64) != following.getrandbits(64)


def test_the_sets_drawn_are_pinned():
    """A change here changes every stored batch: bump akita.sweep.spec.FORMAT with it."""
    generator = TaskSetGenerator("uunifast", 20, (10 * MS, 1000 * MS), granularity=100 * US)
    text = repr([[(str(vm.criticality), vm.period, vm.c_opt, vm.c_pes) for vm in
                  generator.draw(set_random(1, Fraction(1, 2), i), Fraction(1, 2)).vms]
                 for i in range(3)])
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == PINNED


PINNED = "2df6ffb5c55bcf91"


def test_a_budget_that_rounds_to_nothing_is_raised_to_one_tick():
    generator = TaskSetGenerator("uunifast", 20, (10 * MS, 10 * MS), granularity=MS, p_hi=0)
    drawn = generator.draw(rng(1), Fraction(1, 100))  # u_i ~ 1/2000: 0.005 of a 1 ms tick
    assert drawn.raised > 0 and all(vm.c_opt >= MS for vm in drawn.vms)
    assert drawn.u_lo > Fraction(1, 100)  # raising only adds


def test_uunifast_clamps_and_discard_redraws_a_c_pes_beyond_the_period():
    clamping = TaskSetGenerator("uunifast", 2, (MS, MS), granularity=US,
                                criticality_factor=Fraction(3), p_hi=Fraction(1))
    sets = [clamping.draw(rng(s), Fraction(9, 10)) for s in range(50)]
    assert sum(s.clamped for s in sets) > 0
    assert all(vm.c_pes <= vm.period for s in sets for vm in s.vms)
    discarding = attrs.evolve(clamping, kind="uunifast-discard")
    sets = [discarding.draw(rng(s), Fraction(1, 2)) for s in range(50)]
    assert sum(s.discarded for s in sets) > 0 and all(s.clamped == 0 for s in sets)
    assert all(3 * vm.c_opt <= vm.period for s in sets for vm in s.vms)


def test_discard_gives_up_with_an_error_not_a_hang():
    generator = TaskSetGenerator("uunifast-discard", 2, (MS, MS), granularity=US,
                                 criticality_factor=Fraction(3), p_hi=Fraction(1))
    with pytest.raises(ModelError, match=f"{MAX_DISCARDS} vectors in a row"):
        generator.draw(rng(0), Fraction(1))  # 3 (u1 + u2) = 3 > 2: no vector fits


@pytest.mark.parametrize("change, field", [
    ({"kind": "uunifast2"}, "kind"), ({"vcpus": 0}, "vcpus"), ({"granularity": 0}, "granularity"),
    ({"periods": (1500, 3000)}, "periods"), ({"periods": (3000, 2000)}, "periods"),
    ({"criticality_factor": Fraction(1, 2)}, "criticality_factor"),
    ({"p_hi": Fraction(3, 2)}, "p_hi"), ({"period_distribution": "normal"}, "period_distribution"),
])
def test_a_bad_parameter_is_named(change, field):
    fields = {"kind": "uunifast", "vcpus": 2, "periods": (1000, 2000), "granularity": 1000}
    with pytest.raises(ModelError) as caught:
        TaskSetGenerator(**{**fields, **change})
    assert caught.value.field == field


def test_a_utilization_outside_the_unit_interval_is_refused():
    generator = TaskSetGenerator("uunifast", 2, (MS, MS))
    for u in (Fraction(0), Fraction(11, 10)):
        with pytest.raises(ModelError, match="utilization"):
            generator.draw(rng(0), u)

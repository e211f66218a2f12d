"""Exact nearest-rank percentiles (analysis/percentiles.py)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.analysis.percentiles import PERCENTILES, nearest_rank, summary


def test_small_cases_by_hand():
    assert nearest_rank([10, 20, 30, 40], Fraction(1, 2)) == 20
    assert nearest_rank([10, 20, 30, 40], Fraction(3, 4)) == 30
    assert nearest_rank([10, 20, 30, 40], Fraction(99, 100)) == 40
    assert nearest_rank([7], Fraction(1, 1000)) == 7
    assert summary([5, 1, 3]) == {"p50": 3, "p90": 5, "p99": 5, "p999": 5, "max": 5, "count": 3}


def test_no_sample_is_not_zero():
    assert summary([]) == {"p50": None, "p90": None, "p99": None, "p999": None, "max": None,
                           "count": 0}
    with pytest.raises(ValueError):
        nearest_rank([], Fraction(1, 2))


def _defining(ordered, p, found):
    """The nearest-rank definition: at least p of the samples <= found, fewer below it."""
    n = len(ordered)
    at_most = sum(1 for v in ordered if v <= found)
    below = sum(1 for v in ordered if v < found)
    return found in ordered and at_most >= p * n and below < p * n


@given(st.lists(st.integers(0, 10**12), min_size=1, max_size=300))
def test_the_definition_holds(samples):
    ordered = sorted(samples)
    for _, p in PERCENTILES:
        assert _defining(ordered, p, nearest_rank(ordered, p))


def test_a_floor_rank_variant_is_refuted():
    """A rank of floor(p n) (a common slip) breaks the definition the test checks."""
    ordered = list(range(1, 11))

    def wrong(values, p):
        return values[max(int(p * len(values)), 1) - 1]

    assert not _defining(ordered, Fraction(99, 100), wrong(ordered, Fraction(99, 100)))
    assert _defining(ordered, Fraction(99, 100), nearest_rank(ordered, Fraction(99, 100)))

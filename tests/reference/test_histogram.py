"""LogHistogram: exact aggregates, nearest-rank percentiles within the stated bound."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.reference.histogram import DEFAULT_SIG, MAX_VALUE, LogHistogram

VALUES = st.lists(st.integers(min_value=0, max_value=10**12), min_size=1, max_size=300)
# Percentiles in [0, 100] with three decimals, plus the ones summary() uses.
QUANTILES = st.one_of(
    st.sampled_from([Fraction(q) for q in (0, 50, 90, 99, "99.9", 100)]),
    st.fractions(min_value=0, max_value=100, max_denominator=1000),
)


def exact_percentile(values: list[int], q: Fraction) -> int:
    """The nearest-rank percentile: smallest v with >= ceil(q/100 * n) values <= v."""
    ordered = sorted(values)
    rank = -(-(q.numerator * len(ordered)) // (q.denominator * 100))
    return ordered[0] if rank == 0 else ordered[rank - 1]


def within_bound(reported: int, exact: int, sig: int) -> bool:
    """The docstring's bound: exact below 2**sig, else relative error < 2**-(sig-1)."""
    if exact < 2**sig:
        return reported == exact
    return exact <= reported and (reported - exact) * 2 ** (sig - 1) < exact


def filled(values: list[int], sig: int = DEFAULT_SIG) -> LogHistogram:
    histogram = LogHistogram(sig)
    for value in values:
        histogram.record(value)
    return histogram


# -- small, exact cases ------------------------------------------------------


def test_small_values_are_exact():
    histogram = filled(list(range(1, 101)))
    assert histogram.percentile(50) == 50
    assert histogram.percentile(90) == 90
    assert histogram.percentile(99) == 99
    assert histogram.percentile("99.9") == 100
    assert histogram.percentile(Fraction(1, 2)) == 1
    assert histogram.percentile(0) == 1
    assert histogram.percentile(100) == 100
    assert histogram.summary() == {"p50": 50, "p90": 90, "p99": 99, "p999": 100, "max": 100}


def test_nearest_rank_definition():
    # 4 values: p25 is the 1st, p25.01 the 2nd, p50 the 2nd, p75 the 3rd.
    histogram = filled([10, 20, 30, 40])
    assert histogram.rank(25) == 1 and histogram.percentile(25) == 10
    assert histogram.rank("25.01") == 2 and histogram.percentile("25.01") == 20
    assert histogram.percentile(50) == 20
    assert histogram.percentile(75) == 30
    assert histogram.percentile(Fraction(751, 10)) == 40


def test_reports_bucket_top_clamped_to_max():
    histogram = filled([128, 200, 1000])
    # 200 is in the bucket [200, 201] (shift 1); 1000 in [1000, 1007] (shift 3).
    assert histogram.percentile(50) == 201
    assert histogram.percentile(100) == 1000  # not 1007: clamped to the exact max
    assert histogram.percentile(0) == 128


def test_bucket_edges():
    histogram = LogHistogram()
    for value in (127, 128, 129, 255, 256, 259, 260):
        histogram.record(value)
    # 127 exact; [128, 129] and [254, 255] of width 2; [256, 259] and [260, 263] of width 4.
    assert histogram.bucket_count == 5
    assert [histogram.percentile(Fraction(100 * k, 7)) for k in range(1, 8)] == [
        127, 129, 129, 255, 259, 259, 260
    ]


def test_record_with_count():
    histogram = LogHistogram()
    histogram.record(5, count=3)
    histogram.record(7)
    assert (histogram.count, histogram.total, histogram.min, histogram.max) == (4, 22, 5, 7)
    assert histogram.percentile(75) == 5
    assert histogram == filled([5, 5, 5, 7])


def test_empty():
    histogram = LogHistogram()
    assert (histogram.count, histogram.total, histogram.min, histogram.max) == (0, 0, None, None)
    assert histogram.summary() == {"p50": 0, "p90": 0, "p99": 0, "p999": 0, "max": 0}
    with pytest.raises(ValueError, match="empty"):
        histogram.percentile(50)


def test_largest_value():
    histogram = filled([0, MAX_VALUE])
    assert histogram.percentile(100) == MAX_VALUE
    assert histogram.percentile(50) == 0
    assert histogram.total == MAX_VALUE


@pytest.mark.parametrize(
    ("value", "count", "error"),
    [(-1, 1, ValueError), (MAX_VALUE + 1, 1, ValueError), (1, 0, ValueError),
     (1.0, 1, TypeError), (True, 1, TypeError), (1, 1.0, TypeError)],
)
def test_record_refuses(value, count, error):
    with pytest.raises(error):
        LogHistogram().record(value, count)


@pytest.mark.parametrize(("q", "error"), [(99.9, TypeError), (True, TypeError), (-1, ValueError),
                                          (Fraction(1001, 10), ValueError), ("p99", ValueError)])
def test_percentile_refuses(q, error):
    with pytest.raises(error):
        filled([1]).percentile(q)


@pytest.mark.parametrize("sig", [0, 33, True, 7.0])
def test_sig_refused(sig):
    with pytest.raises(ValueError):
        LogHistogram(sig)


def test_merge_refuses_other_sig():
    with pytest.raises(ValueError, match="sig"):
        LogHistogram(7).merge(LogHistogram(8))


# -- memory ------------------------------------------------------------------


def test_memory_bound_after_spread_values():
    histogram = LogHistogram()
    value = 1
    for i in range(10**5):
        histogram.record(value)
        value = (value * 6364136223846793005 + 1442695040888963407 + i) % 2**64
    assert histogram.count == 10**5
    assert histogram.max_buckets == 2**7 + 57 * 2**6 == 3776
    assert histogram.bucket_count <= histogram.max_buckets <= 64 * 2**7


@pytest.mark.parametrize("sig", [1, 4, 7, 10])
def test_max_buckets_is_exactly_the_number_of_buckets(sig):
    histogram = LogHistogram(sig)
    # The lowest value of every bucket: 0 .. 2**sig - 1, then m << s for every lead m and shift s.
    for value in range(2**sig):
        histogram.record(value)
    for shift in range(1, 64 - sig + 1):
        for lead in range(2 ** (sig - 1), 2**sig):
            histogram.record(lead << shift)
    histogram.record(MAX_VALUE)
    assert histogram.bucket_count == histogram.max_buckets


# -- properties --------------------------------------------------------------


@given(VALUES, st.lists(QUANTILES, min_size=1, max_size=5))
def test_percentiles_within_bound(values, quantiles):
    histogram = filled(values)
    for q in quantiles:
        exact = exact_percentile(values, q)
        reported = histogram.percentile(q)
        assert within_bound(reported, exact, DEFAULT_SIG), (q, exact, reported)
        assert reported <= max(values)


@given(VALUES, QUANTILES, st.integers(min_value=1, max_value=12))
def test_percentiles_within_bound_any_sig(values, q, sig):
    assert within_bound(filled(values, sig).percentile(q), exact_percentile(values, q), sig)


@given(VALUES)
def test_aggregates_exact(values):
    histogram = filled(values)
    assert histogram.count == len(values)
    assert histogram.total == sum(values)
    assert histogram.min == min(values) == histogram.percentile(0)
    assert histogram.max == max(values) == histogram.percentile(100)
    summary = histogram.summary()
    assert list(summary) == ["p50", "p90", "p99", "p999", "max"]
    assert summary["max"] == max(values)
    for name, q in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", Fraction(999, 10))):
        assert summary[name] == histogram.percentile(q)
        assert within_bound(summary[name], exact_percentile(values, Fraction(q)), DEFAULT_SIG)


@given(VALUES, VALUES)
def test_merge_equals_recording_both(first, second):
    merged = filled(first)
    merged.merge(filled(second))
    assert merged == filled(first + second)
    empty = LogHistogram()
    empty.merge(filled(second))
    assert empty == filled(second)
    unchanged = filled(first)
    unchanged.merge(LogHistogram())
    assert unchanged == filled(first)


# -- the hot path: add() holds values and buckets them together ---------------------

ADDED = st.lists(st.integers(min_value=0, max_value=10**12), max_size=3000)


@given(ADDED, st.sets(st.integers(min_value=0, max_value=3000), max_size=4))
def test_add_equals_record_whenever_it_is_read(values, read_at):
    """Values taken by add() -- held, then bucketed at 1,024 or on a read -- give at every
    read the very histogram record() gives (aggregates, percentiles, equality)."""
    added, recorded = LogHistogram(), LogHistogram()
    for i, value in enumerate(values):
        if i in read_at:  # a read in the middle folds what is pending
            assert (added.count, added.total, added.min, added.max) == (
                recorded.count, recorded.total, recorded.min, recorded.max)
        added.add(value)
        recorded.record(value)
    assert added == recorded
    assert added.summary() == recorded.summary()
    assert added.bucket_count == recorded.bucket_count
    assert repr(added) == repr(recorded)


def test_add_holds_at_most_the_pending_limit():
    """Memory stays bounded: the held values never reach more than 1,024."""
    histogram = LogHistogram()
    for value in range(5000):
        histogram.add(value)
        assert len(histogram._pending) < 1024
    assert histogram.count == 5000 and histogram.total == sum(range(5000))


def test_merge_folds_both_sides():
    first, second = LogHistogram(), LogHistogram()
    for value in (3, 5, 10**9):
        first.add(value)
        second.add(value + 1)
    first.merge(second)
    assert first == filled([3, 5, 10**9, 4, 6, 10**9 + 1])

"""The search split by shift class across workers (model/exact/split.py, decision 370).

:func:`akita.model.exact.split.decide_split` must join its parts into the whole
search's answer: ``SAFE`` with the union of the parts' states equal to the whole
search's, state for state and instant for instant; ``UNSAFE`` at the whole search's
earliest miss instant, with a counterexample that misses there; ``UNKNOWN`` whenever a
part reached the state limit.  The same answer in this process and on a local Dask
cluster; the joined certificate is accepted by the interval re-check as the whole
one is.  Negative control: a join that takes the
first part's miss rather than the least gives a later miss than the whole search on a
pCPU drawn for it, which the same comparison refuses.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, assume, given, settings

from exact_pcpus import tick_pcpus, tight_pcpus

import akita.model.exact.split as split
from akita.model.exact.search import SAFE, UNKNOWN, UNSAFE, Limits, explore
from akita.model.exact.split import Part, decide_split
from akita.model.smt.pcpu import TickPCPU, TickVCPU
from akita.proofs.exact_certificate import check_intervals

LIMITS = Limits(states=200_000, seconds=60)

#: Two vCPUs of period 4 with open phases: the first part misses at tick 12, the second
#: at tick 5, the whole search at tick 5.
LATE_FIRST = TickPCPU((TickVCPU("v0/0", True, 4, 1, 4, 0, None),
                       TickVCPU("v1/0", False, 4, 2, None, 1, None)), Fraction(1),
                      "akita", 1, "actual", False)

#: Three vCPUs with open phases: 36 shift classes, 4,642 states, SAFE.
MIDDLE = TickPCPU((TickVCPU("a/0", True, 12, 2, 4, 0, None), TickVCPU("b/0", True, 6, 1, 2, 1, None),
                   TickVCPU("c/0", False, 6, 1, None, 2, None)), Fraction(1, 2))


def check_join(pcpu: TickPCPU) -> None:
    whole = explore(pcpu, LIMITS)
    assume(whole.status != UNKNOWN and all(split.runs(pcpu)))
    joined, _ = decide_split(pcpu, LIMITS, workers=0)
    assert joined.status == whole.status
    if whole.status == SAFE:
        assert joined.states == whole.states and joined.kept == len(whole.states)
    else:
        assert whole.miss is not None and joined.instant == whole.miss[0]
        assert joined.counterexample is not None
        assert joined.counterexample.instant == whole.miss[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tick_pcpus(max_vcpus=3, periods=(2, 3, 4, 6), phases=False))
def test_the_split_joins_into_the_whole_search(pcpu: TickPCPU) -> None:
    check_join(pcpu)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tight_pcpus())
def test_the_split_finds_the_whole_searchs_earliest_miss(pcpu: TickPCPU) -> None:
    check_join(pcpu)


def first_part_join(parts: list[Part]) -> int | None:
    """The wrong join: the first part's miss that is found, not the least."""
    return next((p.instant for p in parts if p.status == UNSAFE), None)


def test_the_first_parts_miss_is_not_the_earliest() -> None:
    """Negative control: on LATE_FIRST the wrong join reports tick 12; the whole search
    and the join say 5."""
    whole = explore(LATE_FIRST, LIMITS)
    joined, parts = decide_split(LATE_FIRST, LIMITS, workers=0)
    assert whole.miss is not None and (joined.instant, whole.miss[0]) == (5, 5)
    assert first_part_join(parts) == 12


def test_a_part_at_the_state_limit_makes_the_split_unknown() -> None:
    limits = Limits(states=1_000, seconds=60)
    joined, parts = decide_split(MIDDLE, limits, workers=0)
    assert {p.status for p in parts} == {UNKNOWN} and joined.status == UNKNOWN
    assert joined.reason is not None and joined.reason.startswith("part 1 of 2: state limit")
    assert explore(MIDDLE, limits).status == UNKNOWN


def test_parts_within_the_limit_but_beyond_it_together_are_unknown() -> None:
    limits = Limits(states=3_000, seconds=60)
    joined, parts = decide_split(MIDDLE, limits, workers=0)
    assert [p.status for p in parts] == [SAFE, SAFE] and all(p.kept <= 3_000 for p in parts)
    assert joined.status == UNKNOWN and joined.kept == 4_642
    assert joined.reason == "state limit 3,000 reached: 4,642 states in 2 parts"
    assert explore(MIDDLE, limits).status == UNKNOWN


def test_the_joined_certificate_is_rechecked_as_the_whole_one() -> None:
    joined, _ = decide_split(MIDDLE, LIMITS, workers=0)
    assert joined.status == SAFE and joined.states == explore(MIDDLE, LIMITS).states
    assert check_intervals(MIDDLE, joined.states).accepted


def test_the_split_answers_alike_in_process_and_on_a_cluster() -> None:
    here, _ = decide_split(MIDDLE, LIMITS, workers=0)
    there, _ = decide_split(MIDDLE, LIMITS, workers=2)
    assert here.status == there.status == SAFE and here.states == there.states
    assert here.kept == there.kept and here.transitions == there.transitions

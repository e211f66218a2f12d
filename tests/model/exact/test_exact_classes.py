"""Shift classes (model/exact/search.py): the every-phase search split exactly.

:func:`akita.model.exact.search.shift_classes` groups the phase vectors the search
starts from by a common shift of every phase.  Behaviours of two classes never share
a position vector, so searching each class alone (``explore(..., phases=...)``) must
give disjoint state sets whose union is the whole search's, state for state and
instant for instant, and the whole search's earliest miss as the earliest of the
classes'.  A split that cuts a class in two (by the first vCPU's phase) must give
state sets that overlap, which the same check refuses.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from hypothesis import HealthCheck, assume, given, settings

from exact_pcpus import tick_pcpus, tight_pcpus

from akita.model.exact.search import SAFE, UNKNOWN, UNSAFE, Limits, Reached, configurations, \
    explore, shift_classes
from akita.model.smt.pcpu import TickPCPU, TickVCPU

LIMITS = Limits(states=200_000, seconds=60)


def union(parts: Sequence[Reached]) -> dict[bytes, int] | None:
    """The parts' states, or ``None`` if two parts share one."""
    merged: dict[bytes, int] = {}
    for part in parts:
        if merged.keys() & part.states.keys():
            return None
        merged.update(part.states)
    return merged


def check_split(pcpu: TickPCPU) -> None:
    whole = explore(pcpu, LIMITS)
    assume(whole.status != UNKNOWN)
    classes = shift_classes(pcpu)
    assert sorted(v for c in classes for v in c) == sorted(configurations(pcpu))
    parts = [explore(pcpu, LIMITS, phases=c) for c in classes]
    if whole.status == SAFE:
        assert all(part.status == SAFE for part in parts)
        assert union(parts) == whole.states
    else:
        assert whole.status == UNSAFE and whole.miss is not None
        misses = [part.miss[0] for part in parts if part.miss is not None]
        assert min(misses) == whole.miss[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tick_pcpus(max_vcpus=3, periods=(2, 3, 4, 6), phases=False))
def test_the_classes_split_every_phase_exactly(pcpu: TickPCPU) -> None:
    check_split(pcpu)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tight_pcpus())
def test_the_classes_keep_the_earliest_miss(pcpu: TickPCPU) -> None:
    check_split(pcpu)


def test_a_split_that_cuts_a_class_is_refused() -> None:
    """Negative control: grouping by the first vCPU's phase puts one class's vectors in
    several parts, whose searches then reach the same states."""
    pcpu = TickPCPU((TickVCPU("hi/0", True, 4, 1, 2, 0, None),
                     TickVCPU("lo/0", False, 2, 1, None, 1, None)), Fraction(1, 2))
    classes = shift_classes(pcpu)
    right = [explore(pcpu, LIMITS, phases=c) for c in classes]
    assert len(classes) == 2 and union(right) == explore(pcpu, LIMITS).states
    by_first: dict[int, list[tuple[int, ...]]] = {}
    for vector in configurations(pcpu):
        by_first.setdefault(vector[0], []).append(vector)
    wrong = [explore(pcpu, LIMITS, phases=group) for group in by_first.values()]
    assert union(wrong) is None

"""The search's queue (model/exact/search.py, decision 369) and its paused collector.

:func:`akita.model.exact.search.explore` keeps one bucket of states per instant and
expands a bucket in the order of its packed states.  It claims the result a heap of
``(instant, state)`` gives: the same states at the same instants, the same parents
(hence the same counterexample), the same transitions and the same earliest miss.
:func:`heap_search` below is that heap search, written out; every drawn pCPU must give
the same :class:`~akita.model.exact.search.Reached` fields from both.  Negative
control: the same heap search with each instant's states taken in the order they were
reached (first in, first out) gives other parents on some pCPU, which the comparison
must see.
"""

from __future__ import annotations

import gc
import heapq
from fractions import Fraction
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from exact_pcpus import tick_pcpus, tight_pcpus

from akita.model.exact.abstraction import layout
from akita.model.exact.collector import paused
from akita.model.exact.events import MISS, Step, start_states, successors
from akita.model.exact.machine import Machine, machine
from akita.model.exact.search import Limits, Reached, configurations, explore
from akita.model.exact.subsumption import Antichains
from akita.model.smt.pcpu import TickPCPU, TickVCPU

LIMITS = Limits(states=100_000, seconds=60)

#: The first 4-vCPU every-phase pCPU of bench/exact.py, with synchronous phases.
BUSY = TickPCPU((TickVCPU("a/0", True, 20, 3, 6, 0, 0), TickVCPU("b/0", True, 10, 1, 2, 1, 0),
                 TickVCPU("c/0", False, 20, 1, None, 2, 0),
                 TickVCPU("d/0", False, 40, 23, None, 3, 0)), Fraction(2, 3))

#: What the comparison reads of a search: its states with their instants, its parents,
#: the transitions it took and its earliest miss.
Summary = tuple[dict[bytes, int], dict[bytes, bytes | None], int, tuple[int, bytes] | None]


def summary(reached: Reached) -> Summary:
    return reached.states, reached.parents, reached.transitions, reached.miss


def heap_search(pcpu: TickPCPU, fifo_ties: bool = False) -> Summary:
    """Dijkstra's search with one heap of ``(instant, state)`` (with *fifo_ties*: of
    ``(instant, order reached, state)``, the wrong variant), subsumption as the search's."""
    m = machine(pcpu)
    lay = layout(m)
    states: dict[bytes, int] = {}
    parents: dict[bytes, bytes | None] = {}
    dropped: set[bytes] = set()
    chains = Antichains()
    queue: list[tuple[int, int, bytes]] = []

    def keep(child: tuple[int, ...], key: bytes, at: int) -> bool:
        kept, gone = chains.keep(child, key, at)
        dropped.update(gone)
        return kept

    def push(at: int, key: bytes) -> None:
        heapq.heappush(queue, (at, len(queue) if fifo_ties else 0, key))

    for vector in configurations(pcpu):
        for child, _ in start_states(m, vector):
            key = lay.pack(child)
            if key not in states and keep(child, key, 0):
                states[key], parents[key] = 0, None
                push(0, key)
    best: tuple[int, bytes] | None = None
    transitions = 0
    while queue:
        t, _, key = heapq.heappop(queue)
        if best is not None and t >= best[0]:
            break
        if states[key] != t or key in dropped:
            continue
        for child, ticks, _ in successors(m, lay.unpack(key)):
            transitions += 1
            at = t + ticks
            if child is MISS:
                best = best if best is not None and best[0] <= at else (at, key)
                continue
            packed = lay.pack(child)
            seen = states.get(packed)
            if (seen is None or at < seen) and keep(child, packed, at):
                states[packed], parents[packed] = at, key
                dropped.discard(packed)
                push(at, packed)
    kept = {k: t for k, t in states.items() if k not in dropped}
    return kept, parents, transitions, best


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tick_pcpus(max_vcpus=3, periods=(2, 3, 4, 6)))
def test_the_buckets_search_as_one_heap(pcpu: TickPCPU) -> None:
    reached = explore(pcpu, LIMITS)
    if reached.status != "UNKNOWN":
        assert summary(reached) == heap_search(pcpu)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tight_pcpus())
def test_the_buckets_find_the_heaps_earliest_miss_and_path(pcpu: TickPCPU) -> None:
    reached = explore(pcpu, LIMITS)
    if reached.status != "UNKNOWN":
        assert summary(reached) == heap_search(pcpu)


def test_taking_an_instant_first_in_first_out_is_seen() -> None:
    """Negative control: the heap with ties broken by the order reached differs from the
    search in its parents on a pCPU whose instants hold many states, so the comparison
    above can tell one order from another."""
    right, wrong = heap_search(BUSY), heap_search(BUSY, fifo_ties=True)
    assert summary(explore(BUSY, LIMITS)) == right
    assert right[0] == wrong[0] and right[1] != wrong[1]


def test_the_collector_is_paused_while_the_search_runs_and_restored() -> None:
    """The search runs with the collector paused (:mod:`akita.model.exact.collector`),
    and leaves it as it found it, enabled or not."""
    seen: list[bool] = []

    def watched(m: Machine, state: tuple[int, ...]) -> Iterator[Step]:
        seen.append(gc.isenabled())
        return successors(m, state)

    assert gc.isenabled()
    explore(BUSY, LIMITS, step=watched)
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        explore(BUSY, LIMITS)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_restored_when_the_work_fails() -> None:
    with pytest.raises(ZeroDivisionError):
        with paused():
            assert not gc.isenabled()
            _ = 1 // 0
    assert gc.isenabled()

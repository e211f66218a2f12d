"""A run queue: a binary heap with lazy deletion.

A vCPU's entry carries the *stamp* its state had when the entry was pushed;
whenever the vCPU's state changes (it blocks, is released, exhausts its
budget) its stamp moves on, so older entries go stale and are dropped when
they reach the top.  Peeking is O(1) amortized, pushing O(log n); the heap
is compacted when stale entries outnumber live ones, so memory stays
O(vCPUs) whatever the horizon.
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Callable, Generic, TypeAlias, TypeVar

__all__ = ["RunQueue", "Key", "Tie", "Entry"]

#: An ordering key: a deadline or virtual deadline (ns, exact) or a priority rank.
Key: TypeAlias = "int | Fraction"
#: What orders equal keys: a rank of criticality and host order, or host order alone.
Tie: TypeAlias = "int | tuple[int, int]"

V = TypeVar("V")

#: One entry of a queue of *V*: ``(key, tie, stamp, vcpu)``.
Entry: TypeAlias = "tuple[Key, Tie, int, V]"


class RunQueue(Generic[V]):
    """Entries ``(key, tie, stamp, vcpu)``: lowest key first, then lowest tie.

    :param live: ``live(vcpu, stamp)`` tells whether an entry still stands.
    """

    __slots__ = ("_heap", "_live", "_limit")

    def __init__(self, live: Callable[[V, int], bool], size_hint: int = 8) -> None:
        self._heap: list[Entry[V]] = []
        self._live = live
        self._limit = 4 * size_hint + 16

    def push(self, key: Key, tie: Tie, stamp: int, vcpu: V) -> None:
        heapq.heappush(self._heap, (key, tie, stamp, vcpu))
        if len(self._heap) > self._limit:
            self._compact()

    def peek(self) -> V | None:
        """The live vCPU with the lowest ``(key, tie)``, or ``None``."""
        heap, live = self._heap, self._live
        while heap:
            entry = heap[0]
            if live(entry[3], entry[2]):
                return entry[3]
            heapq.heappop(heap)
        return None

    def peek_entry(self) -> Entry[V] | None:
        """The live entry with the lowest ``(key, tie)``, or ``None``."""
        return self._heap[0] if self.peek() is not None else None

    def _compact(self) -> None:
        live = self._live
        self._heap = [e for e in self._heap if live(e[3], e[2])]
        heapq.heapify(self._heap)
        self._limit = max(self._limit, 4 * len(self._heap) + 16)

"""Pending requests kept in two orders: by start sector and by arrival.

Every elevator needs the pending request nearest a sector, the next one
at or after a sector, and the oldest one (for expiry).  A sorted list
(:mod:`bisect`) of ``(sector, id)`` gives the first two, an
insertion-ordered ``dict`` the third; ties in sector go to the earlier id,
so every choice is a function of the input alone.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import Iterator

from ..request import Request

__all__ = ["SortedQueue"]


class SortedQueue:
    """Requests by sector and by arrival."""

    __slots__ = ("_keys", "_by_id")

    def __init__(self) -> None:
        self._keys: list[tuple[int, int]] = []
        self._by_id: dict[int, Request] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def __bool__(self) -> bool:
        return bool(self._by_id)

    def __iter__(self) -> Iterator[Request]:
        return iter(self._by_id.values())

    def add(self, request: Request) -> None:
        insort(self._keys, (request.lba, request.id))
        self._by_id[request.id] = request

    def remove(self, request: Request) -> None:
        index = bisect_left(self._keys, (request.lba, request.id))
        del self._keys[index]
        del self._by_id[request.id]

    def oldest(self) -> Request | None:
        """The earliest arrival still queued."""
        return next(iter(self._by_id.values()), None)

    def at_or_after(self, sector: int) -> Request | None:
        """The lowest-sector request starting at or after *sector*."""
        index = bisect_left(self._keys, (sector, -1))
        return self._by_id[self._keys[index][1]] if index < len(self._keys) else None

    def before(self, sector: int) -> Request | None:
        """The highest-sector request starting before *sector*."""
        index = bisect_left(self._keys, (sector, -1))
        return self._by_id[self._keys[index - 1][1]] if index > 0 else None

    def nearest(self, sector: int) -> Request | None:
        """The request whose start is closest to *sector* (ties: the lower one)."""
        after, before = self.at_or_after(sector), self.before(sector)
        if after is None or before is None:
            return after or before
        return before if sector - before.lba <= after.lba - sector else after

    def choose(self, sector: int, max_back: int, back_penalty: int) -> Request | None:
        """The elevator's choice of CFQ and AS (``cfq_choose_req``, ``as_choose_req``): the
        nearest request ahead, or one behind within *max_back* sectors if its distance
        times *back_penalty* is shorter (ties: ahead)."""
        after, before = self.at_or_after(sector), self.before(sector)
        if before is not None and sector - before.lba > max_back:
            before = None
        if after is None or before is None:
            return after or before or self.at_or_after(0)
        return before if (sector - before.lba) * back_penalty < after.lba - sector else after

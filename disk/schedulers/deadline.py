"""Deadline: an elevator in batches, with a deadline on every request.

Linux's deadline scheduler ("Documentation/block/deadline-iosched.txt",
``block/deadline-iosched.c``): reads and writes are each kept sorted by
sector and in arrival order.  A *batch* of up to ``fifo_batch`` (16)
requests goes up the sorted list of one direction.  A new batch serves
reads unless writes have been passed over ``writes_starved`` (2) times;
it starts at the oldest request of its direction when that request's
deadline -- arrival plus ``read_expire`` (500 ms) or ``write_expire``
(5 s) -- has passed, or when nothing lies ahead; otherwise it goes on up
the sorted list.  The deadlines bound a request's wait.
"""

from __future__ import annotations

from typing import Sequence

from ..drive import Drive
from ..request import Request
from ..vdisk import VirtualDisk
from .base import REQUEST_BYTES, WORD_BYTES, Answer, Scheduler
from .queue import SortedQueue

__all__ = ["Deadline"]

MS = 1_000_000


class Deadline(Scheduler):
    name = "deadline"
    read_expire = 500 * MS
    write_expire = 5000 * MS
    fifo_batch = 16
    writes_starved = 2

    def __init__(self, drive: Drive, images: Sequence[VirtualDisk]) -> None:
        super().__init__(drive, images)
        self.queues = (SortedQueue(), SortedQueue())  # reads, writes
        self.next: Request | None = None
        self.batching = 0
        self.starved = 0

    def add(self, request: Request, now: int) -> None:
        self.queues[request.write].add(request)

    def expired(self, write: bool, now: int) -> bool:
        """Whether the oldest request of a direction is past its deadline."""
        oldest = self.queues[write].oldest()
        expire = self.write_expire if write else self.read_expire
        return oldest is not None and now >= oldest.arrival + expire

    def dispatch(self, now: int, head: int) -> Answer:
        request = self.next if self.next is not None and self.batching < self.fifo_batch \
            else self._new_batch(now)
        if request is None:
            return None
        queue = self.queues[request.write]
        queue.remove(request)
        self.next = queue.at_or_after(request.lba)
        self.batching += 1
        return request

    def _new_batch(self, now: int) -> Request | None:
        reads, writes = self.queues
        if reads and (not writes or self.starved < self.writes_starved):
            write, self.starved = False, self.starved + (1 if writes else 0)
        elif writes:
            write, self.starved = True, 0
        else:
            return None
        self.batching = 0
        if self.expired(write, now) or self.next is None or self.next.write != write:
            return self.queues[write].oldest()
        return self.next

    def memory_bytes(self) -> int:
        # each request sits in a sorted list and in a FIFO; next, batching, starved
        return 2 * REQUEST_BYTES * sum(map(len, self.queues)) + 3 * WORD_BYTES

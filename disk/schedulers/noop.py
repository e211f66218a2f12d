"""Noop: first in, first out.

Linux's noop elevator ("Documentation/block/switching-sched.txt"; the
guests' default in the Pregather testbed) dispatches requests in arrival
order, merging adjacent ones (merging is not modelled: a synchronous
process has one request outstanding).
"""

from __future__ import annotations

from typing import Sequence

from ..drive import Drive
from ..request import Request
from ..vdisk import VirtualDisk
from .base import REQUEST_BYTES, Answer, Scheduler
from .queue import SortedQueue

__all__ = ["Noop"]


class Noop(Scheduler):
    name = "noop"

    def __init__(self, drive: Drive, images: Sequence[VirtualDisk]) -> None:
        super().__init__(drive, images)
        self.queue = SortedQueue()

    def add(self, request: Request, now: int) -> None:
        self.queue.add(request)

    def dispatch(self, now: int, head: int) -> Answer:
        request = self.queue.oldest()
        if request is not None:
            self.queue.remove(request)
        return request

    def memory_bytes(self) -> int:
        # the index keeps each request by sector and by arrival (only the latter is used)
        return 2 * REQUEST_BYTES * len(self.queue)

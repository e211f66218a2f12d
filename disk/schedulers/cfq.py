"""CFQ: a queue per process, served in turn for a time slice, idling when it empties.

Linux's completely fair queueing scheduler ("Documentation/block/
cfq-iosched.txt", ``block/cfq-iosched.c``): each process has its own queue;
the queues take turns, each for a slice of ``slice_sync`` (100 ms); within
its slice a queue's requests go in elevator order (``cfq_choose_req``: the
nearest ahead, or one behind within ``back_seek_max`` (16 MB) counted
``back_seek_penalty`` (2) times), except that once per slice its oldest
request goes first if it has waited ``fifo_expire_sync`` (125 ms).  When
the active queue empties, CFQ *idles*: it keeps the disk waiting for up to
``slice_idle`` (8 ms) for the same process's next request, unless that
process's mean think time exceeds ``slice_idle``; a request from it ends
the idling and is served, otherwise the slice ends.

In the hypervisor (dom0) CFQ sees one process per VM -- the back end that
submits the VM's requests -- not the guest's processes (decision 84).  Its
think-time mean is the kernel's decaying average (weight 7/8 on the past).
"""

from __future__ import annotations

from typing import Sequence

from ..drive import Drive
from ..request import Request
from ..vdisk import VirtualDisk
from .base import REQUEST_BYTES, WORD_BYTES, Answer, Scheduler
from .queue import SortedQueue

__all__ = ["CFQ"]

MS = 1_000_000


class CFQ(Scheduler):
    name = "cfq"
    slice_sync = 100 * MS
    slice_idle = 8 * MS
    fifo_expire_sync = 125 * MS
    back_seek_max = 16 * 1024 * 2  # 16 MB in sectors
    back_seek_penalty = 2

    def __init__(self, drive: Drive, images: Sequence[VirtualDisk]) -> None:
        super().__init__(drive, images)
        self.queues = [SortedQueue() for _ in range(self.vms)]
        self.think = [-1] * self.vms          # decaying mean think time; -1: no sample yet
        self.last_done = [-1] * self.vms      # when each VM's last request completed
        self.active: int | None = None
        self.slice_end = 0
        self.idle_until: int | None = None
        self.fifo_checked = False

    def add(self, request: Request, now: int) -> None:
        vm = request.vm
        if self.last_done[vm] >= 0 and not self.queues[vm]:
            sample = now - self.last_done[vm]
            self.think[vm] = sample if self.think[vm] < 0 else (7 * self.think[vm] + sample) // 8
        self.queues[vm].add(request)
        if self.idle_until is not None and vm == self.active:
            self.idle_until = None
            self.wait_succeeded(vm)

    def completed(self, request: Request, now: int) -> None:
        self.last_done[request.vm] = now

    def may_idle(self, vm: int) -> bool:
        """Whether CFQ idles for *vm*'s queue (``cfq_arm_slice_timer``)."""
        return self.slice_idle > 0 and self.think[vm] <= self.slice_idle

    def dispatch(self, now: int, head: int) -> Answer:
        active = self.active
        if active is not None and now < self.slice_end:
            queue = self.queues[active]
            if queue:
                return self._take(queue, now, head)
            if self.idle_until is not None and now < self.idle_until:
                return self.idle_until
            if self.idle_until is None and self.may_idle(active):
                self.idle_until = min(now + self.slice_idle, self.slice_end)
                self.wait_started(active)
                return self.idle_until
        return self._next_queue(now, head)

    def _next_queue(self, now: int, head: int) -> Answer:
        start = -1 if self.active is None else self.active
        self.active, self.idle_until = None, None
        for step in range(1, self.vms + 1):
            vm = (start + step) % self.vms
            if self.queues[vm]:
                self.active, self.slice_end, self.fifo_checked = vm, now + self.slice_sync, False
                return self._take(self.queues[vm], now, head)
        return None

    def _take(self, queue: SortedQueue, now: int, head: int) -> Request:
        request = None
        if not self.fifo_checked:
            self.fifo_checked = True
            oldest = queue.oldest()
            if oldest is not None and now >= oldest.arrival + self.fifo_expire_sync:
                request = oldest
        if request is None:
            request = queue.choose(head, self.back_seek_max, self.back_seek_penalty)
        assert request is not None
        queue.remove(request)
        self.idle_until = None
        return request

    def memory_bytes(self) -> int:
        queued = sum(map(len, self.queues))
        # sorted list and FIFO per queue; think, last_done per queue; 5 words of state
        return 2 * REQUEST_BYTES * queued + WORD_BYTES * (2 * self.vms + 5)

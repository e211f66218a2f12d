"""The anticipatory scheduler: after a process's request, wait a little for its next.

Iyer and Druschel, "Anticipatory scheduling: a disk scheduling framework
to overcome deceptive idleness in synchronous I/O" (SOSP 2001): a process
that issues synchronous requests leaves the queue empty of its requests
while it thinks, so a work-conserving scheduler seeks away to another
process's request just before the first process issues a nearby one
(*deceptive idleness*).  Linux's ``as`` elevator ("Documentation/block/
as-iosched.txt", ``block/as-iosched.c``), the one modelled here: when a
request completes and its process has nothing queued, thinks on average
at most ``antic_expire`` (6 ms) and seeks on average no further than the
request the elevator would serve instead, the disk waits until
``antic_expire`` after the completion; a request from that process ends the
wait.  Requests otherwise go in elevator order (``as_choose_req``: the
nearest ahead, or one behind within ``MAXBACK`` (1 GiB) counted twice),
except that the oldest goes first once it has waited ``read_expire``
(125 ms) or, for a write, ``write_expire`` (250 ms).  Every request here
is synchronous (the guest waits for it, decision 84), so the read and
write batches of ``as`` are one class and do not alternate.

As for CFQ, the "process" the hypervisor's scheduler sees is the VM
(decision 84).  Its statistics are decaying means (weight 7/8 on the past).
"""

from __future__ import annotations

from typing import Sequence

from ..drive import Drive
from ..request import Request
from ..vdisk import VirtualDisk
from .base import REQUEST_BYTES, WORD_BYTES, Answer, Scheduler
from .queue import SortedQueue

__all__ = ["Anticipatory"]

MS = 1_000_000


def _decayed(mean: int, sample: int) -> int:
    return sample if mean < 0 else (7 * mean + sample) // 8


class Anticipatory(Scheduler):
    name = "as"
    antic_expire = 6 * MS
    read_expire = 125 * MS
    write_expire = 250 * MS
    max_back = 1024 * 1024 * 2  # 1 GiB in sectors
    back_penalty = 2

    def __init__(self, drive: Drive, images: Sequence[VirtualDisk]) -> None:
        super().__init__(drive, images)
        self.queue = SortedQueue()
        self.pending = [0] * self.vms
        self.think = [-1] * self.vms
        self.seek = [-1] * self.vms          # mean distance from a VM's last end to its next start
        self.last_done = [-1] * self.vms
        self.last_end = [-1] * self.vms
        self.antic: int | None = None   # the VM anticipated
        self.antic_until = 0
        self.done: tuple[int, int] | None = None  # (VM, instant) of the last completion

    def add(self, request: Request, now: int) -> None:
        vm = request.vm
        if self.last_done[vm] >= 0 and not self.pending[vm]:
            self.think[vm] = _decayed(self.think[vm], now - self.last_done[vm])
        if self.last_end[vm] >= 0:
            self.seek[vm] = _decayed(self.seek[vm], abs(request.lba - self.last_end[vm]))
        self.queue.add(request)
        self.pending[vm] += 1
        if self.done is not None and self.done[0] == vm:
            self.done = None
        if self.antic == vm:
            self.antic = None
            self.wait_succeeded(vm)

    def completed(self, request: Request, now: int) -> None:
        self.last_done[request.vm] = now
        self.last_end[request.vm] = request.end
        self.done = (request.vm, now)

    def can_anticipate(self, vm: int, head: int, instead: Request | None) -> bool:
        """Whether to wait for *vm* rather than serve *instead* (``as_can_anticipate``)."""
        if self.antic_expire <= 0 or self.pending[vm] or self.think[vm] > self.antic_expire:
            return False
        return instead is None or self.seek[vm] <= abs(instead.lba - head)

    def dispatch(self, now: int, head: int) -> Answer:
        if self.antic is not None:
            if now < self.antic_until:
                return self.antic_until
            self.antic, self.done = None, None
        if not self.queue:
            return None
        request = self._expired(now) or self.queue.choose(head, self.max_back, self.back_penalty)
        if self.done is not None:
            vm, at = self.done
            if now < at + self.antic_expire and self.can_anticipate(vm, head, request):
                self.antic, self.antic_until = vm, at + self.antic_expire
                self.wait_started(vm)
                return self.antic_until
        self.done = None
        assert request is not None
        self.queue.remove(request)
        self.pending[request.vm] -= 1
        return request

    def _expired(self, now: int) -> Request | None:
        oldest = self.queue.oldest()
        if oldest is None:
            return None
        expire = self.write_expire if oldest.write else self.read_expire
        return oldest if now >= oldest.arrival + expire else None

    def memory_bytes(self) -> int:
        # sorted list and FIFO; five statistics per VM; five words of state
        return 2 * REQUEST_BYTES * len(self.queue) + WORD_BYTES * (5 * self.vms + 5)

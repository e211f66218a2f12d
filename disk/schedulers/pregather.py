"""Pregather: VMs in turn, and a wait only when it is shorter than the seek it saves.

The source's adaptive non-work-conserving scheduler in the hypervisor.
Each VM is served for an equal time slice (200 ms), in round robin; within
its slice its requests go in the block layer's elevator order (decision
304: the nearest ahead of the head, or one behind within 16 MB if its
distance counted twice is shorter, as CFQ's ``cfq_choose_req``).  When a request of the served VM
``x`` completes, the spatial-locality-aware heuristic SPLA decides whether
to keep the disk waiting for a request that is expected near the head:

* **coarse timer**, for regional locality: ``x`` has nothing pending.  If
  ``x``'s mean distance between consecutive requests ``AvgD(x)`` is shorter
  than the distance to the nearest request of a neighbouring VM, and ``x``'s
  mean think time ``AvgT(x)`` -- from a completion to its next request -- is
  shorter than the seek to that request, wait until ``AvgT(x)`` after the
  completion; a request from ``x`` is dispatched at once.
* **fine timer**, for sub-regional locality: ``x`` has requests pending but
  the completed request lies in a sub-region unit ``U`` of vNavigator
  (:mod:`.vnavigator`).  If ``ST(U)`` is shorter than the seek to ``x``'s
  nearest pending request, wait ``ST(U)``; a request of ``x`` in ``SR(U)``,
  or one nearer the head than every pending request ("a suitable new
  request"), is dispatched at once.

Either wait ends at its timer or when a pending request reaches its
deadline (decision 88: 500 ms, the deadline scheduler's ``read_expire``);
then the next request in elevator order is served.  A wait that ends
because the request came is a *success*: the prediction success ratio is successes over waits.
A slice ends early when ``x`` has nothing pending and SPLA does not wait.
"""

from __future__ import annotations

from typing import Sequence

from ..drive import Drive
from ..request import Request
from ..vdisk import VirtualDisk
from .base import Answer, Scheduler
from .layout import QUEUED, SCHEDULER, VM, ZONE, size_of
from .queue import SortedQueue
from .vnavigator import VNavigator

__all__ = ["Pregather"]

MS = 1_000_000


class _Wait:
    __slots__ = ("coarse", "vm", "until", "unit", "head", "bar")

    def __init__(self, coarse: bool, vm: int, until: int, unit: tuple[int, int] | None,
                 head: int, bar: int) -> None:
        self.coarse, self.vm, self.until, self.unit = coarse, vm, until, unit
        self.head, self.bar = head, bar  # a request nearer the head than bar is suitable


class Pregather(Scheduler):
    name = "pregather"
    slice_ns = 200 * MS
    expire = 500 * MS
    #: The elevator's backward reach and its penalty (decision 304; CFQ's defaults).
    back_seek_max = 16 * 1024 * 2
    back_seek_penalty = 2

    def __init__(self, drive: Drive, images: Sequence[VirtualDisk]) -> None:
        super().__init__(drive, images)
        self.queues = [SortedQueue() for _ in range(self.vms)]
        self.navigators = [VNavigator(image) for image in self.images]
        self.think = [[0, 0] for _ in range(self.vms)]     # AvgT: sum, count
        self.distance = [[0, 0] for _ in range(self.vms)]  # AvgD: sum, count
        self.last_done = [-1] * self.vms
        self.last_lba = [-1] * self.vms
        self.current: int | None = None
        self.slice_end = 0
        self.wait: _Wait | None = None
        self.done: tuple[int, int, int] | None = None      # (VM, instant, sector) to decide on
        #: per timer kind: [waits started, successes].
        self.kinds = {"coarse": [0, 0], "fine": [0, 0]}

    # -- arrivals and completions -------------------------------------------------------

    def add(self, request: Request, now: int) -> None:
        vm = request.vm
        self.navigators[vm].record(request.lba, now)
        if self.last_done[vm] >= 0 and not self.queues[vm]:
            _accumulate(self.think[vm], now - self.last_done[vm])
        if self.last_lba[vm] >= 0:
            _accumulate(self.distance[vm], abs(request.lba - self.last_lba[vm]))
        self.last_lba[vm] = request.lba
        self.queues[vm].add(request)
        wait = self.wait
        if wait is not None and vm == wait.vm and self._suits(wait, request):
            self.wait = None
            self.wait_succeeded(vm)
            self.kinds["coarse" if wait.coarse else "fine"][1] += 1

    def _suits(self, wait: _Wait, request: Request) -> bool:
        if wait.coarse:
            return True
        assert wait.unit is not None
        return (self.navigators[wait.vm].in_unit(wait.unit, request.lba)
                or abs(request.lba - wait.head) < wait.bar)

    def completed(self, request: Request, now: int) -> None:
        self.last_done[request.vm] = now
        self.navigators[request.vm].completed(request.lba, now)
        self.done = (request.vm, now, request.lba)

    # -- dispatch ------------------------------------------------------------------------

    def dispatch(self, now: int, head: int) -> Answer:
        if self.wait is not None:
            if now < self.wait.until and not self._overdue(now):
                return min(self.wait.until, self._next_deadline())
            self.wait, self.done = None, None
        overdue = self._overdue(now)
        if overdue is not None:
            return self._take(overdue)
        if self.current is None or now >= self.slice_end:
            self._rotate(now)
        if self.done is not None and self.done[0] == self.current:
            answer = self._spla(now, head)
            if answer is not None:
                return answer
        if self.current is None or not self.queues[self.current]:
            self._rotate(now)
            if self.current is None or not self.queues[self.current]:
                return None
        self.done = None
        request = self.queues[self.current].choose(head, self.back_seek_max,
                                                   self.back_seek_penalty)
        assert request is not None
        return self._take(request)

    def _take(self, request: Request) -> Request:
        self.queues[request.vm].remove(request)
        self.done = None
        return request

    def _rotate(self, now: int) -> None:
        """Hand the disk to the next VM, in round robin, that has a request pending."""
        start = -1 if self.current is None else self.current
        for step in range(1, self.vms + 1):
            vm = (start + step) % self.vms
            if self.queues[vm]:
                self.current, self.slice_end = vm, now + self.slice_ns
                return

    def _overdue(self, now: int) -> Request | None:
        oldest = [r for r in (q.oldest() for q in self.queues) if r is not None]
        first = min(oldest, key=lambda r: (r.arrival, r.id), default=None)
        return first if first is not None and now >= first.arrival + self.expire else None

    def _next_deadline(self) -> int:
        """The earliest deadline of a pending request (a wait ends there)."""
        deadlines = [r.arrival + self.expire for r in (q.oldest() for q in self.queues)
                     if r is not None]
        return min(deadlines, default=self.wait.until if self.wait is not None else 0)

    # -- SPLA --------------------------------------------------------------------------

    def _spla(self, now: int, head: int) -> Answer:
        """A wait, if SPLA decides on one for the completion in :attr:`done`."""
        assert self.done is not None
        vm, at, lba = self.done
        pending = self.queues[vm]
        if not pending:
            return self._coarse(vm, at, now, head)
        self.done = None
        navigator = self.navigators[vm]
        unit = navigator.unit(lba, now)
        nearest = pending.nearest(head)
        assert nearest is not None
        if unit is None or navigator.in_unit(unit, nearest.lba):
            return None
        wait = navigator.predicted_wait(unit)
        seek = self.drive.seek_between_ns(head, nearest.lba)
        if wait is None or not self.worth(wait, seek) or at + wait <= now:
            return None
        return self._start(_Wait(False, vm, at + wait, unit, head, abs(nearest.lba - head)))

    def _coarse(self, vm: int, at: int, now: int, head: int) -> Answer:
        others = [r for i, q in enumerate(self.queues) if i != vm
                  for r in (q.nearest(head),) if r is not None]
        other = min(others, key=lambda r: (abs(r.lba - head), r.id), default=None)
        if other is None:
            return None  # nothing to seek to: a request of x will be served as it comes
        self.done = None
        think, distance = self.think[vm], self.distance[vm]
        if not think[1] or not distance[1]:
            return None
        avg_t, avg_d = think[0] // think[1], distance[0] // distance[1]
        seek = self.drive.seek_between_ns(head, other.lba)
        if not (avg_d < abs(other.lba - head) and self.worth(avg_t, seek)) or at + avg_t <= now:
            return None
        return self._start(_Wait(True, vm, at + avg_t, None, head, 0))

    def worth(self, wait: int, seek: int) -> bool:
        """SPLA's rule: wait only when the predicted wait is shorter than the seek."""
        return wait < seek

    def _start(self, wait: _Wait) -> int:
        self.wait = wait
        self.wait_started(wait.vm)
        self.kinds["coarse" if wait.coarse else "fine"][0] += 1
        return min(wait.until, self._next_deadline())

    def memory_bytes(self) -> int:
        """The C structures of :mod:`.layout` that hold its state now (decision 303)."""
        queued = sum(map(len, self.queues))
        zones = sum(len(n.zones) for n in self.navigators)
        return (size_of(SCHEDULER) + self.vms * size_of(VM) + zones * size_of(ZONE)
                + queued * size_of(QUEUED))

    def full_table_bytes(self) -> int:
        """What a table of every zone of every image would take, at the same zone size:
        the bound vNavigator's forgetting keeps it far below."""
        zones = sum(-(-n.image.sectors // n.zone_sectors) for n in self.navigators)
        return size_of(SCHEDULER) + self.vms * size_of(VM) + zones * size_of(ZONE)


def _accumulate(mean: list[int], sample: int) -> None:
    mean[0] += sample
    mean[1] += 1

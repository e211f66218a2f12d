"""The event-driven disk simulation: guest processes, their VMs' images, one drive.

Events, in time order, ties in the order they were scheduled: a process
issues a request (it arrives at the hypervisor's scheduler), the drive
completes one, or a scheduler's timer fires.  Once every event of an
instant is applied, and the drive is idle, the scheduler is asked for the
next request (:meth:`~.schedulers.base.Scheduler.dispatch`): so a request
issued at the very instant of a completion is seen before the choice, and
a scheduler that waits is asked again at the instant it names.  The drive
serves one request at a time (no command queueing, decision 84); a
request's service is its seek, rotation and transfer
(:meth:`~.drive.Drive.service_ns`).

Each process issues its requests as its ``depth`` and ``batch`` say
(:mod:`akita.disk.workload`, decision 300): by default synchronously --
it issues one request, blocks until it completes, thinks for its
``think_ns``, and issues the next.  The drive's cache (:mod:`.cache`,
decision 302), when the run has one, serves a read it holds from the
buffer.  Thinking is CPU work on the process's vCPU, taken as uncontended:
the disk experiment does not run the CPU scheduler (decision 89); what a
process would ask of its vCPU is reported (``think_ns``), and a process
blocked on I/O leaves its vCPU idle (``blocked_ns``).  Every process starts
at instant 0, in the order listed; a random process draws its offsets from
its own generator, seeded with the SHA-256 of ``(seed, VM, process)``, and
its think times from another, seeded with that of ``(seed, VM, process,
"think")``.  The same input and seed give the same counts.
"""

from __future__ import annotations

import hashlib
import heapq
import random
from typing import Sequence

from akita.model import ModelError

from .cache import NO_CACHE, CacheSpec, DriveCache
from .drive import WD_CAVIAR_BLACK_1TB, Drive
from .metrics import DiskMetrics
from .request import Request
from .schedulers import SCHEDULERS, Scheduler
from .vdisk import VirtualDisk, file_extent, lay_out
from .workload import ProcessSpec, Stream, VMSpec, exponential_ns

__all__ = ["simulate", "process_seed"]

_ARRIVE, _COMPLETE, _WAKE = 0, 1, 2
#: Completions between two samples of the scheduler's memory.
_MEMORY_EVERY = 16


def process_seed(seed: int, vm: str, process: str, purpose: str = "") -> int:
    """The seed of one process's generator (of its offsets; *purpose* ``"think"``: of its
    think times)."""
    tail = f"/{purpose}" if purpose else ""
    digest = hashlib.sha256(f"{seed}/{vm}/{process}{tail}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class _Process:
    __slots__ = ("index", "vm", "spec", "stream", "base", "thinks", "inflight", "left")

    def __init__(self, index: int, vm: int, spec: ProcessSpec, stream: Stream,
                 base: int, thinks: random.Random) -> None:
        self.index, self.vm, self.spec, self.stream, self.base = index, vm, spec, stream, base
        self.thinks = thinks
        self.inflight = 0   # its requests outstanding
        self.left = 0       # requests of its current batch not yet issued

    def think_ns(self) -> int:
        """The next think time (decision 301)."""
        if self.spec.think_draw == "fixed":
            return self.spec.think_ns
        return exponential_ns(self.thinks, self.spec.think_ns)


def _processes(vms: Sequence[VMSpec], images: list[VirtualDisk], seed: int) -> list[_Process]:
    out: list[_Process] = []
    for index, (vm, image) in enumerate(zip(vms, images)):
        files = vm.files()
        for spec, file in zip(vm.processes, files):
            base = image.physical(file_extent(image, file, max(files) + 1, spec.file_sectors))
            rng = random.Random(process_seed(seed, vm.name, spec.name))
            thinks = random.Random(process_seed(seed, vm.name, spec.name, "think"))
            out.append(_Process(len(out), index, spec, Stream(spec, rng), base, thinks))
    return out


def _scheduler(scheduler: str | type[Scheduler]) -> type[Scheduler]:
    if isinstance(scheduler, str):
        if scheduler not in SCHEDULERS:
            raise ModelError("scheduler", scheduler, f"one of {', '.join(SCHEDULERS)}")
        return SCHEDULERS[scheduler]
    return scheduler


def simulate(vms: Sequence[VMSpec], scheduler: str | type[Scheduler], *, duration_ns: int,
             drive: Drive = WD_CAVIAR_BLACK_1TB, seed: int = 1,
             cache: CacheSpec = NO_CACHE) -> DiskMetrics:
    """Run *vms* on *drive* (with its *cache*; none by default) under *scheduler* for
    *duration_ns*; return the counts."""
    if not vms:
        raise ModelError("vm", [], "at least one VM")
    if duration_ns <= 0:
        raise ModelError("duration", duration_ns, "a positive number of nanoseconds")
    images = lay_out([(vm.name, vm.image_sectors) for vm in vms], drive.sectors)
    return _Run(vms, images, _scheduler(scheduler)(drive, images), DriveCache(drive, cache),
                duration_ns, seed).run()


class _Run:
    def __init__(self, vms: Sequence[VMSpec], images: list[VirtualDisk], scheduler: Scheduler,
                 cache: DriveCache, duration: int, seed: int) -> None:
        self.cache, self.scheduler, self.duration = cache, scheduler, duration
        self.processes = _processes(vms, images, seed)
        #: the index of each VM's first process
        self.first = [sum(len(v.processes) for v in vms[:i]) for i in range(len(vms))]
        self.metrics = DiskMetrics(scheduler.name, [vm.name for vm in vms], duration,
                                   [[p.name for p in vm.processes] for vm in vms])
        self.events: list[tuple[int, int, int, object]] = []
        self.order = 0
        self.wakes: set[int] = set()
        self.head = 0
        self.busy = False
        self.next_id = 0

    def push(self, at: int, kind: int, payload: object) -> None:
        if at < self.duration:
            heapq.heappush(self.events, (at, self.order, kind, payload))
            self.order += 1

    def run(self) -> DiskMetrics:
        for process in self.processes:
            for _ in range(process.spec.depth if process.spec.batch == 1 else 1):
                self.push(0, _ARRIVE, process)
        while self.events:
            now = self.events[0][0]
            while self.events and self.events[0][0] == now:
                _, _, kind, payload = heapq.heappop(self.events)
                self.apply(now, kind, payload)
            if not self.busy:
                self.ask(now)
        self._finish()
        return self.metrics

    def apply(self, now: int, kind: int, payload: object) -> None:
        if kind == _ARRIVE:
            assert isinstance(payload, _Process)
            payload.left = payload.spec.batch
            self.refill(payload, now)
        elif kind == _COMPLETE:
            assert isinstance(payload, Request)
            self.complete(payload, now)
        else:
            self.wakes.discard(now)

    def refill(self, process: _Process, now: int) -> None:
        """Issue what is left of *process*'s batch, up to its depth."""
        while process.left and process.inflight < process.spec.depth:
            process.left -= 1
            process.inflight += 1
            self.issue(process, now)

    def issue(self, process: _Process, now: int) -> None:
        spec = process.spec
        request = Request(self.next_id, process.vm, process.index, process.base
                          + process.stream.next_offset(), spec.request_sectors, spec.writes, now)
        self.next_id += 1
        self.scheduler.add(request, now)

    def complete(self, request: Request, now: int) -> None:
        self.busy = False
        request.finished = now
        vm = self.metrics.vms[request.vm]
        process = self.processes[request.process]
        vm.complete(request.sectors, now - request.arrival)
        vm.processes[process.index - self.first[request.vm]].complete(
            request.sectors, now - request.arrival)
        vm.blocked_ns += now - request.arrival
        self.scheduler.completed(request, now)
        process.inflight -= 1
        if process.left:
            self.refill(process, now)
        elif process.spec.batch == 1 or not process.inflight:
            think = process.think_ns()
            vm.think_ns += min(think, self.duration - now)
            self.push(now + think, _ARRIVE, process)
        if vm.requests % _MEMORY_EVERY == 0:
            self.sample_memory()

    def ask(self, now: int) -> None:
        answer = self.scheduler.dispatch(now, self.head)
        if isinstance(answer, Request):
            self.start(answer, now)
        elif answer is not None:
            if answer <= now:
                raise AssertionError(f"{self.scheduler.name} asked to wait until {answer} at {now}")
            if answer not in self.wakes:
                self.wakes.add(answer)
                self.push(answer, _WAKE, None)

    def start(self, request: Request, now: int) -> None:
        seek, rotation, transfer = self.cache.serve(request.lba, request.sectors,
                                                    request.write, now)
        metrics = self.metrics
        metrics.started += 1
        metrics.seek_sectors += abs(request.lba - self.head)
        metrics.seek_ns += seek
        metrics.rotation_ns += rotation
        metrics.transfer_ns += min(transfer, max(0, self.duration - now - seek - rotation))
        metrics.busy_ns += min(seek + rotation + transfer, self.duration - now)
        request.started = now
        self.head = request.end
        self.busy = True
        self.push(now + seek + rotation + transfer, _COMPLETE, request)

    def sample_memory(self) -> None:
        self.metrics.peak_memory = max(self.metrics.peak_memory, self.scheduler.memory_bytes())

    def _finish(self) -> None:
        self.sample_memory()
        self.metrics.cache_hits, self.metrics.cache_partial = self.cache.hits, self.cache.partial
        for vm, (started, succeeded) in zip(self.metrics.vms, self.scheduler.waits):
            vm.waits, vm.wait_successes = started, succeeded
        kinds = getattr(self.scheduler, "kinds", None)
        if isinstance(kinds, dict):
            self.metrics.kinds = {k: list(v) for k, v in kinds.items()}

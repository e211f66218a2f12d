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

Each process is synchronous: it issues one request, blocks until it
completes, thinks for its ``think_ns``, and issues the next.  Thinking is
CPU work on the process's vCPU, taken as uncontended: the disk experiment
does not run the CPU scheduler (decision 89); what a process would ask of
its vCPU is reported (``think_ns``), and a process blocked on I/O leaves
its vCPU idle (``blocked_ns``).  Every process starts at instant 0, in the
order listed; a random process draws from its own generator, seeded with
the SHA-256 of ``(seed, VM, process)``.  The same input and seed give the
same counts.
"""

from __future__ import annotations

import hashlib
import heapq
import random
from typing import Sequence

from akita.model import ModelError

from .drive import WD_CAVIAR_BLACK_1TB, Drive
from .metrics import DiskMetrics
from .request import Request
from .schedulers import SCHEDULERS, Scheduler
from .vdisk import VirtualDisk, file_extent, lay_out
from .workload import ProcessSpec, Stream, VMSpec

__all__ = ["simulate", "process_seed"]

_ARRIVE, _COMPLETE, _WAKE = 0, 1, 2
#: Completions between two samples of the scheduler's memory.
_MEMORY_EVERY = 16


def process_seed(seed: int, vm: str, process: str) -> int:
    """The seed of one process's generator."""
    digest = hashlib.sha256(f"{seed}/{vm}/{process}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class _Process:
    __slots__ = ("index", "vm", "spec", "stream", "base")

    def __init__(self, index: int, vm: int, spec: ProcessSpec, stream: Stream,
                 base: int) -> None:
        self.index, self.vm, self.spec, self.stream, self.base = index, vm, spec, stream, base


def _processes(vms: Sequence[VMSpec], images: list[VirtualDisk], seed: int) -> list[_Process]:
    out: list[_Process] = []
    for index, (vm, image) in enumerate(zip(vms, images)):
        files = vm.files()
        for spec, file in zip(vm.processes, files):
            base = image.physical(file_extent(image, file, max(files) + 1, spec.file_sectors))
            rng = random.Random(process_seed(seed, vm.name, spec.name))
            out.append(_Process(len(out), index, spec, Stream(spec, rng), base))
    return out


def _scheduler(scheduler: str | type[Scheduler]) -> type[Scheduler]:
    if isinstance(scheduler, str):
        if scheduler not in SCHEDULERS:
            raise ModelError("scheduler", scheduler, f"one of {', '.join(SCHEDULERS)}")
        return SCHEDULERS[scheduler]
    return scheduler


def simulate(vms: Sequence[VMSpec], scheduler: str | type[Scheduler], *, duration_ns: int,
             drive: Drive = WD_CAVIAR_BLACK_1TB, seed: int = 1) -> DiskMetrics:
    """Run *vms* on *drive* under *scheduler* for *duration_ns*; return the counts."""
    if not vms:
        raise ModelError("vm", [], "at least one VM")
    if duration_ns <= 0:
        raise ModelError("duration", duration_ns, "a positive number of nanoseconds")
    images = lay_out([(vm.name, vm.image_sectors) for vm in vms], drive.sectors)
    return _Run(vms, images, _scheduler(scheduler)(drive, images), drive, duration_ns,
                seed).run()


class _Run:
    def __init__(self, vms: Sequence[VMSpec], images: list[VirtualDisk], scheduler: Scheduler,
                 drive: Drive, duration: int, seed: int) -> None:
        self.drive, self.scheduler, self.duration = drive, scheduler, duration
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
            self.issue(payload, now)
        elif kind == _COMPLETE:
            assert isinstance(payload, Request)
            self.complete(payload, now)
        else:
            self.wakes.discard(now)

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
        vm.think_ns += min(process.spec.think_ns, self.duration - now)
        self.push(now + process.spec.think_ns, _ARRIVE, process)
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
        seek, rotation, transfer = self.drive.service_ns(self.head, request.lba,
                                                         request.sectors, now)
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
        for vm, (started, succeeded) in zip(self.metrics.vms, self.scheduler.waits):
            vm.waits, vm.wait_successes = started, succeeded
        kinds = getattr(self.scheduler, "kinds", None)
        if isinstance(kinds, dict):
            self.metrics.kinds = {k: list(v) for k, v in kinds.items()}

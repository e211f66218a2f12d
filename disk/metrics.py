"""What a disk simulation measures.

Per VM and per process: requests and sectors completed, hence throughput;
request latency (arrival at the hypervisor's queue to completion) as a
:class:`~akita.reference.histogram.LogHistogram`, reported at p50, p90, p99,
p99.9 and the maximum.  Per VM also: the CPU time its processes spent
thinking and the time they spent blocked on I/O (each process is one vCPU
thread, runnable only while it thinks); the waits its scheduler started for
it and their successes.  For the drive: time transferring, seeking and
rotating, and the seek distance, summed over the requests started.

*Disk utilisation* is the drive's busy time over the elapsed span: the time
it spends serving requests -- seeking, waiting for the sector to rotate
under the head and transferring -- summed over every request started and
clipped at the end of the run (the drive serves one request at a time, so
the sum is the length of the union of its busy intervals; idle time, the
scheduler's waits included, is not counted), as ``iostat``'s ``%util``
counts a device busy while a request is outstanding on it.  The source's
*disk I/O efficiency*, the time transferring alone over the span, is kept
beside it as ``transfer_permille``; a read the drive's cache serves
(:mod:`.cache`) counts its transfer at the interface's rate, and the reads
it served whole and in part are counted (``cache_hits``,
``cache_partial_hits``).  The scheduler's memory is the peak of
:meth:`~.schedulers.base.Scheduler.memory_bytes` over the run.  Every count
and time is an exact integer; ratios are reduced only for display.
"""

from __future__ import annotations

from typing import Any

from akita.reference.histogram import LogHistogram

from .drive import SECTOR_BYTES

__all__ = ["RequestCounts", "VMDiskMetrics", "DiskMetrics", "UTILISATION_COUNTS"]

#: How ``utilisation_permille`` counts, said in every JSON document.
UTILISATION_COUNTS = ("busy time: seek + rotation + transfer of every request started, "
                      "clipped at the end of the run, over the run's span")


class RequestCounts:
    """The requests one process (or one VM, all its processes) completed, and their latency."""

    __slots__ = ("name", "requests", "sectors", "latency")

    def __init__(self, name: str) -> None:
        self.name = name
        self.requests = 0
        self.sectors = 0
        self.latency = LogHistogram()

    def complete(self, sectors: int, latency_ns: int) -> None:
        self.requests += 1
        self.sectors += sectors
        self.latency.add(latency_ns)

    def as_json(self, duration: int) -> dict[str, Any]:
        latency = (dict(self.latency.summary()) if self.latency.count
                   else {k: None for k in ("p50", "p90", "p99", "p999", "max")})
        return {"requests": self.requests, "bytes": self.sectors * SECTOR_BYTES,
                "bytes_per_s": self.sectors * SECTOR_BYTES * 10**9 // duration,
                "latency_ns": latency}


class VMDiskMetrics(RequestCounts):
    """One VM's counts, and each of its processes' (in the order listed)."""

    __slots__ = ("think_ns", "blocked_ns", "waits", "wait_successes", "processes")

    def __init__(self, name: str, processes: list[str] | None = None) -> None:
        super().__init__(name)
        self.think_ns = 0
        self.blocked_ns = 0
        self.waits = 0
        self.wait_successes = 0
        self.processes = [RequestCounts(p) for p in processes or []]

    def as_json(self, duration: int) -> dict[str, Any]:
        return {**super().as_json(duration), "think_ns": self.think_ns,
                "blocked_ns": self.blocked_ns, "waits": self.waits,
                "wait_successes": self.wait_successes,
                "processes": {p.name: p.as_json(duration) for p in self.processes}}


class DiskMetrics:
    """A run's counts: per VM, for the drive, for the scheduler."""

    def __init__(self, scheduler: str, vms: list[str], duration: int,
                 processes: list[list[str]] | None = None) -> None:
        self.scheduler = scheduler
        self.duration = duration
        self.vms = [VMDiskMetrics(name, (processes or [[] for _ in vms])[i])
                    for i, name in enumerate(vms)]
        self.busy_ns = 0
        self.transfer_ns = 0
        self.seek_ns = 0
        self.rotation_ns = 0
        self.started = 0
        self.seek_sectors = 0
        self.peak_memory = 0
        self.cache_hits = 0
        self.cache_partial = 0
        self.kinds: dict[str, list[int]] = {}

    @property
    def sectors(self) -> int:
        return sum(vm.sectors for vm in self.vms)

    def utilisation_permille(self) -> int:
        """Busy time (seeking, rotating, transferring) over the elapsed span, in thousandths
        (rounded down)."""
        return 1000 * self.busy_ns // self.duration

    def transfer_permille(self) -> int:
        """Transfer time alone over the elapsed span, in thousandths (rounded down): the
        source's disk I/O efficiency."""
        return 1000 * self.transfer_ns // self.duration

    def as_json(self) -> dict[str, Any]:
        waits = sum(vm.waits for vm in self.vms)
        return {
            "scheduler": self.scheduler, "duration_ns": self.duration,
            "bytes_per_s": self.sectors * SECTOR_BYTES * 10**9 // self.duration,
            "utilisation_permille": self.utilisation_permille(),
            "utilisation_counts": UTILISATION_COUNTS,
            "transfer_permille": self.transfer_permille(), "busy_ns": self.busy_ns,
            "transfer_ns": self.transfer_ns, "seek_ns": self.seek_ns,
            "rotation_ns": self.rotation_ns, "requests_started": self.started,
            "mean_seek_sectors": self.seek_sectors // self.started if self.started else None,
            "waits": waits, "wait_successes": sum(vm.wait_successes for vm in self.vms),
            "wait_kinds": self.kinds, "peak_memory_bytes": self.peak_memory,
            "cache_hits": self.cache_hits, "cache_partial_hits": self.cache_partial,
            "vms": {vm.name: vm.as_json(self.duration) for vm in self.vms},
        }

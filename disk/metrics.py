"""What a disk simulation measures.

Per VM: requests and sectors completed, hence throughput; request
latency (arrival at the hypervisor's queue to completion) as a
:class:`~akita.reference.histogram.LogHistogram`; the CPU time its
processes spent thinking and the time they spent blocked on I/O (each
process is one vCPU thread, runnable only while it thinks); the waits its
scheduler started for it and their successes.  For the drive: time
transferring, seeking and rotating, and the seek distance, summed over the
requests started.  *Disk utilisation* is transfer time over the elapsed
span, as the source measures disk I/O efficiency.  The scheduler's memory
is the peak of :meth:`~.schedulers.base.Scheduler.memory_bytes` over the
run.  Every count and time is an exact integer; ratios are reduced only
for display.
"""

from __future__ import annotations

from typing import Any

from akita.reference.histogram import LogHistogram

from .drive import SECTOR_BYTES

__all__ = ["VMDiskMetrics", "DiskMetrics"]


class VMDiskMetrics:
    """One VM's counts."""

    __slots__ = ("name", "requests", "sectors", "latency", "think_ns", "blocked_ns",
                 "waits", "wait_successes")

    def __init__(self, name: str) -> None:
        self.name = name
        self.requests = 0
        self.sectors = 0
        self.latency = LogHistogram()
        self.think_ns = 0
        self.blocked_ns = 0
        self.waits = 0
        self.wait_successes = 0

    def as_json(self, duration: int) -> dict[str, Any]:
        latency = (dict(self.latency.summary()) if self.latency.count
                   else {k: None for k in ("p50", "p90", "p99", "p999", "max")})
        return {"requests": self.requests, "bytes": self.sectors * SECTOR_BYTES,
                "bytes_per_s": self.sectors * SECTOR_BYTES * 10**9 // duration,
                "latency_ns": latency, "think_ns": self.think_ns, "blocked_ns": self.blocked_ns,
                "waits": self.waits, "wait_successes": self.wait_successes}


class DiskMetrics:
    """A run's counts: per VM, for the drive, for the scheduler."""

    def __init__(self, scheduler: str, vms: list[str], duration: int) -> None:
        self.scheduler = scheduler
        self.duration = duration
        self.vms = [VMDiskMetrics(name) for name in vms]
        self.transfer_ns = 0
        self.seek_ns = 0
        self.rotation_ns = 0
        self.started = 0
        self.seek_sectors = 0
        self.peak_memory = 0
        self.kinds: dict[str, list[int]] = {}

    @property
    def sectors(self) -> int:
        return sum(vm.sectors for vm in self.vms)

    def utilisation_permille(self) -> int:
        """Transfer time over the elapsed span, in thousandths (rounded down)."""
        return 1000 * self.transfer_ns // self.duration

    def as_json(self) -> dict[str, Any]:
        waits = sum(vm.waits for vm in self.vms)
        return {
            "scheduler": self.scheduler, "duration_ns": self.duration,
            "bytes_per_s": self.sectors * SECTOR_BYTES * 10**9 // self.duration,
            "utilisation_permille": self.utilisation_permille(),
            "transfer_ns": self.transfer_ns, "seek_ns": self.seek_ns,
            "rotation_ns": self.rotation_ns, "requests_started": self.started,
            "mean_seek_sectors": self.seek_sectors // self.started if self.started else None,
            "waits": waits, "wait_successes": sum(vm.wait_successes for vm in self.vms),
            "wait_kinds": self.kinds, "peak_memory_bytes": self.peak_memory,
            "vms": {vm.name: vm.as_json(self.duration) for vm in self.vms},
        }

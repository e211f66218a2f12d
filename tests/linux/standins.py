"""Stand-in guests for the real-kernel tests: tests/data/linux/standin.c, compiled once."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from repo import ROOT

SOURCE = ROOT / "tests" / "data" / "linux" / "standin.c"
FIG5 = ROOT / "examples" / "fig5.toml"
_BUILT: dict[str, Path] = {}


def standin_binary() -> Path | None:
    """The compiled stand-in, or ``None`` without a C compiler."""
    if "bin" not in _BUILT:
        if shutil.which("gcc") is None:
            return None
        out = Path(tempfile.mkdtemp(prefix="akita-standin-")) / "standin"
        subprocess.run(["gcc", "-O2", "-Wall", "-o", str(out), str(SOURCE)], check=True,
                       timeout=60)
        _BUILT["bin"] = out
    return _BUILT["bin"]


def vcpu_thread_binary() -> Path | None:
    """The compiled QEMU-like stand-in (tests/data/linux/vcpu_thread.c), or ``None``."""
    if "vcpu_thread" not in _BUILT:
        if shutil.which("gcc") is None:
            return None
        out = Path(tempfile.mkdtemp(prefix="akita-vcpu-thread-")) / "vcpu_thread"
        subprocess.run(["gcc", "-O2", "-Wall", "-pthread", "-o", str(out),
                        str(SOURCE.with_name("vcpu_thread.c"))], check=True, timeout=60)
        _BUILT["vcpu_thread"] = out
    return _BUILT["vcpu_thread"]


def remove_built() -> None:
    """Remove the compiled stand-ins' directories (the session's end)."""
    for binary in _BUILT.values():
        shutil.rmtree(binary.parent, ignore_errors=True)
    _BUILT.clear()


def mono() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class Standins:
    """Start stand-in threads (plain SCHED_OTHER processes); kill every one on exit."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []

    def start(self, name: str, *numbers: int) -> int:
        """Start ``standin NAME NUMBERS...``; return its thread id."""
        binary = standin_binary()
        assert binary is not None
        proc = subprocess.Popen([str(binary), name, *map(str, numbers)], stdout=subprocess.PIPE,
                                text=True)
        self.procs.append(proc)
        assert proc.stdout is not None
        return int(proc.stdout.readline())

    def fig5(self, seed: int = 0) -> tuple[dict[str, int], int]:
        """examples/fig5.toml's VMs and the instant to align the run's grids to
        (``akita linux --align``): three CPU-bound LO guests (the kernel holds each to its
        25 ms every 100 ms) and a HI guest on its R2 grid under *seed* that needs 15 ms of
        every 100 ms for five periods, then 3 ms for ten (it asks for C_pes, then cools)."""
        from akita.model import load_host
        from akita.model.phases import resolve_phases

        align = mono() + 300_000_000
        start = align + resolve_phases(load_host(FIG5), seed)["memcached"]
        tids = {f"lookbusy{i}/0": self.start(f"lookbusy{i}", 0, 100_000_000, 200_000_000)
                for i in (1, 2, 3)}
        tids["memcached/0"] = self.start("memcached", start, 100_000_000, 3_000_000,
                                         15_000_000, 5, 10)
        return tids, align

    def qemu_like(self, *numbers: int) -> tuple[int, int]:
        """Start ``vcpu_thread NUMBERS...``: a process whose vCPU thread is named ``CPU 0/KVM``
        beside its main thread; return (the vCPU thread's id, the main thread's)."""
        binary = vcpu_thread_binary()
        assert binary is not None
        proc = subprocess.Popen([str(binary), *map(str, numbers)], stdout=subprocess.PIPE,
                                text=True)
        self.procs.append(proc)
        assert proc.stdout is not None
        return int(proc.stdout.readline()), int(proc.stdout.readline())

    def close(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()
        self.procs = []

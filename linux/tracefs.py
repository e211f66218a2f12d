"""A tracefs instance of the run's own, recording what the oracle reads.

An *instance* (``/sys/kernel/tracing/instances/NAME``, Documentation/trace/ftrace.rst,
"Instances") is a ring buffer with its own events, clock and ``trace_marker``:
recording into one leaves the top-level buffer, and any other user's
instance, alone.  It records ``sched_switch``, ``sched_wakeup``,
``sched_wakeup_new`` and ``sched_migrate_task`` on every CPU, on the
``mono`` clock (the controller's ``CLOCK_MONOTONIC``), and the controller's
own lines written to its ``trace_marker`` (its mode and temperature
decisions, R5, R8, R9, and the origin of its period grids).

The instance is named ``akita-linux-<pid>`` after the controller's process;
:func:`remove_stale` removes the instances of controllers that are gone.

The buffer is read once, after the run (the ``trace`` file), so it must hold
the whole run: :func:`buffer_kb_for` sizes it from the run's length at
:data:`RATE_KB_PER_S` per CPU (decision 220), and :meth:`Instance.losses`
reads the ring buffer's own counters (``per_cpu/cpuN/stats``: ``overrun``,
the records overwritten; ``dropped events``; ``commit overrun``), so that a
run that lost any record says so instead of handing the oracle a trace that
begins mid-run.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .errors import LinuxError
from .process import alive

__all__ = ["TRACEFS", "EVENTS", "Instance", "tracefs_available", "remove_stale",
           "buffer_kb_for", "RATE_KB_PER_S", "BASE_KB", "MAX_KB", "LOSS_COUNTERS"]

TRACEFS = Path("/sys/kernel/tracing")
EVENTS = ("sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task")
PREFIX = "akita-linux-"
#: Ring-buffer space per CPU per second of run (KiB): fig5.toml's memcached at 35,000
#: requests/s writes about 38,000 scheduler records/s on its CPU, some 70 bytes each
#: (2.7 MB/s, measured, docs/linux.rst); twice that, for headroom (decision 220).
RATE_KB_PER_S = 6144
#: Space for the start (workloads starting, threads taken, the lead before the origin).
BASE_KB = 8192
#: The most asked per CPU (KiB): the buffer is allocated on every CPU; a run longer than
#: ``(MAX_KB - BASE_KB) / RATE_KB_PER_S`` seconds (about 80 s) may overwrite, and says so.
MAX_KB = 512 * 1024
#: The ring buffer's loss counters (``per_cpu/cpuN/stats``), summed over the CPUs.
LOSS_COUNTERS = ("overrun", "dropped events", "commit overrun")


def buffer_kb_for(seconds: float) -> int:
    """The per-CPU buffer (KiB) that holds *seconds* of the heaviest measured run."""
    return min(MAX_KB, BASE_KB + int(seconds * RATE_KB_PER_S + 0.999999))


def tracefs_available(root: Path = TRACEFS) -> str | None:
    """``None`` if tracefs with instances and the scheduler events is mounted at *root*."""
    if not (root / "instances").is_dir():
        return f"no tracefs with instances at {root}"
    if not (root / "events" / "sched" / "sched_switch").is_dir():
        return f"no sched events under {root}/events"
    return None


def remove_stale(root: Path = TRACEFS) -> list[str]:
    """Remove the instances of controllers whose process is gone."""
    removed = []
    for directory in sorted((root / "instances").glob(PREFIX + "*")):
        owner = directory.name[len(PREFIX):]
        if owner.isascii() and owner.isdigit() and not alive(int(owner)):
            _rmdir(directory)
            removed.append(directory.name)
    return removed


def _rmdir(directory: Path) -> None:
    for _ in range(50):
        try:
            directory.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)


class Instance:
    """The run's tracing instance: create, start, mark, read, remove."""

    def __init__(self, *, owner: int | None = None, buffer_kb: int = 8192,
                 root: Path = TRACEFS) -> None:
        self.path = root / "instances" / f"{PREFIX}{os.getpid() if owner is None else owner}"
        self.buffer_kb = buffer_kb
        self._marker: int | None = None

    def create(self) -> None:
        try:
            self.path.mkdir()
        except OSError as error:
            raise LinuxError("tracefs", str(self.path), f"a new tracing instance "
                             f"({error.strerror})") from None
        self._write("tracing_on", "0")
        self._write("trace_clock", "mono")
        self._write("buffer_size_kb", str(self.buffer_kb))
        for event in EVENTS:
            self._write(f"events/sched/{event}/enable", "1")
        self._marker = os.open(self.path / "trace_marker", os.O_WRONLY)

    def _write(self, name: str, value: str) -> None:
        with open(self.path / name, "w") as f:
            f.write(value)

    def start(self) -> None:
        self._write("tracing_on", "1")

    def stop(self) -> None:
        self._write("tracing_on", "0")

    def mark(self, text: str) -> None:
        """Write one ``tracing_mark_write`` line (a controller decision) into the buffer."""
        if self._marker is not None:
            os.write(self._marker, text.encode())

    def losses(self) -> dict[str, int]:
        """The ring buffer's own loss counters summed over the CPUs (:data:`LOSS_COUNTERS`),
        ``entries`` and ``bytes``, the records it holds and their size."""
        totals = dict.fromkeys(LOSS_COUNTERS + ("entries", "bytes"), 0)
        for stats in sorted((self.path / "per_cpu").glob("cpu*/stats")):
            for line in stats.read_text().splitlines():
                name, _, value = line.partition(":")
                if name.strip() in totals and value.strip().isdigit():
                    totals[name.strip()] += int(value.strip())
        return totals

    def read(self) -> str:
        """The buffer as the kernel prints it (the ``trace`` file)."""
        return (self.path / "trace").read_text()

    def close(self) -> None:
        """Close the marker (an open file keeps the instance from being removed)."""
        if self._marker is not None:
            os.close(self._marker)
            self._marker = None

    def remove(self) -> None:
        self.close()
        if self.path.exists():
            try:
                self._write("tracing_on", "0")
            except OSError:
                pass
            _rmdir(self.path)

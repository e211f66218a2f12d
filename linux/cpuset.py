"""Exclusive cgroup-v1 cpusets: one Linux CPU per pCPU of the host, its own root domain.

Linux's deadline scheduler is global EDF within a *root domain*; to give it
one CPU per pCPU (Akita partitions its vCPUs, R12) each pCPU gets an
exclusive cpuset of its own and the root cpuset stops balancing load, so
that each exclusive cpuset becomes a root domain
(Documentation/scheduler/sched-deadline.rst, section 5, "Tasks CPU
affinity"; Documentation/admin-guide/cgroup-v1/cpusets.rst, 1.7).  The CPUs
not used are gathered in a "rest" cpuset, as the project's recording script
does (``tests/data/record/record_sched_deadline.sh``).

Every cpuset is named ``akita-linux-<pid>-...`` after the controller's
process, so a cpuset whose process is gone is known to be stale and is
removed at the next start (:func:`remove_stale`); tasks still in it go back
to the root cpuset first.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from .errors import LinuxParameterError
from .process import alive

__all__ = ["ROOT", "PREFIX", "Cpusets", "remove_stale", "cpuset_available",
           "exclusive_cpusets", "restore_balance"]

ROOT = Path("/sys/fs/cgroup/cpuset")
PREFIX = "akita-linux-"


def cpuset_available(root: Path = ROOT) -> str | None:
    """``None`` if a cgroup-v1 cpuset hierarchy is mounted at *root*, else why not."""
    if not (root / "cpuset.cpu_exclusive").exists():
        return f"no cgroup-v1 cpuset hierarchy at {root}"
    return None


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _evacuate(directory: Path, root: Path) -> None:
    """Move every task of *directory* back to the root cpuset, then remove it."""
    try:
        tids = (directory / "tasks").read_text().split()
    except OSError:
        tids = []
    for tid in tids:
        try:
            _write(root / "tasks", tid)
        except OSError:
            pass
    for _ in range(50):
        try:
            directory.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def remove_stale(root: Path = ROOT) -> list[str]:
    """Remove the cpusets of controllers that are gone (killed before they cleaned up)."""
    removed = []
    for directory in sorted(root.glob(PREFIX + "*")):
        owner = directory.name[len(PREFIX):].split("-", 1)[0]
        if owner.isascii() and owner.isdigit() and not alive(int(owner)):
            _evacuate(directory, root)
            removed.append(directory.name)
    return removed


class Cpusets:
    """The exclusive cpusets of one run: ``cpus[i]`` is pCPU i's Linux CPU.

    :param wait: seconds to wait for a CPU another exclusive cpuset holds.
    """

    def __init__(self, cpus: list[int], *, owner: int | None = None, wait: float = 0.0,
                 root: Path = ROOT) -> None:
        self.root = root
        self.owner = os.getpid() if owner is None else owner
        self.cpus = cpus
        self.made: list[Path] = []
        self.balance_was: str | None = None
        self.wait = wait

    def path(self, pcpu: int) -> Path:
        return self.root / f"{PREFIX}{self.owner}-p{pcpu}"

    def create(self) -> None:
        """Make one exclusive cpuset per pCPU and a rest cpuset; stop root load balancing."""
        online = _online()
        rest = sorted(online - set(self.cpus))
        for pcpu, cpu in enumerate(self.cpus):
            self._make(self.path(pcpu), str(cpu), exclusive=True)
        if rest:
            self._make(self.root / f"{PREFIX}{self.owner}-rest", ",".join(map(str, rest)),
                       exclusive=False)
        found = (self.root / "cpuset.sched_load_balance").read_text().strip()
        # off because another run is on: its "was" is what to restore last (decision 358)
        self.balance_was = "1" if found == "0" and self._others() else found
        _write(self.root / "cpuset.sched_load_balance", "0")

    def _others(self) -> list[Path]:
        """Other runs' cpusets (``akita-linux-<pid>-...`` of another pid; a run removes
        those of dead pids before it creates its own, :func:`remove_stale`)."""
        mine = f"{PREFIX}{self.owner}-"
        return [d for d in self.root.glob(f"{PREFIX}*") if d.is_dir()
                and not d.name.startswith(mine)]

    def _make(self, directory: Path, cpus: str, *, exclusive: bool) -> None:
        directory.mkdir()
        self.made.append(directory)
        _write(directory / "cpuset.mems", "0")
        until = time.monotonic() + self.wait
        while True:
            try:
                _write(directory / "cpuset.cpus", cpus)
                if exclusive:
                    _write(directory / "cpuset.cpu_exclusive", "1")
                return
            except OSError as error:
                if error.errno not in (errno.EINVAL, errno.EBUSY) or time.monotonic() > until:
                    raise LinuxParameterError(
                        "cpus", cpus, f"CPUs no other exclusive cpuset holds (CPUs {cpus}: "
                        f"{_holders(self.root, cpus)}; {error.strerror})") from None
                time.sleep(0.2)

    def enter(self, pcpu: int, tid: int) -> None:
        """Move thread *tid* into pCPU *pcpu*'s cpuset."""
        _write(self.path(pcpu) / "tasks", str(tid))

    def remove(self) -> None:
        """Move every task out, remove the cpusets, restore the root's load balancing.

        Load balancing is restored only when no other exclusive cpuset is left
        (another user of exclusive cpusets needs it off).
        """
        for directory in reversed(self.made):
            _evacuate(directory, self.root)
        self.made = []
        if self.balance_was is not None:
            restore_balance(self.root, self.balance_was)
            self.balance_was = None


def exclusive_cpusets(root: Path) -> list[Path]:
    """The exclusive cpusets under *root*, by name."""
    return [d for d in sorted(root.iterdir()) if d.is_dir()
            and (d / "cpuset.cpu_exclusive").read_text().strip() == "1"]


def restore_balance(root: Path, was: str) -> None:
    """Write *was* back to *root*'s ``cpuset.sched_load_balance`` if no exclusive cpuset
    is left (another user of exclusive cpusets needs balancing off).  The one test both
    :meth:`Cpusets.remove` and :func:`akita.linux.cleanup.undo` make."""
    if not exclusive_cpusets(root):
        _write(root / "cpuset.sched_load_balance", was)


def _online() -> set[int]:
    cpus: set[int] = set()
    for part in Path("/sys/devices/system/cpu/online").read_text().strip().split(","):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def _holders(root: Path, cpus: str) -> str:
    held = [f"{d.name} holds {(d / 'cpuset.cpus').read_text().strip()}"
            for d in exclusive_cpusets(root)]
    return ", ".join(held) if held else "no exclusive cpuset holds them"

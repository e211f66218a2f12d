"""What the machine must offer: root, tracefs, the deadline class, cgroup-v1 cpusets.

:func:`problems` lists what is missing, one phrase each; the command line
prints the first as one line and exits with status 2, and the real-kernel
tests skip with it as their reason.
"""

from __future__ import annotations

import gzip
import os
import platform
import subprocess
from pathlib import Path

from . import sched
from .cpuset import cpuset_available
from .errors import LinuxError
from .tracefs import tracefs_available

__all__ = ["problems", "deadline_class", "tick_ns"]


def deadline_class() -> str | None:
    """``None`` if the kernel runs ``SCHED_DEADLINE`` tasks, else why not.

    Probed on a child process of its own (``sleep``), given a small
    reservation (100 us every 100 ms) and killed at once.
    """
    try:
        child = subprocess.Popen(["sleep", "5"])
    except OSError as error:
        return f"cannot start a probe process ({error})"
    try:
        sched.set_deadline(child.pid, 100_000, 100_000_000, 100_000_000)
        return None
    except LinuxError as error:
        if "EBUSY" in str(error):
            return None  # the class exists; its bandwidth is taken
        code = "EPERM" if "EPERM" in str(error) else "EINVAL" if "EINVAL" in str(error) else ""
        return f"no SCHED_DEADLINE class usable here ({code or error})"
    finally:
        child.kill()
        child.wait()


def problems() -> list[str]:
    """What the machine lacks for ``akita linux``, first the most basic."""
    found = []
    if platform.system() != "Linux":
        return [f"Linux is needed (this is {platform.system()})"]
    if os.geteuid() != 0:
        found.append("root is needed (SCHED_DEADLINE, cpusets and tracefs)")
        return found
    for reason in (tracefs_available(), cpuset_available()):
        if reason is not None:
            found.append(reason)
    if not found:
        reason = deadline_class()
        if reason is not None:
            found.append(reason)
    return found


def tick_ns() -> int | None:
    """The kernel's tick (``1/CONFIG_HZ``) in ns, from its configuration, if it can be read.

    ``SCHED_DEADLINE`` enforces a runtime at the tick unless the scheduler
    feature ``HRTICK_DL`` is on (kernel/sched/features.h, off by default):
    a task may overrun its runtime by up to a tick (:doc:`/linux`).
    """
    release = platform.release()
    for path in (Path("/proc/config.gz"), Path(f"/boot/config-{release}")):
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode(errors="replace")
        for line in text.splitlines():
            if line.startswith("CONFIG_HZ="):
                return 1_000_000_000 // int(line.split("=", 1)[1])
    return None



"""What a real-kernel test needs, checked first: the reason to skip, or ``None``."""

import os
import shutil

from akita.linux.workloads import CPU_CGROUP


def missing(*, memcached: bool = False) -> str | None:
    """Why this machine cannot run the host's tasks for real, or ``None`` if it can."""
    if os.geteuid() != 0:
        return "needs root (pinning, cpu cgroups)"
    if shutil.which("cc") is None:
        return "needs a C compiler (cc) for the workload programs"
    if not (CPU_CGROUP / "cpu.shares").exists():
        return f"needs the cgroup v1 cpu controller at {CPU_CGROUP}"
    if not {0, 1} <= os.sched_getaffinity(0):
        return "needs CPUs 0 and 1"
    if memcached and shutil.which("memcached") is None:
        return "needs memcached"
    return None

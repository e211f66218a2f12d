"""Typed errors of the Linux controller: what the machine or the kernel refused.

A :class:`LinuxError` is a :class:`~akita.model.errors.ModelError`, so the
command line prints it as one line naming the field, what was expected and
what was got, and exits with status 2.
"""

from __future__ import annotations

from akita.model.errors import ModelError

__all__ = ["LinuxError", "KernelRefused"]


class LinuxError(ModelError):
    """The machine lacks something the controller needs (root, tracefs, the deadline
    class, a cgroup-v1 cpuset hierarchy, a free CPU), or an argument is malformed."""


class KernelRefused(LinuxError):
    """The kernel refused a vCPU's ``SCHED_DEADLINE`` parameters (``EBUSY``: its own
    admission control, Documentation/scheduler/sched-deadline.rst section 4)."""

"""Typed errors of the Linux controller: what the machine or the kernel refused.

A :class:`LinuxError` is a :class:`~akita.model.errors.ModelError`, so the
command line prints it as one line naming the field, what was expected and
what was got, and exits with status 2.
"""

from __future__ import annotations

from akita.model.errors import ModelError, ParameterError

__all__ = ["LinuxError", "KernelRefused", "LinuxParameterError"]


class LinuxError(ModelError):
    """The machine lacks something the controller needs (root, tracefs, the deadline
    class, a cgroup-v1 cpuset hierarchy, a free CPU), or an argument is malformed."""


class LinuxParameterError(LinuxError, ParameterError):
    """An argument of the controller's run is malformed, or names what the machine cannot
    give (a CPU another exclusive cpuset holds): ``field`` is the parameter (``cpus``,
    ``attach``, ``variant``, ``seconds``), which the command line names by its flag
    (:data:`akita.cli.FLAGS`)."""


class KernelRefused(LinuxError):
    """The kernel refused a vCPU's ``SCHED_DEADLINE`` parameters (``EBUSY``: its own
    admission control, Documentation/scheduler/sched-deadline.rst section 4)."""

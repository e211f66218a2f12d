"""``sched_setattr(2)`` and ``sched_getattr(2)`` through :mod:`ctypes`.

The C library has no wrapper for these system calls; their numbers are the
kernel's (``arch/x86/entry/syscalls/syscall_64.tbl``: 314 and 315 on
x86_64; ``include/uapi/asm-generic/unistd.h``: 274 and 275 on arm64).  The
attribute layout is ``struct sched_attr`` of ``include/uapi/linux/sched/types.h``
(``SCHED_ATTR_SIZE_VER0``, 48 bytes).  A deadline task's parameters obey
``runtime <= deadline <= period`` and the kernel's admission test, which
refuses with ``EBUSY`` (:class:`~.errors.KernelRefused`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform

import attrs

from .errors import KernelRefused, LinuxError

__all__ = ["SchedAttr", "SCHED_OTHER", "SCHED_FIFO", "SCHED_DEADLINE", "SCHED_FLAG_DL_OVERRUN",
           "SCHED_FLAG_RESET_ON_FORK", "get_attr", "set_attr", "set_deadline", "set_other"]

SCHED_OTHER = 0
SCHED_FIFO = 1
SCHED_DEADLINE = 6
SCHED_FLAG_RESET_ON_FORK = 0x01
SCHED_FLAG_DL_OVERRUN = 0x04

_NUMBERS = {"x86_64": (314, 315), "aarch64": (274, 275)}


class _Attr(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("sched_policy", ctypes.c_uint32),
                ("sched_flags", ctypes.c_uint64), ("sched_nice", ctypes.c_int32),
                ("sched_priority", ctypes.c_uint32), ("sched_runtime", ctypes.c_uint64),
                ("sched_deadline", ctypes.c_uint64), ("sched_period", ctypes.c_uint64)]


@attrs.frozen
class SchedAttr:
    """A thread's scheduling policy and parameters (ns for the deadline ones)."""

    policy: int
    flags: int = 0
    nice: int = 0
    priority: int = 0
    runtime: int = 0
    deadline: int = 0
    period: int = 0


_libc = ctypes.CDLL(None, use_errno=True)


def _numbers() -> tuple[int, int]:
    machine = platform.machine()
    if machine not in _NUMBERS:
        raise LinuxError("machine", machine, f"one of {', '.join(_NUMBERS)} (the system call "
                         "numbers of sched_setattr are known for these)")
    return _NUMBERS[machine]


def get_attr(tid: int) -> SchedAttr:
    """The scheduling attributes of thread *tid* (``sched_getattr``)."""
    raw = _Attr()
    if _libc.syscall(_numbers()[1], tid, ctypes.byref(raw), ctypes.sizeof(raw), 0) != 0:
        code = ctypes.get_errno()
        raise LinuxError("tid", tid, f"a thread whose attributes can be read "
                         f"({os.strerror(code)})")
    return SchedAttr(raw.sched_policy, raw.sched_flags, raw.sched_nice, raw.sched_priority,
                     raw.sched_runtime, raw.sched_deadline, raw.sched_period)


def set_attr(tid: int, attr: SchedAttr, *, what: str = "tid") -> None:
    """Give thread *tid* the attributes *attr* (``sched_setattr``).

    :raises KernelRefused: ``EBUSY``, the kernel's deadline admission.
    :raises LinuxError: any other refusal, with the kernel's reason.
    """
    raw = _Attr(ctypes.sizeof(_Attr), attr.policy, attr.flags, attr.nice, attr.priority,
                attr.runtime, attr.deadline, attr.period)
    if _libc.syscall(_numbers()[0], tid, ctypes.byref(raw), 0) == 0:
        return
    code = ctypes.get_errno()
    shown = (f"runtime {attr.runtime} ns, deadline {attr.deadline} ns, period {attr.period} ns"
             if attr.policy == SCHED_DEADLINE else f"policy {attr.policy}")
    if code == errno.EBUSY:
        raise KernelRefused(what, shown, "parameters the kernel's SCHED_DEADLINE admission "
                            "accepts on its CPU (EBUSY: the CPU's deadline bandwidth, "
                            "sched_rt_runtime_us/sched_rt_period_us, would be exceeded)")
    name = errno.errorcode.get(code, code)
    raise LinuxError(what, shown, f"parameters the kernel accepts ({name}: {os.strerror(code)})")


def set_deadline(tid: int, runtime: int, deadline: int, period: int, *, flags: int = 0,
                 what: str = "tid") -> None:
    """Make *tid* a ``SCHED_DEADLINE`` task with these parameters (ns)."""
    set_attr(tid, SchedAttr(SCHED_DEADLINE, flags, 0, 0, runtime, deadline, period), what=what)


def set_other(tid: int, nice: int = 0, *, what: str = "tid") -> None:
    """Make *tid* a ``SCHED_OTHER`` (EEVDF) task."""
    set_attr(tid, SchedAttr(SCHED_OTHER, 0, nice), what=what)

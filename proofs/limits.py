"""The limits of a check: Z3's resource count, a wall-clock guard over the whole check,
and a memory ceiling for Z3.

The limit that decides is deterministic: the check's budget of Z3's resource
count (:mod:`akita.model.smt.resources`), the same on a quiet or a loaded
machine.  The clock is an outer guard against a check that runs away; where
it stops a check, the answer is ``unknown`` and says that the wall-clock
guard, not the budget, was reached.

A check has two phases: building the encoding (unrolling a pCPU tick by
tick, :func:`akita.model.smt.pcpu.unroll`) and solving it.  For a long
horizon the first can take longer than the second, so a time limit that
bounds only the solver does not bound the check.  A :class:`Deadline` is
set when a check starts; the unrolling asks it at every step
(:meth:`Deadline.watch`) and stops with :class:`LimitReached` once it has
passed, and Z3 is given only the seconds that are left
(:meth:`Deadline.left`).  Either way the check answers ``unknown`` with the
reason -- a time limit is never a pass.

Z3's own time limit is not enough: some of its preprocessing does not look
at the clock (on an 840-tick pCPU, ``elim-uncnstr`` ran for 30 s past a 5 s
limit).  So the search runs in a child process (:func:`within`, by
``fork``: the child has the encoding already built), which answers on a pipe
and is killed if it outlives the deadline by more than :data:`GRACE`
seconds.  Where ``fork`` does not exist the search runs in this process,
bounded by Z3's own limit only.

Memory is Z3's: :func:`memory_ceiling` sets Z3's global ``memory_max_size``
(megabytes) for the duration of a check, so that a large horizon makes Z3
answer ``unknown`` ("out of memory") instead of taking the machine.  The
ceiling counts Z3's own allocations (the encoding and the search), not the
Python objects around them.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

import z3

from akita.model.smt import resources

__all__ = [
    "DEFAULT_MEMORY_MB",
    "Deadline",
    "LimitReached",
    "Progress",
    "memory_ceiling",
    "memory_limit_mb",
    "explain_unknown",
    "within",
    "GRACE",
]

T = TypeVar("T")

#: Seconds a search may outlive its deadline before its process is killed.
GRACE = 0.5

#: The default memory ceiling for Z3, in megabytes (``akita check --max-memory``).
DEFAULT_MEMORY_MB = 4096

#: ``progress(stage, done, total)``: told, as a check goes, what it is doing
#: (``"jobs"`` or ``"encoding"`` at tick *done* of *total*; ``"solving"``).
Progress = Callable[[str, int, int], None]

#: Z3's reasons for ``unknown`` that mean it ran out of memory, and out of time.
#: At its memory ceiling Z3 may also fail to build one of its own tactics and
#: call it "unknown" (seen with ``propagate-values``); the tactics used here are
#: all built in, so that message can only mean the allocation failed.
_MEMORY_REASONS = ("out of memory", "max. memory exceeded", "max. resource limit exceeded",
                   "unknown tactic")
_TIME_REASONS = ("timeout", "canceled", "cancelled")


class LimitReached(Exception):
    """A check stopped at a limit; ``str(error)`` says which, and where."""


class Deadline:
    """The end of a check that may take *seconds* from now, building included.

    :param progress: told what the check is doing as it goes (see
        :data:`Progress`), e.g. to draw a progress bar.
    """

    def __init__(self, seconds: float, progress: Progress | None = None,
                 end: float | None = None) -> None:
        self.seconds = seconds
        self.end = time.perf_counter() + seconds if end is None else end
        self.progress = progress

    def sharing(self, progress: Progress | None) -> Deadline:
        """The same end, told *progress* (one guard over several checks, e.g. a host's
        pCPUs)."""
        return Deadline(self.seconds, progress, self.end)

    def left(self) -> float:
        """The seconds left (0 once the deadline has passed)."""
        return max(0.0, self.end - time.perf_counter())

    def passed(self) -> bool:
        return self.left() <= 0.0

    def watch(self, stage: str, done: int, total: int) -> None:
        """Report progress; raise :class:`LimitReached` if the deadline has passed.

        Called by the unrolling (:data:`akita.model.smt.pcpu.Watch`) before each job
        it declares (``stage == "jobs"``) and each tick it builds (``"encoding"``).
        """
        if self.progress is not None:
            self.progress(stage, done, total)
        if self.passed():
            where = (f"at tick {done} of {total}" if stage == "encoding" else
                     f"while declaring the jobs (at tick {done} of {total})")
            raise LimitReached(
                f"wall-clock guard {self.seconds:g} s reached while building the encoding "
                f"{where}")

    def solving(self) -> None:
        """Report that the encoding is built and Z3 is searching."""
        if self.progress is not None:
            self.progress("solving", 0, 0)


def memory_limit_mb() -> int:
    """Z3's current memory ceiling in megabytes (0: none)."""
    return int(z3.get_param("memory_max_size"))


@contextmanager
def memory_ceiling(megabytes: int | None) -> Iterator[None]:
    """Run the body with Z3's memory ceiling at *megabytes* (``None``: leave it as it is),
    and put the previous ceiling back afterwards."""
    if megabytes is None:
        yield
        return
    before = memory_limit_mb()
    z3.set_param("memory_max_size", megabytes)
    try:
        yield
    finally:
        z3.set_param("memory_max_size", before)


def explain_unknown(reason: str | bytes | z3.Z3Exception | None, deadline: Deadline,
                    stage: str = "solving") -> str:
    """Z3's reason for ``unknown`` (or the exception it raised) during *stage*, in the
    words of the limit that was reached, if any."""
    if isinstance(reason, z3.Z3Exception):
        reason = reason.value
    if isinstance(reason, bytes):
        reason = reason.decode(errors="replace")
    said = reason or "no reason given"
    budget = resources.current()
    if budget is not None and budget.spent():
        return f"{budget.reason()} while {stage}"
    if any(word in said for word in _MEMORY_REASONS):
        return f"memory limit {memory_limit_mb()} MB reached while {stage} (Z3: {said})"
    if any(word in said for word in _TIME_REASONS):
        return f"wall-clock guard {deadline.seconds:g} s reached while {stage} (Z3: {said})"
    return f"Z3: {said}"


def within(deadline: Deadline, work: Callable[[], T], what: str = "solving") -> T:
    """``work()``, run in a child process that is killed once *deadline* has passed by
    :data:`GRACE` seconds.

    *work*'s result is sent back on a pipe (it must pickle).  An exception in the
    child, or a child that dies without answering (e.g. killed for memory), is
    raised here as :class:`LimitReached` with what happened, never taken for an
    answer.

    :raises LimitReached: when the deadline passed (``"time limit ... reached while
        {what}"``) or the child gave no answer.
    """
    if not hasattr(os, "fork"):  # pragma: no cover - every POSIX system has fork
        return work()
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    budget = resources.current()

    def child() -> None:
        try:
            answer: tuple[str, object] = ("ok", work())
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            answer = ("error", f"{type(error).__name__}: {error}")
        send.send((answer, None if budget is None else budget.used))

    process = context.Process(target=child, daemon=True)
    process.start()
    send.close()
    try:
        if not receive.poll(deadline.left() + GRACE):
            process.kill()
            raise LimitReached(
                f"wall-clock guard {deadline.seconds:g} s reached while {what} (Z3 was "
                f"stopped)")
        try:
            (kind, value), used = receive.recv()
        except EOFError:
            process.join()
            raise LimitReached(f"the solver process ended without an answer while {what} "
                               f"(exit code {process.exitcode})") from None
    finally:
        receive.close()
        process.join()
    if budget is not None and used is not None:  # what the child spent, charged here
        budget.used = used
    if kind != "ok":
        raise LimitReached(f"the solver process raised {value} while {what}")
    result: T = value  # what the child's work() returned
    return result

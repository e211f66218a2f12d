"""Deterministic limits on Z3's work: its resource count, not the clock.

Z3 counts the elementary steps of its work (``rlimit count`` in a solver's
statistics: propagations, conflicts, rewrites, tactic steps), and a solver's
``rlimit`` parameter stops a ``check()`` once that many more have been spent.
The count depends on the query and on what ran before it in the same
process, never on the machine's speed or load: the same command on the same
input stops at the same step, quiet or loaded, so its verdict is the same.
A time limit cannot promise that -- on a loaded machine it is reached
earlier in the work (an obligation proved in 60 s quiet answered
``unknown`` busy).

A :class:`ResourceLimit` is the budget of one piece of work (a proof
obligation, one pCPU of ``akita check``); while it is current
(:func:`resource_limit`), every solver call made through :func:`check`
gets what is left of it as its ``rlimit``, and what the call spent is
charged to it.  The clock stays as an outer guard only (each caller's
``timeout``), reported as such, never as the verdict of the budget.

Z3's count is cumulative over the process; what one call spent is the
difference of :func:`counted` before and after it.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import z3

__all__ = ["ResourceLimit", "resource_limit", "current", "check", "counted"]


class ResourceLimit:
    """A budget of *rlimit* units of Z3's resource count (0: no limit), and how much of it
    the solver calls made under it have spent (:attr:`used`)."""

    def __init__(self, rlimit: int) -> None:
        if rlimit < 0:
            raise ValueError(f"a resource limit is >= 0 (0: none), not {rlimit}")
        self.rlimit = rlimit
        self.used = 0

    def left(self) -> int | None:
        """The units left (``None``: no limit)."""
        return None if self.rlimit == 0 else max(0, self.rlimit - self.used)

    def spent(self) -> bool:
        """Whether the budget is used up."""
        return self.rlimit != 0 and self.used >= self.rlimit

    def reason(self) -> str:
        """Why a call under this budget answered ``unknown`` once it was spent."""
        return (f"resource limit reached: {self.used:,} of {self.rlimit:,} units of Z3's "
                f"resource count (rlimit) spent")


_CURRENT: list[ResourceLimit] = []

#: The largest ``rlimit`` one solver call takes (Z3's parameter is an unsigned 32-bit int).
_MAX_RLIMIT = 2**32 - 1


def current() -> ResourceLimit | None:
    """The budget solver calls are charged to now, if any."""
    return _CURRENT[-1] if _CURRENT else None


@contextmanager
def resource_limit(rlimit: int | None) -> Iterator[ResourceLimit | None]:
    """Make a budget of *rlimit* units current for the body (``None``: leave the current
    one as it is)."""
    if rlimit is None:
        yield current()
        return
    budget = ResourceLimit(rlimit)
    _CURRENT.append(budget)
    try:
        yield budget
    finally:
        _CURRENT.remove(budget)


def counted() -> int:
    """Z3's resource count so far in this process (read from the statistics of an empty
    solver's check, which spends next to nothing)."""
    probe = z3.Solver()
    probe.check()
    statistics = probe.statistics()
    return int(statistics.get_key_value("rlimit count")) if "rlimit count" in \
        statistics.keys() else 0


def check(solver: z3.Solver | z3.Optimize) -> z3.CheckSatResult:
    """``solver.check()``, limited to what is left of the current budget and charged to it.

    A call made once the budget is spent answers ``unknown`` without starting.
    """
    budget = current()
    if budget is None:
        return solver.check()
    left = budget.left()
    if left == 0:
        return z3.unknown
    if left is not None:
        solver.set("rlimit", min(left, _MAX_RLIMIT))
    before = counted()
    try:
        return solver.check()
    finally:
        budget.used += counted() - before

"""Response-time analysis for fixed-priority preemptive scheduling.

Joseph and Pandya, "Finding Response Times in a Real-Time System", The
Computer Journal 29(5), 1986; Audsley, Burns, Richardson, Tindell and
Wellings, "Applying new scheduling theory to static priority pre-emptive
scheduling", Software Engineering Journal 8(5), 1993.  On one processor,
with independent periodic or sporadic tasks released at most once every
``T`` and deadlines ``D <= T``, the worst-case response time of task ``i``
is the least fixed point of

    ``R = C_i + sum over j in hp(i) of ceil(R / T_j) * C_j``,

found by iterating from any lower bound.  Times are integer nanoseconds, so
the iteration is exact and each step that does not stop raises ``R`` by at
least 1.  It stops at the fixed point, or as soon as ``R`` passes a
*limit* (the deadline): then the task misses, and the ``R`` reached is
returned as a witness that exceeds the limit.  The fixed-point iteration
is the shared core of :mod:`akita.model.rm` and :mod:`akita.model.amc`.
"""

from __future__ import annotations

from typing import Iterable, Sequence

__all__ = ["ceil_div", "response_time", "response_times"]


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for integers, ``b > 0``, without floats."""
    return -(-a // b)


def response_time(c: int, higher: Iterable[tuple[int, int]], limit: int, start: int = 0) -> int:
    """The least ``R >= start`` with ``R = c + sum ceil(R/T_j) C_j`` over *higher*
    ``(C_j, T_j)`` pairs, or the first iterate ``> limit`` if it exceeds *limit*.

    *start* must not exceed the fixed point (``0`` or any earlier response
    time of the same equation always qualifies).
    """
    higher = tuple(higher)
    r = max(start, c + sum(cj for cj, _ in higher))
    while r <= limit:
        nxt = c + sum(ceil_div(r, tj) * cj for cj, tj in higher)
        if nxt == r:
            return r
        r = nxt
    return r


def response_times(tasks: Sequence[tuple[int, int]]) -> list[int]:
    """Response times of ``(C, T)`` *tasks* listed highest priority first, ``D = T``.

    Stops after the first task whose response time exceeds its period (the
    list then ends with that task's witness ``R > T``): the set is
    schedulable iff the list is complete and every ``R <= T``.
    """
    out: list[int] = []
    for i, (c, t) in enumerate(tasks):
        r = response_time(c, tasks[:i], t)
        out.append(r)
        if r > t:
            break
    return out

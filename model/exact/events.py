"""The successors of a search state, event to event rather than tick to tick.

Between two *events* the choice cannot change, so the chosen vCPU runs on
until the next one and the ticks between need not be visited.  From an
instant where vCPU ``c`` is chosen (:func:`.machine.choose`), nothing the
choice reads moves until the first of: a period start of any vCPU (arrivals,
keys, R8, R9); ``c``'s job ending (it stops being runnable); ``c``'s
consumption reaching ``C_opt`` (R5 in LO mode; in either mode the
temperature and ask it sets); ``c``'s budget running out (it leaves its
tier, and is re-inserted).  Indeed the keys are fixed between period starts
(deadlines move only when a period starts), the other vCPUs' work, budget
and rank do not change while they wait, ``c`` is not re-inserted while it
keeps running, and R5 on pick needs a consumption of ``C_opt`` that, reached
while running, is itself an event.  So a macro step of ``k`` ticks is
exactly ``k`` ticks of :func:`.tick.step` (``tests/model/exact`` checks this
against the tick step on random pCPUs).

Per macro step, with the demands revealed as served (:mod:`.abstraction`, 3.):
``c`` holding "at least ``w``, at most ``M``" ends after any ``k`` in
``[w, min(L, M)]`` ticks (``L`` the distance to the next event), or, if
``M > L``, is still running at the event.  At a period start each starting
vCPU takes every arrival (:func:`arrivals`): a HI vCPU that still holds work
is a miss; otherwise no job, or a job of ``1..C_pes`` (held as ``[1, C_pes]``);
a LO vCPU takes every work its cap allows (:func:`arrivals`).
"""

from __future__ import annotations

import itertools
from typing import Iterator

from .abstraction import canonical
from .machine import NOBODY, Machine, choose
from .tick import current, return_to_lo

__all__ = ["Step", "MISS", "successors", "start_states", "arrivals"]

#: A step's label: ``(ran, ended, starts)`` (:data:`Step`).
Label = tuple[int, bool, tuple[int, ...]]
#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("_starts", "arrivals", "start_states"),
    "R3": ("successors", "_ran"),
    "R5": ("successors", "_ran"),
    "R8": ("_starts",),
    "R9": ("_starts",),
    "R10": ("successors",),
    "R13": ("start_states",),
}


#: One successor: ``(state, ticks, label)``; the label records what happened for the
#: counterexample (:mod:`.counterexample`): ``(ran, ended, starts)``, ``ran`` the vCPU
#: that ran (NOBODY: idle), ``ended`` whether its job ended, ``starts`` the vCPUs whose
#: period started at the new instant.
Step = tuple[tuple[int, ...], int, Label]

#: The state of a successor in which a HI vCPU's period ended with work left.
MISS: tuple[int, ...] = ()

_W = 7


def arrivals(m: Machine, i: int, work: int, most: int) -> list[tuple[int, int]]:
    """vCPU *i*'s options ``(work, most)`` at its period start holding ``[work, most]``.

    A HI vCPU with work left has none: a miss.  Otherwise no job, ``(0, 0)``, or a
    job of ``1..C_pes``, ``(1, C_pes)``.  A LO vCPU without work: no job, or a job
    ``(1, C_opt)``.  A LO vCPU that may still hold ``l`` in ``[work, most]``
    (``work >= 1``) takes ``(work, C_opt)``: with the cap of :mod:`.abstraction` 2.
    its work after the arrival is ``l + d`` for any ``d`` in ``0..C_opt - l``, and
    every value in ``[work, C_opt]`` is one of those (take ``l = work``), so the one
    interval stands for no job and every job at once -- as one lazy job.
    """
    if m.hi[i]:
        return [] if work > 0 else [(0, 0), (1, m.full[i])]
    return [(work, m.c_opt[i])] if work > 0 else [(0, 0), (1, m.c_opt[i])]


def _starts(m: Machine, hi_mode: bool, last: int, pos: list[int], work: list[int],
            most: list[int], consumed: list[int], temp: list[int], asked: list[int],
            ins: list[int], now: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The period starts at the current instant (after moving to it): every combination of
    arrivals, then R8 (already applied here to *temp*) and R9, canonical; MISS if one misses."""
    starting = [i for i in range(m.n) if pos[i] == 0]
    hi_starts = False
    for i in starting:
        if m.hi[i]:
            hi_starts = True
            if m.cooling and temp[i] > 0 and not asked[i]:
                temp[i] -= 1
            asked[i] = 0
    mode = return_to_lo(m, hi_starts, temp, hi_mode)
    options = [arrivals(m, i, work[i], most[i]) for i in starting]
    if any(not o for o in options):
        yield MISS, tuple(starting)
        return
    label = tuple(starting)
    for combination in itertools.product(*options):
        w, mo, cons, ins2 = list(work), list(most), list(consumed), list(ins)
        for i, (a, b) in zip(starting, combination):
            w[i], mo[i], cons[i], ins2[i] = a, b, 0, now
        yield canonical(m, mode, last, pos, w, mo, cons, temp, asked, ins2, now), label


def start_states(m: Machine,
                 phases: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The search states at instant 0 for *phases*: idle, LO mode, then the period starts."""
    n = m.n
    pos = [(-p) % T for p, T in zip(phases, m.period)]
    zero = [0] * n
    return list(_starts(m, False, NOBODY, pos, list(zero), list(zero), list(zero), list(zero),
                        list(zero), list(zero), current(n)))


def successors(m: Machine, state: tuple[int, ...]) -> Iterator[Step]:
    """Every successor of *state* at its next event (see the module docstring)."""
    n = m.n
    hi_mode, last = bool(state[0]), state[1] - 1
    pos = list(state[2::_W])
    work, most, consumed = list(state[3::_W]), list(state[4::_W]), list(state[5::_W])
    temp, asked, ins = list(state[6::_W]), list(state[7::_W]), list(state[8::_W])
    c, hi_mode, hot = choose(m, hi_mode, pos, work, consumed, ins)
    now, nxt = current(n), current(n) + 1
    if hot != NOBODY:
        temp[hot], asked[hot] = m.initial_temperature, 1
    if m.fifo and last != NOBODY and last != c and work[last] > 0:
        ins[last] = now
    dist = min(T - p for T, p in zip(m.period, pos))
    if c == NOBODY:
        moved = [(p + dist) % T for p, T in zip(pos, m.period)]
        for child, label in _starts(m, hi_mode, NOBODY, moved, work, most, consumed, temp,
                                    asked, ins, nxt):
            yield child, dist, (NOBODY, False, label)
        return
    budget = m.full[c] - consumed[c]
    length = dist
    if budget > 0:
        length = min(length, budget)
    cross = m.c_opt[c] - consumed[c] if m.switches[c] and consumed[c] < m.c_opt[c] else 0
    if cross:
        length = min(length, cross)
    last_end = min(length, most[c])
    quick = range(work[c], min(last_end, dist - 1) + 1)  # ends before the next period start
    if quick and not (m.eager_switch and cross in quick):
        yield from _ended(m, hi_mode, c, quick, pos, work, most, consumed, temp, asked, ins)
        quick_end = quick.stop
    else:
        quick_end = work[c]
    for k in range(quick_end, last_end + 1):
        yield from _ran(m, hi_mode, c, k, True, dist, pos, work, most, consumed, temp, asked,
                        ins, cross, budget)
    if most[c] > length:
        yield from _ran(m, hi_mode, c, length, False, dist, pos, work, most, consumed, temp,
                        asked, ins, cross, budget)


def _ended(m: Machine, hi_mode: bool, c: int, ticks: range, pos: list[int], work: list[int],
           most: list[int], consumed: list[int], temp: list[int], asked: list[int],
           ins: list[int]) -> Iterator[Step]:
    """*c*'s job ends after each of *ticks* ticks, all before the next period start: the
    family of :func:`_ran` successors that differ only in their positions (nothing else
    depends on when the job ended -- no crossing, since it ends, and its re-insertion
    is of a vCPU without work), built from one canonical state."""
    w, mo = list(work), list(most)
    w[c] = mo[c] = 0
    template = list(canonical(m, hi_mode, c, pos, w, mo, consumed, temp, asked, ins,
                              current(m.n) + 1))
    period = m.period
    label = (c, True, ())
    for k in ticks:
        child = list(template)
        for i, (p, T) in enumerate(zip(pos, period)):
            child[2 + _W * i] = (p + k) % T
        yield tuple(child), k, label


def _ran(m: Machine, hi_mode: bool, c: int, k: int, ended: bool, dist: int, pos: list[int],
         work: list[int], most: list[int], consumed: list[int], temp: list[int],
         asked: list[int], ins: list[int], cross: int, budget: int) -> Iterator[Step]:
    """*c* ran *k* ticks from the current instant, its job *ended* then or not."""
    n = m.n
    nxt = current(n) + 1
    w, mo, cons = list(work), list(most), list(consumed)
    tmp, ask, ins2 = list(temp), list(asked), list(ins)
    if ended:
        w[c] = mo[c] = 0
    else:
        w[c], mo[c] = max(work[c] - k, 1), most[c] - k
    cons[c] += min(k, budget) if budget > 0 else 0
    if k == cross and (not ended or m.eager_switch):
        tmp[c], ask[c], hi_mode = m.initial_temperature, 1, True
    if m.fifo and budget > 0 and k == budget:
        ins2[c] = nxt
    moved = [(p + k) % T for p, T in zip(pos, m.period)]
    last = c
    if k < dist:
        yield canonical(m, hi_mode, last, moved, w, mo, cons, tmp, ask, ins2, nxt), k, (
            c, ended, ())
        return
    for child, label in _starts(m, hi_mode, last, moved, w, mo, cons, tmp, ask, ins2, nxt):
        yield child, k, (c, ended, label)

"""The Z3 model's tick, in Python: one concrete step of one pCPU (R2-R10, R13).

This is :func:`akita.model.smt.pcpu.unroll` for one behaviour, read forward:
the only choices left open are each VM's phase (:func:`start`) and the
demand of the job released at each period start (``0`` for none, else
``1..cap``; the ``demands`` argument of :func:`start` and :func:`step`).
Everything else is the three parts of :mod:`akita.model.smt.pcpu`, in its
order: :func:`step` is *the choice* (:func:`.machine.choose`; the vCPU that
ran before and is descheduled while runnable is re-inserted), *the tick*
(:func:`akita.model.smt.pcpu.run_tick`: work, budget and service; R5 when a
HI vCPU's consumption reaches ``C_opt`` while it still holds work; a budget
that runs out re-inserts its vCPU), then *the period starts* at the next
instant (:func:`period_starts`, :func:`akita.model.smt.pcpu.start_periods`).

The state (:class:`TickState`) is relative to the instant (positions in the
periods, :mod:`.machine`) and keeps the Z3 state's fields per vCPU.  One
normalisation is applied after every step, and loses nothing: the insertion
instants become ranks among the vCPUs that hold work (``0`` for the others):
those inserted at the current instant get :func:`current` (``n + 1``), the
earlier ones dense ranks ``1, 2, ...`` in their order.  Instants are only ever
compared (:func:`akita.model.smt.pcpu._tie`), only between runnable vCPUs;
every later insertion is at the current instant (equal to those already made
at it: a vCPU re-inserted when descheduled at ``t`` ties with one whose period
started at ``t``) or later; and a vCPU that holds no work gains some only at
its period start, which inserts it afresh -- so the order of the runnable
vCPUs' instants, and which of them are the current one, is all the future
reads.  ``tests/model/exact/test_exact_tick.py``
checks the step tick by tick against :func:`~akita.model.smt.pcpu.unroll`.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from .machine import NOBODY, Machine, choose

__all__ = ["TickState", "start", "step", "advance", "arrive", "period_starts", "return_to_lo",
           "ranks", "current", "run"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("period_starts",),
    "R3": ("advance",),
    "R5": ("advance",),
    "R8": ("period_starts",),
    "R9": ("return_to_lo", "period_starts"),
    "R10": ("step",),
    "R13": ("start",),
}


class TickState(NamedTuple):
    """The pCPU after the events of an instant (:class:`akita.model.smt.pcpu.State`),
    relative to it: per vCPU its position in its period, work, budget consumed, work
    served and owed in the period, temperature, ask, and insertion rank; the mode; and
    the vCPU that ran in the tick before (:data:`.machine.NOBODY` if none).

    A named tuple rather than an attrs class: the re-check builds, hashes and compares
    millions of them, and a tuple does each in C (decision 366)."""

    pos: tuple[int, ...]
    work: tuple[int, ...]
    consumed: tuple[int, ...]
    served: tuple[int, ...]
    owed: tuple[int, ...]
    temperature: tuple[int, ...]
    asked: tuple[bool, ...]
    ins: tuple[int, ...]
    hi_mode: bool
    last: int


def current(n: int) -> int:
    """The rank of an insertion at the current instant, on a pCPU of *n* vCPUs."""
    return n + 1


def ranks(ins: Sequence[int], work: Sequence[int], now: int) -> tuple[int, ...]:
    """Insertion instants as ranks among the vCPUs holding work (0 elsewhere): *now*, the
    current instant, as :func:`current`; the earlier ones dense from 1, in order."""
    latest = current(len(ins))
    earlier = {v for v, w in zip(ins, work) if w > 0 and v != now}
    if len(earlier) <= 1:  # the common case, without the sort and the table
        return tuple([(latest if v == now else 1) if w > 0 else 0 for v, w in zip(ins, work)])
    values = sorted(earlier)
    rank = {v: r for r, v in enumerate(values, start=1)}
    rank[now] = latest
    return tuple([rank[v] if w > 0 else 0 for v, w in zip(ins, work)])


def return_to_lo(m: Machine, hi_starts: bool, temperature: Sequence[int], hi_mode: bool) -> bool:
    """R9 after the period starts of an instant: back to LO mode when a HI period started
    and no HI vCPU is warm (the variant ``premature-hi-to-lo``: whenever one started)."""
    if not (m.akita and hi_starts and hi_mode):
        return hi_mode
    if m.premature_return:
        return False
    return not all(t == 0 for t, hi in zip(temperature, m.hi) if hi)


def period_starts(m: Machine, s: TickState, demands: Sequence[int], now: int) -> tuple[
        TickState, tuple[int, ...]]:
    """The arrivals and period starts at an instant (:func:`akita.model.smt.pcpu.start_periods`).

    A period of vCPU ``i`` starts where ``pos_i == 0``: its job of ``demands[i]``
    ticks arrives (0: none); the period that ends is checked (served less than
    owed: *short*); the new one is owed ``min(full budget, work)``; a HI vCPU
    cools by one unless it asked (R8) and its ask is cleared; budget and service
    restart and the vCPU is inserted at *now*.  Then R9 (:func:`return_to_lo`).
    Returns the state (insertion instants as given, not yet ranked) and the
    vCPUs found short.
    """
    if 0 not in s.pos:
        return s, ()  # no period starts: nothing changes (R9 needs a HI one to start)
    work, consumed, served = list(s.work), list(s.consumed), list(s.served)
    owed, temperature, asked, ins = list(s.owed), list(s.temperature), list(s.asked), list(s.ins)
    shorts = []
    hi_starts = False
    for i in range(m.n):
        if s.pos[i] != 0:
            continue
        work[i] += demands[i]
        if served[i] < owed[i]:
            shorts.append(i)
        owed[i] = min(m.full[i], work[i])
        if m.hi[i]:
            hi_starts = True
            if m.cooling and temperature[i] > 0 and not asked[i]:
                temperature[i] -= 1
            asked[i] = False
        consumed[i] = served[i] = 0
        ins[i] = now
    mode = return_to_lo(m, hi_starts, temperature, s.hi_mode)
    return TickState(s.pos, tuple(work), tuple(consumed), tuple(served), tuple(owed),
                     tuple(temperature), tuple(asked), tuple(ins), mode, s.last), tuple(shorts)


def start(m: Machine, phases: Sequence[int], demands: Sequence[int]) -> tuple[
        TickState, tuple[int, ...]]:
    """Instant 0 (R13): every vCPU idle and inactive in the period before its first (the
    Z3 model's :func:`akita.model.smt.pcpu.initial_state`), LO mode; then the period starts
    at 0 of the vCPUs whose phase is 0, with their *demands*."""
    n = m.n
    pos = tuple((-phase) % T for phase, T in zip(phases, m.period))
    zero = (0,) * n
    before = TickState(pos, zero, m.full, zero, zero, zero, (False,) * n, zero, False, NOBODY)
    state, shorts = period_starts(m, before, demands, 0)
    return _ranked(state, 0), shorts


def step(m: Machine, s: TickState, demands: Sequence[int]) -> tuple[TickState, int, tuple[int, ...]]:
    """One tick from *s* and the period starts after it, with *demands* for the vCPUs
    whose period starts then.  Returns the state, who ran (:data:`.machine.NOBODY`: idle)
    and the vCPUs whose period ended short at the new instant."""
    ran = advance(m, s)
    state, shorts = arrive(m, ran, demands)
    return state, ran.last, shorts


def arrive(m: Machine, ran: TickState, demands: Sequence[int]) -> tuple[TickState, tuple[int, ...]]:
    """The period starts at the instant :func:`advance` reached, with *demands*, and the
    insertion ranks normalised: the second half of :func:`step`."""
    nxt = current(m.n) + 1
    state, shorts = period_starts(m, ran, demands, nxt)
    return _ranked(state, nxt), shorts


def _ranked(s: TickState, now: int) -> TickState:
    """*s* with its insertion instants as :func:`ranks` (*now* the current instant)."""
    ranked = ranks(s.ins, s.work, now)
    if ranked == s.ins:
        return s
    return TickState(s.pos, s.work, s.consumed, s.served, s.owed, s.temperature, s.asked,
                     ranked, s.hi_mode, s.last)


def advance(m: Machine, s: TickState) -> TickState:
    """The first half of :func:`step`: the choice and the tick run, up to the next instant
    before its period starts (its ``last`` is who ran; insertion values unranked)."""
    now, nxt = current(m.n), current(m.n) + 1  # the instants t and t + 1
    c, mode, hot = choose(m, s.hi_mode, s.pos, s.work, s.consumed, s.ins)
    work, consumed, served = list(s.work), list(s.consumed), list(s.served)
    temperature, asked, ins = list(s.temperature), list(s.asked), list(s.ins)
    if hot != NOBODY:
        temperature[hot], asked[hot] = m.initial_temperature, True
    if m.fifo and s.last != NOBODY and s.last != c and work[s.last] > 0:
        ins[s.last] = now
    if c != NOBODY:
        charged = consumed[c] < m.full[c]
        work[c] -= 1
        served[c] += 1
        if charged:
            consumed[c] += 1
            if m.switches[c] and consumed[c] == m.c_opt[c] and (work[c] > 0 or m.eager_switch):
                temperature[c], asked[c], mode = m.initial_temperature, True, True
            if m.fifo and consumed[c] == m.full[c]:
                ins[c] = nxt
    pos = tuple([p + 1 if p + 1 < T else 0 for p, T in zip(s.pos, m.period)])
    return TickState(pos, tuple(work), tuple(consumed), tuple(served), s.owed,
                     tuple(temperature), tuple(asked), tuple(ins), mode and m.akita, c)


def run(m: Machine, phases: Sequence[int], demand: dict[tuple[int, int], int],
        horizon: int) -> tuple[list[int], list[tuple[int, int]]]:
    """One behaviour over *horizon* ticks: *phases* in ticks and ``demand[i, k]``, the
    demand of vCPU ``i``'s job at its period start ``k`` counted from instant 0 (as in
    :attr:`akita.model.smt.pcpu.Unrolling.demand`; missing: none).  No job arrives at or
    after the horizon.  Returns who ran in each tick and the periods ``(i, k)`` found
    short (``k`` the period that ended), every vCPU, as the Z3 model's ``shorts``."""
    def at(instant: int) -> list[int]:
        if instant >= horizon:
            return [0] * m.n
        return [demand.get((i, instant // m.period[i]), 0) for i in range(m.n)]

    state, found = start(m, phases, at(0))
    shorts = [(i, -1) for i in found]
    schedule = []
    for t in range(horizon):
        state, c, found = step(m, state, at(t + 1))
        schedule.append(c)
        shorts.extend((i, (t + 1) // m.period[i] - 1) for i in found)
    return schedule, shorts

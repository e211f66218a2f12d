"""The finite state of the exact search, what it stands for, and why nothing is lost.

A *search state* is the pCPU at an instant, after that instant's arrivals and
period starts (:mod:`.tick`), with four changes to the Z3 model's state.  Each
is exact for the one question asked -- can some behaviour lead to a HI miss --
and together they make the state space finite.

1. **Stop at the first miss.**  Only states reached without a HI miss are
   kept, and there a HI vCPU never carries work across its period start:
   its job (at most ``C_pes``, the cap) starts in a period that owes
   ``min(C_pes, work) = work``, and a period that ends with work left was
   served less than it owed -- a miss.  So a HI vCPU holds at most
   ``C_pes - consumed`` and is never short of budget while it holds work.

2. **LO work is capped at ``C_opt`` at each of its period starts**
   (:func:`.events.arrivals`): the work after an arrival becomes
   ``min(leftover + demand, C_opt)``.  (a) Every such behaviour is a real one:
   with ``leftover <= C_opt`` (it is, by induction) it is the behaviour whose
   demand there is ``min(demand, C_opt - leftover)``, a demand within the cap.
   (b) Every HI miss of a real behaviour is one of a capped behaviour with the
   same HI schedule: give each LO period start the demand that makes the work
   ``min(w, C_opt)`` where the real one has ``w`` (possible, since the capped
   leftover never exceeds the real one: beyond ``C_opt`` the real LO vCPU runs
   only as background after its budget is spent, the capped one has no
   background work at all, and below it they hold the same).  Then every LO
   vCPU is runnable with budget at exactly the same ticks in both, because a
   vCPU with budget left ``b`` is runnable for as long as ``min(w, b)`` says;
   and background LO work never delays a HI vCPU (HI mode serves HI vCPUs
   first, or LO ones with budget; LO mode serves every vCPU with budget before
   any without, and by 1. every runnable HI vCPU has budget) nor changes
   anything a HI vCPU's future reads (a LO vCPU's insertion instant is reset at
   its period start, before it has budget again).  By induction over the ticks
   the HI vCPUs run at the same ticks, hence miss alike.  So LO work is at most
   ``C_opt - consumed``, and nobody is ever runnable without budget.

3. **Demands are revealed as they are served** (``work``, ``most``): a released
   job is held as "at least ``work`` more ticks, at most ``most``" and its
   size is chosen only when it matters -- each tick it runs past ``work`` it
   may end or go on.  The schedule before a job ends does not depend on how
   much of it is left (the scheduler reads only "runnable"), so the
   behaviours with demands ``d`` in ``[a, b]`` are those that go on ``a - 1``
   times and then end at some tick up to ``b``: the same set, one path per
   demand.  A LO vCPU that may still hold ``l`` in ``[w, M]`` (``w >= 1``) at its
   period start holds ``[w, C_opt]`` after it (:func:`.events.arrivals`): no job
   and every capped job at once, as one such interval.  A HI vCPU
   that holds "at least one more" at its period end misses for some demand,
   so that is a miss.

4. **Fields nothing reads are dropped**: positions replace absolute time and
   phases (keys compare as differences, :mod:`.machine`); insertion instants
   become ranks (:func:`.tick.ranks`); a vCPU without work has budget,
   service and rank 0 (each is reset at its period start, which is the only
   way work arrives, before anything reads it); served and owed are not kept
   (a HI vCPU's debt is the work it holds, by 1., and a LO vCPU's shortfall is
   no HI miss); a LO vCPU's temperature and ask are always 0; the vCPU that
   ran before, and the insertion ranks, matter only under ``fifo`` (and the former
   only if it is still runnable: re-insertion).

5. **Consumption is kept only as far as it is read**: by 2. a LO vCPU runs out of
   work no later than out of budget, so its consumption is read by nothing (its
   budget is left while it holds work, and when both run out together the
   re-insertion is of a vCPU without work); by 1. the same holds of a HI vCPU's
   budget, so past ``C_opt`` its consumption is read only through the work it
   may still hold (``most``, which it bounds) -- R5 on its crossing, and on pick,
   need only "below ``C_opt``, or not".  States that differ only there have the
   same futures.

6. **Temperatures are kept only as far as they are read** (:func:`settle`): of the
   HI vCPUs' temperatures and asks, only the vCPU that cools last keeps its own;
   the others are zeroed.  Temperatures are read by R9 alone -- back to LO mode
   at a HI period start once every HI vCPU is cool -- and by the cooling itself
   (R8); a LO vCPU's are always 0.  A HI vCPU ``i`` at position ``pos_i`` with
   temperature ``t_i > 0`` and ask ``a_i`` is cool from its ``k_i = t_i + a_i``-th
   period start on (the first start only clears an ask; each later one cools by
   one), ``d_i = T_i - pos_i + (k_i - 1) T_i`` ticks from now (``d_i = 0`` if
   ``t_i = 0``).  Every HI vCPU is cool exactly from ``D = max_i d_i`` on, so, as
   long as no R5 fires, R9 returns at the same instant from two states that agree
   on ``D`` and on everything else.  When R5 fires for vCPU ``c`` its temperature
   becomes ``initial_temperature`` and its ask is set: its new ``d_c`` is at least
   its old one (``t_c <= initial_temperature`` and ``a_c <= 1`` at all times, and
   the position moves with time for both), so the new ``D`` is ``max(D, d_c')``
   in both states -- again equal.  By induction over the steps the two states
   have the same behaviours up to the temperatures, the same returns to LO mode,
   hence the same HI schedule and the same misses: one representative stands for
   all of them, the one in which the vCPU attaining ``D`` (the first in host
   order on a tie) keeps its temperature and ask and every other vCPU has 0.  It
   is itself a reachable kind of state (a vector of temperatures within the
   bounds) and has the same ``D``.  Not applied to the variants ``no-cooling``
   (a warm vCPU never cools: ``D`` is unbounded) and ``premature-hi-to-lo``
   (temperatures are not read), nor to EDF (no modes); ``explore(...,
   reduce=False)`` turns it off, and ``tests/model/exact/test_exact_reductions.py``
   checks that it changes no answer and that a wrong one (keeping the vCPU that
   cools *first*) is caught.

Finite: every field is bounded -- position below ``T``, work and budget by
``C_pes`` or ``C_opt``, temperature by ``initial_temperature``, ranks by
``n + 1``, the mode and the last vCPU by their ranges -- so there are at most
``prod_i T_i (C_i + 1)^3 (initial_temperature + 1) 2 (n + 2)^n 2 (n + 1)``
states.

The state is a flat tuple of small non-negative integers (:class:`Layout`),
packed to bytes for the visited set.  :func:`members` enumerates the
concrete states of :mod:`.tick` that a search state stands for, which is what
the independent certificate check (:mod:`akita.proofs.exact_certificate`) steps.
"""

from __future__ import annotations

import itertools
import struct
from typing import Iterator, Sequence

import attrs

from .machine import NOBODY, Machine
from .tick import TickState, current

__all__ = ["FIELDS", "Layout", "layout", "canonical", "settle", "read_budget", "members",
           "covers", "matches"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R3": ("read_budget",),
    "R5": ("read_budget", "canonical"),
    "R8": ("canonical",),
}


#: The fields of one vCPU in a search state, in order.
FIELDS = ("pos", "work", "most", "consumed", "temperature", "asked", "ins")
_W = len(FIELDS)
_POS, _WORK, _MOST, _CONSUMED, _TEMP, _ASKED, _INS = range(_W)


@attrs.frozen
class Layout:
    """Where each field of a search state is: ``state[0]`` the mode (1: HI),
    ``state[1]`` the vCPU that ran before plus one (0: none), then :data:`FIELDS`
    for each vCPU.  ``codec`` packs a state to bytes (16-bit fields)."""

    n: int
    codec: struct.Struct

    def field(self, state: Sequence[int], name: str) -> tuple[int, ...]:
        """Field *name* of every vCPU of *state*."""
        return tuple(state[2 + FIELDS.index(name)::_W])

    def pack(self, state: Sequence[int]) -> bytes:
        return self.codec.pack(*state)

    def unpack(self, key: bytes) -> tuple[int, ...]:
        return self.codec.unpack(key)


def layout(m: Machine) -> Layout:
    """The :class:`Layout` of *m*'s search states (every field must fit in 16 bits)."""
    return Layout(m.n, struct.Struct(f"<{2 + _W * m.n}H"))


def settle(m: Machine, pos: Sequence[int], temperature: Sequence[int],
           asked: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The temperatures and asks as far as the future reads them (6. above): those of the
    vCPU that cools last (the first in host order on a tie) kept, every other 0; as they
    are when *m* does not merge cooling (:attr:`.machine.Machine.merge_cooling`)."""
    if not m.merge_cooling:
        return tuple(temperature), tuple(asked)
    latest, keep = 0, -1
    period = m.period
    for i in range(m.n):
        t = temperature[i]
        if t > 0:
            wait = period[i] - pos[i] + (t + asked[i] - 1) * period[i]
            if wait > latest:
                latest, keep = wait, i
    zero = (0,) * m.n
    if keep < 0:
        return zero, zero
    temps, asks = list(zero), list(zero)
    temps[keep], asks[keep] = temperature[keep], asked[keep]
    return tuple(temps), tuple(asks)


def canonical(m: Machine, hi_mode: bool, last: int, pos: Sequence[int], work: Sequence[int],
              most: Sequence[int], consumed: Sequence[int], temperature: Sequence[int],
              asked: Sequence[int], ins: Sequence[int], now: int) -> tuple[int, ...]:
    """The search state of these fields, with what nothing reads dropped (4. to 6. above):
    insertion values ranked (*now*, the current instant's, as :func:`.tick.current`) under
    ``fifo`` and 0 otherwise; the vCPU that ran before kept only if runnable under ``fifo``;
    consumption as :func:`read_budget`; temperatures and asks as :func:`settle`; a vCPU
    without work zeroed but for its position, temperature and ask."""
    n = m.n
    fifo = m.fifo
    rank: dict[int, int] = {}
    if fifo:
        earlier = {ins[i] for i in range(n) if work[i] > 0}
        earlier.discard(now)
        for k, v in enumerate(sorted(earlier), start=1):
            rank[v] = k
        rank[now] = n + 1  # :func:`.tick.current`
    temperature, asked = settle(m, pos, temperature, asked)
    out = [1 if hi_mode else 0, last + 1 if (fifo and last != NOBODY and work[last] > 0) else 0]
    hi, c_opt = m.hi, m.c_opt
    for i in range(n):
        w = work[i]
        if w > 0:
            c = consumed[i]
            out += (pos[i], w, most[i], (c if c < c_opt[i] else c_opt[i]) if hi[i] else 0,
                    temperature[i], asked[i], rank[ins[i]] if fifo else 0)
        else:
            out += (pos[i], 0, 0, 0, temperature[i], asked[i], 0)
    return tuple(out)


def read_budget(m: Machine, i: int, consumed: int) -> int:
    """The part of a runnable vCPU's consumption the future reads (5. above): none for a
    LO vCPU (0); for a HI one, its value below ``C_opt``, else ``C_opt``."""
    if not m.hi[i]:
        return 0
    return min(consumed, m.c_opt[i])


def members(m: Machine, state: Sequence[int]) -> Iterator[TickState]:
    """The concrete states (:class:`.tick.TickState`) that *state* stands for: each vCPU's
    work any value in ``[work, most]``; a HI vCPU served what it consumed and owed that plus
    its work (1. above); a LO vCPU served and owed 0 (its shortfall is read by nothing)."""
    n = m.n
    lay = layout(m)
    pos, work, most = lay.field(state, "pos"), lay.field(state, "work"), lay.field(state, "most")
    consumed, ins = lay.field(state, "consumed"), lay.field(state, "ins")
    temperature = lay.field(state, "temperature")
    asked = tuple(bool(a) for a in lay.field(state, "asked"))
    last = state[1] - 1
    for works in itertools.product(*[range(work[i], most[i] + 1) for i in range(n)]):
        served = tuple(consumed[i] if m.hi[i] else 0 for i in range(n))
        owed = tuple(consumed[i] + works[i] if m.hi[i] else 0 for i in range(n))
        yield TickState(pos, works, consumed, served, owed, temperature, asked, ins,
                        bool(state[0]), last)


def covers(m: Machine, state: Sequence[int], concrete: TickState) -> bool:
    """Whether *concrete* is one of :func:`members` of *state* (HI service and debt as
    there; its other fields equal once dropped as :func:`canonical` drops them)."""
    lay = layout(m)
    work, most = lay.field(state, "work"), lay.field(state, "most")
    for i in range(m.n):
        if not work[i] <= concrete.work[i] <= most[i]:
            return False
    return matches(m, state, concrete)


def matches(m: Machine, state: Sequence[int], concrete: TickState) -> bool:
    """:func:`covers` but for the work intervals: whether *concrete*, with its work moved
    anywhere into *state*'s intervals (and a HI vCPU's debt with it), is a member of
    *state*.  It reads the work only as "holds work or not"."""
    lay = layout(m)
    for i in range(m.n):
        if m.hi[i] and concrete.work[i] > 0 and (
                concrete.served[i] != concrete.consumed[i]
                or concrete.owed[i] != concrete.consumed[i] + concrete.work[i]):
            return False
    shape = canonical(m, concrete.hi_mode, concrete.last, concrete.pos, concrete.work,
                      concrete.work, concrete.consumed, concrete.temperature,
                      [int(a) for a in concrete.asked], concrete.ins, current(m.n))
    mine = list(state)  # its temperatures as the concrete one's are read (6. above)
    temps, asks = settle(m, lay.field(state, "pos"), lay.field(state, "temperature"),
                         lay.field(state, "asked"))
    for i in range(m.n):
        mine[2 + _W * i + _TEMP], mine[2 + _W * i + _ASKED] = temps[i], asks[i]
    for i in range(m.n):  # compare everything but the work interval
        base = 2 + _W * i
        mine[base + _WORK] = mine[base + _MOST] = concrete.work[i] if concrete.work[i] > 0 else 0
    return tuple(mine) == shape

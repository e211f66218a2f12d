"""One pCPU's constants for explicit-state stepping, and the choice of a tick (R4-R7, R5 on pick).

The Z3 unrolling (:mod:`akita.model.smt.pcpu`) builds every tick's choice as
a formula; here the same rules are evaluated on concrete values.  A state
is read *relative to the instant*: vCPU ``i`` is at position ``pos_i`` in its
period (``pos_i = (t - ph_i) mod T_i``; before its first period it sits in a
virtual one that holds no work and owes nothing, which is how the Z3 model's
"inactive with deadline ``ph_i``" behaves), so its deadline while tick
``[t, t+1)`` is chosen is ``t + T_i - pos_i`` (:meth:`.grid.Grid.deadline`
with ``(ph - t - 1) mod T = T - 1 - pos``) and its virtual deadline
``s + x T`` is ``t - pos_i + x T_i`` (:func:`.keys.virtual_key`).  Keys are
scaled by ``q``, the denominator of ``x = p/q``, and the common ``t`` is
dropped: ``q (T - pos)`` and ``p T - q pos``.  Only their order matters.

:func:`winner` is :func:`akita.model.smt.pcpu.winners` on numbers: the
tiers of :func:`akita.model.smt.pcpu._tiers` become a tier number, the key
within the tier, and the tie-break of ``queue_order`` (:func:`akita.model.smt.pcpu._tie`:
``fifo`` orders by ``(insertion, host order)``, ``host`` by ``(HI first,
host order)``); the winner is the least triple, since that order is total.
:func:`choose` adds R5 on pick exactly as :func:`akita.model.smt.pcpu.choose`
does.
"""

from __future__ import annotations

from typing import Sequence

import attrs

from ..smt.pcpu import TickPCPU

__all__ = ["Machine", "machine", "winner", "choose", "NOBODY"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R4": ("winner", "_tier"),
    "R5": ("choose", "machine"),
    "R6": ("_tier",),
    "R7": ("_tier",),
    "R8": ("machine",),
}


#: No vCPU (the pCPU idles; no vCPU ran in the tick before).
NOBODY = -1


@attrs.frozen
class Machine:
    """The constants of one :class:`~akita.model.smt.pcpu.TickPCPU`, flattened for stepping.

    ``hi``, ``period``, ``c_opt``, ``full`` are per vCPU in the pCPU's (host) order;
    ``switches[i]``: R5 can fire for vCPU ``i`` (a HI vCPU under ``akita``, unless the
    variant is ``no-mode-switch``); ``rank[i]``: the ``host`` queue order's tie-break.
    """

    pcpu: TickPCPU
    n: int
    hi: tuple[bool, ...]
    period: tuple[int, ...]
    c_opt: tuple[int, ...]
    full: tuple[int, ...]
    switches: tuple[bool, ...]
    rank: tuple[tuple[int, int], ...]
    p: int
    q: int
    akita: bool
    fifo: bool
    lo_ok: bool
    hi_first: bool
    capped: bool
    virtual_in_hi: bool
    lo_first: bool
    eager_switch: bool
    cooling: bool
    premature_return: bool
    initial_temperature: int
    #: Whether search states keep the temperatures only as far as the future reads them
    #: (:func:`.abstraction.settle`); ``False`` for the unreduced search.
    merge_cooling: bool = True
    #: :func:`_tier` tabulated (:func:`_tiers`): ``tiers[hi_mode][i][active]`` is
    #: ``(tier, key at position 0, key lost per position)``, or ``None``.
    tiers: tuple[tuple[tuple[Placed, Placed], ...], ...] = ()


#: A vCPU's place in a mode as :func:`winner` reads it: ``(tier, key at position 0, key
#: lost per position)`` -- :func:`_tier`'s keys are linear in the position -- or ``None``.
Placed = tuple[int, int, int] | None


def machine(pcpu: TickPCPU) -> Machine:
    """The :class:`Machine` of *pcpu*."""
    vs = pcpu.vcpus
    m = Machine(
        pcpu, len(vs), tuple(v.hi for v in vs), tuple(v.period for v in vs),
        tuple(v.c_opt for v in vs), tuple(v.full for v in vs),
        tuple(pcpu.akita and v.hi and pcpu.variant != "no-mode-switch" for v in vs),
        tuple((0 if v.hi else 1, i) for i, v in enumerate(vs)),
        pcpu.x.numerator, pcpu.x.denominator, pcpu.akita, pcpu.fifo, pcpu.lo_in_hi_mode,
        pcpu.options.hi_first, pcpu.options.capped, pcpu.options.virtual_in_hi,
        pcpu.variant == "lo-first-in-hi-mode", pcpu.variant == "eager-mode-switch",
        pcpu.variant != "no-cooling", pcpu.variant == "premature-hi-to-lo",
        pcpu.initial_temperature,
        pcpu.akita and pcpu.variant not in ("no-cooling", "premature-hi-to-lo"),
    )
    return attrs.evolve(m, tiers=_tiers(m))


def _tiers(m: Machine) -> tuple[tuple[tuple[Placed, Placed], ...], ...]:
    """:func:`_tier` for every mode, vCPU and activity, read at positions 0 and 1: its
    keys are ``q (T - pos)`` or ``p T - q pos`` or constant, so two positions fix them."""
    def placed(i: int, hi_mode: bool, active: bool) -> Placed:
        at0, at1 = _tier(m, i, hi_mode, active, 0), _tier(m, i, hi_mode, active, 1)
        if at0 is None or at1 is None:
            return None
        return at0[0], at0[1], at0[1] - at1[1]
    return tuple(tuple((placed(i, mode, False), placed(i, mode, True)) for i in range(m.n))
                 for mode in (False, True))


def _tier(m: Machine, i: int, hi_mode: bool, active: bool, pos: int) -> tuple[int, int] | None:
    """vCPU *i*'s tier and key (R4, R6, R7; :func:`akita.model.smt.pcpu._tiers`), or ``None``
    when the mode runs it in no tier (LO in HI mode with ``lo_in_hi_mode = false``)."""
    deadline = m.q * (m.period[i] - pos)
    if not m.akita:
        return (0 if active else 1), deadline
    hi = m.hi[i]
    if not hi_mode:
        if not active:
            return 1, deadline
        return 0, (m.p * m.period[i] - m.q * pos) if hi else deadline
    if hi:
        if active:
            return 0, (m.p * m.period[i] - m.q * pos) if m.virtual_in_hi else deadline
        return (1 if m.hi_first else 3 if m.capped else 2), deadline
    if not m.lo_ok:
        return None
    queue_order = m.hi_first or m.capped  # LO deadlines ignored in HI mode: key 0
    if active:
        if m.lo_first:
            return -1, (0 if queue_order else deadline)
        return (2, 0) if m.hi_first else (1, 0) if m.capped else (1, deadline)
    return (3 if m.hi_first else 2), deadline


def winner(m: Machine, hi_mode: bool, pos: Sequence[int], work: Sequence[int],
           consumed: Sequence[int], ins: Sequence[int]) -> int:
    """Who runs in a tick in the given mode (:func:`akita.model.smt.pcpu.winners`), or
    :data:`NOBODY`: the least ``(tier, key, tie-break)`` among the runnable vCPUs, each
    one's tier and key read from :attr:`Machine.tiers` (:func:`_tier`, tabulated once per
    pCPU: the choice is made millions of times by the search and the re-check)."""
    best: tuple[int, int, tuple[int, int] | int] | None = None
    who = NOBODY
    tiers, full, fifo = m.tiers[hi_mode], m.full, m.fifo
    for i in range(m.n):
        if work[i] <= 0:
            continue
        placed = tiers[i][consumed[i] < full[i]]  # :func:`_tier`, tabulated
        if placed is None:
            continue
        order = (placed[0], placed[1] - placed[2] * pos[i], (ins[i], i) if fifo else m.rank[i])
        if best is None or order < best:
            best, who = order, i
    return who


def choose(m: Machine, hi_mode: bool, pos: Sequence[int], work: Sequence[int],
           consumed: Sequence[int], ins: Sequence[int]) -> tuple[int, bool, int]:
    """The choice of a tick: ``(who runs, the mode it runs in, who R5 fired for on pick)``.

    R5 on pick (:func:`akita.model.smt.pcpu.choose`): in LO mode, a HI vCPU that
    LO mode would run and that has consumed ``C_opt`` already switches the pCPU
    to HI mode before it runs; the choice is then HI mode's.  The third element
    is that vCPU (its temperature and ask are set by the caller), or :data:`NOBODY`.
    """
    lo = winner(m, False if m.akita else hi_mode, pos, work, consumed, ins)
    if not m.akita:
        return lo, False, NOBODY
    hot = NOBODY
    if not hi_mode and lo != NOBODY and m.switches[lo] and consumed[lo] >= m.c_opt[lo]:
        hot, hi_mode = lo, True
    if not hi_mode:
        return lo, False, hot
    return winner(m, True, pos, work, consumed, ins), True, hot

"""LO supply, the mode rules and work conservation, proved per pCPU.

Each obligation states a property of every behaviour of one pCPU in scope
(as :mod:`.hi_guarantee` does: every phase of every VM on the tick grid,
from an idle start in LO mode) and has a negative control: a deliberately
wrong variant of the rules (:data:`akita.model.smt.pcpu.VARIANTS`) that
must be refuted.  The pCPUs are those of :mod:`.pcpus`.  The return bound
does not depend on the phases: it counts the periods of each HI vCPU after
its own last overrun.

A shift of the whole behaviour in time preserves a LO vCPU's short period,
HI mode without an overrun and an idle tick with work, so their checks
assume the earliest phase is 0 (``anchored``,
:func:`akita.model.smt.pcpu.unroll`).  The late return is stated from an
instant ``s`` that may precede every phase, which a shift does not
preserve, so its check takes every phase as it is.
"""

from __future__ import annotations

import attrs
import z3

from akita.model.smt.fold import and_, as_bool, not_
from akita.model.smt.pcpu import TickPCPU, Unrolling

from .obligation import Declarations
from .pcpus import carry_over, cooling
from .schedule_check import check_schedule, on_pcpu
from .verdict import ProofVerdict

__all__ = ["OBLIGATIONS", "lo_short_in_lo_mode", "hi_mode_without_overrun",
           "late_return_to_lo", "idle_while_runnable", "return_bound"]


def lo_short_in_lo_mode(u: Unrolling) -> z3.BoolRef:
    """Violation: a LO vCPU served less than min(C_opt, work at its period start) in a
    period the pCPU spends wholly in LO mode (the period ends at an instant ``at``
    where the vCPU's next period starts: :attr:`~akita.model.smt.pcpu.Unrolling.shorts`)."""
    cases = []
    for (i, at), short in u.shorts.items():
        if u.pcpu.vcpus[i].hi:
            continue
        start = at - u.pcpu.vcpus[i].period
        lo_mode = [z3.Not(u.mode[t]) for t in range(start, at)]
        cases.append(z3.And(as_bool(short), *lo_mode))
    return z3.Or(*cases) if cases else z3.BoolVal(False)


def _his(u: Unrolling) -> list[tuple[int, int]]:
    """The HI jobs ``(i, k)`` of *u*."""
    return [(i, k) for (i, k) in u.demand if u.pcpu.vcpus[i].hi]


def hi_mode_without_overrun(u: Unrolling) -> z3.BoolRef:
    """Violation: the pCPU is in HI mode at a tick although no HI job released so far
    demanded more than C_opt."""
    cases = []
    for t in range(u.horizon):
        overruns = [as_bool(and_(u.released_by(i, k, t), u.demand[i, k] > u.pcpu.vcpus[i].c_opt))
                    for (i, k) in _his(u)]
        cases.append(z3.And(u.mode[t], z3.Not(z3.Or(*overruns)) if overruns else z3.BoolVal(True)))
    return z3.Or(*cases)


def return_bound(pcpu: TickPCPU) -> int:
    """Ticks after which the pCPU is back in LO mode once no HI job overruns: a HI vCPU
    that last asked in its period k is cold at the start of its period k + 1 +
    initial_temperature, so ``(initial_temperature + 1) * max HI period`` ticks."""
    periods = [v.period for v in pcpu.vcpus if v.hi] or [0]
    return (pcpu.initial_temperature + 1) * max(periods)


def late_return_to_lo(u: Unrolling) -> z3.BoolRef:
    """Violation: from some instant s no HI job demands more than C_opt, yet the pCPU is
    still in HI mode return_bound ticks after s."""
    bound = return_bound(u.pcpu)
    cases = []
    for s in range(0, u.horizon - bound):
        quiet = [z3.Implies(as_bool(not_(u.released_by(i, k, s - 1))),
                            u.demand[i, k] <= u.pcpu.vcpus[i].c_opt) for (i, k) in _his(u)]
        late = z3.Or(*[u.mode[t] for t in range(s + bound, u.horizon)])
        cases.append(z3.And(*quiet, late))
    return z3.Or(*cases) if cases else z3.BoolVal(False)


def idle_while_runnable(u: Unrolling) -> z3.BoolRef:
    """Violation: a tick in which the pCPU idles while some vCPU holds work."""
    return z3.Or(*[
        z3.And(z3.Not(z3.Or(*u.runs[t])), z3.Or(*[w > 0 for w in u.work[t]]))
        for t in range(u.horizon)
    ])


declare = Declarations()

_CARRY, _COOL = carry_over(), cooling()
_HC = 3 * _CARRY.hyperperiod()
#: The horizon of the return to LO mode: three hyperperiods and the bound itself.
_HB = 3 * _COOL.hyperperiod() + return_bound(_COOL)

_LO_SHORT = "a LO vCPU is short in a LO-mode period"
_NO_OVERRUN = "HI mode without a HI overrun"
_LATE = "HI mode outlasts the return bound"
_IDLE = "the pCPU idles while a vCPU holds work"


@on_pcpu(declare, _CARRY, _HC, rules=("R4", "R5"), timeout=120)
def lo_supply_in_lo_mode(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """While the carry-over pCPU (U1 + U2/x = 1, tight) stays in LO mode for a whole
    period, its LO vCPU is served min(C_opt, the work it holds at the period start): EDF
    with virtual deadlines keeps U1 + U2/x <= 1 in LO mode (Baruah et al. 2012, Lemma 1;
    Akita paper Sec. 3.3)."""
    return check_schedule(pcpu, horizon, lo_short_in_lo_mode, timeout=timeout, what=_LO_SHORT,
                          anchored=True)


@on_pcpu(declare, attrs.evolve(_CARRY, variant="no-mode-switch"), _HC, rules=("R5",),
         timeout=120, controls=("lo_supply_in_lo_mode",))
def control_lo_supply_without_r5(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: if R5 never switches (HI vCPUs spend C_pes in LO mode), a LO vCPU
    is short in a period spent wholly in LO mode on the carry-over pCPU."""
    return check_schedule(pcpu, horizon, lo_short_in_lo_mode, timeout=timeout, what=_LO_SHORT,
                          anchored=True)


@on_pcpu(declare, _CARRY, _HC, rules=("R5", "R10", "R13"), timeout=120)
def hi_mode_only_after_overrun(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """LO->HI happens only at the R5 condition: the pCPU is in HI mode only after some HI
    job demanded more than C_opt (Akita paper Sec. 3.3)."""
    return check_schedule(pcpu, horizon, hi_mode_without_overrun, timeout=timeout,
                          what=_NO_OVERRUN, anchored=True)


@on_pcpu(declare, attrs.evolve(_CARRY, variant="eager-mode-switch"), _HC, rules=("R5",),
         timeout=120, controls=("hi_mode_only_after_overrun",))
def control_eager_switch(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: switching when a HI vCPU reaches C_opt even if it then holds no
    work puts the pCPU in HI mode without any overrun."""
    return check_schedule(pcpu, horizon, hi_mode_without_overrun, timeout=timeout,
                          what=_NO_OVERRUN, anchored=True)


@on_pcpu(declare, _COOL, _HB, rules=("R8", "R9"), timeout=120)
def hi_to_lo_within_bound(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """HI->LO happens only when every temperature is 0 (R9), and at the latest
    (initial_temperature + 1) * max HI period ticks after the last HI overrun
    (R8 cools a quiet vCPU by one each period)."""
    return check_schedule(pcpu, horizon, late_return_to_lo, timeout=timeout, what=_LATE)


@on_pcpu(declare, attrs.evolve(_COOL, variant="no-cooling"), _HB, rules=("R8", "R9"),
         timeout=120, controls=("hi_to_lo_within_bound",))
def control_never_cool(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: if temperatures never cool (no R8), the pCPU stays in HI mode
    past the bound."""
    return check_schedule(pcpu, horizon, late_return_to_lo, timeout=timeout, what=_LATE)


@on_pcpu(declare, _CARRY, _HC, rules=("R7",), timeout=120)
def never_idle_while_runnable(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Work conservation (R7, lo_in_hi_mode = true): the pCPU never idles in a tick while
    a vCPU holds work."""
    return check_schedule(pcpu, horizon, idle_while_runnable, timeout=timeout, what=_IDLE,
                          anchored=True)


@on_pcpu(declare, attrs.evolve(_CARRY, lo_in_hi_mode=False), _HC, rules=("R7",), timeout=120,
         controls=("never_idle_while_runnable",))
def control_no_lo_in_hi_mode(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: with lo_in_hi_mode = false (classic EDF-VD drops LO work in HI
    mode) the pCPU idles while a LO vCPU holds work."""
    return check_schedule(pcpu, horizon, idle_while_runnable, timeout=timeout, what=_IDLE,
                          anchored=True)


OBLIGATIONS = declare.obligations

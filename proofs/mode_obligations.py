"""LO supply, the mode rules and work conservation, proved per pCPU.

Each obligation states a property of every behaviour of one pCPU in scope
(as :mod:`.hi_guarantee` does) and has a negative control: a deliberately
wrong variant of the rules (:data:`akita.model.smt.pcpu.VARIANTS`) that
must be refuted.  The pCPUs are those of :mod:`.pcpus`.
"""

from __future__ import annotations

import attrs
import z3

from akita.model.smt.pcpu import TickPCPU, Unrolling

from .obligation import Declarations
from .pcpus import carry_over, example_pcpu
from .schedule_check import check_schedule, on_pcpu
from .verdict import ProofVerdict

__all__ = ["OBLIGATIONS", "lo_short_in_lo_mode", "hi_mode_without_overrun",
           "late_return_to_lo", "idle_while_runnable", "return_bound"]


def _served(u: Unrolling, i: int, start: int, end: int) -> z3.ArithRef:
    return z3.Sum(*[z3.If(u.runs[t][i], 1, 0) for t in range(start, end)])


def lo_short_in_lo_mode(u: Unrolling) -> z3.BoolRef:
    """Violation: a LO vCPU served less than min(C_opt, work at its period start) in a
    period the pCPU spends wholly in LO mode."""
    cases = []
    for i, v in enumerate(u.pcpu.vcpus):
        if v.hi:
            continue
        for start in range(0, u.horizon - v.period + 1, v.period):
            end = start + v.period
            owed = z3.If(u.work[start][i] < v.c_opt, u.work[start][i], v.c_opt)
            lo_mode = z3.And(*[z3.Not(u.mode[t]) for t in range(start, end)])
            cases.append(z3.And(lo_mode, _served(u, i, start, end) < owed))
    return z3.Or(*cases) if cases else z3.BoolVal(False)


def hi_mode_without_overrun(u: Unrolling) -> z3.BoolRef:
    """Violation: the pCPU is in HI mode at a tick although no HI job released so far
    demanded more than C_opt."""
    cases = []
    for t in range(u.horizon):
        overruns = [u.demand[i, k] > v.c_opt
                    for (i, k) in u.demand if (v := u.pcpu.vcpus[i]).hi and k * v.period <= t]
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
        quiet = [u.demand[i, k] <= v.c_opt
                 for (i, k) in u.demand if (v := u.pcpu.vcpus[i]).hi and k * v.period >= s]
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

_FIG7, _CARRY = example_pcpu("fig7"), carry_over()
_H7, _HC = 3 * _FIG7.hyperperiod(), 3 * _CARRY.hyperperiod()
#: The horizon of the return to LO mode: three hyperperiods and the bound itself.
_HB = _H7 + return_bound(_FIG7)

_LO_SHORT = "a LO vCPU is short in a LO-mode period"
_NO_OVERRUN = "HI mode without a HI overrun"
_LATE = "HI mode outlasts the return bound"
_IDLE = "the pCPU idles while a vCPU holds work"


@on_pcpu(declare, _FIG7, _H7, rules=("R4", "R5"), timeout=120)
def lo_supply_in_lo_mode(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """While the Fig. 7 pCPU stays in LO mode for a whole period, each LO vCPU is served
    min(C_opt, the work it holds at the period start): EDF with virtual deadlines keeps
    U1 + U2/x <= 1 in LO mode (Baruah et al. 2012, Lemma 1; Akita paper Sec. 3.3)."""
    return check_schedule(pcpu, horizon, lo_short_in_lo_mode, timeout=timeout, what=_LO_SHORT)


@on_pcpu(declare, attrs.evolve(_FIG7, variant="no-mode-switch"), _H7, rules=("R5",),
         timeout=120, controls=("lo_supply_in_lo_mode",))
def control_lo_supply_without_r5(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: if R5 never switches (HI vCPUs spend C_pes in LO mode), a LO vCPU
    is short in a period spent wholly in LO mode on the Fig. 7 pCPU."""
    return check_schedule(pcpu, horizon, lo_short_in_lo_mode, timeout=timeout, what=_LO_SHORT)


@on_pcpu(declare, _CARRY, _HC, rules=("R5", "R10", "R13"), timeout=120)
def hi_mode_only_after_overrun(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """LO->HI happens only at the R5 condition: the pCPU is in HI mode only after some HI
    job demanded more than C_opt (Akita paper Sec. 3.3)."""
    return check_schedule(pcpu, horizon, hi_mode_without_overrun, timeout=timeout,
                          what=_NO_OVERRUN)


@on_pcpu(declare, attrs.evolve(_CARRY, variant="eager-mode-switch"), _HC, rules=("R5",),
         timeout=120, controls=("hi_mode_only_after_overrun",))
def control_eager_switch(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: switching when a HI vCPU reaches C_opt even if it then holds no
    work puts the pCPU in HI mode without any overrun."""
    return check_schedule(pcpu, horizon, hi_mode_without_overrun, timeout=timeout,
                          what=_NO_OVERRUN)


@on_pcpu(declare, _FIG7, _HB, rules=("R8", "R9"), timeout=120)
def hi_to_lo_within_bound(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """HI->LO happens only when every temperature is 0 (R9), and at the latest
    (initial_temperature + 1) * max HI period ticks after the last HI overrun
    (R8 cools a quiet vCPU by one each period)."""
    return check_schedule(pcpu, horizon, late_return_to_lo, timeout=timeout, what=_LATE)


@on_pcpu(declare, attrs.evolve(_FIG7, variant="no-cooling"), _HB, rules=("R8", "R9"),
         timeout=120, controls=("hi_to_lo_within_bound",))
def control_never_cool(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: if temperatures never cool (no R8), the pCPU stays in HI mode
    past the bound."""
    return check_schedule(pcpu, horizon, late_return_to_lo, timeout=timeout, what=_LATE)


@on_pcpu(declare, _CARRY, _HC, rules=("R7",), timeout=120)
def never_idle_while_runnable(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Work conservation (R7, lo_in_hi_mode = true): the pCPU never idles in a tick while
    a vCPU holds work."""
    return check_schedule(pcpu, horizon, idle_while_runnable, timeout=timeout, what=_IDLE)


@on_pcpu(declare, attrs.evolve(_CARRY, lo_in_hi_mode=False), _HC, rules=("R7",), timeout=120,
         controls=("never_idle_while_runnable",))
def control_no_lo_in_hi_mode(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: with lo_in_hi_mode = false (classic EDF-VD drops LO work in HI
    mode) the pCPU idles while a LO vCPU holds work."""
    return check_schedule(pcpu, horizon, idle_while_runnable, timeout=timeout, what=_IDLE)


OBLIGATIONS = declare.obligations

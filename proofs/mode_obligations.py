"""LO supply, the mode rules and work conservation, proved per pCPU.

Each obligation states a property of every behaviour of one pCPU in scope
(as :mod:`.hi_guarantee` does) and has a negative control: a deliberately
wrong variant of the rules that must be refuted.
"""

from __future__ import annotations

import attrs
import z3

from .hi_guarantee import carry_over, example_pcpu
from .obligation import Obligation
from .schedule_check import check_schedule, scope_of
from .verdict import PROVED, REFUTED, ProofVerdict

__all__ = ["OBLIGATIONS", "lo_short_in_lo_mode", "hi_mode_without_overrun",
           "late_return_to_lo", "idle_while_runnable", "return_bound"]


def _served(u, i, start, end):
    return z3.Sum(*[z3.If(u.runs[t][i], 1, 0) for t in range(start, end)])


def lo_short_in_lo_mode(u) -> z3.BoolRef:
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


def hi_mode_without_overrun(u) -> z3.BoolRef:
    """Violation: the pCPU is in HI mode at a tick although no HI job released so far
    demanded more than C_opt."""
    cases = []
    for t in range(u.horizon):
        overruns = [u.demand[i, k] > v.c_opt
                    for (i, k) in u.demand if (v := u.pcpu.vcpus[i]).hi and k * v.period <= t]
        cases.append(z3.And(u.mode[t], z3.Not(z3.Or(*overruns)) if overruns else z3.BoolVal(True)))
    return z3.Or(*cases)


def return_bound(pcpu) -> int:
    """Ticks after which the pCPU is back in LO mode once no HI job overruns: a HI vCPU
    that last asked in its period k is cold at the start of its period k + 1 +
    initial_temperature, so ``(initial_temperature + 1) * max HI period`` ticks."""
    periods = [v.period for v in pcpu.vcpus if v.hi] or [0]
    return (pcpu.initial_temperature + 1) * max(periods)


def late_return_to_lo(u) -> z3.BoolRef:
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


def idle_while_runnable(u) -> z3.BoolRef:
    """Violation: a tick in which the pCPU idles while some vCPU holds work."""
    return z3.Or(*[
        z3.And(z3.Not(z3.Or(*u.runs[t])), z3.Or(*[w > 0 for w in u.work[t]]))
        for t in range(u.horizon)
    ])


def _fig7():
    return example_pcpu("fig7")


def _check(pcpu, horizon, violation, timeout, what):
    return check_schedule(pcpu, horizon, violation, timeout=timeout, what=what)


def lo_supply_in_lo_mode(timeout: float) -> ProofVerdict:
    """While the Fig. 7 pCPU stays in LO mode for a whole period, each LO vCPU is served
    min(C_opt, the work it holds at the period start): EDF with virtual deadlines keeps
    U1 + U2/x <= 1 in LO mode (Baruah et al. 2012, Lemma 1; Akita paper Sec. 3.3)."""
    pcpu = _fig7()
    return _check(pcpu, 3 * pcpu.hyperperiod(), lo_short_in_lo_mode, timeout,
                  "a LO vCPU is short in a LO-mode period")


def control_lo_supply_without_r5(timeout: float) -> ProofVerdict:
    """Negative control: if R5 never switches (HI vCPUs spend C_pes in LO mode), a LO vCPU
    is short in a period spent wholly in LO mode on the Fig. 7 pCPU."""
    pcpu = attrs.evolve(_fig7(), variant="no-switch")
    return _check(pcpu, 3 * pcpu.hyperperiod(), lo_short_in_lo_mode, timeout,
                  "a LO vCPU is short in a LO-mode period")


def hi_mode_only_after_overrun(timeout: float) -> ProofVerdict:
    """LO->HI happens only at the R5 condition: the pCPU is in HI mode only after some HI
    job demanded more than C_opt (Akita paper Sec. 3.3)."""
    pcpu = carry_over()
    return _check(pcpu, 3 * pcpu.hyperperiod(), hi_mode_without_overrun, timeout,
                  "HI mode without a HI overrun")


def control_eager_switch(timeout: float) -> ProofVerdict:
    """Negative control: switching when a HI vCPU reaches C_opt even if it then holds no
    work puts the pCPU in HI mode without any overrun."""
    pcpu = attrs.evolve(carry_over(), variant="eager-switch")
    return _check(pcpu, 3 * pcpu.hyperperiod(), hi_mode_without_overrun, timeout,
                  "HI mode without a HI overrun")


def hi_to_lo_within_bound(timeout: float) -> ProofVerdict:
    """HI->LO happens only when every temperature is 0 (R9), and at the latest
    (initial_temperature + 1) * max HI period ticks after the last HI overrun
    (R8 cools a quiet vCPU by one each period)."""
    pcpu = _fig7()
    return _check(pcpu, 3 * pcpu.hyperperiod() + return_bound(pcpu), late_return_to_lo, timeout,
                  "HI mode outlasts the return bound")


def control_never_cool(timeout: float) -> ProofVerdict:
    """Negative control: if temperatures never cool (no R8), the pCPU stays in HI mode
    past the bound."""
    pcpu = attrs.evolve(_fig7(), variant="never-cool")
    return _check(pcpu, 3 * pcpu.hyperperiod() + return_bound(pcpu), late_return_to_lo, timeout,
                  "HI mode outlasts the return bound")


def never_idle_while_runnable(timeout: float) -> ProofVerdict:
    """Work conservation (R7, lo_in_hi_mode = true): the pCPU never idles in a tick while
    a vCPU holds work."""
    pcpu = carry_over()
    return _check(pcpu, 3 * pcpu.hyperperiod(), idle_while_runnable, timeout,
                  "the pCPU idles while a vCPU holds work")


def control_no_lo_in_hi_mode(timeout: float) -> ProofVerdict:
    """Negative control: with lo_in_hi_mode = false (classic EDF-VD drops LO work in HI
    mode) the pCPU idles while a LO vCPU holds work."""
    pcpu = attrs.evolve(carry_over(), lo_in_hi_mode=False)
    return _check(pcpu, 3 * pcpu.hyperperiod(), idle_while_runnable, timeout,
                  "the pCPU idles while a vCPU holds work")


def _obligations():
    fig7, carry = _fig7(), carry_over()
    h7, hc, hb = 3 * fig7.hyperperiod(), 3 * carry.hyperperiod(), 3 * fig7.hyperperiod() + return_bound(fig7)
    rows = [
        (lo_supply_in_lo_mode, fig7, h7, PROVED),
        (control_lo_supply_without_r5, fig7, h7, REFUTED),
        (hi_mode_only_after_overrun, carry, hc, PROVED),
        (control_eager_switch, carry, hc, REFUTED),
        (hi_to_lo_within_bound, fig7, hb, PROVED),
        (control_never_cool, fig7, hb, REFUTED),
        (never_idle_while_runnable, carry, hc, PROVED),
        (control_no_lo_in_hi_mode, carry, hc, REFUTED),
    ]
    return [Obligation(check.__name__, check, scope_of(pcpu, horizon), expected, 120.0)
            for check, pcpu, horizon, expected in rows]


OBLIGATIONS = _obligations()

#: The rules each obligation checks (see the manifest).
RULES = {
    "lo_supply_in_lo_mode": ("R4", "R5"), "control_lo_supply_without_r5": ("R5",),
    "hi_mode_only_after_overrun": ("R5", "R10", "R13"), "control_eager_switch": ("R5",),
    "hi_to_lo_within_bound": ("R8", "R9"), "control_never_cool": ("R8", "R9"),
    "never_idle_while_runnable": ("R7",), "control_no_lo_in_hi_mode": ("R7",),
}

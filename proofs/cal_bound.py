"""The CAL bound of rule R14, proved per pCPU, with its negative controls.

Theorem (R14, :mod:`akita.model.ioq`).  On a pCPU admitted by EDF-VD, when
every HI job demands at most ``C_pes`` and every LO job at most ``C_opt``,
a vCPU that holds work waits for the pCPU for less than its bound: a HI
vCPU less than ``x T`` while the pCPU stays in LO mode (EDF-VD's LO mode is
EDF on the virtual deadlines ``s + x T``, schedulable as
``U1 + U2 / x <= 1``; Baruah et al., ECRTS 2012, Sec. 3) and less than
``T`` in any mode (the HI guarantee); a LO vCPU less than ``T`` while the
pCPU stays in LO mode.  The CPU access latency of the Akita paper (Sec.
2.1, from a request's arrival to its vCPU's dispatch) is one such wait,
the one that starts when the vCPU wakes; the theorem bounds every wait,
preemptions included.

The violation, on the tick model (:mod:`akita.model.smt.pcpu`): some vCPU
holds work and does not run for ``ceil(bound)`` ticks in a row -- and, for
a bound that holds in LO mode, the pCPU was in LO mode at every tick from
the start to the end of that wait ("while the pCPU stays in LO mode": since
the last idle LO instant, where every check starts).

Scope: as the HI guarantee's (:mod:`.hi_guarantee`): one pCPU, every phase
on the tick grid, a job or none at each period start of any demand up to
its cap, every behaviour within the horizon from an idle LO instant.  The
job model is the admission test's; a request that arrives in the middle of
a period of a vCPU whose budget is spent is outside it (the simulator
measures those, ``akita simulate --json``'s ``over_ioq``).
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import Callable

import attrs
import z3

from akita.model.smt.pcpu import TickPCPU, Unrolling

from .obligation import Declarations
from .pcpus import cooling, example_pcpu, two_hi
from .schedule_check import check_schedule, on_pcpu
from .verdict import ProofVerdict

__all__ = ["OBLIGATIONS", "Bound", "bounds_of", "check_cal_bounds", "long_wait"]


@attrs.frozen
class Bound:
    """A claimed bound: vCPU ``index`` waits less than ``ticks`` (``lo_mode``: while the pCPU
    stays in LO mode)."""

    index: int
    ticks: Fraction
    lo_mode: bool

    @property
    def window(self) -> int:
        """The shortest wait that breaks the bound: ``ceil(ticks)`` ticks."""
        return ceil(self.ticks)


def bounds_of(pcpu: TickPCPU) -> list[Bound]:
    """R14's bounds on *pcpu*, in ticks: ``x T`` (LO mode) and ``T`` for a HI vCPU, ``T`` (LO
    mode) for a LO one (:func:`akita.model.ioq.cal_bound`, on the tick grid)."""
    bounds = []
    for i, v in enumerate(pcpu.vcpus):
        if v.hi:
            bounds.append(Bound(i, pcpu.x * v.period, True))
            bounds.append(Bound(i, Fraction(v.period), False))
        else:
            bounds.append(Bound(i, Fraction(v.period), True))
    return bounds


def long_wait(bounds: list[Bound]) -> Callable[[Unrolling], z3.BoolRef]:
    """The violation: a vCPU of *bounds* holds work and does not run for a whole window
    (in LO mode from the start to its end, for a LO-mode bound)."""

    def violation(unrolling: Unrolling) -> z3.BoolRef:
        horizon, cases = unrolling.horizon, []
        lo_until: list[z3.BoolRef] = []  # LO mode at every tick 0..t
        for t in range(horizon):
            lo = z3.Not(unrolling.mode[t])
            lo_until.append(lo if t == 0 else z3.And(lo_until[-1], lo))
        for bound in bounds:
            i, w = bound.index, bound.window
            name = unrolling.pcpu.vcpus[i].name
            streak: z3.ArithRef = z3.IntVal(0)  # the ticks vCPU i has waited in a row
            for t in range(horizon):
                waits = z3.And(unrolling.work[t][i] > 0, z3.Not(unrolling.runs[t][i]))
                label = f"{name} at {t} (claim {bound.window}{' LO mode' * bound.lo_mode})"
                waited = z3.Int(f"ticks waited in a row by {label}")
                unrolling.constraints.add(f"waiting streak of {label}",
                                          waited == z3.If(waits, streak + 1, z3.IntVal(0)))
                streak = waited
                if t + 1 >= w:
                    cases.append(z3.And(streak >= w, lo_until[t]) if bound.lo_mode
                                 else streak >= w)
        return z3.Or(*cases) if cases else z3.BoolVal(False)

    return violation


def check_cal_bounds(pcpu: TickPCPU, horizon: int, timeout: float,
                     bounds: list[Bound] | None = None) -> ProofVerdict:
    """No vCPU of *pcpu* waits as long as its bound (default: R14's, :func:`bounds_of`) in
    any behaviour within *horizon* ticks, within *timeout* seconds."""
    chosen = bounds_of(pcpu) if bounds is None else bounds
    return check_schedule(pcpu, horizon, long_wait(chosen), timeout=timeout,
                          what="a vCPU waits as long as its CAL bound", anchored=True)


# -- the obligations ----------------------------------------------------------------

declare = Declarations()

#: The bound rests on the whole policy, as the HI guarantee does, and on R14's statement.
_RULES = ("R14", "R2", "R3", "R4", "R5", "R6", "R7", "R10", "R13")
_FIG5, _FIG7, _TWO, _COOLING = example_pcpu("fig5"), example_pcpu("fig7"), two_hi(), cooling()


@on_pcpu(declare, _COOLING, 3 * _COOLING.hyperperiod(), rules=_RULES, timeout=120)
def cal_bound_cooling(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """On the cooling set (hi 1/2/4 ms beside lo 2/6 ms, x = 3/8), over three hyperperiods
    with HI-mode episodes and returns to LO mode: hi waits less than x T = 1.5 ms while
    the pCPU stays in LO mode and less than T = 4 ms in any mode; lo less than T = 6 ms in
    LO mode (R14; EDF-VD, Baruah et al. 2012)."""
    return check_cal_bounds(pcpu, horizon, timeout)


@on_pcpu(declare, _FIG5, 2 * _FIG5.hyperperiod(), rules=_RULES, timeout=240)
def cal_bound_fig5(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """On the paper's Fig. 5 pCPU (x = 1/5), memcached waits less than x T = 20 ms while the
    pCPU stays in LO mode and less than T = 100 ms in any mode (R14).  (The lookbusy
    VMs' bound, T in LO mode, is not claimed here: over two hyperperiods its check
    does not end within the timeout; the cooling set proves the LO bound.)"""
    return check_cal_bounds(pcpu, horizon, timeout,
                            [b for b in bounds_of(pcpu) if pcpu.vcpus[b.index].hi])


def _without_mode(pcpu: TickPCPU, hi: bool) -> list[Bound]:
    """The LO-mode bounds of the HI (*hi*) or LO vCPUs of *pcpu*, claimed in any mode."""
    return [attrs.evolve(b, lo_mode=False) for b in bounds_of(pcpu)
            if b.lo_mode and pcpu.vcpus[b.index].hi == hi]


@on_pcpu(declare, _TWO, _TWO.hyperperiod(), rules=("R14", "R6"), timeout=240,
         controls=("cal_bound_cooling", "cal_bound_fig5"))
def control_cal_virtual_bound_in_hi_mode(pcpu: TickPCPU, horizon: int,
                                     timeout: float) -> ProofVerdict:
    """Negative control: the HI vCPUs' LO-mode bound x T, claimed in HI mode too, fails on
    the two-HI set: HI mode orders HI vCPUs by actual deadlines (R6), so one may wait
    past its x T."""
    return check_cal_bounds(pcpu, horizon, timeout, _without_mode(pcpu, hi=True))


@on_pcpu(declare, _FIG7, 2 * _FIG7.hyperperiod(), rules=("R14", "R6"), timeout=120,
         controls=("cal_bound_cooling",))
def control_cal_lo_bound_in_hi_mode(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: the LO vCPUs' bound T, claimed in HI mode too, fails on the Fig. 7
    pCPU: in HI mode the HI vCPU's C_pes runs first (R6) and a LO vCPU may wait a period."""
    return check_cal_bounds(pcpu, horizon, timeout, _without_mode(pcpu, hi=False))


@on_pcpu(declare, attrs.evolve(_FIG5, x=Fraction(1)), 2 * _FIG5.hyperperiod(),
         rules=("R14", "R2"), timeout=120, controls=("cal_bound_fig5",))
def control_cal_no_virtual_deadlines(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: on the Fig. 5 pCPU run without virtual deadlines (x = 1), memcached
    may wait longer than the 20 ms its admission promised (1/5 of its period): the bound
    is the virtual deadline's."""
    return check_cal_bounds(pcpu, horizon, timeout,
                            [Bound(0, Fraction(1, 5) * pcpu.vcpus[0].period, True)])


OBLIGATIONS = declare.obligations

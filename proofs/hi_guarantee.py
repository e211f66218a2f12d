"""The HI guarantee, proved per pCPU, with its negative controls.

Theorem (EDF-VD, Baruah et al., ECRTS 2012, Theorem 1; the guarantee the
Akita paper claims for HI VMs, Sections 3.3-3.5): on a pCPU that passes the
EDF-VD test, when every HI job demands at most ``C_pes`` and every LO job at
most ``C_opt``, no HI job misses its deadline -- here: no HI vCPU is served
less than ``min(C_pes, work it holds at a period start)`` in that period --
under the Akita policy, LO background work and mode returns included.

Scope: one pCPU; every phase of every VM on the tick grid (a symbolic
phase per VM, :mod:`akita.model.smt.grid`), unless the pCPU fixes them; a
job or none at each period start (sporadic releases on each vCPU's own
period grid), any demand ``1..cap``; every behaviour within the horizon
stated, from time 0 where the pCPU is idle in LO mode.  The pCPUs are
those of :mod:`.pcpus`.

The horizon and what it covers.  Nothing happens before the earliest
phase, and at any instant where the pCPU holds no work and is in LO mode
(every temperature is then 0) the future is the start's with the phases
shifted: a period that was under way holds no work and owes no more than
it was served.  So with every phase symbolic, ``H`` ticks cover every
stretch of up to ``H`` ticks that begins at such an *idle LO instant*,
whatever the offsets of the periods then -- which is why the check may
assume the earliest phase is 0 (``anchored``, :func:`akita.model.smt.pcpu.unroll`).
What it does not cover: a behaviour that stays busy or in HI mode for more
than ``H`` ticks is checked on its first ``H`` ticks only (the pCPU may be
busy for ever when ``U1 + U3 > 1``, which EDF-VD admits); a bounded check is
bounded.  The horizons are whole hyperperiods (``akita check``:
``--hyperperiods``, 2 by default), so each stretch checked holds at least one
hyperperiod after every vCPU's first period has started (a phase is less
than its period, hence less than a hyperperiod).
"""

from __future__ import annotations

from pathlib import Path

import attrs
import z3

from akita.model.smt.pcpu import TickPCPU, Unrolling

from .limits import Deadline
from .obligation import Declarations
from .pcpus import carry_over, example_pcpu, generated_pcpus, staggered, synchronous, two_hi
from .schedule_check import check_schedule, on_pcpu
from .verdict import PROVED, ProofVerdict

__all__ = ["OBLIGATIONS", "check_hi_guarantee", "hi_miss"]


def hi_miss(unrolling: Unrolling) -> z3.BoolRef:
    """The violation: some HI vCPU is short in some period."""
    return z3.Or(*unrolling.misses.values()) if unrolling.misses else z3.BoolVal(False)


def check_hi_guarantee(pcpu: TickPCPU, horizon: int, timeout: float,
                       save_to: str | Path | None = None,
                       deadline: Deadline | None = None) -> ProofVerdict:
    """No HI miss on *pcpu* in any behaviour within *horizon* ticks, within *timeout*
    seconds in all (or by *deadline*; :func:`.schedule_check.check_schedule`)."""
    return check_schedule(pcpu, horizon, hi_miss, timeout=timeout, what="a HI job misses",
                          save_to=save_to, deadline=deadline, anchored=True)


# -- the obligations ----------------------------------------------------------------

declare = Declarations()

#: The HI guarantee rests on the whole policy, decided at every tick (R10 at tick
#: granularity).
_POLICY = ("R2", "R3", "R4", "R5", "R6", "R7", "R10", "R13")
_FIG5, _FIG7, _CARRY, _TWO = example_pcpu("fig5"), example_pcpu("fig7"), carry_over(), two_hi()
#: The HI guarantee on pCPUs without a control of their own: the controls on the
#: carry-over set show that their check (:func:`check_hi_guarantee`) can fail.
_SHARED = ("hi_guarantee_fig5", "hi_guarantee_fig7", "hi_guarantee_generated")


@on_pcpu(declare, _FIG5, 3 * _FIG5.hyperperiod(), rules=_POLICY, timeout=60)
def hi_guarantee_fig5(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """On the paper's Fig. 5 pCPU (Type1 memcached beside three Type2 VMs, x = 1), no HI
    job of at most C_pes misses its deadline, whatever the LO jobs of at most C_opt do
    (EDF-VD, Baruah et al. 2012, Thm. 1; Akita paper Sec. 3.3)."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@on_pcpu(declare, _FIG7, 3 * _FIG7.hyperperiod(), rules=_POLICY, timeout=120)
def hi_guarantee_fig7(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """On the paper's Fig. 7 pCPU (Type6 beside three Type2 VMs, x = 2/5), no HI job of at
    most C_pes misses its deadline (EDF-VD, Baruah et al. 2012, Thm. 1)."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@on_pcpu(declare, _CARRY, 3 * _CARRY.hyperperiod(), rules=_POLICY, timeout=120)
def hi_guarantee_carry_over(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """With virtual deadlines (x = 1/10), the carry-over set meets every HI deadline
    (EDF-VD, Baruah et al. 2012: the virtual deadline makes the HI job run first)."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@on_pcpu(declare, _TWO, _TWO.hyperperiod(), rules=_POLICY, timeout=480)
def hi_guarantee_two_hi(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """With actual deadlines in HI mode, the two-HI set meets every HI deadline
    (EDF-VD's HI mode is EDF on actual deadlines, Baruah et al. 2012)."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@declare(scope="8 seeded pCPUs of 2-5 vCPUs, x < 1, hyperperiod <= 60 ticks, one hyperperiod "
         "each from an idle start in LO mode, every phase of every VM (on the tick grid), "
         "a job of 1..cap or none at each period start", rules=(*_POLICY, "R11"),
         timeout=480, name="hi_guarantee_generated")
def hi_guarantee_generated(timeout: float) -> ProofVerdict:
    """On eight seeded admitted pCPUs of 2-5 vCPUs with x < 1 (hyperperiods up to 60
    ticks), no HI job of at most C_pes misses in any behaviour over one hyperperiod
    (EDF-VD, Baruah et al. 2012, Thm. 1, as Akita runs it)."""
    notes = []
    for pcpu in generated_pcpus():
        share = timeout / len(generated_pcpus())
        verdict = check_hi_guarantee(pcpu, pcpu.hyperperiod(), share)
        if verdict.verdict != PROVED:
            return verdict
        notes.append(f"{len(pcpu.vcpus)} vCPUs/{pcpu.hyperperiod()} ticks")
    return ProofVerdict.proved("proved on: " + ", ".join(notes))


@on_pcpu(declare, carry_over(test="edf"), 3 * _CARRY.hyperperiod(), rules=("R2",), timeout=120,
         controls=("hi_guarantee_carry_over", *_SHARED))
def control_no_virtual_deadlines(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: admitted by the plain EDF test (x = 1, no virtual deadlines), the
    carry-over set lets a HI job miss (EDF-VD's reason to shrink deadlines)."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@on_pcpu(declare, carry_over(policy="edf"), 3 * _CARRY.hyperperiod(), rules=("R2", "R5"),
         timeout=60, controls=("hi_guarantee_carry_over", *_SHARED))
def control_edf_policy(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: under the ``edf`` policy (C_pes budgets, no modes, no virtual
    deadlines) the carry-over set lets a HI job miss."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@on_pcpu(declare, two_hi("virtual"), _TWO.hyperperiod(), rules=("R6",), timeout=180,
         controls=("hi_guarantee_two_hi",))
def control_virtual_deadlines_in_hi_mode(pcpu: TickPCPU, horizon: int,
                                         timeout: float) -> ProofVerdict:
    """Negative control: keeping virtual deadlines in HI mode lets hi1 miss on the two-HI
    set (hi0's shrunk deadline runs ahead of hi1's actual one)."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@on_pcpu(declare, attrs.evolve(_CARRY, variant="lo-first-in-hi-mode"), 3 * _CARRY.hyperperiod(),
         rules=("R6", "R7"), timeout=60, controls=("hi_guarantee_carry_over",))
def control_lo_ahead_in_hi_mode(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: running active LO vCPUs before runnable HI ones in HI mode lets a
    HI job miss on the carry-over set."""
    return check_hi_guarantee(pcpu, horizon, timeout)


_STAGGERED = staggered()


@on_pcpu(declare, synchronous(_STAGGERED), 3 * _STAGGERED.hyperperiod(), rules=("R2", "R4"),
         timeout=60)
def hi_guarantee_in_phase(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Admitted by the plain EDF test (x = 1), the staggered set (hi 1/3/4 ms, lo 3/4 ms)
    meets every HI deadline when the two periods start together: hi and lo have the same
    deadline, hi comes first (host order), and its 3 ms fit before lo runs (EDF,
    Liu and Layland 1973: equal deadlines in any order)."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@on_pcpu(declare, _STAGGERED, 3 * _STAGGERED.hyperperiod(), rules=("R2",), timeout=60,
         controls=("hi_guarantee_in_phase", *_SHARED, "hi_guarantee_carry_over",
                   "hi_guarantee_two_hi"))
def control_out_of_phase(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: the same set with every phase lets hi miss -- lo's period starting
    3 ms after hi's puts lo's deadline 1 ms ahead of hi's next one, so lo's 3 ms run first
    and hi gets 2 of its 3 ms.  A check from a synchronous start alone would call the set
    safe; the check over every phase does not."""
    return check_hi_guarantee(pcpu, horizon, timeout)


OBLIGATIONS = declare.obligations

"""Budget isolation, proved per pCPU: a vCPU past its budget never takes the pCPU from one
that holds budget, and a HI vCPU past ``C_pes`` never takes it from a LO vCPU.

The Akita paper, Section 2.2: Akita "enforces fairness by allocating VMs CPU
shares corresponding to VMs' budgets"; a HI vCPU's share lies in ``[C_opt/T,
C_pes/T]`` and a LO vCPU's in ``[0, C_opt/T]``; Section 3.2: when a vCPU's
budget runs out "the vCPU is deactivated, meaning that the scheduler ignores the
vCPU if there exist other vCPUs with positive budgets".  Work conservation (R7)
still runs a vCPU past its budget when nothing else can run; the property is
that it never does so at the expense of another vCPU's budget, and -- under
``hi_mode_order = "capped"``, the default (R3, R7) -- that a HI vCPU past its
budget runs only when no LO vCPU holds work, so that its share is at most
``C_pes / T`` while a LO VM wants the pCPU.

Scope: the paper's Table 1 pair of :func:`type1_beside_type2` (a Type1 HI VM,
``C_opt`` 5 ms, ``C_pes`` 25 ms, beside a Type2 LO VM, 25 ms, both every
100 ms; 5 ms ticks), every phase of each VM on the tick grid, two hyperperiods
from an idle start in LO mode, and -- unlike the HI guarantee -- **jobs of
any demand up to a whole period** at each period start, so that a workload
may break its declaration (a CPU-bound VM is one whose every job is a whole
period).  The host's other options are the defaults.  The negative controls
run the same check under ``hi_mode_order = "hi-first"`` (the earlier
default: a HI vCPU past ``C_pes`` before the LO vCPUs with budget) and
``"budget-first"`` (every vCPU past its budget by deadline), both of which it
must refute.
"""

from __future__ import annotations

import attrs
import z3

from akita.model import VM, Criticality, SchedulerOptions
from akita.model.smt.pcpu import TickPCPU, Unrolling

from .obligation import Declarations
from .pcpus import pcpu_of
from .schedule_check import check_schedule, on_pcpu
from .support import MS
from .verdict import ProofVerdict

__all__ = ["OBLIGATIONS", "type1_beside_type2", "budget_breach", "HORIZON"]


def type1_beside_type2(hi_mode_order: str = "capped") -> TickPCPU:
    """The issue's host: a Type1 HI VM (5 / 25 ms every 100 ms) beside a Type2 LO VM (25 ms
    every 100 ms) on one pCPU, admitted by EDF-VD (U1 = 1/4, U2 = 1/20, U3 = 1/4), every
    phase, under *hi_mode_order*."""
    return pcpu_of([
        VM("hi", Criticality.HI, 100 * MS, 5 * MS, 25 * MS),
        VM("lo", Criticality.LO, 100 * MS, 25 * MS),
    ], options=SchedulerOptions(phases="seeded", hi_mode_order=hi_mode_order))


def _flag(v_name: str, what: str, t: int) -> z3.BoolRef:
    """The unrolling's named flag ``what`` (``runnable``, ``active``) of a vCPU at tick *t*
    (:func:`akita.model.smt.pcpu.choose` names them)."""
    return z3.Bool(f"{v_name} {what} at {t}")


def budget_breach(u: Unrolling) -> z3.BoolRef:
    """Violation: at some tick a vCPU runs past its budget (inactive) while another vCPU of
    the pCPU holds work and budget, or a HI vCPU runs past its budget while a LO vCPU holds
    work."""
    vs = u.pcpu.vcpus
    cases = []
    for t in range(u.horizon):
        for i, v in enumerate(vs):
            others = []
            for j, w in enumerate(vs):
                if j == i:
                    continue
                wants = _flag(w.name, "runnable", t)
                holds = _flag(w.name, "active", t)
                others.append(z3.And(wants, z3.Or(holds, z3.BoolVal(v.hi and not w.hi))))
            if others:
                cases.append(z3.And(u.runs[t][i], z3.Not(_flag(v.name, "active", t)),
                                    z3.Or(*others)))
    return z3.Or(*cases) if cases else z3.BoolVal(False)


declare = Declarations()

_PAIR = type1_beside_type2()
#: Two hyperperiods of the pair (20 ticks of 5 ms each).
HORIZON = 2 * _PAIR.hyperperiod()
_BREACH = "a vCPU past its budget runs while another holds budget (or a LO vCPU work)"


def _check(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    return check_schedule(pcpu, horizon, budget_breach, timeout=timeout, what=_BREACH,
                          caps=tuple(v.period for v in pcpu.vcpus))


@on_pcpu(declare, _PAIR, HORIZON, rules=("R3", "R7"), timeout=60)
def budgets_hold(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Under the default ``hi_mode_order = "capped"``, with jobs of any demand up to a whole
    period, no vCPU past its budget runs while another holds budget and work, and the HI
    vCPU past ``C_pes`` never runs while the LO vCPU holds work (Sections 2.2 and 3.2)."""
    return _check(pcpu, horizon, timeout)


@on_pcpu(declare, type1_beside_type2("hi-first"), HORIZON, rules=("R3", "R7"), timeout=60,
         controls=("budgets_hold",))
def control_hi_first_overruns(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: with ``hi_mode_order = "hi-first"`` a HI vCPU past ``C_pes`` runs
    before the LO vCPU that still holds budget."""
    return _check(pcpu, horizon, timeout)


@on_pcpu(declare, type1_beside_type2("budget-first"), HORIZON, rules=("R3", "R7"), timeout=60,
         controls=("budgets_hold",))
def control_budget_first_overruns(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: with ``hi_mode_order = "budget-first"`` a HI vCPU past ``C_pes``
    runs by deadline beside the LO vCPU past its budget."""
    return _check(pcpu, horizon, timeout)


OBLIGATIONS = declare.obligations

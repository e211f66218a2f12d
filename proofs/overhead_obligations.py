"""Overhead-aware admission, proved per pCPU: the switch count and the HI guarantee.

Overhead-aware admission (:mod:`akita.model.overheads`) decides a pCPU on
budgets ``C + n_i s``, where ``s`` is the cost of a context switch and
``n_i`` bounds the switches into vCPU ``i`` in one of its periods.  Two
claims carry it, each checked on the tick model of one pCPU
(:mod:`akita.model.smt.pcpu`) with the *reserved* (inflated) budgets:

* **the count** (:func:`switch_count_within_bound`): in every behaviour, no
  vCPU is switched into more than ``n_i`` times in one of its periods -- a
  switch into ``i`` being a tick where ``i`` runs and the last vCPU to run
  before it (idle ticks skipped, as the simulator's ``_last``) was another
  or none;
* **the guarantee** (:func:`hi_guarantee_with_overheads`): no HI job misses
  on a pCPU admitted with the inflated budgets.

Why the tick model at cost 0 speaks for the simulator at cost ``s``: the
simulator charges a switch to the incoming vCPU's budget and does none of
its work meanwhile, and its choices read budgets, consumption, keys and
whether a vCPU is runnable -- not how much of the consumption was work.  So
a run at cost ``s`` in which a job of work ``W`` is switched in ``k`` times
makes the choices of the run at cost 0 in which that job demands
``W + k s``: the same consumption at every instant, the same completion.
With ``k <= n_i`` (the count) and ``W <= C``, that demand is at most the
reserved ``C + n_i s``, a behaviour the tick model covers (demands
``1..cap``, cap the reserved budget); the guarantee on it is the guarantee
for the job's work.  This correspondence is argued here, not checked by
Z3; the simulator tests (``tests/reference/test_overhead_admission.py``)
check its conclusion at 2,460 ns a switch.

Scope: the sets below, in ticks of 1 ms with a switch costing one tick (so
that the inflation is visible at this scale), every phase of every vCPU on
the tick grid, jobs at period starts only (the admission's scope), two
hyperperiods from an idle start in LO mode.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import z3

from akita.model import VM, Criticality, SchedulerOptions
from akita.model.edf_vd import edf_vd_test, virtual_deadline_factor
from akita.model.overheads import inflated
from akita.model.smt.pcpu import TickPCPU, Unrolling, tick_vcpus
from akita.model.utilization import UtilizationSums
from akita.model.vm import VCPU

from .hi_guarantee import check_hi_guarantee
from .obligation import Declarations
from .schedule_check import check_schedule, on_pcpu
from .support import MS
from .verdict import ProofVerdict

__all__ = ["OBLIGATIONS", "reserved_pcpu", "switch_ins_over", "switch_count_within_bound"]

#: One switch costs one tick of 1 ms here.
COST = MS
_OPTIONS = SchedulerOptions(phases="seeded")


def reserved_pcpu(vms: Sequence[VM], x_from_declared: bool = False) -> tuple[TickPCPU, tuple[int, ...]]:
    """The pCPU of *vms* with the budgets reserved at :data:`COST` a switch, and each
    vCPU's ``n_i``.  Its ``x`` is the scheduler's for the reserved sums, or with
    *x_from_declared* the one an admission that ignores the cost computed."""
    declared = tuple(vm.vcpu(0) for vm in vms)
    each = inflated(declared, COST)
    reserved: tuple[VCPU, ...] = tuple(i.vm().vcpu(0) for i in each)
    sums = UtilizationSums.of(declared if x_from_declared else reserved)
    x = Fraction(virtual_deadline_factor(edf_vd_test(sums), _OPTIONS.x_rule))
    return tick_vcpus(reserved, _OPTIONS, x, "edf-vd"), tuple(i.switches for i in each)


def switch_ins_over(bounds: Sequence[int]) -> Callable[[Unrolling], z3.BoolRef]:
    """The violation: some vCPU ``i`` is switched into more than ``bounds[i]`` times in one
    of its periods within the horizon."""

    def violation(u: Unrolling) -> z3.BoolRef:
        n = len(u.pcpu.vcpus)
        last = [z3.BoolVal(False)] * n  # who ran last before instant t (none at 0)
        switch_in: list[list[z3.BoolRef]] = []
        for t in range(u.horizon):
            runs = u.runs[t]
            switch_in.append([z3.And(runs[i], z3.Not(last[i])) for i in range(n)])
            idle = z3.Not(z3.Or(*runs))
            last = [z3.Or(runs[i], z3.And(idle, last[i])) for i in range(n)]
        cases = []
        for i, vcpu in enumerate(u.pcpu.vcpus):
            for k in range(u.horizon // vcpu.period + 2):
                start, end = u.grids[i].release(k), u.grids[i].release(k + 1)
                inside = [z3.If(z3.And(switch_in[t][i], start <= t, t < end), 1, 0)
                          for t in range(u.horizon)]
                cases.append(z3.Sum(*inside) > bounds[i])
        return z3.Or(*cases)

    return violation


def _count(pcpu: TickPCPU, bounds: Sequence[int], horizon: int, timeout: float) -> ProofVerdict:
    return check_schedule(pcpu, horizon, switch_ins_over(bounds), timeout=timeout,
                          what="a vCPU is switched in more often than counted", anchored=True)


declare = Declarations()

#: hi 1/3/10 beside lo 4/20 (ms): reserved hi (10; 3, 5), lo (20; 10) -- U1 + U3 = 1
#: exactly on the reserved budgets, admitted with the cost.
_FIT, _FIT_N = reserved_pcpu([VM("hi", Criticality.HI, 10 * MS, MS, 3 * MS),
                              VM("lo", Criticality.LO, 20 * MS, 4 * MS)])
#: hi 2/5/10 beside lo 10/20 (ms): U1 + U3 = 1 declared, admitted when the cost is ignored;
#: its reservations, hi (10; 4, 7) and lo (20; 16), do not fit.
_OVER, _ = reserved_pcpu([VM("hi", Criticality.HI, 10 * MS, 2 * MS, 5 * MS),
                          VM("lo", Criticality.LO, 20 * MS, 10 * MS)], x_from_declared=True)
_RULES = ("R11", "R2", "R3", "R4", "R5", "R10")


@on_pcpu(declare, _FIT, 2 * _FIT.hyperperiod(), rules=_RULES, timeout=120)
def switch_count_within_bound(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """No vCPU is switched into more often in one of its periods than overhead-aware
    admission counts (``n_i = 1 + sum ceil(T_i/T_j)`` over LO ``j``, ``2 ceil(T_i/T_j) + 1``
    over HI ``j``): the budgets it reserves hold every switch the vCPU pays for (task-centric
    accounting; Brandenburg, PhD thesis, UNC 2011, Ch. 3)."""
    return _count(pcpu, _FIT_N, horizon, timeout)


@on_pcpu(declare, _FIT, 2 * _FIT.hyperperiod(), rules=("R11",), timeout=120,
         controls=("switch_count_within_bound",))
def control_two_switches_a_job(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: SchedCAT's EDF charge, two switches a job (schedcat/overheads/jlfp.py),
    is not enough when the preempted vCPU pays for its return: lo is switched into three
    times in a period (hi's two releases inside it preempt it twice)."""
    return _count(pcpu, (2, 2), horizon, timeout)


@on_pcpu(declare, _FIT, 2 * _FIT.hyperperiod(), rules=_RULES, timeout=120)
def hi_guarantee_with_overheads(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """On a pCPU admitted by EDF-VD on the budgets inflated by the switches each vCPU pays
    for, with those budgets reserved, no HI job of at most the reserved C_pes misses its
    deadline (EDF-VD, Baruah et al., ECRTS 2012, Thm. 1, on the inflated set)."""
    return check_hi_guarantee(pcpu, horizon, timeout)


@on_pcpu(declare, _OVER, 2 * _OVER.hyperperiod(), rules=("R11",), timeout=120,
         controls=("hi_guarantee_with_overheads",))
def control_cost_ignored(pcpu: TickPCPU, horizon: int, timeout: float) -> ProofVerdict:
    """Negative control: admitted by EDF-VD ignoring the cost (U1 + U3 = 1 declared), the set
    with the budgets its switches need reserved lets a HI job miss."""
    return check_hi_guarantee(pcpu, horizon, timeout)


OBLIGATIONS = declare.obligations

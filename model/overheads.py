"""Overhead-aware admission: budgets inflated by the switches they pay for (R11).

The reference simulator charges a context switch -- a pCPU starting a vCPU
other than the one it ran last -- ``s = context_switch_cost`` ns to the
*incoming* vCPU: the pCPU does none of its work for ``s`` ns, and its budget
and its served time are charged them (:mod:`akita.reference.simulator`).  The
host option carries both the switch and the scheduling decision that leads
to it: the figure it is set to (``bench/context_switch.py``, 2,460 ns on this
machine) is a ``perf bench sched pipe`` hand-over, wake-up, decision and
switch together (decision 190).

**The literature's rule.**  Overhead-aware analysis inflates each job's
execution cost by the overheads it can cause, then runs the unchanged test
on the inflated set.  Under EDF, each job is switched in once and causes at
most one preemption (at its release), so SchedCAT's EDF accounting
(``schedcat/overheads/jlfp.py``, ``charge_scheduling_overheads``) adds
``2 (Delta_sched + Delta_cxs)`` to every job's cost; the accounting is
Brandenburg's ("Scheduling and Locking in Multiprocessor Real-Time Operating
Systems", PhD thesis, UNC Chapel Hill, 2011, Ch. 3, *preemption-centric*
accounting), after Liu ("Real-Time Systems", 2000, Sec. 6.8: each job's
execution time grows by two context switches).

**Why a vCPU pays more here.**  That rule charges a preemption to the job
that causes it; the processor-demand argument only needs the total.  A
vCPU's budget is enforced per vCPU, and the simulator charges the switch
back into a preempted vCPU to *that* vCPU's budget, so the budget of each
vCPU must hold every switch into it in one of its periods
(*task-centric* accounting, the thesis's alternative).  In a period
``[r, r + T_i)`` of vCPU ``i`` (its server job, the budget of one period), a
switch into ``i`` is its first dispatch, or a return after ``i`` was
displaced while it was runnable with budget.  With jobs that arrive at their
vCPU's own period starts (the scope below), ``i`` is displaced only by

* a period start of another vCPU ``j`` of the pCPU: at most
  ``ceil(T_i / T_j)`` of them fall in the open interval ``(r, r + T_i)``;
* a LO -> HI mode switch, caused by a HI vCPU ``j`` overrunning ``C_opt``
  -- at most once per job of ``j`` overlapping the period, i.e. at most
  ``ceil(T_i / T_j) + 1`` times.

So ``i`` is switched in at most ::

    n_i = 1 + sum_{j LO, j != i} ceil(T_i / T_j)
            + sum_{j HI, j != i} (2 ceil(T_i / T_j) + 1)

times a period, and admission decides the pCPU on the budgets
``C_opt + n_i s`` and ``C_pes + n_i s`` (:func:`inflated`): each is what
the scheduler must reserve so that a job of ``C_opt`` (``C_pes``) of *work*
completes within the budget of its period whatever the switches cost.  A
vCPU whose inflated budget exceeds its period cannot be admitted.

**Scope.**  The bound counts displacements by period starts and mode
switches only: it covers vCPUs whose work arrives at their own period starts
(``cpu-bound``, ``periodic`` with the VM's period and no offset,
``sporadic``).  A vCPU that wakes in the middle of another's period
(``poisson``, ``duty``, ``trace``) may displace it once per wake-up, which
``n_i`` does not count.  The guarantee (``docs/guarantees.rst``) is stated for
a host whose scheduler reserves the inflated budgets.

Everything is exact: budgets are integers (``n_i s`` ns), utilizations
:class:`~fractions.Fraction`.
"""

from __future__ import annotations

from typing import Sequence

import attrs

from .admission_tests import AdmissionTest, admission_test
from .errors import ModelError
from .options import SchedulerOptions
from .utilization import UtilizationSums
from .verdict import SchedulabilityVerdict
from .vm import VCPU, VM

__all__ = ["switch_ins", "inflated", "inflate", "overhead_aware", "Inflation",
           "admission_test_with_overheads"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R11": ("overhead_aware", "inflated", "admission_test_with_overheads"),
}


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def switch_ins(vcpu: VCPU, others: Sequence[VCPU]) -> int:
    """``n_i``: the most switches into *vcpu* in one of its periods beside *others*."""
    period = vcpu.vm.period
    count = 1
    for other in others:
        releases = _ceil_div(period, other.vm.period)
        count += 2 * releases + 1 if other.vm.is_hi else releases
    return count


@attrs.frozen
class Inflation:
    """One vCPU's budgets as admission counts them at switch cost ``cost``.

    :param vcpu: the vCPU as declared.
    :param switches: ``n_i``, its switches a period (:func:`switch_ins`).
    :param cost: ns a switch costs.
    :param grain: each inflated budget is rounded up to a multiple of it (1: not
        rounded); a coarser grid keeps the exact search's tick coarse, and reserves more.
    """

    vcpu: VCPU
    switches: int
    cost: int
    grain: int = 1

    @property
    def extra(self) -> int:
        """``n_i s``: ns added to each of its budgets."""
        return self.switches * self.cost

    def _up(self, budget: int) -> int:
        grown = budget + self.extra
        return -(-grown // self.grain) * self.grain

    @property
    def c_opt(self) -> int:
        return self._up(self.vcpu.vm.c_opt)

    @property
    def c_pes(self) -> int | None:
        c_pes = self.vcpu.vm.c_pes
        return None if c_pes is None else self._up(c_pes)

    @property
    def fits(self) -> bool:
        """Whether the inflated budgets fit in the period."""
        return self._up(self.vcpu.vm.c_max) <= self.vcpu.vm.period

    def vm(self) -> VM:
        """A one-vCPU VM with the inflated budgets (the reservation); it must :attr:`fit`."""
        return attrs.evolve(self.vcpu.vm, c_opt=self.c_opt, c_pes=self.c_pes, vcpus=1)


def inflated(vcpus: Sequence[VCPU], cost: int, grain: int = 1) -> tuple[Inflation, ...]:
    """Each of *vcpus*, placed together on one pCPU, with its inflation at *cost* ns a switch
    (budgets rounded up to multiples of *grain*)."""
    if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
        raise ModelError("host.context_switch_cost", cost, "a duration >= 0")
    if not isinstance(grain, int) or isinstance(grain, bool) or grain < 1:
        raise ModelError("grain", grain, "a duration >= 1 ns")
    every = tuple(vcpus)
    return tuple(Inflation(v, switch_ins(v, every[:k] + every[k + 1:]), cost, grain)
                 for k, v in enumerate(every))


def inflate(sums: UtilizationSums, cost: int,
            grain: int = 1) -> tuple[UtilizationSums | None, tuple[Inflation, ...]]:
    """The sums of the inflated vCPUs of *sums*, or ``None`` if one no longer fits its period."""
    vcpus = sums.vcpus
    if vcpus is None:
        raise ModelError("sums", sums, "sums built from vCPUs (the inflation needs their periods)")
    each = inflated(vcpus, cost, grain)
    if not all(i.fits for i in each):
        return None, each
    return UtilizationSums.of(i.vm().vcpu(0) for i in each), each


def overhead_aware(test: AdmissionTest, cost: int, grain: int = 1,
                   fast: AdmissionTest | None = None) -> AdmissionTest:
    """*test* decided on the budgets inflated by *cost* ns a switch (the module's rule).

    With a *grain* above 1, a pCPU that *fast* (EDF-VD) does not admit on the
    inflated budgets is decided by *test* on the budgets rounded up to multiples
    of *grain*; the scheduler must then reserve the rounded budgets.

    The capacity stays *test*'s on the declared budgets, which first fit uses only
    to skip pCPUs: it remains a necessary bound, as inflation only adds demand --
    the formula tests are monotone in the budgets, and the exact test's capacity
    is the necessary ``U <= 1`` in each mode.  At cost 0 this is
    *test* itself.
    """
    if cost == 0:
        return test

    def decide(sums: UtilizationSums) -> SchedulabilityVerdict:
        grown, each = inflate(sums, cost)
        if grown is None:
            return _too_long(test.name, sums, each, cost)
        if grain > 1 and fast is not None:
            verdict = fast.decide(grown)
            if not verdict.schedulable:
                grown, each = inflate(sums, cost, grain)
                if grown is None:
                    return _too_long(test.name, sums, each, cost)
                verdict = test.decide(grown)
        else:
            verdict = test.decide(grown)
        detail = dict(verdict.detail or {})
        detail["switch_cost_ns"] = cost
        detail["switches"] = {i.vcpu.name: i.switches for i in each}
        if grain > 1:
            detail["grain_ns"] = each[0].grain if each else grain
        return attrs.evolve(verdict, detail=detail)

    return AdmissionTest(test.name, decide, test.capacity)


def _too_long(name: str, sums: UtilizationSums, each: tuple[Inflation, ...],
              cost: int) -> SchedulabilityVerdict:
    """The verdict on a pCPU where some vCPU's inflated budget exceeds its period."""
    worst = next(i for i in each if not i.fits)
    rounded = "" if worst.grain == 1 else \
        f" (a multiple of {worst.grain} ns: {worst._up(worst.vcpu.vm.c_max)} ns)"
    return SchedulabilityVerdict(
        name, False, sums, None,
        f"{worst.vcpu.name}: C + {worst.switches} switches x {cost} ns = "
        f"{worst.vcpu.vm.c_max + worst.extra} ns{rounded} > period {worst.vcpu.vm.period} ns")


def admission_test_with_overheads(name: str, options: SchedulerOptions,
                                  cost: int | None = None) -> AdmissionTest:
    """The test *name* of a host with *options*, deciding on budgets inflated by *cost*
    ns a switch (default: the options' ``context_switch_cost``).

    The test underneath is the host's with the cost set to 0: the inflated
    budgets already hold the switches, and the budget-level schedule they
    reserve is the one the formula tests and the exact search decide.
    """
    chosen = options.context_switch_cost if cost is None else cost
    base = admission_test(name, attrs.evolve(options, context_switch_cost=0))
    return overhead_aware(base, chosen)

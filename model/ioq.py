"""IO quality (IOQ): the CPU access latency a VM tolerates, and the bound Akita gives (rule R14).

The Akita paper characterises each VM by its budgets *and* an IO quality,
"the average response time tolerated by the VM" (Section 1), promises that
"when mode is normal, Akita allocates all vCPUs the CPU shares determined by
their optimistic budgets with CPU access latencies that are not higher than
their IO qualities", and has the CPU picker place a vCPU on "the first pCPU
that can accommodate the vCPU's requirements in terms of both CPU share and
IO quality" (Section 3.6).  The CPU access latency (CAL) of a vCPU is "the
latency between the time when an I/O request arrives and the time when its
corresponding vCPU is executed on a pCPU" (Section 2.1).

**The bound.**  On an admitted pCPU, in the job model the admission test
covers -- work released at the vCPU's period starts, a HI job of at most
``C_pes``, a LO one of at most ``C_opt`` -- every job completes by its
(virtual) deadline, so it first runs strictly before it:

* a HI vCPU, while the pCPU stays in LO mode: ``CAL < x T`` under the
  ``edf-vd`` and ``edf`` tests (EDF-VD's LO mode is EDF on the virtual
  deadlines ``s + x T``, schedulable because ``U1 + U2 / x <= 1``; Baruah
  et al., ECRTS 2012, Sec. 3), ``CAL < T`` under the others;
* a HI vCPU in any mode: ``CAL < T`` (the HI guarantee, R11);
* a LO vCPU, while the pCPU stays in LO mode: ``CAL < T``.  In HI mode a LO
  vCPU has no bound (HI mode may set it aside).  Under the ``exact`` test,
  which proves the HI guarantee alone, it has none either.

``x`` is the scheduler's (:func:`~.edf_vd.virtual_deadline_factor`, by the
host's ``x_rule``), so it depends on the pCPU: adding a vCPU raises ``U2``
or ``U1`` and with them the ``x T`` of every HI vCPU already there.  The
bounds are exact rationals of nanoseconds.  :mod:`akita.proofs.cal_bound`
proves them on the tick model of a pCPU, with negative controls; the
specification is :doc:`/ioq`.

**Admission with IOQ (R14).**  A vCPU whose VM declares ``ioq`` is placed
only on a pCPU where its LO-mode bound is at most its IOQ -- and where the
bound of every vCPU already there still meets its own IOQ: the normal-mode
promise of the paper, checked as part of the pCPU's test
(:func:`with_ioq`).  A rejection names the IOQ.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Sequence

import attrs

from .admission_tests import AdmissionTest
from .duration import format_duration
from .edf_vd import virtual_deadline_factor
from .utilization import UtilizationSums
from .verdict import SchedulabilityVerdict
from .vm import VCPU, VM

if TYPE_CHECKING:  # first_fit builds on this module
    from .first_fit import Placement, VMPlacement

__all__ = ["CalBound", "cal_bound", "vm_bound", "with_cal_bounds", "IOQMiss", "ioq_misses",
           "IOQTest", "with_ioq", "format_ns"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R14": ("cal_bound", "ioq_misses", "IOQTest"),
}

#: The tests whose LO mode is EDF on virtual deadlines ``s + x T``.
_VIRTUAL = ("edf-vd", "edf")


def format_ns(value: Fraction) -> str:
    """A rational number of ns as a duration: ``"20ms"``, or ``"20ms + 1/3ns"``."""
    whole = value.numerator // value.denominator
    rest = value - whole
    return format_duration(whole) + ("" if rest == 0 else f" + {rest}ns")


@attrs.frozen
class CalBound:
    """The CAL bound of one vCPU on its pCPU, in ns: ``CAL < bound``.

    :param lo_mode: while the pCPU stays in LO mode; ``None`` when there is none.
    :param any_mode: in any mode (HI vCPUs only); ``None`` when there is none.
    :param rule: how ``lo_mode`` was obtained, in words (``"x T"`` or ``"T"``).
    """

    lo_mode: Fraction | None
    any_mode: Fraction | None
    rule: str

    def as_json(self) -> dict[str, str | None]:
        """Both bounds as exact ``"p/q"`` ns (``None`` where there is none)."""
        return {"lo_mode_ns": None if self.lo_mode is None else str(self.lo_mode),
                "any_mode_ns": None if self.any_mode is None else str(self.any_mode),
                "rule": self.rule}


def cal_bound(vm: VM, test: str, x: Fraction) -> CalBound:
    """The CAL bound of a vCPU of *vm* on a pCPU admitted by *test* whose scheduler uses *x*."""
    period = Fraction(vm.period)
    if vm.is_hi:
        if test in _VIRTUAL:
            return CalBound(x * period, period, f"x T with x = {x}")
        return CalBound(period, period, "T")
    if test == "exact":
        return CalBound(None, None, "none: the exact test proves the HI guarantee alone")
    return CalBound(period, None, "T")


def vm_bound(placement: Placement, name: str, x_rule: str) -> CalBound | None:
    """The CAL bound of VM *name* as *placement* admitted it: its vCPUs' largest, with the
    ``x`` (by *x_rule*) of the pCPU each is on; ``None`` when the VM was not admitted or
    one of its vCPUs has no bound."""
    return _bound(placement, placement.of(name), x_rule)


def _bound(placement: Placement, answer: VMPlacement, x_rule: str) -> CalBound | None:
    """:func:`vm_bound` of the VM whose answer in *placement* is *answer*."""
    worst: CalBound | None = None
    for cpu in answer.pcpus:
        x = virtual_deadline_factor(placement.pcpus[cpu].verdict, x_rule)
        bound = cal_bound(answer.vm, placement.test, x)
        if bound.lo_mode is None:
            return None
        if worst is None or worst.lo_mode is None or bound.lo_mode > worst.lo_mode:
            worst = bound
    return worst


def with_cal_bounds(placement: Placement, x_rule: str) -> Placement:
    """*placement* with the CAL bound of each admitted VM that declares an IOQ kept in its
    answer (:attr:`~.first_fit.VMPlacement.cal_bound`, by :func:`vm_bound`), so that every
    reader -- the admission's report, the simulation's metrics -- reads the one bound
    admission gave instead of deriving it again."""
    answers = tuple(
        attrs.evolve(answer, cal_bound=_bound(placement, answer, x_rule))
        if answer.admitted and answer.vm.ioq is not None else answer
        for answer in placement.vms)
    return attrs.evolve(placement, vms=answers)


@attrs.frozen
class IOQMiss:
    """A vCPU whose LO-mode CAL bound exceeds its IOQ on a pCPU."""

    vcpu: VCPU
    bound: CalBound
    ioq: int

    def text(self) -> str:
        """The miss in words, naming the IOQ."""
        vm = self.vcpu.vm
        if self.bound.lo_mode is None:
            return (f"vCPU {self.vcpu.name} declares ioq = {format_duration(self.ioq)} but has "
                    f"no CAL bound there ({self.bound.rule})")
        return (f"vCPU {self.vcpu.name} ({vm.criticality}) would have a CAL bound of "
                f"{format_ns(self.bound.lo_mode)} ({self.bound.rule}, T = "
                f"{format_duration(vm.period)}) above its ioq = {format_duration(self.ioq)}")


def ioq_misses(vcpus: Iterable[VCPU], verdict: SchedulabilityVerdict,
               x_rule: str) -> list[IOQMiss]:
    """The vCPUs among *vcpus* with an IOQ that the pCPU of *verdict* does not meet."""
    x = virtual_deadline_factor(verdict, x_rule)
    misses = []
    for vcpu in vcpus:
        ioq = vcpu.vm.ioq
        if ioq is None:
            continue
        bound = cal_bound(vcpu.vm, verdict.test, x)
        if bound.lo_mode is None or bound.lo_mode > ioq:
            misses.append(IOQMiss(vcpu, bound, ioq))
    return misses


def _escaped(text: str) -> str:
    """*text* safe inside a verdict's ``why`` template."""
    return text.replace("{", "{{").replace("}", "}}")


@attrs.frozen
class IOQTest(AdmissionTest):
    """An admission test that also holds every vCPU's IOQ (R14): *base* decides the
    CPU share; a pCPU it accepts is refused when a vCPU there would miss its IOQ.

    The capacity stays *base*'s: an upper bound for a LO vCPU, which is what
    first fit needs to skip pCPUs soundly (refusing more never makes room).
    """

    base: AdmissionTest = attrs.field(kw_only=True)
    x_rule: str = attrs.field(kw_only=True)

    def why_not(self, offers: Sequence[UtilizationSums]) -> str | None:
        """Why the pCPUs whose sums with the vCPU added are *offers* refused it, when the
        CPU share fitted on one of them and an IOQ did not; ``None`` otherwise."""
        for index, sums in enumerate(offers):
            verdict = self.base(sums)
            if verdict.schedulable and sums.vcpus is not None:
                misses = ioq_misses(sums.vcpus, verdict, self.x_rule)
                if misses:
                    return f"on pCPU {index} the CPU share fits but {misses[0].text()}"
        return None


def with_ioq(base: AdmissionTest, x_rule: str) -> IOQTest:
    """*base* with R14: a pCPU passes when *base* accepts it and every vCPU on it with an
    IOQ has a LO-mode CAL bound at most its IOQ (:func:`ioq_misses`)."""

    def decide(sums: UtilizationSums) -> SchedulabilityVerdict:
        verdict = base(sums)
        if not verdict.schedulable:
            return verdict
        vcpus = sums.vcpus
        if vcpus is None:  # sums built from numbers alone: no IOQ can be checked
            return attrs.evolve(verdict, schedulable=False,
                                why="the pCPU's vCPUs are unknown, so no IOQ can be checked")
        misses = ioq_misses(vcpus, verdict, x_rule)
        if not misses:
            return verdict
        return attrs.evolve(verdict, schedulable=False,
                            why=_escaped(misses[0].text()) + "; " + verdict.why)

    return IOQTest(base.name, decide, base.capacity, base=base, x_rule=x_rule)

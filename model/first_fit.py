"""The first-fit CPU picker (rule R12).

Akita paper, Section 3.6: "For each vCPU, our CPU picker assigns the vCPU to
the first CPU core that can accommodate the vCPU.  If the pCPU picker fails
to find an appropriate pCPU for a vCPU, Akita simply notifies the cloud
provider."  We make precise what the paper leaves open:

* VMs are offered in order; each vCPU of a VM goes to the lowest-indexed
  pCPU that still passes the host's admission test with it added.  vCPUs of
  one VM may share a pCPU (first fit is per vCPU, as in the paper).
* Admission is **all or nothing** per VM: if one vCPU fits nowhere, the
  vCPUs of that VM already placed are taken back, the host is exactly as
  before, and the next VM is still offered.
* Each pCPU keeps its exact ``(U1, U2, U3)``, so testing "pCPU plus one
  vCPU" is O(1), and a segment tree of the pCPUs' capacities (exact for LO
  vCPUs, a necessary bound for HI ones) skips pCPUs that cannot take the
  vCPU, so an offer costs O(log m) tests for LO vCPUs on m pCPUs.

HI vCPUs never migrate once placed (R12); the picker never moves a placed
vCPU.

**Departures.**  A VM that leaves is taken out whole by :meth:`FirstFit.remove`:
each of its vCPUs leaves its pCPU, whose sums lose exactly that vCPU's
utilisations (:meth:`~.utilization.UtilizationSums.minus`, exact
fractions, so nothing is left over) and whose capacity in the segment tree
is recomputed from them.  The pCPU is then exactly as if the VM had never
been placed on it: the same sums, the same vCPUs in the same order, the
same capacities, so every later offer is answered as it would have been
(``tests/model/test_first_fit_removal.py``).  The VM's answer leaves
:meth:`FirstFit.placement` with it.  This is what an online placement of
arriving and leaving VMs needs (``akita fleet``, :mod:`akita.fleet`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import attrs

from ._slack_tree import NO_ROOM, SlackTree
from .admission_tests import ADMISSION_TESTS, AdmissionTest, admission_test
from .edf_vd import virtual_deadline_factor
from .errors import ModelError
from .host import Host
from .ioq import CalBound, IOQTest, with_cal_bounds, with_ioq
from .options import SchedulerOptions
from .utilization import UtilizationSums
from .verdict import SchedulabilityVerdict
from .vm import VCPU, VM

if TYPE_CHECKING:  # the exact test loads Z3: only its trials' type is named here
    from .exact.admission import Trial

__all__ = ["VMPlacement", "PCPULoad", "Placement", "FirstFit", "first_fit", "rejection_reason"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R12": ("FirstFit", "first_fit"),
}


@attrs.frozen
class VMPlacement:
    """The picker's answer for one VM.

    :param vm: the VM offered.
    :param pcpus: the pCPU of each vCPU, in vCPU order; empty if rejected.
    :param reason: why the VM was rejected; ``None`` if admitted.
    :param cal_bound: for an admitted VM that declares an IO quality, the CAL
        bound admission gave it (R14, :func:`~.ioq.with_cal_bounds`); ``None``
        otherwise, or where one of its vCPUs has none.  Derived from the
        placement, so it takes no part in equality.
    """

    vm: VM
    pcpus: tuple[int, ...]
    reason: str | None
    cal_bound: CalBound | None = attrs.field(default=None, eq=False, kw_only=True)

    @property
    def admitted(self) -> bool:
        """Whether every vCPU of the VM was placed."""
        return self.reason is None


@attrs.frozen
class PCPULoad:
    """One pCPU after placement: its vCPUs and the test's verdict on them."""

    index: int
    vcpus: tuple[VCPU, ...]
    verdict: SchedulabilityVerdict


@attrs.frozen
class Placement:
    """The outcome of offering a host's VMs to first fit."""

    test: str
    vms: tuple[VMPlacement, ...]
    pcpus: tuple[PCPULoad, ...]

    @property
    def admitted(self) -> bool:
        """Whether every VM was admitted."""
        return all(vm.admitted for vm in self.vms)

    def of(self, name: str) -> VMPlacement:
        """The placement of the VM called *name*."""
        for placement in self.vms:
            if placement.vm.name == name:
                return placement
        raise KeyError(name)

    def as_json(self, options: SchedulerOptions, *, trials: Sequence[Trial] | None = None,
                counted_cost: int = 0) -> dict[str, Any]:
        """The placement as the documented JSON document (exact values as strings).

        *options* are the host's: its ``phases`` and its ``x_rule``, by which each
        pCPU's ``x_used`` is the factor of the scheduler's virtual deadlines (R2).
        ``switch_cost_ns`` is *counted_cost*, the cost of a context switch the admission
        that made the placement counted (0 for first fit's own, which counts none); when
        it is not 0, each pCPU's ``u_*`` are the sums of its inflated budgets (the ones
        decided), ``declared`` gives the sums of the budgets as declared, and
        ``switches`` each vCPU's switches a period ``n_i`` (:mod:`akita.model.overheads`).
        Each VM carries its declared ``phase_ns`` (``null``: the host's ``phases``,
        given at the top), and one with an IO quality its ``ioq_ns`` and the
        :attr:`~VMPlacement.cal_bound` admission gave it.  Under ``test = "exact"``
        (*trials* given) each pCPU also says which test ``decided`` it (``"edf-vd"``:
        the fast path) and the search's summary (``exact``, ``null`` on the fast path),
        and the document lists ``exact_trials``: every pCPU (placed or only tried by
        first fit) the search decided, with its answer, size and reason.
        """
        rule = options.x_rule
        document: dict[str, Any] = {
            "admitted": self.admitted,
            "test": self.test,
            "phases": options.phases,
            "x_rule": rule,
            "switch_cost_ns": counted_cost,
            "vms": [{"name": vm.vm.name, "admitted": vm.admitted, "placement": list(vm.pcpus),
                     "reason": vm.reason, "phase_ns": vm.vm.phase, **_ioq_json(vm)}
                    for vm in self.vms],
            "pcpus": [_pcpu_json(pcpu, rule) for pcpu in self.pcpus],
        }
        if counted_cost:
            for entry, pcpu in zip(document["pcpus"], self.pcpus):
                entry.update(_overhead_json(pcpu.vcpus, pcpu.verdict.detail))
        if trials is not None:
            for entry, pcpu in zip(document["pcpus"], self.pcpus):
                entry["decided"] = pcpu.verdict.test
                entry["exact"] = pcpu.verdict.detail
            document["exact_trials"] = [trial.as_json() for trial in trials]
        return document


def _pcpu_json(pcpu: PCPULoad, rule: str) -> dict[str, Any]:
    """A pCPU's vCPUs, its sums, its ``x`` and the ``x_used`` by its scheduler under *rule*."""
    verdict = pcpu.verdict
    return {
        "index": pcpu.index,
        "vcpus": [vcpu.name for vcpu in pcpu.vcpus],
        "u_lo_lo": str(verdict.sums.lo_lo),
        "u_hi_lo": str(verdict.sums.hi_lo),
        "u_hi_hi": str(verdict.sums.hi_hi),
        "x": None if verdict.x is None else str(verdict.x),
        "x_used": None if verdict.x is None else str(virtual_deadline_factor(verdict, rule)),
        "schedulable": verdict.schedulable,
    }


def _overhead_json(vcpus: Sequence[VCPU], detail: dict[str, Any] | None) -> dict[str, Any]:
    """A pCPU's declared sums and its vCPUs' switches a period, beside the inflated sums."""
    declared = UtilizationSums.of(vcpus)
    return {"declared": {"u_lo_lo": str(declared.lo_lo), "u_hi_lo": str(declared.hi_lo),
                         "u_hi_hi": str(declared.hi_hi)},
            "switches": dict((detail or {}).get("switches", {}))}


def _ioq_json(answer: VMPlacement) -> dict[str, Any]:
    """A VM's IO quality and its CAL bound as admission gave it (R14); nothing without an
    IOQ."""
    ioq = answer.vm.ioq
    if ioq is None:
        return {}
    bound = answer.cal_bound
    return {"ioq_ns": ioq, "cal_bound": None if bound is None else bound.as_json()}


class FirstFit:
    """An incremental first-fit picker over ``pcpus`` pCPUs.

    Offer VMs one at a time with :meth:`offer`; read the state with
    :meth:`placement`.  The cost of one offer is that of the pCPUs actually
    tested, each in O(1).

    :param test: a name from :data:`~.admission_tests.ADMISSION_TESTS` or an
        :class:`~.admission_tests.AdmissionTest`.  A custom test's capacity
        must be sound: exact (or an upper bound) for LO vCPUs and a necessary
        bound for HI ones, or first fit will skip pCPUs it should have tried.
    """

    def __init__(self, pcpus: int, test: str | AdmissionTest = "edf-vd") -> None:
        self._test = ADMISSION_TESTS[test] if isinstance(test, str) else test
        self._test_name = self._test.name
        self._sums = [UtilizationSums()] * pcpus
        self._vcpus: list[list[VCPU]] = [[] for _ in range(pcpus)]
        self._tree = SlackTree(pcpus)
        self._results: list[VMPlacement] = []
        #: the answers of the admitted VMs still placed, by name (latest last)
        self._placed: dict[str, list[VMPlacement]] = {}

    def offer(self, vm: VM, *, record: bool = True) -> VMPlacement:
        """Place every vCPU of *vm*, or none of them; record and return the answer.

        :param record: ``False`` keeps a rejection out of :meth:`placement`
            (an admitted VM is always recorded, so that it can be removed):
            for a caller that offers one VM to host after host.
        """
        placed: list[tuple[int, UtilizationSums]] = []  # (pCPU, its sums before)
        for vcpu in vm.all_vcpus():
            index = self._tree.first(*self._needs(vm), self._accepts(vcpu))
            if index is None:
                for where, before in reversed(placed):
                    self._set(where, before)
                result = VMPlacement(vm, (), self._reason(vcpu))
                if record:
                    self._results.append(result)
                return result
            placed.append((index, self._sums[index]))
            self._set(index, self._sums[index].plus(vcpu))
        for vcpu, (index, _) in zip(vm.all_vcpus(), placed):
            self._vcpus[index].append(vcpu)
        result = VMPlacement(vm, tuple(index for index, _ in placed), None)
        self._results.append(result)
        self._placed.setdefault(vm.name, []).append(result)
        return result

    def remove(self, name: str) -> VMPlacement:
        """Take the placed VM called *name* off its pCPUs, exactly; return its answer.

        Each of its vCPUs leaves its pCPU: the pCPU's sums lose exactly that
        vCPU (:meth:`~.utilization.UtilizationSums.minus`), its list of vCPUs
        keeps the others in their order, and its capacity is recomputed; the
        VM's answer leaves :meth:`placement`.

        Of two placed VMs of one name, the later is removed.

        :raises ModelError: if no VM of that name is placed.
        """
        answers = self._placed.get(name)
        if not answers:
            raise ModelError("name", name, "the name of a VM placed on this host")
        result = answers.pop()
        if not answers:
            del self._placed[name]
        for vcpu, index in zip(result.vm.all_vcpus(), result.pcpus):
            self._set(index, self._sums[index].minus(vcpu))
            self._vcpus[index].remove(vcpu)
        self._results.remove(result)
        return result

    def sums(self, index: int) -> UtilizationSums:
        """The exact sums of pCPU *index* as they stand."""
        return self._sums[index]

    def vcpus_on(self, index: int) -> int:
        """How many vCPUs pCPU *index* holds."""
        return len(self._vcpus[index])

    def placement(self) -> Placement:
        """The VMs offered so far (less those removed) and the pCPUs as they stand; under a
        test that holds IOQs (R14), each admitted VM with one keeps its CAL bound."""
        pcpus = tuple(
            PCPULoad(i, tuple(vcpus), self._test(sums))
            for i, (vcpus, sums) in enumerate(zip(self._vcpus, self._sums))
        )
        placement = Placement(self._test_name, tuple(self._results), pcpus)
        if isinstance(self._test, IOQTest):  # the bounds its test held (R14), kept
            return with_cal_bounds(placement, self._test.x_rule)
        return placement

    def _reason(self, vcpu: VCPU) -> str:
        """Why *vcpu* fits nowhere: the test's words, and an IOQ's (R14) when the CPU share
        fitted somewhere (:meth:`akita.model.ioq.IOQTest.why_not`)."""
        reason = rejection_reason(vcpu, self._test_name, len(self._sums))
        if isinstance(self._test, IOQTest):
            ioq = self._test.why_not([sums.plus(vcpu) for sums in self._sums])
            if ioq is not None:
                reason += f" with its IO quality: {ioq}"
        return reason

    @staticmethod
    def _needs(vm: VM) -> tuple[Fraction, Fraction]:
        """What a pCPU's (LO, HI) capacity must be at least to be worth testing."""
        return (Fraction(0), vm.u_pes) if vm.is_hi else (vm.u_opt, NO_ROOM)

    def _accepts(self, vcpu: VCPU) -> Callable[[int], bool]:
        def accepts(index: int) -> bool:
            return self._test(self._sums[index].plus(vcpu)).schedulable

        return accepts

    def _set(self, index: int, sums: UtilizationSums) -> None:
        self._sums[index] = sums
        capacity = self._test.capacity(sums)
        self._tree.set(index, capacity.lo, capacity.hi)


def rejection_reason(vcpu: VCPU, test_name: str, pcpus: int) -> str:
    """Why a VM was rejected: its vCPU *vcpu* passes *test_name* on none of *pcpus* pCPUs."""
    vm = vcpu.vm
    load = f"C_opt/T = {vm.u_opt}" + (f", C_pes/T = {vm.u_pes}" if vm.is_hi else "")
    if vcpu.index == 0:
        given_back = ""
    elif vcpu.index == 1:
        given_back = "; its 1 placed vCPU was taken back"
    else:
        given_back = f"; its {vcpu.index} placed vCPUs were taken back"
    what = (f"fails the {test_name} test on the host's only pCPU" if pcpus == 1
            else f"passes the {test_name} test on none of the {pcpus} pCPUs")
    return f"vCPU {vcpu.name} ({vm.criticality}, {load}) {what}{given_back}"


def first_fit(host: Host, vms: Iterable[VM] | None = None,
              test: AdmissionTest | None = None,
              on_offer: Callable[[int, VM], None] | None = None) -> Placement:
    """Offer *vms* (default: the host's, in order) to first fit on *host*, by *test*
    (default: the host's, for its options, :func:`~.admission_tests.admission_test`).

    When a VM offered declares an IO quality, the test also holds every IOQ
    (R14, :func:`akita.model.ioq.with_ioq`), unless it is an
    :class:`~akita.model.ioq.IOQTest` already; without one, it is the test alone.
    *on_offer*, if given, is told ``(index, vm)`` before each VM is offered (a progress
    bar's hook: an exact test can take minutes a VM); it does not change the placement.
    """
    offered = list(host.vms if vms is None else vms)
    chosen = test or admission_test(host.test, host.options)
    if any(vm.ioq is not None for vm in offered) and not isinstance(chosen, IOQTest):
        chosen = with_ioq(chosen, host.options.x_rule)
    picker = FirstFit(host.pcpus, chosen)
    for index, vm in enumerate(offered):
        if on_offer is not None:
            on_offer(index, vm)
        picker.offer(vm)
    return picker.placement()

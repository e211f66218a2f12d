"""The exact admission test, ``test = "exact"``: EDF-VD first, the exact search where it says no.

A pCPU passes iff (a) its LO-mode load ``U1 + U2 <= 1`` and ``U3 <= 1`` -- the
first so that every LO job of at most ``C_opt`` could be served in LO mode at
all, the second because it is necessary for the HI guarantee (over ``k``
hyperperiods the HI jobs of ``C_pes`` ask ``U3 k H`` ticks of the ``k H + max T``
the pCPU has before their deadlines) -- and (b) no behaviour in scope lets a HI
job miss under the Akita rules with the host's options:

* **fast path**: EDF-VD admits it (:func:`akita.model.edf_vd.edf_vd_test`;
  Baruah et al., ECRTS 2012, Thm. 1, with the scheduler's ``x`` by ``x_rule``,
  :func:`~akita.model.edf_vd.virtual_deadline_factor`) -- no search; the
  verdict is EDF-VD's (``test == "edf-vd"``), so ``akita admit`` shows which
  test decided.  Not taken when ``x_rule`` fixes an ``x`` (EDF-VD's theorem is
  for its own ``x``);
* **exact**: otherwise :func:`.search.decide` on the pCPU scaled to ticks
  (:func:`akita.model.smt.pcpu.tick_vcpus`: phases as the host gives them --
  declared, 0 under ``"synchronous"``, every phase under ``"seeded"``), with
  ``x`` by the host's ``x_rule`` (Eq. (4), Baruah's, or the fixed one).  SAFE
  admits, with the search's summary in the verdict's ``detail``; UNSAFE and
  UNKNOWN (a limit reached) reject, with the reason.  The search's rules are the
  tick model's (:mod:`akita.model.smt.pcpu`): on a host with ``wake_preempts =
  false`` or a ``context_switch_cost`` it is outside its scope, and a pCPU that
  EDF-VD does not admit is rejected with that reason.

The verdict of the exact branch carries the ``x`` it was decided for, and
:func:`~akita.model.edf_vd.virtual_deadline_factor` gives the scheduler that
``x``.  Answers are cached per scaled pCPU up to the names of its VMs and the
host's numbering (:func:`canonical`: the search reads names only to group a VM's
vCPUs, and host order only through the vCPUs' relative order), so first fit's
repeated questions, and pCPUs of the same VM types, cost one search each.

**Re-check.**  Given a *recheck* hook, a SAFE answer admits only if the hook, a
second algorithm that takes the search's reachable set alone, accepts it too
(``akita admit`` passes :func:`akita.proofs.exact_certificate.recheck`, which
steps every member of the set with the tick step); a certificate the hook does
not accept, or cannot finish checking, rejects the pCPU with its reason.  The
hook lives in :mod:`akita.proofs`, so the model does not import the proofs.

Capacity (for first fit's skipping, :class:`~akita.model.verdict.Capacity`):
by (a), a LO vCPU of ``C_opt/T = u`` fits only if ``u <= 1 - U1 - U2`` and a HI
one of ``C_pes/T = b`` only if ``b <= 1 - U3`` -- an upper bound on what the
test admits, as first fit requires of a capacity; and it is never below EDF-VD's
(:func:`~akita.model.edf_vd.edf_vd_capacity`), since every pCPU EDF-VD admits has
``U1 + U2 <= 1`` and ``U3 <= 1``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import attrs

from ..admission_tests import AdmissionTest
from ..edf_vd import edf_vd_test, virtual_deadline_factor
from ..options import SchedulerOptions, fixed_x
from ..smt.pcpu import TickPCPU, tick_vcpus
from ..utilization import UtilizationSums
from ..verdict import Capacity, SchedulabilityVerdict
from ..vm import VCPU
from .limits import DEFAULT_LIMITS, Limits
from .search import SAFE, Outcome, decide

__all__ = ["ExactTest", "Trial", "Recheck", "canonical", "certificate_json"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R11": ("ExactTest",),
}


#: ``recheck(pcpu, outcome) -> (accepted, why)``: an independent check of a SAFE answer.
Recheck = Callable[[TickPCPU, Outcome], tuple[bool, str]]



@attrs.frozen
class Trial:
    """One pCPU the exact branch decided: its vCPUs, the ``x`` and the search's outcome."""

    vcpus: tuple[str, ...]
    x: Fraction
    outcome: Outcome
    #: The re-check of a SAFE answer, ``(accepted, why)``; ``None``: not re-checked.
    certificate: tuple[bool, str] | None = None

    def as_json(self) -> dict[str, object]:
        return {"vcpus": list(self.vcpus), "x": str(self.x), **summary(self.outcome),
                "certificate": certificate_json(self.certificate)}


def certificate_json(certificate: tuple[bool, str] | None) -> dict[str, object] | None:
    """A re-check's answer for machines (``None``: not re-checked)."""
    return None if certificate is None else {"accepted": certificate[0],
                                             "reason": certificate[1]}


def summary(outcome: Outcome) -> dict[str, object]:
    """The JSON summary of a search (its certificate's size for SAFE).  The seconds the
    search took are left out, so the same host gives the same bytes (``bench/exact.py``
    measures them)."""
    out: dict[str, object] = {"answer": outcome.status, "states": outcome.states,
                 "transitions": outcome.transitions, "reason": outcome.reason}
    example = outcome.counterexample
    if example is not None:
        out["counterexample"] = {
            "instant_ticks": example.instant, "phases_ticks": list(example.phases),
            "demands_ticks": [[i, k, d] for (i, k), d in sorted(example.demand.items())],
            "missed": list(example.missed)}
    return out


class ExactTest:
    """The exact test bound to a host's scheduler options and the search's limits."""

    def __init__(self, options: SchedulerOptions = SchedulerOptions(),
                 limits: Limits = DEFAULT_LIMITS, recheck: Recheck | None = None) -> None:
        self.options, self.limits, self.recheck = options, limits, recheck
        self._outcomes: dict[TickPCPU, tuple[Outcome, tuple[bool, str] | None]] = {}
        #: Every pCPU the exact branch decided, in order (``akita admit --json``).
        self.trials: list[Trial] = []

    def admission_test(self) -> AdmissionTest:
        """This test as first fit takes it."""
        return AdmissionTest("exact", self.decide, self.capacity)

    def capacity(self, sums: UtilizationSums) -> Capacity:
        """The necessary bounds of the module docstring."""
        return Capacity(lo=1 - sums.lo_lo - sums.hi_lo, hi=1 - sums.hi_hi)

    def pcpu(self, vcpus: Sequence[VCPU], x: Fraction) -> TickPCPU:
        """The pCPU holding *vcpus* (in host order) in ticks, as the exact branch decides it."""
        return tick_vcpus(vcpus, self.options, x, "exact")

    def decide(self, sums: UtilizationSums) -> SchedulabilityVerdict:
        """Decide one pCPU (module docstring)."""
        u1, u2, u3 = sums.lo_lo, sums.hi_lo, sums.hi_hi
        if u1 + u2 > 1:
            return SchedulabilityVerdict("exact", False, sums, None,
                                         "U1 + U2 = {lo_mode} > 1: LO mode cannot serve it")
        if u3 > 1:
            return SchedulabilityVerdict("exact", False, sums, None,
                                         "U3 = {u3} > 1: the HI jobs at C_pes cannot all fit")
        rule = self.options.x_rule
        fast = edf_vd_test(sums)
        if fast.schedulable and fixed_x(rule) is None:
            return fast
        if not self.options.wake_preempts or self.options.context_switch_cost:
            return SchedulabilityVerdict(
                "exact", False, sums, None, "outside the exact search's scope: it needs "
                "wake_preempts = true and context_switch_cost = 0 (the tick model's)")
        vcpus = sums.vcpus
        if vcpus is None:
            return SchedulabilityVerdict("exact", False, sums, None,
                                         "the exact test needs the vCPUs, not only their sums")
        x = virtual_deadline_factor(fast, rule)
        if not any(v.vm.is_hi for v in vcpus):
            return SchedulabilityVerdict("exact", True, sums, x,
                                         "no HI vCPU: the HI guarantee binds no job")
        pcpu = self.pcpu(vcpus, x)
        key = canonical(pcpu)
        if key not in self._outcomes:
            self._outcomes[key] = self._search(pcpu)
            self.trials.append(Trial(tuple(v.name for v in vcpus), x, *self._outcomes[key]))
        outcome, certificate = self._outcomes[key]
        why = f"exact search, x = {x}: {outcome.status}, {outcome.reason}"
        if certificate is not None:
            why += f"; certificate {'accepted' if certificate[0] else 'NOT accepted'}: " \
                   f"{certificate[1]}"
        detail = {"decided_by": "exact", "x": str(x), "tick_ns": pcpu.tick, **summary(outcome),
                  "certificate": certificate_json(certificate)}
        admitted = outcome.status == SAFE and (certificate is None or certificate[0])
        return SchedulabilityVerdict("exact", admitted, sums, x, _escape(why), detail)

    def _search(self, pcpu: TickPCPU) -> tuple[Outcome, tuple[bool, str] | None]:
        """The search's outcome on *pcpu* and, for SAFE with a hook, its re-check."""
        outcome = decide(pcpu, self.limits)
        certificate = None if outcome.status != SAFE or self.recheck is None \
            else self.recheck(pcpu, outcome)
        # the reachable set has served (counterexample, re-check): the cache keeps the answer
        return attrs.evolve(outcome, reached=None), certificate


def canonical(pcpu: TickPCPU) -> TickPCPU:
    """*pcpu* with its VMs renamed ``0``, ``1``, ... in order of appearance and its vCPUs'
    host order replaced by their ranks: what the search's answer depends on."""
    groups: dict[str, int] = {}
    rank = {v.order: r for r, v in enumerate(sorted(pcpu.vcpus, key=lambda v: v.order))}
    vcpus = tuple(attrs.evolve(v, name=f"{groups.setdefault(v.name.split('/')[0], len(groups))}"
                                       f"/{k}", order=rank[v.order])
                  for k, v in enumerate(pcpu.vcpus))
    return attrs.evolve(pcpu, vcpus=vcpus)


def _escape(text: str) -> str:
    """*text* as a literal :meth:`str.format` template (a verdict's ``why``)."""
    return text.replace("{", "{{").replace("}", "}}")


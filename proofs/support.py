"""Support for the claims over utilization sums: time budgets, refutation, counterexamples.

A claim is proved by refutation: Z3 is asked for a model of its negation
(:func:`refute`); none (``unsat``) proves it, one is a counterexample, read
back in domain words.  Where the negation is stated over the sums
``(U1, U2, U3)`` of one pCPU (:func:`utilizations`), a rational
counterexample is also written out as concrete vCPUs (:func:`realize`,
:func:`describe_vms`) together with the reference test's verdict on them
(:func:`sums_counterexample`), so that it can be replayed.

Used by the claims about the EDF-VD test (:mod:`.edf_vd_formula`,
:mod:`.edf_vd_bounds`) and about first-fit packing
(:mod:`.packing_obligations`).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any, Callable

import z3

from akita.model import VM, Criticality, UtilizationSums, edf_vd_test, format_duration
from akita.model.smt.edf_vd import Sums, exact_value
from akita.model.smt.named import Constraints, solve

from .verdict import ProofVerdict

__all__ = [
    "MS",
    "Budget",
    "Counterexample",
    "describe_vms",
    "realize",
    "refute",
    "sums_counterexample",
    "utilizations",
]

#: One millisecond in nanoseconds.
MS = 1_000_000

#: A counterexample in domain words (a JSON-able dict).
Counterexample = dict[str, Any]


class Budget:
    """The seconds left of an obligation's timeout, shared by its solver calls."""

    def __init__(self, timeout: float) -> None:
        self.deadline = time.perf_counter() + timeout

    def left(self) -> float:
        return max(0.0, self.deadline - time.perf_counter())

    def spent(self) -> bool:
        return self.left() <= 0.0


def refute(
    constraints: Constraints,
    budget: Budget,
    counterexample: Callable[[z3.ModelRef], Counterexample],
    *,
    proved: str = "unsat",
    logic: str | None = "QF_NRA",
) -> ProofVerdict:
    """Ask Z3 for a model of *constraints* (a claim's negation) within *budget*.

    The verdict is ``proved`` with the reason *proved* when there is none
    (``unsat``), ``refuted`` with ``counterexample(model)`` when there is one,
    and ``unknown`` with Z3's reason otherwise.  *logic* picks Z3's solver:
    ``"QF_NRA"`` (the default: Booleans and nonlinear real arithmetic, where
    Z3's general solver proved erratic -- the same query took 0.3 s or timed
    out depending on what had run before), or ``None`` for the general
    solver of :func:`~akita.model.smt.named.solve` (needed with integers).
    """
    if budget.spent():
        return ProofVerdict.unknown("the obligation's timeout was spent before this query")
    answer = solve(constraints, timeout=budget.left(), logic=logic)
    if answer.status == "unsat":
        return ProofVerdict.proved(proved)
    if answer.status == "sat":
        return ProofVerdict.refuted(counterexample(answer.model), "Z3 found a counterexample")
    return ProofVerdict.unknown(f"Z3 answered unknown ({answer.reason})")


def utilizations(constraints: Constraints, *, realizable: bool) -> Sums:
    """Free real sums ``(U1, U2, U3)`` of one pCPU, ``>= 0``.

    With *realizable*, also ``U2 <= U3`` (each HI vCPU has ``C_opt <= C_pes``)
    and ``U3 > 0 -> U2 > 0`` (a HI vCPU has ``C_opt > 0``): exactly the sums
    that some set of vCPUs has.
    """
    u1, u2, u3 = z3.Reals("U1 U2 U3")
    constraints.add("U1 >= 0 (LO load at C_opt)", u1 >= 0)
    constraints.add("U2 >= 0 (HI load at C_opt)", u2 >= 0)
    constraints.add("U3 >= 0 (HI load at C_pes)", u3 >= 0)
    if realizable:
        constraints.add("U2 <= U3 (every HI vCPU has C_opt <= C_pes)", u2 <= u3)
        constraints.add(
            "U3 > 0 implies U2 > 0 (every HI vCPU has C_opt > 0)", z3.Implies(u3 > 0, u2 > 0)
        )
    return u1, u2, u3


def realize(u1: Fraction, u2: Fraction, u3: Fraction) -> list[VM]:
    """Single-vCPU VMs whose sums are exactly ``(U1, U2, U3)``, times in whole ms.

    ``ceil(U1)`` equal LO VMs ``lo0, lo1, ...`` share ``U1``; ``ceil(U3)``
    equal HI VMs ``hi0, ...`` share ``(U2, U3)``; all have one period, the
    least common multiple of the denominators, in ms.
    """
    parts: list[tuple[str, Fraction, Fraction | None]] = []
    if u1 > 0:
        k = math.ceil(u1)
        parts += [(f"lo{i}", u1 / k, None) for i in range(k)]
    if u3 > 0:
        k = math.ceil(u3)
        parts += [(f"hi{i}", u2 / k, u3 / k) for i in range(k)]
    period = math.lcm(*(u.denominator for _, a, b in parts for u in (a, b) if u is not None))
    return [
        VM(
            name,
            Criticality.LO if b is None else Criticality.HI,
            period * MS,
            int(a * period) * MS,
            None if b is None else int(b * period) * MS,
        )
        for name, a, b in parts
    ]


def describe_vms(vms: list[VM]) -> dict[str, dict[str, str]]:
    """Each VM's vCPU 0 by name, with its parameters as a host file writes them."""
    described = {}
    for vm in vms:
        fields = {"criticality": str(vm.criticality), "c_opt": format_duration(vm.c_opt)}
        if vm.c_pes is not None:
            fields["c_pes"] = format_duration(vm.c_pes)
        fields["period"] = format_duration(vm.period)
        described[vm.vcpu(0).name] = fields
    return described


def sums_counterexample(model: z3.ModelRef, sums: Sums, **terms: z3.ExprRef) -> Counterexample:
    """The sums in *model* (and *terms*, by name), and if they are rational and
    realizable, a task set that has them with the reference test's verdict on it."""
    found: Counterexample = {
        name: exact_value(model, term) for name, term in zip(("U1", "U2", "U3"), sums)
    }
    found.update({name: exact_value(model, term) for name, term in terms.items()})
    try:
        values = [Fraction(found[name]) for name in ("U1", "U2", "U3")]
    except ValueError:  # an irrational algebraic number: no task set has it
        return found
    if values[1] <= values[2] and (values[2] == 0 or values[1] > 0):
        vms = realize(*values)
        verdict = edf_vd_test(UtilizationSums.of(vm.vcpu(0) for vm in vms))
        found["vcpus"] = describe_vms(vms)
        found["reference"] = (
            "schedulable: " if verdict.schedulable else "not schedulable: "
        ) + verdict.reason
    return found

"""Proof obligations: the Z3 formula of the EDF-VD test is rule R11.

The Z3 formula of R11 (:mod:`akita.model.smt.edf_vd`) is shown equal to
the rule as written, for all sums and for the sums of 1 to 6 symbolic
vCPUs, and equal to the exact reference test
(:func:`akita.model.edf_vd.edf_vd_test`) on 520 fixed task sets, some of
them exactly at the boundary.

Each claim has a negative control: a wrong variant that the same check must
refute -- the rule without its guard, with strict inequalities, in floating
point.  Counterexamples are in domain words.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Callable

import z3

from akita.model import VM, Criticality, UtilizationSums, edf_vd_test
from akita.model.smt.edf_vd import (
    NO_X,
    Sums,
    SymbolicVCPU,
    Term,
    as_real,
    decide,
    exact_value,
    schedulable,
    schedulable_by_cases,
    symbolic_sums,
    x_of,
)
from akita.model.smt.named import Constraints

from .obligation import Declarations
from .support import (
    MS,
    Budget,
    Counterexample,
    describe_vms,
    refute,
    sums_counterexample,
    utilizations,
)
from .verdict import PROVED, ProofVerdict

__all__ = [
    "OBLIGATIONS",
    "MAX_PERIOD",
    "MAX_VCPUS",
    "TaskSet",
    "generated_sets",
    "check_edf_vd_z3_agrees_with_reference",
    "check_negative_control_no_guard",
    "check_edf_vd_z3_agrees_on_generated_sets",
    "check_negative_control_strict_boundary",
    "check_negative_control_float_boundary",
]

#: Largest period (in ms) of the symbolic and of the generated task sets.
MAX_PERIOD = 50
#: Most vCPUs on one pCPU in the symbolic and the generated task sets.
MAX_VCPUS = 6

declare = Declarations()

_SUMS = "all real U1, U2, U3 >= 0"
_SETS = "520 fixed task sets: 500 random (seed 0, 1-6 vCPUs, T 1..50 ms) + 20 with x*U1 + U3 = 1"
_R11 = ("R11",)


# --------------------------------------------------------------------------
# The Z3 formula is R11
# --------------------------------------------------------------------------


def _agreement(budget: Budget, formula: Callable[..., z3.BoolRef], what: str) -> ProofVerdict:
    """Is *formula* equal to R11 by cases on all sums >= 0 and on 1..6 symbolic vCPUs?"""
    constraints = Constraints()
    sums = utilizations(constraints, realizable=False)
    constraints.add(
        f"{what} disagrees with R11 by cases", formula(*sums) != schedulable_by_cases(*sums)
    )
    verdict = refute(constraints, budget, lambda m: sums_counterexample(m, sums))
    if verdict.verdict != PROVED:
        return verdict
    for n in range(1, MAX_VCPUS + 1):
        constraints = Constraints()
        vcpus = [SymbolicVCPU(f"vm{i}", integer=False) for i in range(n)]
        sums = symbolic_sums(vcpus, constraints, max_period=MAX_PERIOD)
        constraints.add(
            f"{what} disagrees with R11 by cases, or holds where x is undefined",
            z3.Or(
                formula(*sums) != schedulable_by_cases(*sums),
                z3.And(formula(*sums), x_of(*sums) == NO_X),
            ),
        )

        def counterexample(model: z3.ModelRef, vcpus: list[SymbolicVCPU] = vcpus,
                           sums: Sums = sums) -> Counterexample:
            found: Counterexample = {v.name: v.describe(model, "ms") for v in vcpus}
            found.update(sums_counterexample(model, sums))
            return found

        verdict = refute(constraints, budget, counterexample)
        if verdict.verdict != PROVED:
            return verdict
    return ProofVerdict.proved(
        f"unsat for all sums >= 0 and for n = 1..{MAX_VCPUS} vCPUs "
        f"with periods in [1, {MAX_PERIOD}]"
    )


@declare(scope=f"{_SUMS}; 1-6 symbolic vCPUs, either criticality, 1 <= C_opt <= C_pes <= T "
         "<= 50 (real parameters, so every integer choice too)", rules=_R11, timeout=60)
def check_edf_vd_z3_agrees_with_reference(timeout: float) -> ProofVerdict:
    """The division-free Z3 formula of R11 is R11. For all real U1, U2, U3 >= 0,
    "U1 + U3 <= 1 or (U1 < 1 and U2*U1 + U3*(1 - U1) <= 1 - U1)" holds exactly
    when R11's case split says schedulable: plain EDF if U1 + U3 <= 1; not
    schedulable if U1 >= 1; otherwise x*U1 + U3 <= 1 with x = U2/(1 - U1).
    The same holds for the sums of any 1 to 6 vCPUs of either criticality with
    1 <= C_opt <= C_pes <= T and 1 <= T <= 50, and where the formula says
    schedulable, x is defined. (Baruah et al., ECRTS 2012, Theorem 1; Akita
    paper, Eq. (4)-(6).)"""
    return _agreement(Budget(timeout), schedulable, "the division-free formula")


def _unguarded(u1: Term, u2: Term, u3: Term) -> z3.BoolRef:
    """R11 with x = U2/(1 - U1) and no U1 < 1 guard (wrong)."""
    u1, u2, u3 = as_real(u1), as_real(u2), as_real(u3)
    x = u2 / (1 - u1)
    return z3.Or(u1 + u3 <= 1, x * u1 + u3 <= 1)


def _said(model: z3.ModelRef, formula: z3.BoolRef) -> str:
    return "schedulable" if z3.is_true(model.eval(formula, True)) else "not schedulable"


@declare(scope="1-3 symbolic vCPUs, integer 1 <= C_opt <= C_pes <= T <= 50 ms",
         rules=("R1", "R11"), timeout=30, controls=("edf_vd_z3_agrees_with_reference",))
def check_negative_control_no_guard(timeout: float) -> ProofVerdict:
    """Negative control (false): R11 written without the U1 < 1 guard,
    "U1 + U3 <= 1 or x*U1 + U3 <= 1" with x = U2/(1 - U1), agrees with R11
    on 1 to 3 vCPUs with integer 1 <= C_opt <= C_pes <= T <= 50 (ms). It does
    not: at U1 = 1, Z3 gives U2/0 any value, and for U1 > 1, x is negative.
    (Baruah et al., ECRTS 2012, Theorem 1 states x only for U1 < 1.)"""
    budget = Budget(timeout)
    for n in range(1, 4):
        constraints = Constraints()
        vcpus = [SymbolicVCPU(f"vm{i}", integer=True) for i in range(n)]
        sums = symbolic_sums(vcpus, constraints, max_period=MAX_PERIOD)
        constraints.add(
            "the unguarded formula disagrees with R11", _unguarded(*sums) != schedulable(*sums)
        )

        def counterexample(model: z3.ModelRef, vcpus: list[SymbolicVCPU] = vcpus,
                           sums: Sums = sums) -> Counterexample:
            found: Counterexample = {v.name: v.describe(model, "ms") for v in vcpus}
            found.update({k: exact_value(model, s) for k, s in zip(("U1", "U2", "U3"), sums)})
            found["unguarded x = U2/(1 - U1)"] = exact_value(model, sums[1] / (1 - sums[0]))
            found["unguarded formula"] = _said(model, _unguarded(*sums))
            found["R11"] = _said(model, schedulable(*sums))
            return found

        verdict = refute(constraints, budget, counterexample, logic=None)
        if verdict.verdict != PROVED:
            return verdict
    return ProofVerdict.proved("the unguarded formula agrees with R11 on 1..3 vCPUs")


# --------------------------------------------------------------------------
# The Z3 formula agrees with the reference on concrete task sets
# --------------------------------------------------------------------------

#: A task set: single-vCPU VMs on one pCPU.
TaskSet = tuple[VM, ...]


def generated_sets(count: int = 500, boundary: int = 20) -> tuple[TaskSet, ...]:
    """The fixed task sets of ``edf_vd_z3_agrees_on_generated_sets``.

    *count* sets from ``random.Random(0)``: 1 to 6 single-vCPU VMs
    ``vm0, vm1, ...``, each LO or HI with probability 1/2, period ``T`` in
    1..50 ms, ``C_opt`` in ``1..max(1, 2T // (n + 1))`` ms and a HI
    ``C_pes`` in ``C_opt..max(C_opt, min(T, 2T // n))`` ms (budgets are
    scaled down with ``n`` so that about half the sets are schedulable).
    Then *boundary* sets from ``random.Random(1)`` with ``x*U1 + U3 = 1``
    exactly and ``U1 + U3 > 1``: 1 to 3 LO VMs and one HI VM ``hi`` whose
    ``C_pes`` makes the test hold with equality.
    """
    rng = random.Random(0)
    sets: list[TaskSet] = []
    for _ in range(count):
        n = rng.randint(1, MAX_VCPUS)
        vms = []
        for i in range(n):
            period = rng.randint(1, MAX_PERIOD)
            c_opt = rng.randint(1, max(1, 2 * period // (n + 1)))
            hi = rng.random() < 0.5
            c_pes = rng.randint(c_opt, max(c_opt, min(period, 2 * period // n))) if hi else None
            vms.append(_vm(f"vm{i}", period, c_opt, c_pes))
        sets.append(tuple(vms))
    rng = random.Random(1)
    found = 0
    while found < boundary:
        los = []
        for i in range(rng.randint(1, 3)):
            period = rng.randint(1, MAX_PERIOD)
            los.append(_vm(f"lo{i}", period, rng.randint(1, period), None))
        u1 = sum((vm.u_opt for vm in los), Fraction(0))
        period = rng.randint(1, MAX_PERIOD)
        c_opt = rng.randint(1, period)
        if u1 >= 1:
            continue
        exact = period - c_opt * u1 / (1 - u1)  # the C_pes with x*U1 + U3 = 1 exactly
        if exact.denominator != 1 or not c_opt <= exact <= period or u1 + exact / period <= 1:
            continue
        sets.append((*los, _vm("hi", period, c_opt, int(exact))))
        found += 1
    return tuple(sets)


def _vm(name: str, period: int, c_opt: int, c_pes: int | None) -> VM:
    criticality = Criticality.LO if c_pes is None else Criticality.HI
    return VM(name, criticality, period * MS, c_opt * MS, None if c_pes is None else c_pes * MS)


def _sums(task_set: TaskSet) -> UtilizationSums:
    return UtilizationSums.of(vm.vcpu(0) for vm in task_set)


#: ``decide(task_set) -> (schedulable, x or None)``: a way of deciding R11 on a set.
Decider = Callable[[TaskSet], tuple[bool, Fraction | None]]


def _compare_on_sets(budget: Budget, other: Decider, what: str) -> ProofVerdict:
    sets = generated_sets()
    for number, task_set in enumerate(sets):
        if budget.spent():
            return ProofVerdict.unknown(f"timeout after {number} of {len(sets)} sets")
        sums = _sums(task_set)
        reference = edf_vd_test(sums)
        verdict, x = other(task_set)
        if verdict != reference.schedulable or (x is not None and x != reference.x):
            return ProofVerdict.refuted(
                {
                    "set": number,
                    "vcpus": describe_vms(list(task_set)),
                    "U1": str(sums.lo_lo),
                    "U2": str(sums.hi_lo),
                    "U3": str(sums.hi_hi),
                    what: "schedulable" if verdict else "not schedulable",
                    what + " x": None if x is None else str(x),
                    "reference": ("schedulable: " if reference.schedulable else "not schedulable: ")
                    + reference.reason,
                },
                f"{what} and the reference disagree on set {number}",
            )
    return ProofVerdict.proved(
        f"{what} and the reference agree on all {len(sets)} sets, verdict and x"
    )


def _z3_on(task_set: TaskSet) -> tuple[bool, Fraction | None]:
    verdict, x = decide(_sums(task_set))
    return verdict, x


@declare(scope=_SETS, rules=_R11, timeout=60)
def check_edf_vd_z3_agrees_on_generated_sets(timeout: float) -> ProofVerdict:
    """On 520 fixed task sets (500 from random.Random(0): 1 to 6 vCPUs, periods
    1..50 ms; and 20 from random.Random(1) with x*U1 + U3 = 1 exactly), the Z3
    formula of R11, evaluated exactly on the set's sums, gives the same verdict
    as the reference edf_vd_test, and the Z3 term for x gives the
    reference's x (none where the reference has none). (Baruah et al., ECRTS
    2012, Theorem 1; Akita paper, Eq. (4)-(6).)"""
    return _compare_on_sets(Budget(timeout), _z3_on, "Z3")


def _strict_on(task_set: TaskSet) -> tuple[bool, None]:
    sums = _sums(task_set)
    u1, u2, u3 = as_real(sums.lo_lo), as_real(sums.hi_lo), as_real(sums.hi_hi)
    strict = z3.Or(u1 + u3 < 1, z3.And(u1 < 1, u2 * u1 + u3 * (1 - u1) < 1 - u1))
    return z3.is_true(z3.simplify(strict)), None


@declare(scope=_SETS, rules=_R11, timeout=60, controls=("edf_vd_z3_agrees_on_generated_sets",))
def check_negative_control_strict_boundary(timeout: float) -> ProofVerdict:
    """Negative control (false): R11 with strict inequalities (U1 + U3 < 1, or
    x*U1 + U3 < 1) agrees with the reference on the 520 sets of
    edf_vd_z3_agrees_on_generated_sets. It does not: the sets include some
    exactly at the boundary, which R11 admits. (Baruah et al., ECRTS 2012,
    Theorem 1, uses <=.)"""
    return _compare_on_sets(Budget(timeout), _strict_on, "strict R11")


def _float_on(task_set: TaskSet) -> tuple[bool, None]:
    u1 = sum(vm.c_opt / vm.period for vm in task_set if not vm.is_hi)
    u2 = sum(vm.c_opt / vm.period for vm in task_set if vm.is_hi)
    u3 = sum(vm.c_pes / vm.period for vm in task_set if vm.c_pes is not None)
    if u1 + u3 <= 1:
        return True, None
    if u1 >= 1:
        return False, None
    return u2 / (1 - u1) * u1 + u3 <= 1, None


@declare(scope=_SETS, rules=_R11, timeout=60, controls=("edf_vd_z3_agrees_on_generated_sets",))
def check_negative_control_float_boundary(timeout: float) -> ProofVerdict:
    """Negative control (false): R11 computed in floating point agrees with the
    reference on the 520 sets of edf_vd_z3_agrees_on_generated_sets. It
    does not: rounding misjudges some set with x*U1 + U3 = 1 exactly, so the
    sets do test exactness. (docs/admission.rst, exact arithmetic.)"""
    return _compare_on_sets(Budget(timeout), _float_on, "float R11")


OBLIGATIONS = declare.obligations

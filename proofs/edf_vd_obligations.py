"""Proof obligations about the EDF-VD test (rule R11).

The Z3 formula of R11 (:mod:`akita.model.smt.edf_vd`) is shown equal to
the rule as written and to the exact reference test
(:func:`akita.model.edf_vd.edf_vd_test`).  Then come the known facts about
EDF-VD that Akita relies on: the 3/4 utilization corollary of Baruah et al.
and its tightness, and the range of the virtual-deadline factor ``x``.

Each claim has a negative control: a wrong variant that the same check must
refute.  Counterexamples are in domain words.  Where a check searches over
the sums ``(U1, U2, U3)``, its negative control searches only sums that some
task set has (``U2 <= U3``, and ``U2 > 0`` when ``U3 > 0``).  A counterexample
found there is one for the wider claim too, and it is written out as
concrete vCPUs together with the reference test's verdict on them.
"""

from __future__ import annotations

import math
import random
import time
from fractions import Fraction
from typing import Callable

import z3

from akita.model import VM, Criticality, UtilizationSums, edf_vd_test, format_duration
from akita.model.smt.edf_vd import (
    NO_X,
    Sums,
    SymbolicVCPU,
    as_real,
    decide,
    exact_value,
    schedulable,
    schedulable_by_cases,
    symbolic_sums,
    x_of,
)
from akita.model.smt.named import Constraints, solve

from .obligation import Obligation
from .verdict import ProofVerdict

__all__ = [
    "OBLIGATIONS",
    "Budget",
    "describe_vms",
    "realize",
    "refute",
    "sums_counterexample",
    "utilizations",
    "verdict_of",
    "generated_sets",
    "check_edf_vd_z3_agrees_with_reference",
    "check_edf_vd_z3_agrees_on_generated_sets",
    "check_utilization_corollary",
    "check_utilization_bound_3_4_plus_1_100",
    "check_utilization_corollary_is_tight",
    "check_admitted_implies_x_at_most_1",
    "check_negative_control_no_guard",
    "check_negative_control_corollary_4_5",
    "check_negative_control_tightness_at_eps_0",
    "check_negative_control_x_below_9_10",
    "check_negative_control_strict_boundary",
    "check_negative_control_float_boundary",
]

_MS = 1_000_000

#: Largest period (in ms) of the symbolic and of the generated task sets.
MAX_PERIOD = 50
#: Most vCPUs on one pCPU in the symbolic and the generated task sets.
MAX_VCPUS = 6


# --------------------------------------------------------------------------
# Shared machinery (also used by :mod:`.packing_obligations`)
# --------------------------------------------------------------------------


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
    counterexample: Callable[[z3.ModelRef], dict],
    *,
    logic: str | None = "QF_NRA",
) -> tuple[str, dict | str | None]:
    """Ask Z3 for a model of *constraints* (a claim's negation).

    Returns ``("unsat", None)``, ``("sat", counterexample(model))`` or
    ``("unknown", Z3's reason)``.  *logic* picks Z3's solver for it:
    ``"QF_NRA"`` (the default: Booleans and nonlinear real arithmetic, where
    Z3's general solver proved erratic -- the same query took 0.3 s or timed
    out depending on what had run before), or ``None`` for the general
    solver of :func:`~akita.model.smt.named.solve` (needed with integers).
    """
    if budget.spent():
        return "unknown", "the obligation's timeout was spent before this query"
    answer = solve(constraints, timeout=budget.left(), logic=logic)
    if answer.status == "sat":
        return "sat", counterexample(answer.model)
    if answer.status == "unsat":
        return "unsat", None
    return "unknown", f"Z3 answered unknown ({answer.reason})"


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
            period * _MS,
            int(a * period) * _MS,
            None if b is None else int(b * period) * _MS,
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


def sums_counterexample(model: z3.ModelRef, sums: Sums, **terms: z3.ExprRef) -> dict:
    """The sums in *model* (and *terms*, by name), and if they are rational and
    realizable, a task set that has them with the reference test's verdict on it."""
    found: dict = {name: exact_value(model, term) for name, term in zip(("U1", "U2", "U3"), sums)}
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


def verdict_of(status: str, evidence, proved: str) -> ProofVerdict:
    """The verdict of a claim whose negation Z3 answered with *status* (see :func:`refute`)."""
    if status == "unsat":
        return ProofVerdict.proved(proved)
    if status == "sat":
        return ProofVerdict.refuted(evidence, "Z3 found a counterexample")
    return ProofVerdict.unknown(evidence)


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
    status, evidence = refute(constraints, budget, lambda m: sums_counterexample(m, sums))
    if status != "unsat":
        return verdict_of(status, evidence, "")
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

        def counterexample(model, vcpus=vcpus, sums=sums):
            found = {v.name: v.describe(model, "ms") for v in vcpus}
            found.update(sums_counterexample(model, sums))
            return found

        status, evidence = refute(constraints, budget, counterexample)
        if status != "unsat":
            return verdict_of(status, evidence, "")
    return ProofVerdict.proved(
        f"unsat for all sums >= 0 and for n = 1..{MAX_VCPUS} vCPUs "
        f"with periods in [1, {MAX_PERIOD}]"
    )


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


def _unguarded(u1, u2, u3) -> z3.BoolRef:
    """R11 with x = U2/(1 - U1) and no U1 < 1 guard (wrong)."""
    u1, u2, u3 = as_real(u1), as_real(u2), as_real(u3)
    x = u2 / (1 - u1)
    return z3.Or(u1 + u3 <= 1, x * u1 + u3 <= 1)


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

        def counterexample(model, vcpus=vcpus, sums=sums):
            found = {v.name: v.describe(model, "ms") for v in vcpus}
            found.update({k: exact_value(model, s) for k, s in zip(("U1", "U2", "U3"), sums)})
            found["unguarded x = U2/(1 - U1)"] = exact_value(model, sums[1] / (1 - sums[0]))
            found["unguarded formula"] = (
                "schedulable"
                if z3.is_true(model.eval(_unguarded(*sums), True))
                else "not schedulable"
            )
            found["R11"] = (
                "schedulable"
                if z3.is_true(model.eval(schedulable(*sums), True))
                else "not schedulable"
            )
            return found

        status, evidence = refute(constraints, budget, counterexample, logic=None)
        if status != "unsat":
            return verdict_of(status, evidence, "")
    return ProofVerdict.proved("the unguarded formula agrees with R11 on 1..3 vCPUs")


# --------------------------------------------------------------------------
# The Z3 formula agrees with the reference on concrete task sets
# --------------------------------------------------------------------------

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
        c_pes = period - c_opt * u1 / (1 - u1)  # x*U1 + U3 = 1 exactly
        if c_pes.denominator != 1 or not c_opt <= c_pes <= period or u1 + c_pes / period <= 1:
            continue
        sets.append((*los, _vm("hi", period, c_opt, int(c_pes))))
        found += 1
    return tuple(sets)


def _vm(name: str, period: int, c_opt: int, c_pes: int | None) -> VM:
    criticality = Criticality.LO if c_pes is None else Criticality.HI
    return VM(name, criticality, period * _MS, c_opt * _MS, None if c_pes is None else c_pes * _MS)


def _sums(task_set: TaskSet) -> UtilizationSums:
    return UtilizationSums.of(vm.vcpu(0) for vm in task_set)


def _compare_on_sets(
    budget: Budget, other: Callable[[TaskSet], tuple[bool, Fraction | None]], what: str
) -> ProofVerdict:
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
    u3 = sum(vm.c_pes / vm.period for vm in task_set if vm.is_hi)
    if u1 + u3 <= 1:
        return True, None
    if u1 >= 1:
        return False, None
    return u2 / (1 - u1) * u1 + u3 <= 1, None


def check_negative_control_float_boundary(timeout: float) -> ProofVerdict:
    """Negative control (false): R11 computed in floating point agrees with the
    reference on the 520 sets of edf_vd_z3_agrees_on_generated_sets. It
    does not: rounding misjudges some set with x*U1 + U3 = 1 exactly, so the
    sets do test exactness. (docs/admission.rst, exact arithmetic.)"""
    return _compare_on_sets(Budget(timeout), _float_on, "float R11")


# --------------------------------------------------------------------------
# The utilization corollary and its tightness
# --------------------------------------------------------------------------


def _corollary(budget: Budget, bound: Fraction, *, realizable: bool) -> ProofVerdict:
    constraints = Constraints()
    sums = utilizations(constraints, realizable=realizable)
    u1, u2, u3 = sums
    constraints.add(f"U1 + U2 <= {bound}", u1 + u2 <= as_real(bound))
    constraints.add(f"U3 <= {bound}", u3 <= as_real(bound))
    constraints.add("not schedulable", z3.Not(schedulable(*sums)))
    status, evidence = refute(
        constraints, budget, lambda m: sums_counterexample(m, sums, **{"U1 + U2": u1 + u2})
    )
    return verdict_of(
        status, evidence, f"unsat: no sums with max(U1 + U2, U3) <= {bound} fail the test"
    )


def check_utilization_corollary(timeout: float) -> ProofVerdict:
    """For all real U1, U2, U3 >= 0: if max(U1 + U2, U3) <= 3/4 then the pCPU
    passes the EDF-VD test. (Baruah et al., ECRTS 2012, the corollary of
    Theorem 1: a speedup bound of 4/3.)"""
    return _corollary(Budget(timeout), Fraction(3, 4), realizable=False)


def check_negative_control_corollary_4_5(timeout: float) -> ProofVerdict:
    """Negative control (false): for the sums of every task set, if
    max(U1 + U2, U3) <= 4/5 then the pCPU passes the EDF-VD test. The bound 3/4
    of Baruah et al. (ECRTS 2012) cannot be raised to 4/5."""
    return _corollary(Budget(timeout), Fraction(4, 5), realizable=True)


def check_utilization_bound_3_4_plus_1_100(timeout: float) -> ProofVerdict:
    """Tightness by counterexample (false, expected refuted): for the sums of
    every task set, if max(U1 + U2, U3) <= 3/4 + 1/100 then the pCPU passes the
    EDF-VD test. Its refutation is a task set just above the 3/4 bound of
    Baruah et al. (ECRTS 2012) that EDF-VD rejects."""
    return _corollary(Budget(timeout), Fraction(3, 4) + Fraction(1, 100), realizable=True)


def _tightness(budget: Budget, *, strict: bool) -> ProofVerdict:
    constraints = Constraints()
    eps = z3.Real("eps")
    constraints.add("eps > 0" if strict else "eps >= 0", eps > 0 if strict else eps >= 0)
    u1, u2, u3 = (
        as_real(Fraction(1, 2)),
        as_real(Fraction(1, 4)) + eps,
        as_real(Fraction(3, 4)) + eps,
    )
    largest = z3.If(u1 + u2 >= u3, u1 + u2, u3)
    witness = z3.And(largest == as_real(Fraction(3, 4)) + eps, z3.Not(schedulable(u1, u2, u3)))
    constraints.add("the witness (1/2, 1/4 + eps, 3/4 + eps) fails", z3.Not(witness))

    def counterexample(model):
        return sums_counterexample(model, (u1, u2, u3), eps=eps)

    status, evidence = refute(constraints, budget, counterexample)
    return verdict_of(
        status, evidence, "unsat: for no eps does the witness pass the test or miss max = 3/4 + eps"
    )


def check_utilization_corollary_is_tight(timeout: float) -> ProofVerdict:
    """The bound 3/4 is tight: for every real eps > 0, the sums U1 = 1/2,
    U2 = 1/4 + eps, U3 = 3/4 + eps have max(U1 + U2, U3) = 3/4 + eps and fail
    the EDF-VD test. For eps <= 1/4 they are the sums of a real task set.
    (Baruah et al., ECRTS 2012: the speedup bound 4/3 is tight for EDF-VD.)"""
    return _tightness(Budget(timeout), strict=True)


def check_negative_control_tightness_at_eps_0(timeout: float) -> ProofVerdict:
    """Negative control (false): the tightness witness U1 = 1/2,
    U2 = 1/4 + eps, U3 = 3/4 + eps fails the EDF-VD test for every eps >= 0.
    At eps = 0 it passes (with equality), as the 3/4 corollary of Baruah et al.
    (ECRTS 2012) says it must."""
    return _tightness(Budget(timeout), strict=False)


# --------------------------------------------------------------------------
# The range of x
# --------------------------------------------------------------------------


def _x_range(budget: Budget, bound: Fraction) -> ProofVerdict:
    constraints = Constraints()
    sums = utilizations(constraints, realizable=True)
    u1, _, u3 = sums
    x = x_of(*sums)
    constraints.add("schedulable", schedulable(*sums))
    claim = z3.And(
        x != NO_X,
        z3.Implies(u1 + u3 <= 1, x == 1),
        z3.Implies(u1 + u3 > 1, z3.And(0 < x, x < as_real(bound))),
    )
    constraints.add(f"x is not 1 (plain EDF) nor in (0, {bound}) (EDF-VD)", z3.Not(claim))
    status, evidence = refute(constraints, budget, lambda m: sums_counterexample(m, sums, x=x))
    return verdict_of(
        status,
        evidence,
        f"unsat: no passing sums with x outside {{1}} (plain EDF) and (0, {bound}) (EDF-VD)",
    )


def check_admitted_implies_x_at_most_1(timeout: float) -> ProofVerdict:
    """For the sums of every task set (U1, U2, U3 >= 0, U2 <= U3, U2 > 0 when
    U3 > 0): if the pCPU passes the EDF-VD test then x is defined and
    0 < x <= 1; x = 1 when U1 + U3 <= 1, and 0 < x < 1 otherwise, so a virtual
    deadline release + x*T never lies after the real one. (Baruah et al.,
    ECRTS 2012, Theorem 1; Akita paper, Eq. (5).)"""
    return _x_range(Budget(timeout), Fraction(1))


def check_negative_control_x_below_9_10(timeout: float) -> ProofVerdict:
    """Negative control (false): for the sums of every task set that passes
    the EDF-VD test with U1 + U3 > 1, x < 9/10. x comes arbitrarily close to 1
    (Baruah et al., ECRTS 2012, Theorem 1)."""
    return _x_range(Budget(timeout), Fraction(9, 10))


# --------------------------------------------------------------------------
# The manifest entries
# --------------------------------------------------------------------------

_SUMS = "all real U1, U2, U3 >= 0"
_TASK_SUMS = "sums of task sets: U1, U2, U3 >= 0, U2 <= U3, U3 > 0 -> U2 > 0"
_SETS = "520 fixed task sets: 500 random (seed 0, 1-6 vCPUs, T 1..50 ms) + 20 with x*U1 + U3 = 1"

OBLIGATIONS = [
    Obligation(
        "edf_vd_z3_agrees_with_reference",
        check_edf_vd_z3_agrees_with_reference,
        f"{_SUMS}; 1-6 symbolic vCPUs, either criticality, 1 <= C_opt <= C_pes <= T <= 50 "
        "(real parameters, so every integer choice too)",
        timeout=60,
    ),
    Obligation(
        "negative_control_no_guard",
        check_negative_control_no_guard,
        "1-3 symbolic vCPUs, integer 1 <= C_opt <= C_pes <= T <= 50 ms",
        expected="refuted",
        timeout=30,
    ),
    Obligation(
        "edf_vd_z3_agrees_on_generated_sets",
        check_edf_vd_z3_agrees_on_generated_sets,
        _SETS,
        timeout=60,
    ),
    Obligation(
        "negative_control_strict_boundary",
        check_negative_control_strict_boundary,
        _SETS,
        expected="refuted",
        timeout=60,
    ),
    Obligation(
        "negative_control_float_boundary",
        check_negative_control_float_boundary,
        _SETS,
        expected="refuted",
        timeout=60,
    ),
    Obligation("utilization_corollary", check_utilization_corollary, _SUMS, timeout=30),
    Obligation(
        "negative_control_corollary_4_5",
        check_negative_control_corollary_4_5,
        _TASK_SUMS,
        expected="refuted",
        timeout=30,
    ),
    Obligation(
        "utilization_bound_3_4_plus_1_100_fails",
        check_utilization_bound_3_4_plus_1_100,
        _TASK_SUMS,
        expected="refuted",
        timeout=30,
    ),
    Obligation(
        "utilization_corollary_is_tight",
        check_utilization_corollary_is_tight,
        "every real eps > 0, one witness per eps",
        timeout=30,
    ),
    Obligation(
        "negative_control_tightness_at_eps_0",
        check_negative_control_tightness_at_eps_0,
        "every real eps >= 0, one witness per eps",
        expected="refuted",
        timeout=30,
    ),
    Obligation(
        "admitted_implies_x_at_most_1", check_admitted_implies_x_at_most_1, _TASK_SUMS, timeout=30
    ),
    Obligation(
        "negative_control_x_below_9_10",
        check_negative_control_x_below_9_10,
        _TASK_SUMS,
        expected="refuted",
        timeout=30,
    ),
]

#: The rules each obligation checks (see the manifest).
RULES = {o.name: ("R11",) for o in OBLIGATIONS} | {"negative_control_no_guard": ("R1", "R11")}

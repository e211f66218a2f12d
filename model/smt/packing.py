"""First-fit packing (rule R12) and the optimal packing, in Z3.

First fit is split into its two halves, so that each can be reasoned about
on its own:

* the **choice** (:func:`first_fit_choice`): given whether each pCPU would
  still pass the test with the vCPU added (``fits[j]``), the vCPU goes to the
  lowest ``j`` that fits, or is rejected if none does.  This half is pure
  propositional logic.
* the **update** (:func:`place`): a pCPU's sums grow by the vCPU's load if
  the vCPU was placed there, and stay as they were otherwise.

:func:`first_fit_step` composes them for one offered vCPU over ``m`` pCPUs,
:func:`first_fit` unrolls the steps for a sequence of vCPUs.  The test a
step applies is a parameter (``fits(pcpu, load) -> BoolRef``, by default
:func:`fits_with` = "the pCPU with the vCPU added passes EDF-VD"), so that a
deliberately wrong picker can be checked by the same proofs.

:func:`optimal_packing` asks ``z3.Optimize`` for the fewest pCPUs on which
concrete vCPUs can be placed with every pCPU passing the EDF-VD test.  The
test's products ``U2*U1`` and ``U3*U1`` are linearised exactly: with
``b_i`` "vCPU i is on this pCPU", ``U2*U1 = sum_{i,k} [b_i and b_k] * u2_k *
u1_i``, a sum of constants switched by Booleans, so the problem stays in
linear arithmetic, where ``Optimize`` is exact.

Loads are ``(U1, U2, U3)`` contributions: a LO vCPU adds ``(C_opt/T, 0, 0)``,
a HI vCPU ``(0, C_opt/T, C_pes/T)``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import attrs
import z3

from ..utilization import UtilizationSums
from ..vm import VCPU
from .edf_vd import Sums, as_real, evaluate, exact_value, loads_of, schedulable
from . import resources
from .named import Constraints, solve, unknown_reason

__all__ = [
    "EMPTY",
    "Fits",
    "OptimalPacking",
    "Step",
    "SymbolicLoad",
    "add",
    "first_fit",
    "first_fit_choice",
    "first_fit_step",
    "fits_with",
    "load_of",
    "optimal_packing",
    "pcpu_schedulable",
    "place",
    "realizable",
]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R12": ("first_fit", "first_fit_step"),
}

#: The sums of an empty pCPU.
EMPTY: Sums = (z3.RealVal(0), z3.RealVal(0), z3.RealVal(0))

#: ``fits(pcpu_sums, load) -> BoolRef``: the test first fit applies to one pCPU.
Fits = Callable[[Sums, Sums], z3.BoolRef]


def add(pcpu: Sums, load: Sums) -> Sums:
    """The sums of *pcpu* with *load* added."""
    return pcpu[0] + load[0], pcpu[1] + load[1], pcpu[2] + load[2]


def fits_with(pcpu: Sums, load: Sums) -> z3.BoolRef:
    """R12's test: the pCPU *with the vCPU added* passes EDF-VD."""
    return schedulable(*add(pcpu, load))


def realizable(sums: Sums) -> z3.BoolRef:
    """``U1, U2 >= 0``, ``U2 <= U3``, ``U3 > 0 -> U2 > 0``: the sums some set of vCPUs has."""
    u1, u2, u3 = sums
    return z3.And(u1 >= 0, u2 >= 0, u2 <= u3, z3.Implies(u3 > 0, u2 > 0))


def load_of(vcpu: VCPU) -> Sums:
    """A concrete vCPU's load as exact Z3 constants."""
    sums = UtilizationSums().plus(vcpu)
    return as_real(sums.lo_lo), as_real(sums.hi_lo), as_real(sums.hi_hi)


@attrs.frozen
class SymbolicLoad:
    """A vCPU with symbolic utilizations ``"v0.is_hi"``, ``"v0.u_opt"``, ``"v0.u_pes"``.

    Real utilizations ``0 < C_opt/T <= C_pes/T <= 1`` contain every integer
    choice of budgets and periods, and every grid of them.
    """

    name: str
    is_hi: z3.BoolRef = attrs.field(init=False)
    u_opt: z3.ArithRef = attrs.field(init=False)
    u_pes: z3.ArithRef = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "is_hi", z3.Bool(f"{self.name}.is_hi"))
        object.__setattr__(self, "u_opt", z3.Real(f"{self.name}.u_opt"))
        object.__setattr__(self, "u_pes", z3.Real(f"{self.name}.u_pes"))

    def constrain(self, constraints: Constraints) -> None:
        """Add R1 for this vCPU: ``0 < u_opt <= 1``; HI: ``u_opt <= u_pes <= 1``."""
        n = self.name
        constraints.add(f"{n}: 0 < C_opt/T <= 1", z3.And(0 < self.u_opt, self.u_opt <= 1))
        constraints.add(
            f"{n}: a HI vCPU has C_opt/T <= C_pes/T <= 1",
            z3.Implies(self.is_hi, z3.And(self.u_opt <= self.u_pes, self.u_pes <= 1)),
        )
        constraints.add(
            f"{n}: a LO vCPU has no C_pes (pinned to C_opt)",
            z3.Implies(z3.Not(self.is_hi), self.u_pes == self.u_opt),
        )

    def loads(self) -> Sums:
        """What the vCPU adds to ``(U1, U2, U3)``."""
        return loads_of(self.is_hi, self.u_opt, self.u_pes)

    def describe(self, model: z3.ModelRef) -> dict[str, str]:
        hi = z3.is_true(model.eval(self.is_hi, model_completion=True))
        described = {"criticality": "HI" if hi else "LO", "C_opt/T": exact_value(model, self.u_opt)}
        if hi:
            described["C_pes/T"] = exact_value(model, self.u_pes)
        return described


def first_fit_choice(fits: Sequence[z3.BoolRef]) -> tuple[list[z3.BoolRef], z3.BoolRef]:
    """R12's choice: ``placed[j]`` iff pCPU ``j`` fits and no lower one does; and ``rejected``."""
    placed = [z3.And(fit, *[z3.Not(lower) for lower in fits[:j]]) for j, fit in enumerate(fits)]
    return placed, z3.Not(z3.Or(*fits)) if fits else z3.BoolVal(True)


def place(pcpu: Sums, load: Sums, placed: z3.BoolRef) -> Sums:
    """One pCPU's sums after the step: grown by *load* if the vCPU was *placed* on it."""
    grown = add(pcpu, load)
    return tuple(z3.If(placed, grown[k], pcpu[k]) for k in range(3))


@attrs.frozen
class Step:
    """One offered vCPU: the test on each pCPU, where it went, and the sums after."""

    fits: list[z3.BoolRef]
    placed: list[z3.BoolRef]
    rejected: z3.BoolRef
    after: list[Sums]


def first_fit_step(pcpus: Sequence[Sums], load: Sums, fits: Fits = fits_with) -> Step:
    """Offer one vCPU of *load* to first fit on *pcpus*."""
    tests = [fits(pcpu, load) for pcpu in pcpus]
    placed, rejected = first_fit_choice(tests)
    return Step(tests, placed, rejected, [place(p, load, b) for p, b in zip(pcpus, placed)])


def first_fit(
    loads: Sequence[Sums], pcpus: int, fits: Fits = fits_with, *, simplify: bool = False
) -> list[Step]:
    """Offer *loads* in order to first fit on *pcpus* empty pCPUs; one :class:`Step` each.

    With *simplify* (for ground loads), each step's terms are simplified to
    constants, so that the run stays small.
    """
    state: list[Sums] = [EMPTY] * pcpus
    steps = []
    for load in loads:
        step = first_fit_step(state, load, fits)
        if simplify:
            step = Step(
                [z3.simplify(f) for f in step.fits],
                [z3.simplify(p) for p in step.placed],
                z3.simplify(step.rejected),
                [tuple(z3.simplify(u) for u in s) for s in step.after],
            )
        steps.append(step)
        state = step.after
    return steps


def pcpu_schedulable(
    members: Sequence[tuple[z3.BoolRef, tuple[Fraction, Fraction, Fraction]]],
) -> z3.BoolRef:
    """The EDF-VD test of a pCPU holding the concrete vCPUs whose Boolean is true, in
    linear arithmetic: each product of sums is expanded into Boolean-switched constants."""

    def total(k: int) -> z3.ArithRef:
        return z3.Sum(
            [z3.If(b, as_real(load[k]), 0) for b, load in members if load[k]] or [z3.RealVal(0)]
        )

    def product(p: int, q: int) -> z3.ArithRef:
        terms = [
            z3.If(z3.And(bi, bk), as_real(li[p] * lk[q]), 0)
            for bi, li in members
            for bk, lk in members
            if li[p] * lk[q]
        ]
        return z3.Sum(terms or [z3.RealVal(0)])

    u1, u3 = total(0), total(2)
    u2u1, u3u1 = product(1, 0), product(2, 0)
    return z3.Or(u1 + u3 <= 1, z3.And(u1 < 1, u2u1 + u3 - u3u1 <= 1 - u1))


@attrs.frozen
class OptimalPacking:
    """Z3's answer: the fewest pCPUs and a placement on them, or why there is none.

    :param status: ``"optimal"`` (Z3 also found no packing on fewer pCPUs:
        unsat) or ``"unknown"``.
    :param pcpus: the number of pCPUs used (``None`` if unknown).
    :param assignment: the pCPU of each vCPU, in the order given.
    :param reason: Z3's reason when unknown.
    """

    status: str
    pcpus: int | None = None
    assignment: tuple[int, ...] = ()
    reason: str | None = None


def optimal_packing(vcpus: Sequence[VCPU], *, timeout: float) -> OptimalPacking:
    """The fewest pCPUs that can hold *vcpus*, each pCPU passing EDF-VD (``z3.Optimize``).

    ``"v{i}.on.p{j}"`` is "vCPU *i* is on pCPU *j*"; vCPU *i* may use only
    pCPUs ``0..i`` (any packing can be renumbered so, which removes symmetric
    solutions); there are as many pCPUs as vCPUs, so a packing always exists.
    """
    n = len(vcpus)
    if n == 0:
        return OptimalPacking("optimal", 0, ())
    loads = []
    for vcpu in vcpus:
        sums = UtilizationSums().plus(vcpu)
        loads.append((sums.lo_lo, sums.hi_lo, sums.hi_hi))
    on = [[z3.Bool(f"v{i}.on.p{j}") for j in range(n)] for i in range(n)]
    constraints = Constraints()
    for i in range(n):
        constraints.add(
            f"v{i} is on exactly one pCPU", z3.PbEq([(on[i][j], 1) for j in range(n)], 1)
        )
        for j in range(i + 1, n):
            constraints.add(f"v{i} is on no pCPU above {i} (symmetry)", z3.Not(on[i][j]))
    used = []
    for j in range(n):
        members = [(on[i][j], loads[i]) for i in range(n)]
        constraints.add(f"p{j} passes EDF-VD", pcpu_schedulable(members))
        used.append(z3.Or(*[on[i][j] for i in range(n)]))
    optimize = z3.Optimize()
    optimize.set("timeout", max(1, int(timeout * 1000)))
    for _, formula in constraints.items:
        optimize.add(formula)
    count = z3.Sum([z3.If(u, 1, 0) for u in used])
    optimize.minimize(count)
    result = resources.check(optimize)
    if result != z3.sat:
        return OptimalPacking("unknown", reason=unknown_reason(optimize))
    model = optimize.model()
    assignment = tuple(
        next(j for j in range(n) if z3.is_true(model.eval(on[i][j], model_completion=True)))
        for i in range(n)
    )
    best = int(evaluate(model.eval(count, model_completion=True)))
    # Optimality, checked on its own: no packing on fewer pCPUs (unsat).
    constraints.add(f"at most {best - 1} pCPUs used", count <= best - 1)
    fewer = solve(constraints, timeout=timeout)
    if fewer.status != "unsat":
        why = fewer.reason if fewer.status == "unknown" else "Z3 found a packing on fewer pCPUs"
        return OptimalPacking("unknown", reason=f"optimality of {best} not confirmed: {why}")
    return OptimalPacking("optimal", best, assignment)

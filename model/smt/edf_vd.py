"""The EDF-VD test (rule R11) over symbolic rationals, in Z3.

Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela, van der Ster and
Stougie, "The Preemptive Uniprocessor Scheduling of Mixed-Criticality
Implicit-Deadline Sporadic Task Systems", ECRTS 2012, Theorem 1; the Akita
paper's Eq. (4)-(6).  :mod:`akita.model.edf_vd` decides the same rule on
exact fractions; this module states it as a Z3 formula so that claims about
*every* pCPU can be proved.

Z3 reads ``a / 0`` as an unconstrained value, so a formula that divides by
``1 - U1`` without the guard ``U1 < 1`` says nothing sensible at ``U1 = 1``
(and a negative ``x`` for ``U1 > 1``).  :func:`schedulable` therefore does
not divide at all: for ``U1 < 1``, ``x * U1 + U3 <= 1`` with
``x = U2 / (1 - U1)`` is, multiplied by ``1 - U1 > 0``,
``U2 * U1 + U3 * (1 - U1) <= 1 - U1``.  So a pCPU is schedulable iff

    ``U1 + U3 <= 1``  or  ``(U1 < 1  and  U2 * U1 + U3 * (1 - U1) <= 1 - U1)``.

:func:`schedulable_by_cases` writes R11 as its case split, with the division
and its guard; the proof obligation ``edf_vd_z3_agrees_with_reference``
shows the two equal.  :func:`x_of` is the virtual-deadline factor as an
``If`` term, with :data:`NO_X` where R11 defines none.

The sums ``(U1, U2, U3)`` may be any real terms, rational constants
(:class:`~fractions.Fraction`), or built from per-vCPU symbolic parameters
with :class:`SymbolicVCPU` and :func:`symbolic_sums`, whose Z3 variables
carry domain names (``"vm3.c_opt"``, ``"vm3.period"``, ``"vm3.is_hi"``).
Every constraint is added to a :class:`~.named.Constraints` under a name.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence, Union

import attrs
import z3

from ..criticality import Criticality
from ..utilization import UtilizationSums
from .named import Constraints

__all__ = [
    "NO_X",
    "Sums",
    "SymbolicVCPU",
    "as_real",
    "concrete_sums",
    "decide",
    "evaluate",
    "exact_value",
    "loads_of",
    "schedulable",
    "schedulable_by_cases",
    "symbolic_sums",
    "x_of",
]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R1": ("SymbolicVCPU.constrain",),
    "R11": ("schedulable", "x_of"),
}

#: A utilization: a Z3 real (or integer) term, or an exact constant.
Term = Union[z3.ArithRef, Fraction, int]

#: ``(U1, U2, U3)`` as Z3 real terms.
Sums = tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]

#: The value of :func:`x_of` where R11 defines no ``x`` (``U1 >= 1`` and
#: ``U1 + U3 > 1``); every defined ``x`` is ``>= 0``, so it cannot be confused.
NO_X = -1


def as_real(value: Term) -> z3.ArithRef:
    """*value* as a Z3 real term: a rational constant exactly, an integer term via ``ToReal``."""
    if isinstance(value, z3.ArithRef):
        return z3.ToReal(value) if value.is_int() else value
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise TypeError(f"expected a Z3 arithmetic term, an int or a Fraction, got {value!r}")
    value = Fraction(value)
    return z3.RatVal(value.numerator, value.denominator)


def schedulable(u1: Term, u2: Term, u3: Term) -> z3.BoolRef:
    """R11 without division: ``U1 + U3 <= 1 or (U1 < 1 and U2*U1 + U3*(1 - U1) <= 1 - U1)``."""
    u1, u2, u3 = as_real(u1), as_real(u2), as_real(u3)
    return z3.Or(u1 + u3 <= 1, z3.And(u1 < 1, u2 * u1 + u3 * (1 - u1) <= 1 - u1))


def schedulable_by_cases(u1: Term, u2: Term, u3: Term) -> z3.BoolRef:
    """R11 as the rule states it: plain EDF if ``U1 + U3 <= 1``; else no if ``U1 >= 1``;
    else ``x * U1 + U3 <= 1`` with ``x = U2 / (1 - U1)`` (read only where ``U1 < 1``)."""
    u1, u2, u3 = as_real(u1), as_real(u2), as_real(u3)
    x = u2 / (1 - u1)
    return z3.If(
        u1 + u3 <= 1, z3.BoolVal(True), z3.If(u1 >= 1, z3.BoolVal(False), x * u1 + u3 <= 1)
    )


def x_of(u1: Term, u2: Term, u3: Term) -> z3.ArithRef:
    """The virtual-deadline factor: ``1`` if ``U1 + U3 <= 1``, else ``U2 / (1 - U1)`` if
    ``U1 < 1``, else :data:`NO_X` (the reference's ``None``)."""
    u1, u2, u3 = as_real(u1), as_real(u2), as_real(u3)
    return z3.If(u1 + u3 <= 1, z3.RealVal(1), z3.If(u1 < 1, u2 / (1 - u1), z3.RealVal(NO_X)))


def loads_of(is_hi: z3.BoolRef, u_opt: Term, u_pes: Term) -> Sums:
    """What a vCPU of (symbolic) criticality adds to ``(U1, U2, U3)`` (paper Eq. 1-3)."""
    zero = z3.RealVal(0)
    return (z3.If(is_hi, zero, u_opt), z3.If(is_hi, u_opt, zero), z3.If(is_hi, u_pes, zero))


def concrete_sums(sums: UtilizationSums) -> Sums:
    """The exact sums of :class:`~akita.model.utilization.UtilizationSums` as Z3 constants."""
    return as_real(sums.lo_lo), as_real(sums.hi_lo), as_real(sums.hi_hi)


def evaluate(formula: z3.ExprRef) -> bool | Fraction:
    """A ground formula or term, simplified to a Python ``bool`` or exact ``Fraction``.

    :raises ValueError: if *formula* still has free variables.
    """
    value = z3.simplify(formula)
    if z3.is_true(value):
        return True
    if z3.is_false(value):
        return False
    if z3.is_rational_value(value) or z3.is_int_value(value):
        return _fraction(value)
    raise ValueError(f"not a ground formula: {formula} simplifies to {value}")


def decide(sums: UtilizationSums) -> tuple[bool, Fraction | None]:
    """:func:`schedulable` and :func:`x_of` evaluated on exact sums (``None`` for :data:`NO_X`)."""
    terms = concrete_sums(sums)
    verdict = evaluate(schedulable(*terms))
    x = evaluate(x_of(*terms))
    if isinstance(x, bool):  # pragma: no cover - x_of is a term, never a formula
        raise TypeError(f"x_of evaluated to a truth value: {x}")
    return bool(verdict), None if x == NO_X else x


def exact_value(model: z3.ModelRef, term: z3.ExprRef) -> str:
    """The value of *term* in *model*, exactly: ``"true"``, ``"7"``, ``"3/4"``.

    An irrational algebraic number (possible in nonlinear real arithmetic) is
    written as Z3's exact ``root-obj`` expression, never as a float.
    """
    value = model.eval(term, model_completion=True)
    if z3.is_true(value):
        return "true"
    if z3.is_false(value):
        return "false"
    if z3.is_int_value(value) or z3.is_rational_value(value):
        return str(_fraction(value))
    if z3.is_algebraic_value(value):
        root: str = value.sexpr()  # z3 is untyped
        return root
    raise ValueError(f"{term} has no value in the model: {value}")


def _fraction(value: z3.ExprRef) -> Fraction:
    if z3.is_int_value(value):
        return Fraction(value.as_long())
    numerator, denominator = value.as_fraction().numerator, value.as_fraction().denominator
    return Fraction(numerator, denominator)


@attrs.frozen
class SymbolicVCPU:
    """One vCPU with symbolic parameters, named in domain words.

    :param name: the vCPU's name (``"vm3"``); its variables are
        ``"vm3.is_hi"``, ``"vm3.c_opt"``, ``"vm3.c_pes"``, ``"vm3.period"``
        and its utilizations ``"vm3.u_opt"``, ``"vm3.u_pes"``.
    :param integer: integer (``True``) or real parameters.  Real parameters
        in the same bounds contain every integer choice, so a claim proved
        for them holds for the integer ones too.

    A LO vCPU has no pessimistic budget (R1); its ``c_pes`` is pinned to its
    ``c_opt`` and does not count in any sum.
    """

    name: str
    integer: bool = True
    is_hi: z3.BoolRef = attrs.field(init=False)
    c_opt: z3.ArithRef = attrs.field(init=False)
    c_pes: z3.ArithRef = attrs.field(init=False)
    period: z3.ArithRef = attrs.field(init=False)
    u_opt: z3.ArithRef = attrs.field(init=False)
    u_pes: z3.ArithRef = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        number = z3.Int if self.integer else z3.Real
        fields = {
            "is_hi": z3.Bool(f"{self.name}.is_hi"),
            "c_opt": number(f"{self.name}.c_opt"),
            "c_pes": number(f"{self.name}.c_pes"),
            "period": number(f"{self.name}.period"),
            "u_opt": z3.Real(f"{self.name}.u_opt"),
            "u_pes": z3.Real(f"{self.name}.u_pes"),
        }
        for field, value in fields.items():
            object.__setattr__(self, field, value)

    def constrain(self, constraints: Constraints, max_period: int) -> None:
        """Add R1 for this vCPU with ``1 <= period <= max_period``, and define its utilizations."""
        n, t = self.name, as_real(self.period)
        constraints.add(
            f"{n}: 1 <= period <= {max_period}", z3.And(1 <= self.period, self.period <= max_period)
        )
        constraints.add(
            f"{n}: 1 <= c_opt <= period", z3.And(1 <= self.c_opt, self.c_opt <= self.period)
        )
        constraints.add(
            f"{n}: a HI vCPU has c_opt <= c_pes <= period",
            z3.Implies(self.is_hi, z3.And(self.c_opt <= self.c_pes, self.c_pes <= self.period)),
        )
        constraints.add(
            f"{n}: a LO vCPU has no c_pes (pinned to c_opt)",
            z3.Implies(z3.Not(self.is_hi), self.c_pes == self.c_opt),
        )
        # period >= 1, so u * period = c defines u = c / period uniquely, without a division.
        constraints.add(f"{n}: u_opt = c_opt / period", self.u_opt * t == as_real(self.c_opt))
        constraints.add(f"{n}: u_pes = c_pes / period", self.u_pes * t == as_real(self.c_pes))

    def loads(self) -> Sums:
        """What the vCPU adds to ``(U1, U2, U3)``."""
        return loads_of(self.is_hi, self.u_opt, self.u_pes)

    def describe(self, model: z3.ModelRef, unit: str = "") -> dict[str, str]:
        """The vCPU's parameters in *model*, in words (exact values, *unit* appended)."""
        hi = z3.is_true(model.eval(self.is_hi, model_completion=True))
        described = {
            "criticality": str(Criticality.HI if hi else Criticality.LO),
            "c_opt": exact_value(model, self.c_opt) + unit,
        }
        if hi:
            described["c_pes"] = exact_value(model, self.c_pes) + unit
        described["period"] = exact_value(model, self.period) + unit
        return described


def symbolic_sums(
    vcpus: Sequence[SymbolicVCPU], constraints: Constraints, *, max_period: int, prefix: str = ""
) -> Sums:
    """Constrain *vcpus* (R1, periods ``1..max_period``) and return ``(U1, U2, U3)`` of them
    on one pCPU as the real variables ``"{prefix}U1"``, ``"{prefix}U2"``, ``"{prefix}U3"``."""
    for vcpu in vcpus:
        vcpu.constrain(constraints, max_period)
    sums = z3.Reals(f"{prefix}U1 {prefix}U2 {prefix}U3")
    loads = [vcpu.loads() for vcpu in vcpus]
    for k, (total, what) in enumerate(
        zip(sums, ("C_opt/T over LO vCPUs", "C_opt/T over HI vCPUs", "C_pes/T over HI vCPUs"))
    ):
        terms = [load[k] for load in loads]
        constraints.add(
            f"{prefix}U{k + 1} = sum of {what}", total == (z3.Sum(terms) if terms else 0)
        )
    return sums[0], sums[1], sums[2]

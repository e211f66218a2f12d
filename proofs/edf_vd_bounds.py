"""Proof obligations: the utilization bound of the EDF-VD test and the range of ``x``.

The known facts about EDF-VD (rule R11) that Akita relies on: the 3/4
utilization corollary of Baruah et al. and its tightness, and the range of
the virtual-deadline factor ``x``.

Each claim has a negative control: a wrong variant that the same check must
refute.  Where a check searches over the sums ``(U1, U2, U3)``, its negative
control searches only sums that some task set has (``U2 <= U3``, and
``U2 > 0`` when ``U3 > 0``).  A counterexample found there is one for the
wider claim too, and it is written out as concrete vCPUs together with the
reference test's verdict on them (:func:`.support.sums_counterexample`).
"""

from __future__ import annotations

from fractions import Fraction

import z3

from akita.model.smt.edf_vd import NO_X, as_real, schedulable, x_of
from akita.model.smt.named import Constraints

from .obligation import Declarations
from .support import Budget, Counterexample, refute, sums_counterexample, utilizations
from .verdict import ProofVerdict

__all__ = [
    "OBLIGATIONS",
    "check_utilization_corollary",
    "check_negative_control_corollary_4_5",
    "check_utilization_bound_3_4_plus_1_100",
    "check_utilization_corollary_is_tight",
    "check_negative_control_tightness_at_eps_0",
    "check_admitted_implies_x_at_most_1",
    "check_negative_control_x_below_9_10",
]

declare = Declarations()

_SUMS = "all real U1, U2, U3 >= 0"
_TASK_SUMS = "sums of task sets: U1, U2, U3 >= 0, U2 <= U3, U3 > 0 -> U2 > 0"
_R11 = ("R11",)


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
    return refute(
        constraints,
        budget,
        lambda m: sums_counterexample(m, sums, **{"U1 + U2": u1 + u2}),
        proved=f"unsat: no sums with max(U1 + U2, U3) <= {bound} fail the test",
    )


@declare(scope=_SUMS, rules=_R11, timeout=30)
def check_utilization_corollary(timeout: float) -> ProofVerdict:
    """For all real U1, U2, U3 >= 0: if max(U1 + U2, U3) <= 3/4 then the pCPU
    passes the EDF-VD test. (Baruah et al., ECRTS 2012, the corollary of
    Theorem 1: a speedup bound of 4/3.)"""
    return _corollary(Budget(timeout), Fraction(3, 4), realizable=False)


@declare(scope=_TASK_SUMS, rules=_R11, timeout=30, controls=("utilization_corollary",))
def check_negative_control_corollary_4_5(timeout: float) -> ProofVerdict:
    """Negative control (false): for the sums of every task set, if
    max(U1 + U2, U3) <= 4/5 then the pCPU passes the EDF-VD test. The bound 3/4
    of Baruah et al. (ECRTS 2012) cannot be raised to 4/5."""
    return _corollary(Budget(timeout), Fraction(4, 5), realizable=True)


@declare(scope=_TASK_SUMS, rules=_R11, timeout=30, controls=("utilization_corollary",),
         name="utilization_bound_3_4_plus_1_100_fails")
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

    def counterexample(model: z3.ModelRef) -> Counterexample:
        return sums_counterexample(model, (u1, u2, u3), eps=eps)

    return refute(
        constraints,
        budget,
        counterexample,
        proved="unsat: for no eps does the witness pass the test or miss max = 3/4 + eps",
    )


@declare(scope="every real eps > 0, one witness per eps", rules=_R11, timeout=30)
def check_utilization_corollary_is_tight(timeout: float) -> ProofVerdict:
    """The bound 3/4 is tight: for every real eps > 0, the sums U1 = 1/2,
    U2 = 1/4 + eps, U3 = 3/4 + eps have max(U1 + U2, U3) = 3/4 + eps and fail
    the EDF-VD test. For eps <= 1/4 they are the sums of a real task set.
    (Baruah et al., ECRTS 2012: the speedup bound 4/3 is tight for EDF-VD.)"""
    return _tightness(Budget(timeout), strict=True)


@declare(scope="every real eps >= 0, one witness per eps", rules=_R11, timeout=30,
         controls=("utilization_corollary_is_tight",))
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
    return refute(
        constraints,
        budget,
        lambda m: sums_counterexample(m, sums, x=x),
        proved=f"unsat: no passing sums with x outside {{1}} (plain EDF) and (0, {bound}) (EDF-VD)",
    )


@declare(scope=_TASK_SUMS, rules=_R11, timeout=30)
def check_admitted_implies_x_at_most_1(timeout: float) -> ProofVerdict:
    """For the sums of every task set (U1, U2, U3 >= 0, U2 <= U3, U2 > 0 when
    U3 > 0): if the pCPU passes the EDF-VD test then x is defined and
    0 < x <= 1; x = 1 when U1 + U3 <= 1, and 0 < x < 1 otherwise, so a virtual
    deadline release + x*T never lies after the real one. (Baruah et al.,
    ECRTS 2012, Theorem 1; Akita paper, Eq. (5).)"""
    return _x_range(Budget(timeout), Fraction(1))


@declare(scope=_TASK_SUMS, rules=_R11, timeout=30, controls=("admitted_implies_x_at_most_1",))
def check_negative_control_x_below_9_10(timeout: float) -> ProofVerdict:
    """Negative control (false): for the sums of every task set that passes
    the EDF-VD test with U1 + U3 > 1, x < 9/10. x comes arbitrarily close to 1
    (Baruah et al., ECRTS 2012, Theorem 1)."""
    return _x_range(Budget(timeout), Fraction(9, 10))


OBLIGATIONS = declare.obligations

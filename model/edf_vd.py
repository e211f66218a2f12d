"""The exact EDF-VD schedulability test (rule R11).

Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela, van der Ster and
Stougie, "The Preemptive Uniprocessor Scheduling of Mixed-Criticality
Implicit-Deadline Sporadic Task Systems", ECRTS 2012, Theorem 1; used by the
Akita paper as Eq. (4) and condition (6):

* if ``U1 + U3 <= 1`` the pCPU is schedulable by plain EDF and ``x = 1``;
* otherwise, if ``U1 < 1``, let ``x = U2 / (1 - U1)``; the pCPU is
  schedulable iff ``x * U1 + U3 <= 1``;
* otherwise (``U1 >= 1``, and so ``U1 + U3 > 1``) it is not schedulable,
  and no ``x`` is defined.  The denominator ``1 - U1`` is never zero where
  it is used.

HI vCPUs then run with virtual deadlines ``release + x * T`` in LO mode.
Arithmetic is exact (:class:`~fractions.Fraction`): the boundary
``x * U1 + U3 == 1`` is decided correctly, where floating point is not.
"""

from __future__ import annotations

from fractions import Fraction

from .options import fixed_x
from .utilization import UtilizationSums
from .verdict import Capacity, SchedulabilityVerdict

__all__ = ["edf_vd_test", "edf_vd_capacity", "virtual_deadline_factor"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R11": ("edf_vd_test",),
    "R2": ("virtual_deadline_factor",),
}

_ONE = Fraction(1)


def edf_vd_test(sums: UtilizationSums) -> SchedulabilityVerdict:
    """Decide one pCPU with EDF-VD; see the module docstring for the rule."""
    u1, u2, u3 = sums.lo_lo, sums.hi_lo, sums.hi_hi
    if u1 + u3 <= 1:
        return SchedulabilityVerdict(
            "edf-vd", True, sums, _ONE, "U1 + U3 = {u1} + {u3} <= 1: plain EDF suffices, x = 1"
        )
    if u1 >= 1:
        return SchedulabilityVerdict(
            "edf-vd", False, sums, None, "U1 + U3 = {u1} + {u3} > 1 and U1 >= 1: no x exists"
        )
    x = u2 / (1 - u1)
    if x * u1 + u3 <= 1:
        return SchedulabilityVerdict(
            "edf-vd", True, sums, x, "x = U2/(1 - U1) = {x}, x*U1 + U3 = {demand} <= 1"
        )
    return SchedulabilityVerdict(
        "edf-vd", False, sums, x, "x = U2/(1 - U1) = {x}, x*U1 + U3 = {demand} > 1"
    )


def virtual_deadline_factor(verdict: SchedulabilityVerdict, rule: str) -> Fraction:
    """The ``x`` a pCPU's scheduler uses for its virtual deadlines (R2), by *rule*.

    * ``"baruah"``: the verdict's own ``x`` -- EDF-VD's ``1`` when
      ``U1 + U3 <= 1`` (plain EDF suffices), else ``U2 / (1 - U1)``.
    * ``"eq4"``: the Akita paper's Eq. (4), ``x = U2 / (1 - U1)`` whenever
      the verdict is EDF-VD's and ``U1 < 1`` -- also when ``U1 + U3 <= 1``.
      A schedulable pCPU stays safe: ``U2 / (1 - U1) <= 1`` there (as
      ``U1 + U2 <= U1 + U3 <= 1``), so ``x U1 + U3 <= U1 + U3 <= 1``, the
      condition EDF-VD's proof needs.  With no HI vCPU, ``x = 0`` and scales
      nothing.

    A verdict without ``x`` (fixed priority) or of another test (plain EDF
    has ``x = 1``; the exact test's is the ``x`` it decided for) keeps its own,
    ``1`` where it has none.  A fixed rule ``"p/q"``
    (:func:`akita.model.options.fixed_x`) is that ``x`` whatever the verdict.
    """
    fixed = fixed_x(rule)
    if fixed is not None:
        return fixed
    if verdict.x is None:
        return _ONE
    u1 = verdict.sums.lo_lo
    if rule == "eq4" and verdict.test == "edf-vd" and u1 < 1:
        return verdict.sums.hi_lo / (1 - u1)
    return verdict.x


def edf_vd_capacity(sums: UtilizationSums) -> Capacity:
    """How much more a schedulable pCPU can take under EDF-VD.

    Adding a LO vCPU of utilization ``u`` keeps both branches of the test
    linear in ``u``: ``U1 + u + U3 <= 1``, or ``x' (U1 + u) + U3 <= 1`` with
    ``x' = U2 / (1 - U1 - u)``, i.e. ``u (1 + U2 - U3) <= (1 - U3)(1 - U1) -
    U2 U1``.  So the pCPU takes exactly the LO vCPUs with
    ``u <= max(1 - U1 - U3, ((1 - U3)(1 - U1) - U1 U2) / (1 + U2 - U3))``.

    Adding a HI vCPU ``(a, b) = (C_opt/T, C_pes/T)`` is linear too:
    ``U1 + U3 + b <= 1``, or ``a k + b <= 1 - U3 - U2 k`` with
    ``k = U1 / (1 - U1)``.  As ``a k >= 0``, ``b <= max(1 - U1 - U3,
    1 - U3 - U2 k)`` is necessary; it is the HI bound given.
    """
    u1, u2, u3 = sums.lo_lo, sums.hi_lo, sums.hi_hi
    plain = 1 - u1 - u3
    if u1 >= 1 or u3 > 1:
        return Capacity(lo=min(plain, Fraction(0)), hi=min(plain, Fraction(0)))
    slope = 1 + u2 - u3  # > 0: U3 <= 1, and U3 = 1 needs HI load, so U2 > 0
    lo = max(plain, ((1 - u3) * (1 - u1) - u1 * u2) / slope) if slope > 0 else plain
    k = u1 / (1 - u1)
    return Capacity(lo=lo, hi=max(plain, 1 - u3 - u2 * k))

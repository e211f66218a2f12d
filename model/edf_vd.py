"""The exact EDF-VD schedulability test (rule R11).

Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela, van der Ster and
Stougie, "The Preemptive Uniprocessor Scheduling of Mixed-Criticality
Implicit-Deadline Sporadic Task Systems", ECRTS 2012, Theorem 1; used by the
Akita paper as Eq. (4) and condition (6):

* if ``U1 + U3 <= 1`` the pCPU is schedulable by plain EDF and ``x = 1``;
* otherwise, if ``U1 < 1``, let ``x = U2 / (1 - U1)``; the pCPU is
  schedulable iff ``x * U1 + U3 <= 1``;
* otherwise (``U1 >= 1`` with HI load present) it is not schedulable, and no
  ``x`` is defined.  The denominator ``1 - U1`` is never zero where it is
  used.

HI vCPUs then run with virtual deadlines ``release + x * T`` in LO mode.
Arithmetic is exact (:class:`~fractions.Fraction`): the boundary
``x * U1 + U3 == 1`` is decided correctly, where floating point is not.
"""

from __future__ import annotations

from fractions import Fraction

from .utilization import UtilizationSums
from .verdict import SchedulabilityVerdict

__all__ = ["edf_vd_test"]

_ONE = Fraction(1)


def edf_vd_test(sums: UtilizationSums) -> SchedulabilityVerdict:
    """Decide one pCPU with EDF-VD; see the module docstring for the rule."""
    u1, u2, u3 = sums.lo_lo, sums.hi_lo, sums.hi_hi
    if u1 + u3 <= 1:
        return SchedulabilityVerdict(
            "edf-vd", True, sums, _ONE, f"U1 + U3 = {u1} + {u3} <= 1: plain EDF suffices, x = 1"
        )
    if u1 >= 1:
        return SchedulabilityVerdict(
            "edf-vd", False, sums, None, f"U1 = {u1} >= 1 with HI load U3 = {u3} > 0"
        )
    x = u2 / (1 - u1)
    demand = x * u1 + u3
    if demand <= 1:
        return SchedulabilityVerdict(
            "edf-vd", True, sums, x, f"x = U2/(1 - U1) = {x}, x*U1 + U3 = {demand} <= 1"
        )
    return SchedulabilityVerdict(
        "edf-vd", False, sums, x, f"x = U2/(1 - U1) = {x}, x*U1 + U3 = {demand} > 1"
    )

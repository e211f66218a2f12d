"""The plain EDF utilization test: the paper's "less conservative" option.

The Akita paper (Section 3.4) lets a provider trade the EDF-VD guarantee for
density: "a cloud provider can take a less conservative schedulability test
(e.g., EDF schedulability test)".  We read that test as the two classic EDF
utilization bounds (Liu and Layland 1973), one per mode, with no virtual
deadlines (``x = 1``):

* ``U1 + U2 <= 1``: in LO mode every vCPU receives its ``C_opt`` each period;
* ``U3 <= 1``: once a pCPU has been in HI mode long enough that only HI work
  is pending, every HI vCPU receives its ``C_pes`` each period.

What it does **not** guarantee: a HI job that is released before a mode
switch may miss its deadline *across* the switch, because LO work admitted
on optimistic budgets may already have taken the time that the HI vCPU's
pessimistic budget needs.  EDF-VD's virtual deadlines exist to prevent
exactly that carry-over; this test accepts sets where it happens.  Every set
EDF-VD accepts, this test accepts too.
"""

from __future__ import annotations

from fractions import Fraction

from .utilization import UtilizationSums
from .verdict import Capacity, SchedulabilityVerdict

__all__ = ["edf_test", "edf_capacity"]

_ONE = Fraction(1)


def edf_test(sums: UtilizationSums) -> SchedulabilityVerdict:
    """Decide one pCPU with the per-mode EDF utilization bounds."""
    lo_mode, u3 = sums.lo_mode, sums.hi_hi
    if lo_mode > 1:
        return SchedulabilityVerdict(
            "edf", False, sums, _ONE, "LO mode: U1 + U2 = {lo_mode} > 1"
        )
    if u3 > 1:
        return SchedulabilityVerdict("edf", False, sums, _ONE, "HI mode: U3 = {u3} > 1")
    return SchedulabilityVerdict(
        "edf", True, sums, _ONE, "U1 + U2 = {lo_mode} <= 1 and U3 = {u3} <= 1, x = 1"
    )


def edf_capacity(sums: UtilizationSums) -> Capacity:
    """How much more a pCPU can take: a LO vCPU of ``u`` fits iff
    ``u <= 1 - U1 - U2`` (when ``U3 <= 1``); a HI vCPU ``(a, b)`` needs
    ``b <= 1 - U3`` (and ``a <= 1 - U1 - U2``)."""
    lo = 1 - sums.lo_mode if sums.hi_hi <= 1 else min(1 - sums.lo_mode, Fraction(0))
    return Capacity(lo=lo, hi=1 - sums.hi_hi)

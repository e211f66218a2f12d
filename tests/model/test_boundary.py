"""Task sets right at the EDF-VD boundary, where floating point misjudges.

The first group was found by a random search over small integer periods
(1-3 LO and 1-2 HI vCPUs) for sets whose exact ``x*U1 + U3`` is exactly 1
(schedulable) but whose float evaluation exceeds 1 (a float implementation
would reject them).  The last case was built by hand with the extended
Euclidean algorithm: two HI vCPUs with coprime periods near 1 s make
``x*U1 + U3 = 1 + 1/((10^9+7)(10^9+9))``, which is not schedulable, but
rounds to exactly ``1.0`` in floating point (a float implementation would
admit it: the dangerous direction).
"""

from fractions import Fraction as F

import pytest

from akita.model import edf_vd_test
from boundary import EXACTLY_ONE, MS, sums

pytestmark = pytest.mark.rule("R11")



def float_edf_vd(los, his):
    """What a float implementation of R11 would say (for contrast only)."""
    u1 = sum(c / t for c, t in los)
    u2 = sum(co / t for co, _, t in his)
    u3 = sum(cp / t for _, cp, t in his)
    if u1 + u3 <= 1:
        return True
    if u1 >= 1:
        return False
    return u2 / (1 - u1) * u1 + u3 <= 1


@pytest.mark.parametrize("los, his", EXACTLY_ONE)
def test_exactly_one_is_schedulable(los, his):
    s = sums(los, his, MS)
    v = edf_vd_test(s)
    assert s.lo_lo + s.hi_hi > 1  # the x branch decides
    assert v.x * s.lo_lo + s.hi_hi == 1
    assert v.schedulable
    assert not float_edf_vd(los, his)  # why the case is kept: floats get it wrong


def test_one_plus_an_attosecond_fraction_is_not_schedulable():
    t1, t2 = 10**9 + 7, 10**9 + 9
    los = [(50 * MS, 100 * MS)]
    his = [(100_000_000, 400_000_004, t1), (100_000_000, 400_000_004, t2)]
    s = sums(los, his, 1)
    v = edf_vd_test(s)
    assert v.x * s.lo_lo + s.hi_hi == 1 + F(1, t1 * t2)
    assert not v.schedulable
    assert float_edf_vd(los, his)  # a float implementation would admit it

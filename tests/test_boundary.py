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

from akita.model import VM, Criticality, UtilizationSums, edf_vd_test

pytestmark = pytest.mark.rule("R11")

MS = 1_000_000


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


def sums(los, his, scale):
    vcpus = [VM(f"lo{i}", Criticality.LO, t * scale, c * scale).vcpu(0) for i, (c, t) in enumerate(los)]
    vcpus += [
        VM(f"hi{i}", Criticality.HI, t * scale, co * scale, cp * scale).vcpu(0)
        for i, (co, cp, t) in enumerate(his)
    ]
    return UtilizationSums.of(vcpus)


EXACTLY_ONE = [  # (LO (C, T) in ms, HI (C_opt, C_pes, T) in ms)
    ([(36, 40)], [(1, 2, 11)]),
    ([(2, 10), (14, 30)], [(2, 6, 10)]),
    ([(8, 10)], [(1, 5, 9)]),
    ([(90, 100)], [(2, 12, 30)]),
    ([(24, 30)], [(9, 14, 50)]),
    ([(22, 25), (1, 50)], [(1, 4, 13)]),
    ([(8, 13)], [(5, 17, 25)]),
    ([(48, 100), (8, 25)], [(7, 12, 40)]),
    ([(13, 20)], [(2, 2, 10), (2, 7, 25)]),
    ([(2, 10), (8, 20), (3, 50)], [(1, 3, 7), (1, 1, 10)]),
    ([(3, 7), (26, 70)], [(4, 14, 50), (2, 8, 40)]),
]


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

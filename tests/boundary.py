"""Task sets at the EDF-VD boundary (``x*U1 + U3`` exactly 1), shared by the admission
tests (``tests/model/test_boundary.py``) and the Z3 ones (``tests/model/smt/``)."""

from akita.model import VM, Criticality, UtilizationSums

MS = 1_000_000


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

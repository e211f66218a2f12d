"""The admission tests a host may name, all with one shape.

Following SchedCAT, a test is a pure function of a pCPU's utilization sums,
``decide(UtilizationSums) -> SchedulabilityVerdict``, so the CPU picker
takes the test as a parameter.  Each test also says how much more a pCPU can
take (:class:`~.verdict.Capacity`): exactly, for a LO vCPU, and as a
necessary bound on ``C_pes/T``, for a HI vCPU.  The first-fit picker uses
the capacity only to skip pCPUs; the verdict alone decides.
"""

from __future__ import annotations

from typing import Callable

import attrs

from .edf import edf_capacity, edf_test
from .edf_vd import edf_vd_capacity, edf_vd_test
from .utilization import UtilizationSums
from .verdict import Capacity, SchedulabilityVerdict

__all__ = ["AdmissionTest", "ADMISSION_TESTS", "DEFAULT_TEST"]


#: The shape of a test's decision function.
Decide = Callable[[UtilizationSums], SchedulabilityVerdict]


@attrs.frozen
class AdmissionTest:
    """A named schedulability test; calling it decides one pCPU.

    :param name: as written in ``host.test``.
    :param decide: ``UtilizationSums -> SchedulabilityVerdict``.
    :param capacity: ``UtilizationSums -> Capacity`` for a schedulable pCPU.
    """

    name: str
    decide: Callable[[UtilizationSums], SchedulabilityVerdict]
    capacity: Callable[[UtilizationSums], Capacity]

    def __call__(self, sums: UtilizationSums) -> SchedulabilityVerdict:
        return self.decide(sums)


#: Test name (as written in ``host.test``) -> test.
ADMISSION_TESTS: dict[str, AdmissionTest] = {
    "edf-vd": AdmissionTest("edf-vd", edf_vd_test, edf_vd_capacity),
    "edf": AdmissionTest("edf", edf_test, edf_capacity),
}

#: The test a host uses when its file names none (R11).
DEFAULT_TEST = "edf-vd"

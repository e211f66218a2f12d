"""The admission tests a host may name, all with one signature.

Following SchedCAT, every test is a pure function
``(UtilizationSums) -> SchedulabilityVerdict``, so the CPU picker takes the
test as a parameter.  Each test registered here is *no more permissive* than
the two per-mode utilization bounds ``U1 + U2 <= 1`` and ``U3 <= 1``; the
first-fit picker relies on that to skip full pCPUs without testing them.
"""

from __future__ import annotations

from typing import Callable

from .edf import edf_test
from .edf_vd import edf_vd_test
from .utilization import UtilizationSums
from .verdict import SchedulabilityVerdict

__all__ = ["AdmissionTest", "ADMISSION_TESTS", "DEFAULT_TEST"]

AdmissionTest = Callable[[UtilizationSums], SchedulabilityVerdict]

#: Test name (as written in ``host.test``) -> test.
ADMISSION_TESTS: dict[str, AdmissionTest] = {"edf-vd": edf_vd_test, "edf": edf_test}

DEFAULT_TEST = "edf-vd"

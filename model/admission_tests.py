"""The admission tests a host may name, all with one shape.

Following SchedCAT, a test is a pure function of a pCPU's utilization sums,
``decide(UtilizationSums) -> SchedulabilityVerdict``, so the CPU picker
takes the test as a parameter.  (The fixed-priority tests, :mod:`akita.model.rm` and
:mod:`akita.model.amc`, also read the vCPUs that the sums carry.)  Each test also says
how much more a pCPU can take (:class:`~.verdict.Capacity`): exactly (or as
an upper bound, for the fixed-priority tests), for a LO vCPU, and as a
necessary bound on ``C_pes/T``, for a HI vCPU.  The first-fit picker uses
the capacity only to skip pCPUs; the verdict alone decides.
"""

from __future__ import annotations

from typing import Callable

import attrs

from .edf import edf_capacity, edf_test
from .options import SchedulerOptions
from .edf_vd import edf_vd_capacity, edf_vd_test
from .amc import amc_capacity, amc_rtb_test
from .rm import rm_capacity, rm_ll_test, rm_rta_test
from .utilization import UtilizationSums
from .verdict import Capacity, SchedulabilityVerdict

__all__ = ["AdmissionTest", "ADMISSION_TESTS", "DEFAULT_TEST", "admission_test"]


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


def _exact(options: SchedulerOptions | None = None) -> AdmissionTest:
    """The exact test (:mod:`akita.model.exact.admission`) for *options* (default: the
    defaults), one per options (so that its answers are cached across first fits)."""
    from .exact.admission import ExactTest  # the search imports this module

    key = options if options is not None else SchedulerOptions()
    if key not in _EXACT:
        _EXACT[key] = ExactTest(key).admission_test()
    return _EXACT[key]


_EXACT: dict[SchedulerOptions, AdmissionTest] = {}

#: Test name (as written in ``host.test``) -> test.  ``exact`` here decides for the
#: default scheduler options; a host's own are bound by :func:`admission_test`.
ADMISSION_TESTS: dict[str, AdmissionTest] = {
    "edf-vd": AdmissionTest("edf-vd", edf_vd_test, edf_vd_capacity),
    "edf": AdmissionTest("edf", edf_test, edf_capacity),
    "rm-ll": AdmissionTest("rm-ll", rm_ll_test, rm_capacity),
    "rm-rta": AdmissionTest("rm-rta", rm_rta_test, rm_capacity),
    "amc-rtb": AdmissionTest("amc-rtb", amc_rtb_test, amc_capacity),
    "exact": AdmissionTest("exact", lambda sums: _exact().decide(sums),
                           lambda sums: _exact().capacity(sums)),
}


def admission_test(name: str, options: SchedulerOptions) -> AdmissionTest:
    """The test *name* for a host with scheduler *options*: the registry's, except that
    ``exact`` decides by the options' rules (queue order, HI-mode order, ``x_rule``, ...)."""
    return _exact(options) if name == "exact" else ADMISSION_TESTS[name]

#: The test a host uses when its file names none (R11).
DEFAULT_TEST = "edf-vd"

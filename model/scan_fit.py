"""Any fit by linear scan: rule R12 read literally, and its deliberately wrong twin.

The first-fit picker (:mod:`.first_fit`) skips pCPUs with a segment tree of
capacities.  This module is the same rule with nothing clever in it: for each
vCPU, test every pCPU in index order with the exact sums (each test O(1)), and
take the first that passes -- or, with ``choose="last"``, the last, which is
the placement mutant ``last-fit`` of :mod:`akita.reference.mutants` (it breaks
R12).  Admission is all or nothing per VM, as in first fit.

It is the one home of the literal scan that the first-fit tests compare
against (``tests/model/test_first_fit.py``) and that ``bench/admit.py`` times
as the contrast to the slack tree; the rejection reason is first fit's own, so
``scan_fit(host) == first_fit(host)`` holds field for field.
"""

from __future__ import annotations

from typing import Literal

from .admission_tests import admission_test
from .first_fit import Placement, PCPULoad, VMPlacement, rejection_reason
from .host import Host
from .ioq import with_cal_bounds
from .utilization import UtilizationSums
from .vm import VCPU

__all__ = ["scan_fit"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R12": ("scan_fit",),
}


def scan_fit(host: Host, choose: Literal["first", "last"] = "first") -> Placement:
    """Place *host*'s VMs by testing every pCPU in order; the *choose* one that passes wins.

    Each admitted VM with an IO quality keeps its CAL bound on the pCPUs chosen
    (:func:`~.ioq.with_cal_bounds`), as first fit's answers do.
    """
    test = admission_test(host.test, host.options)
    sums = [UtilizationSums()] * host.pcpus
    loads: list[list[VCPU]] = [[] for _ in range(host.pcpus)]
    answers = []
    for vm in host.vms:
        trial, where = list(sums), []
        for vcpu in vm.all_vcpus():
            order = range(host.pcpus) if choose == "first" else range(host.pcpus - 1, -1, -1)
            chosen = next((c for c in order if test(trial[c].plus(vcpu)).schedulable), None)
            if chosen is None:
                reason = rejection_reason(vcpu, test.name, host.pcpus)
                answers.append(VMPlacement(vm, (), reason))
                break
            trial[chosen] = trial[chosen].plus(vcpu)
            where.append(chosen)
        else:
            sums = trial
            for vcpu, chosen in zip(vm.all_vcpus(), where):
                loads[chosen].append(vcpu)
            answers.append(VMPlacement(vm, tuple(where), None))
    pcpus = tuple(PCPULoad(c, tuple(load), test(s)) for c, (load, s) in enumerate(zip(loads, sums)))
    return with_cal_bounds(Placement(test.name, tuple(answers), pcpus), host.options.x_rule)

"""Where a policy starts each vCPU: first fit (R12), or everywhere for the baselines.

The EDF-family policies admit by first fit (R12) and never migrate; each
declares the admission test it places by (:attr:`.policy.Policy.admission_test`):
the host's own, or the test of its own analysis (:func:`first_fit_under`).
The proportional-share and global baselines (Xen credit, CFS, RTDS) admit
every VM -- they have no admission test -- and start each vCPU on a pCPU
from which they may later move it: :func:`place_all` puts vCPU ``k`` (in
host order) of a VM without ``pin`` on pCPU ``k mod m``, and the ``i``-th
vCPU of a pinned VM on the ``i``-th of its pins, cyclically.  The per-pCPU
verdicts it reports are the host test's, for information only.
"""

from __future__ import annotations

import attrs

from akita.model import (
    ADMISSION_TESTS, VCPU, Host, PCPULoad, Placement, UtilizationSums, VMPlacement, first_fit,
)

__all__ = ["first_fit_under", "place_all"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R12": ("first_fit_under",),
}


def first_fit_under(host: Host, test: str | None) -> Placement:
    """First fit on *host* under the admission test *test* (R12); ``None``: ``host.test``."""
    return first_fit(host if test is None else attrs.evolve(host, test=test))


def place_all(host: Host) -> Placement:
    """Every VM admitted; each vCPU on its first allowed pCPU, round robin."""
    test = ADMISSION_TESTS[host.test]
    loads: list[list[VCPU]] = [[] for _ in range(host.pcpus)]
    answers, k = [], 0
    for vm in host.vms:
        where = []
        for i, vcpu in enumerate(vm.all_vcpus()):
            pin = vm.share.pin
            c = pin[i % len(pin)] if pin else k % host.pcpus
            k += 1
            loads[c].append(vcpu)
            where.append(c)
        answers.append(VMPlacement(vm, tuple(where), None))
    pcpus = tuple(PCPULoad(c, tuple(load), test(UtilizationSums.of(load)))
                  for c, load in enumerate(loads))
    return Placement(test.name, tuple(answers), pcpus)

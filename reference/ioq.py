"""The IOQ of each simulated VM, and the CAL bound it was admitted with (R14).

A VM that declares an IO quality (:mod:`akita.model.ioq`) has its CPU
access latencies counted against it as they are measured
(:attr:`.metrics.VMMetrics.over_ioq`).  Under the ``akita`` policy -- the
policy the bound is proved for (:mod:`akita.proofs.cal_bound`) -- the run
also reports the bound: the largest LO-mode bound among the VM's vCPUs, on
the pCPUs first fit put them on, with the ``x`` their schedulers use -- the
bound admission kept in the placement
(:attr:`~akita.model.first_fit.VMPlacement.cal_bound`), read from there.
Under another policy there is no bound to report (``cal_bound`` is
``null``), only what was measured.
"""

from __future__ import annotations

from akita.model import Host, Placement

from .metrics import Metrics

__all__ = ["note_ioq"]

#: The policy the CAL bound is proved for.
BOUND_POLICY = "akita"


def note_ioq(metrics: Metrics, host: Host, placement: Placement, policy: str) -> None:
    """Give each simulated VM with an IOQ its limit, and under ``akita`` the bound admission
    kept in *placement*."""
    for vm in host.vms:
        stats = metrics.vms.get(vm.name)
        if stats is None or vm.ioq is None:
            continue
        stats.ioq = vm.ioq
        if policy == BOUND_POLICY:
            stats.cal_bound = placement.of(vm.name).cal_bound

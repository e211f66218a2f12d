"""The host whose scheduler reserves the budgets overhead-aware admission counted.

Overhead-aware admission (:mod:`akita.model.overheads`) decides a pCPU on
budgets inflated by the context switches each vCPU pays for: ``C + n_i s``.
Its guarantee is for a scheduler that reserves those budgets, so that a job
of ``C`` ns of *work* completes within its period whatever the switches
charged to it.  :func:`reservation_host` writes that host down for the
reference simulator: each admitted vCPU becomes a one-vCPU VM with its
inflated budgets, on the pCPU first fit gave it, its work unchanged (a
``periodic`` or ``sporadic`` workload keeps the declared ``C_opt`` as its
default demand).  :func:`job_misses` then judges the run by its jobs: a job
released at a period start misses if it is not done by the period's end.
"""

from __future__ import annotations

import attrs

from akita.model import Host, Placement
from akita.model.first_fit import PCPULoad, VMPlacement
from akita.model.overheads import admission_test_with_overheads, inflated
from akita.model.utilization import UtilizationSums
from akita.model.vm import VCPU, VM

from .simulator import Result

__all__ = ["reservation_host", "job_misses"]


def _renamed(vm: VM, index: int) -> str:
    return vm.name if vm.vcpus == 1 else f"{vm.name}.{index}"


def reservation_host(host: Host, placement: Placement, cost: int) -> tuple[Host, Placement]:
    """*host*'s admitted vCPUs with the budgets reserved at *cost* ns a switch, placed as in
    *placement*; the host's options charge *cost* a switch."""
    where: dict[tuple[str, int], int] = {}
    for answer in placement.vms:
        for index, cpu in enumerate(answer.pcpus):
            where[(answer.vm.name, index)] = cpu
    grown: dict[tuple[str, int], VM] = {}
    for load in placement.pcpus:
        for each in inflated(load.vcpus, cost):
            vm, index = each.vcpu.vm, each.vcpu.index
            workload = vm.workload
            if workload.kind in ("periodic", "sporadic") and workload.demand is None:
                workload = attrs.evolve(workload, demand=vm.c_opt)
            grown[(vm.name, index)] = attrs.evolve(each.vm(), name=_renamed(vm, index),
                                                   workload=workload)
    order = [key for key in where if key in grown]  # the host's order of VMs and vCPUs
    vms = [grown[key] for key in order]
    options = attrs.evolve(host.options, context_switch_cost=cost)
    reserved = Host(pcpus=host.pcpus, vms=vms, test=host.test, options=options)
    test = admission_test_with_overheads(host.test, options, 0)
    loads: list[list[VCPU]] = [[] for _ in range(host.pcpus)]
    answers = []
    for key, vm in zip(order, vms):
        cpu = where[key]
        loads[cpu].append(vm.vcpu(0))
        answers.append(VMPlacement(vm, (cpu,), None))
    pcpus = tuple(PCPULoad(c, tuple(load), test(UtilizationSums.of(load)))
                  for c, load in enumerate(loads))
    return reserved, Placement(test.name, tuple(answers), pcpus)


def job_misses(result: Result, host: Host) -> dict[str, int]:
    """Per VM of *host* whose jobs come at its period starts: 1 if a job of it was not done
    by the end of its period, else 0.  A job done late has a response time above the
    period; a job never done is seen, for a ``periodic`` VM (one job a period, done in
    order), as fewer jobs done than periods ended within the run."""
    out = {}
    for vm in host.vms:
        if vm.name in result.rejected or vm.workload.kind not in ("periodic", "sporadic"):
            continue
        stats = result.metrics.vms[vm.name]
        longest = stats.rtt.max
        late = longest is not None and longest > vm.period
        if vm.workload.kind == "periodic":
            ended = max(0, (result.duration - result.phases[vm.name]) // vm.period)
            late = late or stats.requests < ended
        out[vm.name] = int(late)
    return out

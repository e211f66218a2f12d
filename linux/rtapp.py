"""A host file's periodic workloads as an rt-app use case (JSON), for running them with rt-app.

rt-app is what people use to emulate periodic load on Linux.  The project runs its
own programs (decision 180); this module writes the same host's ``cpu-bound``,
``periodic``, ``duty`` and ``idle`` VMs as rt-app threads, so that a user can
replay them with the tool they know (decision 189):

* every vCPU is a thread named ``VM-INDEX`` pinned (``cpus``) to the Linux CPU the
  placement gives it, ``SCHED_OTHER`` at the VM's ``nice`` (``priority``);
* ``periodic``: ``run`` of ``demand`` then a ``timer`` of ``period``, first after a
  ``delay`` of the VM's phase plus ``offset``; ``duty``: the same with
  ``floor(utilization * window)`` every ``window``; ``cpu-bound``: ``run`` of
  10 ms over and over; ``idle``: ``sleep`` of 10 ms over and over;
* times are rt-app's whole microseconds (demands rounded down, at least 1 us);
  ``run`` is rt-app's calibrated loop (``calibration`` on the first CPU used), so
  a job is CPU work, not wall-clock time, as in the simulator.

``sporadic``, ``poisson``, ``trace`` and ``closed`` VMs have no rt-app form here
(their jobs are random or replayed, and a request server is a real server): they
are refused with the VM named.

    python -m akita.linux.rtapp HOST.toml [--cpus 1] [--seed 1] [--seconds 10] > use-case.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from akita.model import Host, ModelError, VM, load_host
from akita.model.phases import resolve_phases, with_phases

from .kernel_run import placement

__all__ = ["use_case", "KINDS"]

#: The workload kinds that have an rt-app form.
KINDS = ("cpu-bound", "periodic", "duty", "idle")
_US = 1_000
#: The chunk an always-busy or always-idle thread repeats: rt-app stops a thread at its
#: global ``duration`` only between events.
_CHUNK_US = 10_000


def _us(ns: int) -> int:
    return max(1, ns // _US)


def _events(vm: VM, index: int) -> dict[str, Any]:
    """The rt-app events of one vCPU of *vm*."""
    w = vm.workload
    phase = vm.phase or 0
    timer = {"ref": f"{vm.name}-{index}"}
    if w.kind == "cpu-bound":
        return {"delay": phase // _US, "loop": -1, "run": _CHUNK_US}
    if w.kind == "idle":
        return {"loop": -1, "sleep": _CHUNK_US}
    if w.kind == "periodic":
        demand = w.demand if w.demand is not None else vm.c_opt
        period = w.period if w.period is not None else vm.period
        return {"delay": (phase + (w.offset or 0)) // _US, "loop": -1, "run": _us(demand),
                "timer": {**timer, "period": _us(period)}}
    assert w.kind == "duty" and w.utilization is not None
    window = w.window_or_default
    busy = math.floor(w.utilization * window)
    if busy == 0:
        return {"loop": -1, "sleep": _CHUNK_US}
    return {"delay": (phase + (w.offset or 0)) // _US, "loop": -1, "run": _us(busy),
            "timer": {**timer, "period": _us(window)}}


def use_case(host: Host, *, cpus: tuple[int, ...], seed: int, seconds: int) -> dict[str, Any]:
    """*host*'s VMs as an rt-app use case of *seconds*, phases drawn under *seed*.

    :raises ModelError: a VM whose workload kind has no rt-app form, named.
    """
    for vm in host.vms:
        if vm.workload.kind not in KINDS:
            raise ModelError("workload.kind", vm.workload.kind,
                             f"a kind rt-app can replay here ({', '.join(KINDS)})", vm=vm.name)
    host = with_phases(host, resolve_phases(host, seed))
    where = placement(host, cpus)
    tasks = {f"{vm.name}-{i}": {"cpus": [where[(vm.name, i)]], "policy": "SCHED_OTHER",
                                 "priority": vm.share.nice, **_events(vm, i)}
             for vm in host.vms for i in range(vm.vcpus)}
    return {"global": {"duration": seconds, "calibration": f"CPU{cpus[0]}",
                       "default_policy": "SCHED_OTHER", "lock_pages": False,
                       "log_size": "Disable", "logdir": "./"},
            "tasks": tasks}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m akita.linux.rtapp")
    parser.add_argument("host")
    parser.add_argument("--cpus", default="1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args(argv)
    try:
        doc = use_case(load_host(args.host), cpus=tuple(int(c) for c in args.cpus.split(",")),
                       seed=args.seed, seconds=args.seconds)
    except ModelError as error:
        print(f"akita: error: {args.host}: {error}", file=sys.stderr)
        return 2
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

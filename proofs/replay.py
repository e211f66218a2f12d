"""From a tick-level behaviour to files ``akita simulate`` replays, and back.

A behaviour gives each vCPU of one pCPU its phase (in ticks) and, for each
of its periods, the demand (in ticks) of the job released at the period
start ``phase + k T``, or 0 for none.  :func:`save_replay` writes it as a
host file -- one single-vCPU VM per vCPU, in the pCPU's order, on one pCPU,
each with its ``phase`` declared, with the original options and test (an
``exact`` pCPU's counterexample is replayed under the ``edf`` test, which
admits it, with its ``x`` fixed by ``x_rule``) -- and one trace file per vCPU.  :func:`reference_schedule` runs the reference
scheduler on such files and reads back which vCPU ran in each tick: the
cross-check's other half.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Sequence

import z3

from akita.atomic import write_atomic
from akita.model import VM, Criticality, Host, SchedulerOptions, Workload, dumps_host, load_host
from akita.model.options import x_rule_of
from akita.model.smt.pcpu import TickPCPU, Unrolling

__all__ = ["behaviour_of", "phases_of", "schedule_of", "save_replay", "reference_schedule",
           "replay_name"]


def replay_name(vcpu_name: str) -> str:
    """The VM that stands for vCPU ``vm/i`` in a replay host: ``vm-i``."""
    return vcpu_name.replace("/", "-")


def behaviour_of(unrolling: Unrolling, model: z3.ModelRef) -> dict[tuple[int, int], int]:
    """The demands (ticks, 0 for no job) that *model* chose."""
    return {
        key: model.eval(demand, model_completion=True).as_long()
        for key, demand in unrolling.demand.items()
    }


def phases_of(unrolling: Unrolling, model: z3.ModelRef) -> tuple[int, ...]:
    """Each vCPU's phase in ticks under *model* (fixed ones as they are)."""
    phases = []
    for i in range(len(unrolling.pcpu.vcpus)):
        phase = unrolling.phase(i)
        phases.append(phase if isinstance(phase, int)
                      else model.eval(phase, model_completion=True).as_long())
    return tuple(phases)


def schedule_of(unrolling: Unrolling, model: z3.ModelRef) -> list[str | None]:
    """Which vCPU runs in each tick under *model* (``None``: idle)."""
    names = [v.name for v in unrolling.pcpu.vcpus]
    schedule = []
    for run in unrolling.runs:
        ran = [names[i] for i, r in enumerate(run) if z3.is_true(model.eval(r, model_completion=True))]
        schedule.append(ran[0] if ran else None)
    return schedule


def replay_host(pcpu: TickPCPU, behaviour: dict[tuple[int, int], int], folder: Path,
                phases: Sequence[int] | None = None) -> Host:
    """Write the trace files of *behaviour* into *folder*; return the replay host.

    *phases* (ticks, one per vCPU; default: the vCPUs' own, 0 where symbolic)
    are declared on the VMs, so the replay needs no seed.  A VM is created at
    its phase and its trace counts from then (:mod:`akita.reference.workloads`),
    so the job of period ``k`` is at ``k T`` in the trace file.
    """
    tick = pcpu.tick
    phases = tuple(phases) if phases is not None else tuple(v.phase or 0 for v in pcpu.vcpus)
    vms = []
    for i, v in enumerate(pcpu.vcpus):
        path = folder / f"{replay_name(v.name)}.csv"
        lines = ["# arrival, demand"] + [
            f"{k * v.period * tick}ns, {d * tick}ns"  # from the VM's creation, at its phase
            for (j, k), d in sorted(behaviour.items()) if j == i and d > 0
        ]
        write_atomic(path, "\n".join(lines) + "\n")
        vms.append(VM(
            replay_name(v.name), Criticality.HI if v.hi else Criticality.LO, v.period * tick,
            v.c_opt * tick, None if v.c_pes is None else v.c_pes * tick,
            workload=Workload("trace", path=str(path.resolve())), phase=phases[i] * tick,
        ))
    test, rule = pcpu.test, pcpu.x_rule
    if test == "exact":  # its counterexamples are on pCPUs it rejects: replay them admitted
        test, rule = "edf", x_rule_of(pcpu.x)  # (U1 + U2 <= 1, U3 <= 1 hold) with their x
    options = SchedulerOptions(initial_temperature=pcpu.initial_temperature,
                               hi_mode_deadline=pcpu.hi_mode_deadline,
                               lo_in_hi_mode=pcpu.lo_in_hi_mode,
                               queue_order=pcpu.queue_order, hi_mode_order=pcpu.hi_mode_order,
                               x_rule=rule)
    return Host(1, vms, test=test, options=options)


def save_replay(pcpu: TickPCPU, behaviour: dict[tuple[int, int], int],
                folder: str | os.PathLike[str], phases: Sequence[int] | None = None) -> Path:
    """Write ``host.toml`` and the trace files of *behaviour* into *folder*; return the host file.

    Each VM declares its *phase* (:func:`replay_host`).  Trace paths in the
    host file are relative to it, so the folder can be moved.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    host = replay_host(pcpu, behaviour, folder, phases)
    text = dumps_host(host).replace(str(folder.resolve()) + os.sep, "")
    path = folder / "host.toml"
    write_atomic(path, text)
    return path


def reference_schedule(host_file: Path, pcpu: TickPCPU, horizon: int,
                       policy: str = "akita") -> tuple[list[str | None], dict[str, int]]:
    """Run the reference on a replay host; return the per-tick schedule and HI misses by vCPU.

    The run lasts ``horizon`` ticks plus 1 ns, so that the period starts at
    the horizon -- where the last periods' misses are counted -- are applied.
    """
    from akita.model import first_fit
    from akita.reference.policies import POLICIES
    from akita.reference.simulator import Simulator
    from akita.trace.jsonl import read_trace

    tick = pcpu.tick
    trace = io.StringIO()
    host = load_host(host_file)
    result = Simulator(host, first_fit(host), POLICIES[policy](), duration=horizon * tick + 1,
                       trace=trace).run()
    back = {replay_name(v.name) + "/0": v.name for v in pcpu.vcpus}
    schedule: list[str | None] = [None] * horizon
    current, since = None, 0
    _, events = read_trace(trace.getvalue().splitlines())
    for event in events:
        if event["event"] not in ("dispatch", "idle"):
            continue
        for t in range(since, min(event["t"] // tick, horizon)):
            schedule[t] = current
        current = back[event["vcpu"]] if event["event"] == "dispatch" else None
        since = event["t"] // tick
    for t in range(since, horizon):
        schedule[t] = current
    misses = {back[name + "/0"]: m.hi_misses for name, m in result.metrics.vms.items()}
    return schedule, misses

"""A host file run on this machine's kernel, several times, beside the simulator's prediction.

One *run* starts the host's workloads as real tasks (:mod:`akita.linux.workloads`), pinned
as the placement says -- the host's pCPU ``c`` is the Linux CPU ``cpus[c]``, each
vCPU on the pCPU :func:`akita.reference.placement.place_all` gives it (its
``pin``, else round robin), as the proportional-share policies place them -- in
the kernel's default class, and measures each VM's CPU share and latencies.  Run
``k`` of ``runs`` uses seed ``seed + k``; the simulator is run with the very same
seeds, duration and host under ``policy``, so both sides see the same jobs and
the same request arrivals.

Every figure is reported as the median of the runs with its spread, the least
and the greatest run (:func:`spread`).  With an even number of runs the median is
the lower middle value, a value that was measured (decision 185).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from akita.model import Host, ParameterError
from akita.reference.placement import place_all

from .workloads import Workloads

__all__ = ["placement", "run_once", "run_kernel", "predict", "check_predict", "spread",
           "figures", "ratio", "default_policy", "compare"]

_NS = 1_000_000_000


def default_policy() -> str:
    """The simulator's model of the kernel's default scheduler: ``eevdf`` where the
    simulator has it, else ``cfs`` (its predecessor, the default before Linux 6.6)."""
    from akita.reference.policies import POLICIES

    return "eevdf" if "eevdf" in POLICIES else "cfs"


def placement(host: Host, cpus: tuple[int, ...]) -> dict[tuple[str, int], int]:
    """``(vm, vcpu) -> Linux CPU``: the host's pCPU ``c`` is ``cpus[c]``.

    :raises ParameterError: fewer *cpus* than the host has pCPUs.
    """
    if len(cpus) < host.pcpus:
        raise ParameterError("cpus", ",".join(map(str, cpus)),
                             f"a Linux CPU for each of the host's {host.pcpus} pCPUs")
    where: dict[tuple[str, int], int] = {}
    for answer in place_all(host).vms:
        for i, pcpu in enumerate(answer.pcpus):
            where[(answer.vm.name, i)] = cpus[pcpu]
    return where


def run_once(host: Host, *, cpus: tuple[int, ...], client_cpu: int, seed: int, seconds: float,
             out_dir: Path, isolate: bool = True) -> dict[str, Any]:
    """One run of *host* on the kernel: per-VM figures and the machine's noise."""
    with Workloads(host, placement=placement(host, cpus), client_cpu=client_cpu, seed=seed,
                   seconds=seconds, out_dir=out_dir, isolate=isolate) as load:
        load.start()
        load.wait()
        return {"seed": seed, "vms": dict(load.results()), "noise": dict(load.noise())}


def run_kernel(host: Host, *, runs: int, seconds: float, seed: int, cpus: tuple[int, ...],
               client_cpu: int, out_dir: Path, isolate: bool = True,
               progress: Callable[[int, dict[str, Any]], None] | None = None
               ) -> list[dict[str, Any]]:
    """*runs* runs of *host* on the kernel, seeds ``seed .. seed + runs - 1``."""
    done = []
    for k in range(runs):
        one = run_once(host, cpus=cpus, client_cpu=client_cpu, seed=seed + k, seconds=seconds,
                       out_dir=out_dir / f"run{k}", isolate=isolate)
        done.append(one)
        if progress is not None:
            progress(k, one)
    return done


def check_predict(policy: str, seconds: float) -> None:
    """Raise :class:`~akita.model.ParameterError`, naming the parameter, unless
    :func:`predict` can simulate *policy* for *seconds*: the simulator's own check
    (:func:`akita.reference.run.check_simulation`), for a caller that runs the kernel's
    runs -- minutes -- before it predicts."""
    from akita.reference.run import check_simulation

    check_simulation(policy, _duration(seconds))


def _duration(seconds: float) -> int:
    return int(round(seconds * _NS))


def predict(host: Host, *, policy: str, runs: int, seconds: float, seed: int
            ) -> list[dict[str, Any]]:
    """The simulator's runs of *host* under *policy*, with the kernel runs' seeds and length."""
    from akita.reference.run import simulate

    duration = _duration(seconds)
    out = []
    for k in range(runs):
        metrics = simulate(host, policy, duration=duration, seed=seed + k).as_json()
        vms = metrics["vms"]
        total = sum(m["cpu_ns"] for m in vms.values())
        for name, m in vms.items():
            m["cpu_share_of_host"] = round(m["cpu_ns"] / total, 6) if total else None
            if host.vm(name).workload.kind != "poisson":
                m["response_ns"] = m.pop("rtt_ns")  # a job's completion - arrival, as here
        out.append({"seed": seed + k, "vms": vms})
    return out


#: The figures compared, as paths into a run's per-VM record.
FIGURES: tuple[tuple[str, ...], ...] = (
    ("cpu_share",), ("cpu_share_of_host",),
    ("rtt_ns", "p50"), ("rtt_ns", "p99"), ("rtt_ns", "p999"),
    ("rtt_from_send_ns", "p999"), ("send_late_ns", "p999"), ("send_late_ns", "p50"),
    ("response_ns", "p50"), ("response_ns", "p99"), ("response_ns", "p999"),
)


def _get(record: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = record
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def spread(values: Iterable[Any]) -> dict[str, Any] | None:
    """``{"median", "min", "max", "n"}`` of *values* (``None`` ignored); ``None`` if none.

    The median is :func:`statistics.median_low`: a measured value, also for an even count.
    """
    kept = sorted(v for v in values if v is not None)
    if not kept:
        return None
    return {"median": statistics.median_low(kept), "min": kept[0], "max": kept[-1],
            "n": len(kept)}


def figures(runs: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per VM, per figure (``cpu_share``, ``rtt_ns.p999``, ...): the spread over *runs*."""
    vms: list[str] = []
    for one in runs:
        vms += [vm for vm in one["vms"] if vm not in vms]
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for vm in vms:
        for path in FIGURES:
            s = spread(_get(one["vms"].get(vm, {}), path) for one in runs)
            if s is not None:
                table.setdefault(vm, {})[".".join(path)] = s
    return table


def ratio(model: Any, kernel: Any) -> Fraction | None:
    """The simulator's figure over the kernel's, exactly (``None`` if either is missing or
    the kernel's is 0)."""
    if model is None or kernel is None or kernel == 0:
        return None
    return Fraction(str(model)) / Fraction(str(kernel))


def compare(kernel: list[dict[str, Any]], model: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per VM and figure: the kernel's spread, the simulator's, the ratio of the
    medians, and whether the simulator's median lies outside the kernel's spread."""
    k, m = figures(kernel), figures(model)
    rows = []
    for vm, per in k.items():
        for name, ks in per.items():
            ms = m.get(vm, {}).get(name)
            r = ratio(ms["median"] if ms else None, ks["median"])
            outside = None if ms is None else not ks["min"] <= ms["median"] <= ks["max"]
            rows.append({"vm": vm, "figure": name, "kernel": ks, "model": ms,
                         "ratio": None if r is None else f"{float(r):.3f}",
                         "outside_spread": outside})
    return rows

"""An analysis of a trace: its figures, as JSON, as CSV rows, and per VM.

Times are integer ns.  A share is given twice: ``share_exact``, the exact
fraction ``cpu_ns / span_ns`` as ``"p/q"``, and ``share``, that fraction
rounded to six decimals as ``akita simulate --json`` rounds its
``cpu_share`` (``round(cpu_ns / duration, 6)``), so the two compare
equal on the same run (decision 203).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Iterator

import attrs

from .accumulate import Accumulator, Declared
from .percentiles import summary

__all__ = ["Analysis", "VCPU_NAME"]

#: A vCPU's name, ``VM/i``: its VM is the part before the slash.
VCPU_NAME = re.compile(r"^(?P<vm>[^/]+)/(?P<index>\d+)$")


def _share(ns: int, span: int) -> float:
    return round(ns / span, 6) if span else 0.0


def _exact(ns: int, span: int) -> str | None:
    return str(Fraction(ns, span)) if span else None


@attrs.frozen
class Analysis:
    """What :func:`~akita.analysis.analyze.analyze_stream` found in one trace.

    :ivar tasks: per task (a vCPU ``VM/i``, or a kernel task ``comm-pid``):
        ``cpu_ns``, ``share``, ``share_exact``, ``per_cpu_ns``,
        ``dispatches``, ``wakes``, ``migrations``, ``wake_to_run_ns``
        (p50, p90, p99, p999, max, count; exact nearest-rank ns).
    :ivar vms: per VM named by the trace's vCPUs: the sum of its vCPUs' ``cpu_ns``
        and its ``share``.
    :ivar windows: per task, its CPU time in each window (ns; ``[]`` without a window).
    :ivar cpus: per CPU: ``idle_ns``, ``unknown_ns`` (a hole in the capture), ``busy_ns``.
    :ivar modes: per pCPU: ``LO_ns``, ``HI_ns``, ``lo_to_hi``, ``hi_to_lo``
        (``None``: the trace's format does not record modes).
    :ivar budgets: per declared server: its declaration and the CPU time it
        used in each whole period (``periods`` 0 and ``why`` where it cannot be said).
    """

    path: str
    trace_format: str
    events: int
    span_ns: int
    window_ns: int | None
    tasks: dict[str, dict[str, Any]]
    vms: dict[str, dict[str, Any]]
    windows: dict[str, list[int]]
    cpus: dict[int, dict[str, int]]
    modes: dict[int, dict[str, int]] | None
    budgets: dict[str, dict[str, Any]]
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, acc: Accumulator, *, path: str, trace_format: str, events: int, span: int,
           window: int | None, declared: dict[str, Declared], periods_from: str,
           modes_recorded: bool, migrate_records: int | None, lost: int) -> "Analysis":
        """The analysis of what *acc* summed over a trace of *span* ns."""
        order = sorted(acc.run_ns, key=lambda task: (-acc.run_ns[task], task))
        tasks = {task: {
            "cpu_ns": acc.run_ns[task], "share": _share(acc.run_ns[task], span),
            "share_exact": _exact(acc.run_ns[task], span),
            "per_cpu_ns": {str(cpu): ns for cpu, ns in sorted(acc.cpu_ns[task].items())},
            "dispatches": acc.dispatches[task], "wakes": acc.wakes[task],
            "migrations": acc.migrations[task],
            "wake_to_run_ns": summary(acc.latencies[task]),
        } for task in order}
        vms: dict[str, dict[str, Any]] = {}
        for task in sorted(acc.run_ns):
            match = VCPU_NAME.match(task)
            if match is not None and (not declared or task in declared):
                vm = vms.setdefault(match["vm"], {"cpu_ns": 0, "vcpus": 0})
                vm["cpu_ns"] += acc.run_ns[task]
                vm["vcpus"] += 1
        for vm in vms.values():
            vm["share"] = _share(vm["cpu_ns"], span)
            vm["share_exact"] = _exact(vm["cpu_ns"], span)
        count = 0 if window is None else -(-span // window)
        windows = {task: [acc.windows.get(task, {}).get(i, 0) for i in range(count)]
                   for task in order} if window is not None else {}
        cpu_ids = sorted(set(acc.idle_ns) | set(acc.unknown_ns) | set(acc.since))
        cpus = {cpu: {"idle_ns": acc.idle_ns.get(cpu, 0),
                      "unknown_ns": acc.unknown_ns.get(cpu, 0),
                      "busy_ns": span - acc.idle_ns.get(cpu, 0) - acc.unknown_ns.get(cpu, 0)}
                for cpu in cpu_ids}
        modes = None
        if modes_recorded:
            modes = {cpu: {"LO_ns": acc.residency.get(cpu, {}).get("LO", 0),
                           "HI_ns": acc.residency.get(cpu, {}).get("HI", 0),
                           "lo_to_hi": acc.switches.get(cpu, {}).get("LO->HI", 0),
                           "hi_to_lo": acc.switches.get(cpu, {}).get("HI->LO", 0)}
                     for cpu in sorted(set(acc.residency) | set(acc.switches))}
        budgets = {name: _budget(d, acc.used.get(name, []), periods_from)
                   for name, d in declared.items()}
        notes = []
        if migrate_records is not None:
            notes.append(f"{migrate_records} sched_migrate_task records (migrations are "
                         "counted from dispatches on another CPU)")
        if lost:
            notes.append(f"{lost} records of lost events: the CPUs' time across them is "
                         "unknown_ns")
        return cls(path, trace_format, events, span, window, tasks, vms, windows, cpus, modes,
                   budgets, tuple(notes))

    def as_json(self) -> dict[str, Any]:
        """The analysis as one JSON document (``akita analyze --json``)."""
        return {
            "trace": self.path, "format": self.trace_format, "events": self.events,
            "span_ns": self.span_ns, "window_ns": self.window_ns, "tasks": self.tasks,
            "vms": self.vms, "windows": self.windows,
            "cpus": {str(cpu): v for cpu, v in self.cpus.items()},
            "modes": None if self.modes is None else {str(c): v for c, v in self.modes.items()},
            "budgets": self.budgets, "notes": list(self.notes),
        }

    def rows(self) -> Iterator[tuple[str, str, str, Any]]:
        """Every figure as a ``(section, name, metric, value)`` row (``--csv``), in fixed order."""
        for task, figures in self.tasks.items():
            for metric in ("cpu_ns", "share_exact", "dispatches", "wakes", "migrations"):
                yield "task", task, metric, figures[metric]
            for cpu, ns in figures["per_cpu_ns"].items():
                yield "task", task, f"cpu{cpu}_ns", ns
            for metric, value in figures["wake_to_run_ns"].items():
                yield "task", task, f"wake_to_run_{metric}", "" if value is None else value
        for vm, figures in self.vms.items():
            yield "vm", vm, "cpu_ns", figures["cpu_ns"]
            yield "vm", vm, "share_exact", figures["share_exact"]
        for task, sums in self.windows.items():
            for index, ns in enumerate(sums):
                yield "window", task, f"w{index}_ns", ns
        for cpu, figures in self.cpus.items():
            for metric, value in figures.items():
                yield "cpu", str(cpu), metric, value
        for cpu, figures in (self.modes or {}).items():
            for metric, value in figures.items():
                yield "mode", str(cpu), metric, value
        for vcpu, figures in self.budgets.items():
            for metric, value in figures.items():
                if isinstance(value, dict):
                    for key, inner in value.items():
                        yield "budget", vcpu, f"{metric}_{key}", "" if inner is None else inner
                else:
                    yield "budget", vcpu, metric, "" if value is None else value


def _budget(declared: Declared, used: list[tuple[int, int, int | None]],
            periods_from: str) -> dict[str, Any]:
    """A server's budget used per whole period beside its declaration."""
    figures: dict[str, Any] = {
        "criticality": declared.criticality, "period_ns": declared.period,
        "c_opt_ns": declared.c_opt, "c_pes_ns": declared.c_pes, "periods_from": periods_from,
    }
    if periods_from != "releases" and declared.phase is None:
        figures.update(periods=0, used_ns=summary([]), over_c_opt=None, over_c_pes=None,
                       why="the host leaves this VM's phase open (declare phase = ... or "
                           "phases = \"synchronous\"): its periods are unknown in a kernel trace")
        return figures
    amounts = [amount for _, amount, _ in used]
    figures.update(
        periods=len(amounts), used_ns=summary(amounts),
        over_c_opt=sum(1 for amount in amounts if amount > declared.c_opt),
        over_c_pes=(None if declared.c_pes is None
                    else sum(1 for amount in amounts if amount > declared.c_pes)))
    return figures

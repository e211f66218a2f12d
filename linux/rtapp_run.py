"""One run of an rt-app use case on this machine, traced, and what the trace says it ran.

:func:`run_traced` runs ``rt-app`` on a use case (:mod:`akita.linux.rtapp`) pinned to
one CPU (``taskset``; the threads are pinned by the use case's own ``cpus``), for a
bounded duration, while a tracefs instance of this process's own
(``instances/akita-rtapp-PID``, :class:`~akita.linux.wakeups.Instance`, removed on
every exit path) records ``sched_switch`` and ``sched_wakeup``.  :func:`figures`
reads the trace with the conformance checker's reader
(:func:`akita.trace.ftrace.sched_events`) and gives, per rt-app thread, its CPU
time and share over the window in which every thread had started, and its wake-ups
and the median interval between them (a periodic thread's period).

    python -m akita.linux.rtapp_run USE-CASE.json [--cpu 1] [--seconds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from akita.trace.ftrace import sched_events

from .programs import Unavailable
from .wakeups import TRACEFS, Instance
from .workloads import Group

__all__ = ["run_traced", "figures", "missing", "ns_per_loop"]

_EVENTS = ("sched/sched_wakeup", "sched/sched_switch")
#: Beyond its duration, how long rt-app may take (calibration, start, exit) before it is
#: killed.
_GRACE_S = 60


def missing(cpu: int = 1) -> str | None:
    """Why this machine cannot run rt-app traced on *cpu*, or ``None``."""
    if shutil.which("rt-app") is None:
        return "needs rt-app"
    if shutil.which("taskset") is None:
        return "needs taskset"
    if os.geteuid() != 0:
        return "needs root (tracefs, pinning)"
    if not (TRACEFS / "instances").is_dir():
        return f"needs tracefs at {TRACEFS}"
    if cpu not in os.sched_getaffinity(0):
        return f"needs CPU {cpu}"
    return None


def run_traced(document: Mapping[str, Any], *, cpu: int, seconds: int, workdir: Path,
               isolate: bool = True) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """Run rt-app on *document* for *seconds* on *cpu*; the trace's path and rt-app's exit.

    With *isolate*, rt-app (its calibration and its threads) runs in a cpu cgroup of its own
    at :data:`~akita.linux.workloads.GROUP_SHARES`, as ``akita kernel-run`` runs a host
    (decision 184): the machine's other load, which the host does not describe, then takes
    little of the CPU while the threads are runnable.

    :raises ~akita.linux.programs.Unavailable: what :func:`missing` names.
    """
    reason = missing(cpu)
    if reason is not None:
        raise Unavailable("rt-app", reason)
    doc = json.loads(json.dumps(document))
    doc["global"] = {**doc.get("global", {}), "duration": seconds, "logdir": str(workdir),
                     "log_size": "Disable"}
    use_case = workdir / "use-case.json"
    use_case.write_text(json.dumps(doc, indent=1))
    trace = workdir / "trace.txt"
    group = Group() if isolate else None
    try:
        if group is not None:
            group.create()
        with Instance(cpu, name="akita-rtapp", events=_EVENTS) as instance:
            instance.on()
            done = subprocess.run(["taskset", "-c", str(cpu), "rt-app", str(use_case)],
                                  cwd=workdir, capture_output=True, text=True,
                                  timeout=seconds + _GRACE_S,
                                  preexec_fn=None if group is None else _joiner(group))
            trace.write_text(instance.read())
    finally:
        if group is not None:
            group.remove()
    return trace, done


def _joiner(group: Group) -> Any:
    """A child's first act: join *group* (so that rt-app's threads are born in it)."""
    def join() -> None:
        group.join(os.getpid())
    return join


def figures(lines: Iterable[str], names: Iterable[str], *, cpu: int) -> dict[str, Any]:
    """Per thread named in *names*: CPU time (ns) and share on *cpu* over the window from
    the last thread's first dispatch to the last event, its wake-ups, the median interval
    between them (ns), and the CPUs it was seen running on; and the time other tasks
    (not idle) ran on *cpu* in the window (``others_ns``, ``others_share``)."""
    wanted = set(names)
    on: dict[str, int] = {}
    busy: dict[str, list[tuple[int, int]]] = {n: [] for n in wanted}
    wakes: dict[str, list[int]] = {n: [] for n in wanted}
    cpus: dict[str, set[int]] = {n: set() for n in wanted}
    first: dict[str, int] = {}
    others: list[tuple[int, int]] = []  # other tasks on *cpu*: (since, until)
    other_since: int | None = None
    last = 0
    for event in sched_events(lines, path="trace.txt"):
        last = max(last, event.ns)
        if event.kind == "wakeup" and event.task is not None and event.task.comm in wanted:
            wakes[event.task.comm].append(event.ns)
        if event.kind != "switch":
            continue
        if event.cpu == cpu and other_since is not None:
            others.append((other_since, event.ns))
            other_since = None
        if event.prev is not None and event.prev.comm in on and event.cpu == cpu:
            busy[event.prev.comm].append((on.pop(event.prev.comm), event.ns))
        if event.next is not None and event.next.comm in wanted:
            cpus[event.next.comm].add(event.cpu)
            if event.cpu == cpu:
                on[event.next.comm] = event.ns
                first.setdefault(event.next.comm, event.ns)
        elif event.next is not None and event.cpu == cpu:
            other_since = event.ns
    for name, since in on.items():
        busy[name].append((since, last))
    start = max(first.values()) if len(first) == len(wanted) else last
    window = max(1, last - start)
    foreign = sum(max(0, b - max(a, start)) for a, b in others)
    out: dict[str, Any] = {"window_ns": window, "others_ns": foreign,
                           "others_share": Fraction(foreign, window), "threads": {}}
    for name in sorted(wanted):
        ns = sum(max(0, b - max(a, start)) for a, b in busy[name])
        gaps = sorted(b - a for a, b in zip(wakes[name], wakes[name][1:]))
        out["threads"][name] = {
            "cpu_ns": ns, "share": Fraction(ns, window), "wakeups": len(wakes[name]),
            "median_wake_interval_ns": gaps[(len(gaps) - 1) // 2] if gaps else None,
            "cpus": sorted(cpus[name])}
    return out


def ns_per_loop(log: str) -> int | None:
    """rt-app's calibration (``pLoad = Nns``) from its log, or ``None``: the ns one loop of
    ``run`` was taken to last, which fixes how much CPU work every ``run`` is."""
    found = re.search(r"pLoad = (\d+)ns", log)
    return int(found.group(1)) if found else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m akita.linux.rtapp_run")
    parser.add_argument("use_case")
    parser.add_argument("--cpu", type=int, default=1)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--keep", help="copy the trace here")
    parser.add_argument("--no-isolate", dest="isolate", action="store_false")
    args = parser.parse_args(argv)
    document = json.loads(Path(args.use_case).read_text())
    try:
        with tempfile.TemporaryDirectory() as scratch:
            trace, done = run_traced(document, cpu=args.cpu, seconds=args.seconds,
                                     workdir=Path(scratch), isolate=args.isolate)
            if args.keep:
                shutil.copy(trace, args.keep)
            with open(trace) as lines:
                found = figures(lines, document["tasks"], cpu=args.cpu)
    except Unavailable as error:
        print(f"akita: error: {error}", file=sys.stderr)
        return 2
    found["rt_app_status"] = done.returncode
    found["ns_per_loop"] = ns_per_loop(done.stderr + done.stdout)
    for entry in found["threads"].values():
        entry["share"] = f"{float(entry['share']):.4f}"
    found["others_share"] = f"{float(found['others_share']):.4f}"
    print(json.dumps(found, indent=1))
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

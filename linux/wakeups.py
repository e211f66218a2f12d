"""How long a vCPU task waits from its wake-up to its dispatch, and what ended the wait.

A diagnostic for :doc:`/kernel`: one run of a host's workloads
(:class:`akita.linux.workloads.Workloads`) with a tracefs instance of its own
(``instances/akita-wakeups-PID``, removed on every exit path) recording
``sched:sched_wakeup``, ``sched:sched_switch`` and
``irq_vectors:local_timer_entry``.  For each wake-up of a vCPU thread the wait is
the time to the switch that puts it on the CPU; a wait is *ended by a tick* when
a local timer interrupt came on that CPU at most ``near`` ns before that switch
(the tick, or another timer, is what let the scheduler act).  Per wait band the
report gives the count, the share ended by a timer interrupt and the tasks that
ran meanwhile on the measured CPU.

    python -m akita.linux.wakeups HOST.toml --vm memcached --seconds 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from akita.model import load_host

from .kernel_run import placement
from .workloads import Workloads

__all__ = ["Instance", "waits", "main"]

TRACEFS = Path("/sys/kernel/tracing")
_EVENTS = ("sched/sched_wakeup", "sched/sched_switch", "irq_vectors/local_timer_entry")
_LINE = re.compile(r"\[([0-9]+)\]\s+\S+\s+([0-9]+)\.([0-9]+): (\w+): (.*)")


class Instance:
    """A tracefs instance of this process's own (``instances/NAME-PID``), recording *events*
    (``system/event``), removed on exit."""

    def __init__(self, cpu: int, *, name: str = "akita-wakeups",
                 events: tuple[str, ...] = _EVENTS) -> None:
        self.path = TRACEFS / "instances" / f"{name}-{os.getpid()}"
        self.cpu = cpu
        self.events = events

    def __enter__(self) -> Instance:
        self.path.mkdir()
        # every CPU: a wake-up is recorded where it is done, often the waker's CPU
        (self.path / "tracing_cpumask").write_text(f"{(1 << (os.cpu_count() or 1)) - 1:x}")
        (self.path / "buffer_size_kb").write_text("32768")
        (self.path / "trace_clock").write_text("mono")
        for event in self.events:
            (self.path / "events" / event / "enable").write_text("1")
        return self

    def on(self) -> None:
        (self.path / "tracing_on").write_text("1")

    def read(self) -> str:
        (self.path / "tracing_on").write_text("0")
        return (self.path / "trace").read_text(errors="replace")

    def __exit__(self, *exc: object) -> None:
        try:
            (self.path / "tracing_on").write_text("0")
            for event in self.events:
                (self.path / "events" / event / "enable").write_text("0")
        finally:
            self.path.rmdir()


def waits(text: str, tids: set[int], cpu: int, near: int = 50_000) -> list[dict[str, Any]]:
    """Every wake-up of a thread in *tids* in the trace *text*: its wait (ns), whether a
    timer interrupt came on *cpu* at most *near* ns before its dispatch there, and who ran
    on *cpu* meanwhile."""
    woken: dict[int, int] = {}
    ran: dict[int, Counter[str]] = {}
    last_timer = -(10**18)
    out = []
    for line in text.splitlines():
        m = _LINE.search(line)
        if not m:
            continue
        t = int(m[2]) * 10**9 + int(m[3].ljust(9, "0")[:9])
        event, body = m[4], m[5]
        if event != "sched_wakeup" and int(m[1]) != cpu:
            continue
        if event == "local_timer_entry":
            last_timer = t
        elif event == "sched_wakeup":
            pid = int(re.search(r"pid=([0-9]+)", body)[1])  # type: ignore[index]
            if pid in tids and pid not in woken:
                woken[pid], ran[pid] = t, Counter()
        elif event == "sched_switch":
            prev = re.search(r"prev_comm=(.*?) prev_pid=([0-9]+)", body)
            nxt = int(re.search(r"next_pid=([0-9]+)", body)[1])  # type: ignore[index]
            for pid in woken:
                if prev and int(prev[2]) != pid:
                    ran[pid][prev[1]] += 1
            if nxt in woken:
                start = woken.pop(nxt)
                out.append({"wait_ns": t - start, "after_timer": t - last_timer <= near,
                            "ran": dict(ran.pop(nxt))})
    return out


def bands(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The waits in bands of length: count, share ended by a timer interrupt, who ran."""
    edges = [0, 100_000, 1_000_000, 3_000_000, 10**18]
    rows = []
    for lo, hi in zip(edges, edges[1:]):
        inside = [w for w in found if lo <= w["wait_ns"] < hi]
        who: Counter[str] = Counter()
        for w in inside:
            who.update(w["ran"])
        rows.append({"from_ns": lo, "to_ns": hi if hi < 10**18 else None, "count": len(inside),
                     "after_timer": sum(w["after_timer"] for w in inside),
                     "ran_meanwhile": dict(who.most_common(4))})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m akita.linux.wakeups")
    parser.add_argument("host")
    parser.add_argument("--vm", required=True)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--cpu", type=int, default=1)
    parser.add_argument("--client-cpu", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    host = load_host(args.host)
    with tempfile.TemporaryDirectory() as scratch, Instance(args.cpu) as trace, \
            Workloads(host, placement=placement(host, (args.cpu,)), client_cpu=args.client_cpu,
                      seed=args.seed, seconds=args.seconds, out_dir=Path(scratch)) as load:
        tids = {t.tid for t in load.start() if t.vm == args.vm}
        trace.on()
        load.wait()
        text = trace.read()
        figures = load.results()[args.vm]
    found = waits(text, tids, args.cpu)
    print(json.dumps({"host": args.host, "vm": args.vm, "seconds": args.seconds,
                      "wakeups": len(found), "bands": bands(found), "vm_figures": figures},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""This machine's context-switch cost, measured as ``perf bench sched pipe`` measures it.

Method (Linux ``tools/perf/bench/sched-pipe.c``, after Ingo Molnar's
``pipe-test-1m.c``; the two-pipe method goes back to Ousterhout): two
processes and two pipes; for ``N`` round trips the parent writes one word
into the first pipe and reads one from the second, the child reads from
the first and writes into the second.  Each process blocks in ``read``
until the other has written, so on one CPU every round trip is two context
switches, and the cost of one is ``elapsed / (2 N)``.  Run twice: with both
processes pinned to one CPU (``os.sched_setaffinity``; the seed's ``taskset
-c 0``), where each hand-over is a switch, and unpinned, where the kernel
may run the two on different CPUs and a hand-over is a wake-up across CPUs
instead.

What a Python ping-pong also measures: the interpreter's own time for the
loop and the system calls' time.  So, as Li, Ding and Shen do ("Quantifying
the cost of context switch", ExpCS 2007: their ``measureSingle`` beside
``measureSwitch``), the same loop runs in one process as a *baseline* --
write then read on the first pipe, write then read on the second: the same
four system calls and the same Python statements per round trip, without a
switch -- and the *net* cost of a switch is ``raw - baseline``, per switch.
That is the direct cost only (saving and restoring state, the scheduler's
decision); the indirect cost of the caches the other process evicts is not
in it (a one-word ping-pong touches almost no data).

Each figure is the median of ``--repeats`` runs of ``--round-trips`` round
trips, each timed with ``time.perf_counter_ns``; the spread is the least
and the greatest run.  The machine is shared, so the figures are
pessimistic; the load average before and after is printed.

    python bench/context_switch.py [--round-trips 100000] [--repeats 7] [--cpu 0] [--json]
    python bench/context_switch.py --host HOST.toml --out COPY.toml

``--json`` prints one JSON object; the last line of the text output is a
``context_switch_cost = "...ns"`` line to paste into a host file's
``[host]`` table (the pinned, net median, in whole ns).  ``--host`` and
``--out`` write a copy of HOST.toml with that cost (written whole, through
a temporary file, after the measurement: OUT is never half written).  Bad
input exits with status 2 and one line on stderr, before anything is
measured.

The net figures are a difference of two noisy runs; they are a cost only
when :func:`akita.model.measured_cost.judge_switch_cost` accepts them (a
positive median, a spread within the median; decision 330).  Refused, the
JSON's ``context_switch_cost_ns`` is ``null`` and its ``verdict`` says why,
the text ends with a ``no context_switch_cost: ...`` line instead of the
line to paste, ``--out`` is not written, and the exit status is 3: nothing
was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn, Sequence

import attrs

from akita.model import Host
from akita.model.measured_cost import judge_switch_cost

__all__ = ["ping_pong", "baseline", "per_switch", "spread", "measure", "cost_line",
           "with_cost", "main"]

#: What one message is: one word, as sched-pipe.c's ``int``.
WORD = b"\0\0\0\0"


def ping_pong(round_trips: int, cpu: int | None) -> int:
    """Nanoseconds the parent takes for *round_trips* round trips with a child process.

    With *cpu* both processes are pinned to that CPU before the clock starts;
    with ``None`` they run where the kernel puts them.
    """
    to_child, to_parent = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: read, then answer
        status = 0
        try:
            if cpu is not None:
                os.sched_setaffinity(0, {cpu})
            read, write = os.read, os.write
            for _ in range(round_trips):
                read(to_child[0], 4)
                write(to_parent[1], WORD)
        except BaseException:
            status = 1
        os._exit(status)
    try:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
        read, write = os.read, os.write
        start = time.perf_counter_ns()
        for _ in range(round_trips):
            write(to_child[1], WORD)
            read(to_parent[0], 4)
        elapsed = time.perf_counter_ns() - start
    finally:
        _, status = os.waitpid(pid, 0)
        for fd in (*to_child, *to_parent):
            os.close(fd)
    if status != 0:
        raise RuntimeError(f"the child process failed (wait status {status})")
    return elapsed


def baseline(round_trips: int, cpu: int | None) -> int:
    """Nanoseconds the same loop takes in one process: the same system calls, no switch."""
    first, second = os.pipe(), os.pipe()
    try:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
        read, write = os.read, os.write
        start = time.perf_counter_ns()
        for _ in range(round_trips):
            write(first[1], WORD)
            read(first[0], 4)
            write(second[1], WORD)
            read(second[0], 4)
        return time.perf_counter_ns() - start
    finally:
        for fd in (*first, *second):
            os.close(fd)


def per_switch(elapsed_ns: int, round_trips: int) -> float:
    """The cost of one switch: *elapsed_ns* over the ``2 N`` switches of *round_trips* (ns)."""
    if round_trips <= 0:
        raise ValueError(f"round_trips must be > 0, not {round_trips}")
    return elapsed_ns / (2 * round_trips)


def spread(samples: Sequence[float]) -> dict[str, float]:
    """The median, the least and the greatest of *samples* (ns per switch), to 0.1 ns."""
    if not samples:
        raise ValueError("no sample")
    return {"median": round(statistics.median(samples), 1), "min": round(min(samples), 1),
            "max": round(max(samples), 1)}


def measure(round_trips: int, repeats: int, cpu: int) -> dict[str, Any]:
    """Raw, baseline and net cost per switch, pinned to *cpu* and unpinned (ns, see module doc).

    The net figure of each repeat is its raw figure minus the baseline run
    just before it, so that a change of load between repeats hits both.
    """
    doc: dict[str, Any] = {}
    original = os.sched_getaffinity(0)
    try:
        for setting, where in (("pinned", cpu), ("unpinned", None)):
            raw, base = [], []
            for _ in range(repeats):
                base.append(per_switch(baseline(round_trips, where), round_trips))
                os.sched_setaffinity(0, original)
                raw.append(per_switch(ping_pong(round_trips, where), round_trips))
                os.sched_setaffinity(0, original)
            net = [r - b for r, b in zip(raw, base)]
            doc[setting] = {"raw_ns": spread(raw), "baseline_ns": spread(base),
                            "net_ns": spread(net)}
    finally:
        os.sched_setaffinity(0, original)
    return doc


def cost_line(ns: float) -> str:
    """The host-file line that sets *ns* (rounded to whole ns) as the switch cost; a negative
    *ns* is refused (``ValueError``), not clamped: it is no cost (decision 330)."""
    if round(ns) < 0:
        raise ValueError(f"a switch cost of {ns} ns is not a cost")
    return f'context_switch_cost = "{round(ns)}ns"'


def with_cost(host: Host, ns: int) -> str:
    """The host file of *host* with ``context_switch_cost = ns``, as ``dumps_host`` writes it."""
    from akita.model import dumps_host

    return dumps_host(attrs.evolve(host, options=attrs.evolve(host.options,
                                                              context_switch_cost=ns)))


def _write_whole(path: Path, text: str) -> None:
    """*text* into *path* through a temporary file in its folder: all of it or nothing."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


class _Parser(argparse.ArgumentParser):
    """argparse, but bad input is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = _Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--cpu", type=int, default=0, help="the CPU of the pinned runs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--host", type=Path, help="a host file to copy with the measured cost")
    parser.add_argument("--out", type=Path, help="where --host's copy goes")
    return parser.parse_args(argv)


def _check(args: argparse.Namespace) -> Host | None:
    """The host of ``--host``, if given; exits 2 with one line on bad input."""
    def bad(message: str) -> None:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)

    if args.round_trips < 1 or args.repeats < 1:
        bad("--round-trips and --repeats must be >= 1")
    if args.cpu not in os.sched_getaffinity(0):
        bad(f"--cpu {args.cpu} is not a CPU this process may run on "
            f"({sorted(os.sched_getaffinity(0))})")
    if (args.host is None) != (args.out is None):
        bad("--host and --out go together")
    if args.host is None:
        return None
    from akita.model import ModelError, load_host

    try:
        host = load_host(args.host)
    except ModelError as error:
        bad(str(error).splitlines()[0])
    try:  # the folder must take the temporary file that becomes OUT
        if args.out.is_dir():
            raise IsADirectoryError(str(args.out))
        handle, probe = tempfile.mkstemp(dir=args.out.parent or None, prefix=".probe.")
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        bad(f"--out {args.out}: expected a file in a folder that can be written ({error})")
    return host


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    host = _check(args)
    before = os.getloadavg()
    doc: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "machine": platform.machine(), "kernel": platform.release()},
        "round_trips": args.round_trips, "repeats": args.repeats, "cpu": args.cpu,
        "load_before": [round(x, 2) for x in before]}
    doc.update(measure(args.round_trips, args.repeats, args.cpu))
    doc["load_after"] = [round(x, 2) for x in os.getloadavg()]
    verdict = judge_switch_cost(doc["pinned"]["net_ns"])
    doc["context_switch_cost_ns"] = verdict.cost_ns
    doc["verdict"] = verdict.as_json()
    if host is not None and verdict.cost_ns is not None:
        _write_whole(args.out, with_cost(host, verdict.cost_ns))
    if args.json:
        print(json.dumps(doc))
    else:
        _print(doc)
    if verdict.cost_ns is None:
        if host is not None:
            print(f"error: {args.out}: not written: context_switch_cost {verdict.why}",
                  file=sys.stderr)
        return 3
    return 0


def _print(doc: dict[str, Any]) -> None:
    m = doc["machine"]
    print(f"Python {m['python']} on {m['machine']}, {m['cpus']} CPUs, Linux {m['kernel']}; "
          f"load average before: {' '.join(map(str, doc['load_before']))}")
    print(f"{doc['round_trips']} round trips = {2 * doc['round_trips']} switches per run, "
          f"median of {doc['repeats']} runs [least, greatest], ns per switch")
    for setting in ("pinned", "unpinned"):
        where = f"pinned to CPU {doc['cpu']}" if setting == "pinned" else "unpinned"
        for part in ("raw_ns", "baseline_ns", "net_ns"):
            s = doc[setting][part]
            print(f"  {where:<16} {part[:-3]:<9} {s['median']:9.1f}  "
                  f"[{s['min']:.1f}, {s['max']:.1f}]")
    print(f"load average after: {' '.join(map(str, doc['load_after']))}")
    cost = doc["context_switch_cost_ns"]
    print(cost_line(cost) if cost is not None else f"no context_switch_cost: "
                                                   f"{doc['verdict']['why']}")


if __name__ == "__main__":
    sys.exit(main())

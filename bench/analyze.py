"""Benchmark: ``akita analyze``'s speed on a 1M-event trace, beside ``akita conform``'s.

    python bench/analyze.py [--events 1000000] [--repeat 2]
                            [--formats jsonl,ftrace,trace.dat,xentrace]

The trace is ``bench/conform.py``'s: the ``big`` host of ``bench/simulate.py``
(128 VMs offered to 16 pCPUs, Table 1 presets with poisson, duty and
periodic workloads, ``random.Random(1)``) simulated under ``akita`` for as
many seconds as it takes to write at least ``--events`` events; each kernel
format of ``--formats`` is that trace rendered as the kernel would record
it (``tests/kernel_render.py``).  Then, each in a fresh subprocess (peak RSS
from :func:`os.wait4`), best of ``--repeat``:

``analyze``
    :func:`akita.analysis.analyze_file` (the whole analysis, with 100 ms
    windows; a kernel format with the rendering's task map);
``conform``
    the oracle's check of the same file (``bench/conform.py``'s workers:
    :func:`akita.oracle.conform` for JSON Lines, :func:`akita.oracle.conform_file`
    with tolerance 0 for the kernel formats).

Events per second divide the *JSON Lines* trace's event count by the wall
time for every row, so that the rows of one trace compare as speeds.
Every figure is printed with the command that produced it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import conform as oracle_bench  # bench/conform.py
from simulate import run_worker  # bench/simulate.py


def worker_analyze(path: str) -> dict:
    from akita.analysis import analyze_file

    options: dict = {}
    if os.path.exists(path + ".json"):
        with open(path + ".json", encoding="utf-8") as given:
            rendering = json.load(given)
        options = dict(rendering["options"], trace_map=rendering["trace_map"])
    start = time.perf_counter()
    found = analyze_file(path, window=100_000_000, **options)
    wall = time.perf_counter() - start
    return {"wall": wall, "records": found.events, "tasks": len(found.tasks),
            "span_ns": found.span_ns}


def _best(args: argparse.Namespace, argv: list[str], events: int, label: str) -> None:
    runs = [run_worker(sys.executable, argv, __file__) for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["wall"])
    rss = max(r["rss_mib"] for r in runs)
    print(f"  {label:>8}: {best['wall']:.2f} s (best of {len(runs)}), "
          f"{events / best['wall']:,.0f} events/s, peak RSS {rss:.1f} MiB")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        kind, rest = sys.argv[2], sys.argv[3:]
        if kind == "make":
            doc = oracle_bench.worker_make(rest[0], int(rest[1]))
        elif kind == "render":
            doc = oracle_bench.worker_render(rest[0], rest[1], rest[2])
        elif kind == "analyze":
            doc = worker_analyze(rest[0])
        elif kind == "conform-jsonl":
            doc = oracle_bench.worker_check(rest[0], "conform")
        else:
            doc = oracle_bench.worker_kernel(rest[0], "conform")
        print(json.dumps(doc))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--formats", default="jsonl,ftrace,trace.dat,xentrace")
    args = parser.parse_args()
    print(f"$ python bench/analyze.py --events {args.events} --repeat {args.repeat} "
          f"--formats {args.formats}")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "big.jsonl")
        made = run_worker(sys.executable, ["--worker", "make", path, str(args.events)], __file__)
        events = made["events"]
        print(f"trace: {events:,} events, {made['bytes'] / 2**20:.0f} MiB, "
              f"{made['seconds']} s simulated (128 VMs offered to 16 pCPUs)")
        for fmt in args.formats.split(","):
            target = path
            if fmt != "jsonl":
                target = os.path.join(folder, f"big.{fmt}")
                run_worker(sys.executable, ["--worker", "render", path, fmt, target], __file__)
            size = os.path.getsize(target) / 2**20
            print(f"{fmt} ({size:.0f} MiB):")
            _best(args, ["--worker", "analyze", target], events, "analyze")
            _best(args, ["--worker", "conform-jsonl" if fmt == "jsonl" else "conform-kernel",
                         target], events, "conform")


if __name__ == "__main__":
    main()

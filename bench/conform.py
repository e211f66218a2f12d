"""Benchmark: the conformance oracle's speed on a large trace, and its mutation score.

    python bench/conform.py --part speed [--events 1000000] [--repeat 3]
                            [--formats jsonl,ftrace,trace.dat,xentrace]
    python bench/conform.py --part mutation [--hosts 1000] [--phases seeded|synchronous]
    python bench/conform.py                      # both

``speed``
    The ``big`` host of ``bench/simulate.py`` (Table 1 presets with poisson,
    duty and periodic workloads, ``random.Random(1)``) with 128 VMs offered
    to 16 pCPUs is simulated under ``akita`` with a trace, for as many
    simulated seconds as it takes to write at least ``--events`` events.
    Then, each in a fresh subprocess (peak RSS from :func:`os.wait4`):
    ``parse`` reads the trace with :func:`akita.oracle.read_jsonl` and does
    nothing else; ``conform`` reads it and checks it with
    :func:`akita.oracle.conform` (ties ``any``, tolerance 0).  Events per
    second are the trace's events over the ``conform`` wall time, best of
    ``--repeat``; the difference from ``parse`` is the oracle's own cost.
    Each kernel format of ``--formats`` (``ftrace``, ``trace.dat``,
    ``xentrace``) is the same trace rendered as a kernel would record it
    (``tests/kernel_render.py``: only its switches and wakeups); ``read``
    runs the format's reader alone (its scheduler events), ``conform`` the
    whole check (:func:`akita.oracle.conform_file`, tolerance 0), and events
    per second count the oracle's events.
``mutation``
    ``--hosts`` hosts drawn by Hypothesis (``derandomize=True``, so always
    the same ones) from ``sim_hosts() | stressed_hosts()`` of
    :mod:`akita.strategies`, each with a seed from 1 to 5 and ``phases``
    set to ``--phases`` (default ``seeded``: every VM's period grid drawn
    from the seed, issue 11), simulated for
    100 ms under the reference and under each mutant of
    :mod:`akita.reference.mutants`; :func:`akita.oracle.mutation.score_mutants`
    scores the oracle under ties ``any`` and ``strict``, on full traces and
    on traces cut to ``dispatch``, ``idle`` and ``mode``.

Every figure is printed with the command that produced it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

from simulate import big_host, run_worker  # bench/simulate.py

_S = 1_000_000_000


def worker_make(path: str, events: int) -> dict:
    """Simulate the big host for long enough that the trace has at least *events* events."""
    from akita.model import first_fit
    from akita.reference.policies import AkitaPolicy
    from akita.reference.simulator import Simulator

    host = big_host(128, 16, 1)
    seconds = 1
    while True:
        with open(path, "w", encoding="utf-8") as out:
            Simulator(host, first_fit(host), AkitaPolicy(), duration=seconds * _S,
                      trace=out).run()
        with open(path, encoding="utf-8") as trace:
            count = sum(1 for _ in trace) - 1
        if count >= events:
            return {"wall": 0.0, "events": count, "seconds": seconds,
                    "bytes": os.path.getsize(path)}
        seconds = max(seconds + 1, -(-seconds * events * 21 // (count * 20)))  # 5% margin


def worker_check(path: str, mode: str) -> dict:
    from akita.oracle import conform, read_jsonl, trace_phases

    host = big_host(128, 16, 1)
    start = time.perf_counter()
    with open(path, encoding="utf-8") as trace:
        header, events = read_jsonl(trace, path)
        if mode == "parse":
            count = sum(1 for _ in events)
            doc = {"events": count}
        else:
            report = conform(host, events, end=header["duration_ns"],
                             phases=trace_phases(header, host))
            doc = {"events": report.events, "decisions": report.decisions,
                   "verdict": report.verdict, "ambiguous": report.ambiguous,
                   "checks": report.checks}
    doc["wall"] = time.perf_counter() - start
    return doc


def worker_render(path: str, fmt: str, out: str) -> dict:
    """Render the JSON Lines trace at *path* as kernel format *fmt* into *out*."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    from kernel_render import RENDERERS

    with open(path, encoding="utf-8") as trace:
        lines = trace.read().splitlines()
    rendering = RENDERERS[fmt](lines)
    with open(out, "wb") as target:
        target.write(rendering.data)
    with open(out + ".json", "w", encoding="utf-8") as options:
        json.dump({"trace_map": rendering.trace_map, "options": rendering.options,
                   "end": json.loads(lines[0])["duration_ns"]}, options)
    return {"wall": 0.0, "bytes": len(rendering.data)}


def worker_kernel(path: str, mode: str) -> dict:
    """``read``: the reader of *path*'s format alone; ``conform``: the whole check."""
    from akita.oracle import conform_file
    from akita.trace.ftrace import sched_events
    from akita.trace.tracedat import read_tracedat
    from akita.trace.xentrace import read_xentrace
    from akita.trace.jsonl import text_lines

    with open(path + ".json", encoding="utf-8") as options:
        given = json.load(options)
    fmt = given["options"]["trace_format"]
    host = big_host(128, 16, 1)
    start = time.perf_counter()
    if mode == "read":
        with open(path, "rb") as stream:
            if fmt == "ftrace":
                records = sched_events(text_lines(stream, path), path=path)
            elif fmt == "trace.dat":
                records = read_tracedat(stream, path=path)
            else:
                records = read_xentrace(stream, path=path, cpu_hz=given["options"]["cpu_hz"])
            doc = {"events": sum(1 for _ in records)}
    else:
        report = conform_file(host, path, trace_map=given["trace_map"], end=given["end"],
                              tolerance=0, **given["options"])
        doc = {"events": report.events, "decisions": report.decisions,
               "verdict": report.verdict, "checks": report.checks}
    doc["wall"] = time.perf_counter() - start
    return doc


def _best(args, mode: str, path: str, worker: str) -> None:
    runs = [run_worker(sys.executable, ["--worker", worker, path, mode], __file__)
            for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["wall"])
    rss = max(r["rss_mib"] for r in runs)
    extra = ""
    if mode == "conform":
        extra = (f", {best['decisions']:,} decisions, {best['checks']:,} check points, "
                 f"verdict {best['verdict']}")
    print(f"{mode:>8}: {best['wall']:.2f} s (best of {len(runs)}), "
          f"{best['events'] / best['wall']:,.0f} events/s, peak RSS {rss:.1f} MiB{extra}")


def part_speed(args) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "big.jsonl")
        made = run_worker(sys.executable, ["--worker", "make", path, str(args.events)], __file__)
        print(f"$ python bench/conform.py --part speed --events {args.events}")
        print(f"trace: {made['events']:,} events, {made['bytes'] / 2**20:.0f} MiB, "
              f"{made['seconds']} s simulated (128 VMs offered to 16 pCPUs)")
        formats = args.formats.split(",")
        if "jsonl" in formats:
            print("jsonl:")
            for mode in ("parse", "conform"):
                _best(args, mode, path, "check")
        for fmt in (f for f in formats if f != "jsonl"):
            out = os.path.join(folder, f"big.{fmt}")
            rendered = run_worker(sys.executable, ["--worker", "render", path, fmt, out],
                                  __file__)
            print(f"{fmt}: {rendered['bytes'] / 2**20:.0f} MiB")
            for mode in ("read", "conform"):
                _best(args, mode, out, "kernel")


def part_mutation(args) -> None:
    import attrs
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from akita.oracle.mutation import score_mutants
    from akita.strategies import sim_hosts, stressed_hosts

    cases = []

    @settings(max_examples=args.hosts, derandomize=True, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(st.one_of(sim_hosts(), stressed_hosts()), st.integers(1, 5))
    def collect(host, seed):
        options = attrs.evolve(host.options, phases=args.phases)
        cases.append((attrs.evolve(host, options=options), seed))

    collect()
    print(f"$ python bench/conform.py --part mutation --hosts {args.hosts} "
          f"--phases {args.phases}")
    print(f"{len(cases)} hosts, 100 ms each")
    full = ("dispatch", "idle", "mode", "temperature", "release", "exhaust")
    for reports in (full, ("dispatch", "idle", "mode")):
        for ties in ("any", "strict"):
            start = time.perf_counter()
            report = score_mutants(cases, duration=100_000_000, ties=ties, reports=reports)
            wall = time.perf_counter() - start
            killed, total = report.score
            flagged = sum(m.flagged > 0 for m in report.mutants)
            print(f"\nreports={','.join(reports)} ties={ties}: reference conformant on "
                  f"{report.reference_passed}/{report.hosts} hosts; mutants flagged "
                  f"{flagged}/{total}, named by their rule {killed}/{total} ({wall:.0f} s)")
            print(f"  {'mutant':<22}{'rule':<6}{'diverged':>9}{'flagged':>9}{'named':>7}"
                  "  first violation's rule")
            for m in report.mutants:
                first = ", ".join(f"{r} {n}" for r, n in m.first.most_common())
                print(f"  {m.name:<22}{m.rule:<6}{m.diverged:>9}{m.flagged:>9}{m.named:>7}"
                      f"  {first}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        kind, path = sys.argv[2], sys.argv[3]
        if kind == "make":
            doc = worker_make(path, int(sys.argv[4]))
        elif kind == "render":
            doc = worker_render(path, sys.argv[4], sys.argv[5])
        elif kind == "kernel":
            doc = worker_kernel(path, sys.argv[4])
        else:
            doc = worker_check(path, sys.argv[4])
        print(json.dumps(doc))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("speed", "mutation", "all"), default="all")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default="jsonl,ftrace,trace.dat,xentrace")
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--phases", choices=("seeded", "synchronous"), default="seeded")
    args = parser.parse_args()
    if args.part in ("speed", "all"):
        part_speed(args)
    if args.part in ("mutation", "all"):
        part_mutation(args)


if __name__ == "__main__":
    main()

"""Measure akita linux on this machine: conform's verdict, R5 detection latency, deviations.

    sudo python bench/linux_live.py {standin,stress-ng} RUNS SECONDS OUT.json [VARIANT]

Each run: examples/fig5.toml under ``akita linux --attach`` for SECONDS, the
VMs stood in for by

* ``standin``: tests/data/linux/standin.c -- three CPU-bound LO guests (the
  kernel holds each to C_opt = 25 ms per 100 ms) and a HI guest on its
  period grid needing 15 ms per period for 5 periods, then 3 ms for 10;
* ``stress-ng``: ``stress-ng --cpu 1 --cpu-load 25 --cpu-method loop`` for
  each LO VM (lookbusy-like, 25%) and ``--cpu-load 40`` for the HI VM;

then ``akita conform`` on the capture (akita-linux, its claims) and with
``--policy akita``, and the R5 detection latencies of the capture
(:func:`akita.linux.latency.detection_latencies`).  Medians and spreads are
printed and written to OUT.json.

Each capture is also judged at each tolerance of :data:`LADDER` in turn, and
the first at which it is conformant is kept (``needs_tolerance_us``; ``null``:
none of them, or unconfirmed): the figures behind the akita-linux default
tolerance (decision 349).  VARIANT (default ``correct``) runs a wrong controller
(``akita linux --variant``); its ``verdict`` at the default tolerance is the
one that must name it.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIG5 = ROOT / "examples" / "fig5.toml"
AKITA = [sys.executable, "-m", "akita"]
#: The tolerances (us) each capture is judged at, smallest first.
LADDER = (500, 600, 700, 800, 900, 1000, 1200, 1500, 2000, 5000)


def mono() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def standins(binary: Path, seed: int) -> tuple[list[subprocess.Popen], dict[str, int], int]:
    from akita.model import load_host
    from akita.model.phases import resolve_phases

    procs, tids = [], {}
    align = mono() + 300_000_000
    start = align + resolve_phases(load_host(FIG5), seed)["memcached"]
    specs = {f"lookbusy{i}/0": [f"lookbusy{i}", 0, 100_000_000, 200_000_000] for i in (1, 2, 3)}
    specs["memcached/0"] = ["memcached", start, 100_000_000, 3_000_000, 15_000_000, 5, 10]
    for name, args in specs.items():
        proc = subprocess.Popen([str(binary), *map(str, args)], stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        tids[name] = int(proc.stdout.readline())  # type: ignore[union-attr]
    return procs, tids, align


def stress(seconds: float) -> tuple[list[subprocess.Popen], dict[str, int], None]:
    procs, tids = [], {}
    for name, load in [("lookbusy1/0", 25), ("lookbusy2/0", 25), ("lookbusy3/0", 25),
                       ("memcached/0", 40)]:
        proc = subprocess.Popen(["stress-ng", "--cpu", "1", "--cpu-load", str(load),
                                 "--cpu-method", "loop", "--timeout", f"{int(seconds) + 30}s",
                                 "--quiet"])
        procs.append(proc)
        child = ""
        until = time.monotonic() + 10
        while not child and time.monotonic() < until:
            time.sleep(0.05)
            child = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            child = child[0] if child else ""
        tids[name] = int(child)
    return procs, tids, None


def conform(out: Path, *extra: str) -> dict:
    done = subprocess.run([*AKITA, "conform", str(out / "host.toml"), str(out / "trace.txt"),
                           "--json", *extra], capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout)


def needs(out: Path) -> int | None:
    """The smallest tolerance of :data:`LADDER` (us) at which the capture is conformant."""
    for tolerance in LADDER:
        if conform(out, "--tolerance", f"{tolerance}us")["verdict"] == "conformant":
            return tolerance
    return None


def _runs(kind: str, runs: int, seconds: float, binary: Path, variant: str) -> list[dict]:
    from akita.linux.latency import detection_latencies

    results: list[dict] = []
    for run in range(runs):
        out = Path(tempfile.mkdtemp(prefix=f"akita-linux-{kind}-"))
        procs, tids, align = (standins(binary, run) if kind == "standin"  # type: ignore
                              else stress(seconds))
        try:
            attach = [a for n, t in tids.items() for a in ("--attach", f"{n}={t}")]
            if align is not None:
                attach += ["--align", str(align)]
            done = subprocess.run([*AKITA, "linux", str(FIG5), "--seconds", str(seconds),
                                   "--out", str(out), "--json", "--seed", str(run),
                                   "--variant", variant, *attach],
                                  capture_output=True, text=True, timeout=seconds + 120)
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
        if done.returncode != 0:
            results.append({"run": run, "error": done.stderr.strip()})
            continue
        summary = json.loads(done.stdout)
        linux = conform(out)
        strict = conform(out, "--policy", "akita")
        results.append({"run": run, "summary": summary,
                        "verdict": linux["verdict"], "counts": linux["counts"],
                        "within_tolerance": linux["within_tolerance"],
                        "decisions": linux["decisions"], "strict_counts": strict["counts"],
                        "latencies_ns": detection_latencies(out / "host.toml",
                                                            out / "trace.txt"),
                        "join_lateness_max_ns": max(summary["join_lateness_ns"], default=0),
                        "retries": summary["retries"], "tolerance_ns": linux["tolerance_ns"],
                        "needs_tolerance_us": needs(out), "out": str(out)})
        print(json.dumps({k: v for k, v in results[-1].items() if k != "summary"}), flush=True)
    return results


def main(kind: str, runs: int, seconds: float, target: Path, variant: str = "correct") -> None:
    sys.path.insert(0, str(ROOT / "tests" / "linux"))
    sys.path.insert(0, str(ROOT / "tests"))
    from standins import remove_built, standin_binary

    binary = standin_binary()
    try:
        results = _runs(kind, runs, seconds, binary, variant)  # type: ignore[arg-type]
    finally:
        remove_built()
    all_lat = [x for r in results for x in r.get("latencies_ns", [])]
    if all_lat:
        q = statistics.quantiles(all_lat, n=20) if len(all_lat) > 1 else all_lat
        print(f"R5 detection latency over {len(all_lat)} switches: median "
              f"{statistics.median(all_lat) / 1000:.0f} us, min {min(all_lat) / 1000:.0f} us, "
              f"p95 {q[-1] / 1000:.0f} us, max {max(all_lat) / 1000:.0f} us")
    ladder = [r.get("needs_tolerance_us") for r in results if "verdict" in r]
    print(f"{variant}: {sum(r.get('verdict') == 'conformant' for r in results)} of "
          f"{len(results)} conformant at the default tolerance; smallest tolerance conformant "
          f"(us) per run: {ladder}")
    target.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         *sys.argv[5:6])

"""Benchmark: do ``akita check``'s limits hold?  (issue 13, finding 2)

    python bench/check_limits.py [--timeout 5] [--runs 1]

Runs ``akita check --json`` as a user would (a fresh process each time) on
two hosts whose horizon is far beyond what Z3 settles in seconds, and
prints for each run the wall time (process start to exit, Python start-up
included), the peak resident memory of the command and of the Z3 search it
forks (``wait4``), the verdict and its reason:

* ``bench/hosts/long-horizon.toml``: one pCPU, four vCPUs, periods 1 ms,
  30 ms, 100 ms: 6,000 ticks (``--max-ticks 6000``).  Before the limit
  covered building the encoding, ``--timeout 5`` took about 50 s and the
  default 60 s ran past 580 s at 1.6 GB.
* ``bench/hosts/coprime.toml``: one pCPU, periods 4, 5, 6, 7 ms: 840 ticks
  (``--max-ticks 840``); its encoding is built in seconds but Z3's
  preprocessing ran past its own time limit by 30 s.

The limit holds when the wall time is within about a second of the limit
plus start-up (the target for the first host at ``--timeout 5``: under 7 s).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOSTS = (("long-horizon.toml", 6000), ("coprime.toml", 840))


def run_check(host: Path, max_ticks: int, timeout: float) -> tuple[float, int, dict]:
    """Wall seconds, peak RSS in kB (the command and its children) and the JSON answer."""
    command = [sys.executable, "-m", "akita", "check", str(host), "--max-ticks", str(max_ticks),
               "--timeout", f"{timeout:g}", "--json"]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = process.stdout.read() if process.stdout else b""
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = 0  # reaped by wait4
    return wall, usage.ru_maxrss, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"akita check --timeout {args.timeout:g} (wall time includes Python start-up)")
    for name, max_ticks in HOSTS:
        for _ in range(args.runs):
            wall, rss_kb, answer = run_check(HERE / "hosts" / name, max_ticks, args.timeout)
            [pcpu] = answer["pcpus"]
            print(f"{name:18s} {max_ticks:5d} ticks  {wall:5.2f} s wall  "
                  f"{rss_kb / 1024:6.0f} MB peak  {pcpu['verdict']}: {pcpu['reason']}",
                  flush=True)


if __name__ == "__main__":
    main()

"""Acceptance of the exact test against EDF-VD with the number of vCPUs per set.

The sets of ``examples/sweep-exact.toml`` (UUniFast, Table 1's periods 50-100 ms on its
5 ms grid, half the vCPUs HI with ``C_pes = 2 C_opt``, seed 16), drawn with 2, 4, 6 and
8 vCPUs per set, each asked of ``edf-vd`` and ``exact`` on one pCPU.  A set
the exact search leaves UNKNOWN (its state limit, ``--states``) is counted apart and
never accepted.  The sweep's own code draws and decides (:func:`akita.sweep.runner.run_sweep`,
in this process); only the file's ``vcpus``, ``sets``, ``tests`` and ``exact_states`` are
changed.

    python bench/acceptance.py [--vcpus 2 4 6 8] [--sets 40] [--states 100000]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from akita.sweep.runner import run_sweep
from akita.sweep.spec import loads_spec

ROOT = Path(__file__).resolve().parent.parent


def spec_text(vcpus: int, sets: int, states: int) -> str:
    """examples/sweep-exact.toml with *vcpus* per set, *sets* per point, edf-vd and exact."""
    text = (ROOT / "examples" / "sweep-exact.toml").read_text()
    text = re.sub(r"(?m)^vcpus = \d+$", f"vcpus = {vcpus}", text)
    text = re.sub(r"(?m)^sets = \d+$", f"sets = {sets}", text)
    text = re.sub(r"(?m)^exact_states = \d+$", f"exact_states = {states}", text)
    return re.sub(r"(?m)^tests = .*$", 'tests = ["edf-vd", "exact"]', text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vcpus", type=int, nargs="+", default=[2, 4, 6, 8])
    parser.add_argument("--sets", type=int, default=40, help="sets per utilisation point")
    parser.add_argument("--states", type=int, default=100_000, help="states per exact search")
    args = parser.parse_args()
    for n in args.vcpus:
        began, cpu = time.perf_counter(), time.process_time()
        result = run_sweep(loads_spec(spec_text(n, args.sets, args.states)), workers=0)
        print(f"\n{n} vCPUs per set, {args.sets} sets per point, exact at most "
              f"{args.states:,} states ({time.perf_counter() - began:.0f} s wall, "
              f"{time.process_time() - cpu:.0f} s CPU, load {os.getloadavg()[0]:.1f})")
        print("| U_LO | " + " | ".join(f"{float(p.utilization):g}" for p in result.points) + " |")
        print("|---" * (len(result.points) + 1) + "|")
        print("| edf-vd | " + " | ".join(str(p.accepted["edf-vd"]) for p in result.points) + " |")
        print("| exact (UNKNOWN) | " + " | ".join(f"{p.accepted['exact']} ({p.unknown})"
                                                  for p in result.points) + " |", flush=True)
        total = {t: sum(p.accepted[t] for p in result.points) for t in ("edf-vd", "exact")}
        print(f"in all: edf-vd {total['edf-vd']}, exact {total['exact']}, UNKNOWN "
              f"{sum(p.unknown for p in result.points)} of "
              f"{sum(p.sets for p in result.points)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""Acceptance of the exact test against EDF-VD with the number of vCPUs per set.

The sets of ``examples/sweep-exact.toml`` (UUniFast, Table 1's periods 50-100 ms on its
5 ms grid, half the vCPUs HI with ``C_pes = 2 C_opt``, seed 16), drawn with 2, 4, 6 and
8 vCPUs per set, each asked of ``edf-vd`` and ``exact`` on one pCPU.  A set
the exact search leaves UNKNOWN (its state limit, ``--states``) is counted apart and
never accepted.  The sweep's own code draws and decides (:func:`akita.sweep.runner.run_sweep`,
in this process); only the file's ``vcpus``, ``sets``, ``tests`` and ``exact_states`` are
changed.

``--table1`` asks instead of Table 1's mix as sets per pCPU: ``--sets`` sets of ``k``
VMs for each ``k`` of ``--vms``, each VM of one of Table 1's six types, each type
equally likely (``random.Random(16)``, as ``bench/exact.py``'s 1,000-VM host draws
them), synchronous phases (as that host's placement), one vCPU a VM, asked of
``edf-vd`` and of ``exact`` as ``akita admit`` asks it: the search where EDF-VD says
no, every SAFE answer re-checked (:func:`akita.proofs.exact_certificate.recheck`).
Counted apart: the sets exact leaves UNKNOWN, and the sets with ``U1 + U2 > 1`` or
``U3 > 1`` (no test could admit them: they measure the draw, not the tests).

    python bench/acceptance.py [--vcpus 2 4 6 8] [--sets 40] [--states 100000]
    python bench/acceptance.py --table1 [--vms 2 3 4 5 6 7 8] [--sets 200] [--states 600000]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Sequence

from akita.model import PRESETS, VM, SchedulerOptions
from akita.model.edf_vd import edf_vd_test
from akita.model.exact.admission import ExactTest
from akita.model.exact.limits import Limits
from akita.model.utilization import UtilizationSums
from akita.proofs.exact_certificate import recheck
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


def table1_set(rng: random.Random, k: int) -> UtilizationSums:
    """*k* VMs of Table 1's types, each type equally likely, on one pCPU."""
    names = sorted(PRESETS)
    vcpus = []
    for i in range(k):
        p = PRESETS[rng.choice(names)]
        vcpus += VM(f"{p.name.lower()}-{i}", p.criticality, p.period, p.c_opt,
                    p.c_pes).all_vcpus()
    return UtilizationSums.of(vcpus)


def table1(vms: Sequence[int], sets: int, states: int) -> None:
    """Table 1's mix as sets per pCPU (module docstring): one row per set size."""
    rng = random.Random(16)
    exact = ExactTest(SchedulerOptions(phases="synchronous"), Limits(states=states, seconds=math.inf),
                      recheck=recheck)
    print(f"| VMs per set | sets | U1 + U2 > 1 or U3 > 1 | edf-vd | exact | exact UNKNOWN | "
          f"searches (SAFE, UNSAFE, UNKNOWN) | CPU s |")
    print("|---" * 8 + "|")
    for k in vms:
        cpu, searched = time.process_time(), len(exact.trials)
        drawn = [table1_set(rng, k) for _ in range(sets)]
        overloaded = sum(1 for s in drawn if s.lo_lo + s.hi_lo > 1 or s.hi_hi > 1)
        edf = sum(1 for s in drawn if edf_vd_test(s).schedulable)
        verdicts = [exact.decide(s) for s in drawn]
        unknown = sum(1 for v in verdicts if (v.detail or {}).get("answer") == "UNKNOWN")
        answers = [t.outcome.status for t in exact.trials[searched:]]
        counts = ", ".join(str(answers.count(a)) for a in ("SAFE", "UNSAFE", "UNKNOWN"))
        print(f"| {k} | {sets} | {overloaded} | {edf} | "
              f"{sum(1 for v in verdicts if v.schedulable)} | {unknown} | {counts} | "
              f"{time.process_time() - cpu:.1f} |", flush=True)
    print(f"(exact at most {states:,} states a search, answers cached per pCPU as first fit "
          f"caches them; load {os.getloadavg()[0]:.1f} at the end)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vcpus", type=int, nargs="+", default=[2, 4, 6, 8])
    parser.add_argument("--sets", type=int, default=40, help="sets per utilisation point")
    parser.add_argument("--states", type=int, default=100_000, help="states per exact search")
    parser.add_argument("--table1", action="store_true", help="Table 1's mix as sets per pCPU")
    parser.add_argument("--vms", type=int, nargs="+", default=[2, 3, 4, 5, 6, 7, 8],
                        help="--table1: VMs per set")
    args = parser.parse_args()
    if args.table1:
        table1(args.vms, args.sets, args.states)
        return
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

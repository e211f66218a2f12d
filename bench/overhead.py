"""Benchmark: overhead-aware admission against the simulator, and what it costs in pCPUs.

    python bench/overhead.py [--hosts 1000] [--cost 2460] [--seed 1] [--part sweep|pcpus|all]

``sweep``: ``--hosts`` random hosts (2 pCPUs, 8 one-vCPU VMs each, periods
0.2-1.2 ms, jobs at period starts, HI jobs overrunning to ``C_pes`` half the
time; ``random.Random(seed)``), each placed by first fit under EDF-VD twice:
counting the switch cost (:func:`akita.model.overheads.admission_test_with_overheads`)
and ignoring it.  Every placement is run in the reference simulator for 6 ms
(a hyperperiod of the periods drawn) with the budgets the cost needs reserved
and every switch charged (:func:`akita.reference.reservations.reservation_host`);
a pCPU *misses* if a HI job, or -- on a pCPU that never entered HI mode -- a
LO job, was not done by its period's end.

``pcpus``: the pCPUs first fit needs for 1,000 Table 1 VMs (bench/exact.py's
host, ``random.Random(16)``) under EDF-VD with and without the cost, and
under the exact test with the cost (``--exact-states`` a search, no time
limit, no re-check, as ``bench/exact.py --part pcpus``; without the cost,
that script gives the exact test's figure).  ``--grain G``: a pCPU EDF-VD
does not admit on the inflated budgets is searched with them rounded up to
multiples of ``G`` ns (the scheduler then reserves those).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import math

import attrs

from akita.model import VM, Host, PRESETS, first_fit
from akita.model.admission_tests import admission_test
from akita.model.criticality import Criticality
from akita.model.options import SchedulerOptions
from akita.model.exact.admission import ExactTest
from akita.model.exact.limits import Limits
from akita.model.overheads import admission_test_with_overheads, overhead_aware
from akita.model.vm import Workload
from akita.reference.policies import POLICIES
from akita.reference.reservations import job_misses, reservation_host
from akita.reference.simulator import Simulator

PERIODS = (200_000, 300_000, 400_000, 500_000, 600_000, 1_000_000, 1_200_000)
DURATION = 6_000_000


def random_host(rng: random.Random, cost: int) -> Host:
    vms = []
    for k in range(8):
        period = rng.choice(PERIODS)
        c_opt = rng.randint(period // 20, period // 3)
        if rng.random() < 0.5:
            c_pes = rng.randint(c_opt, min(period, 2 * c_opt))
            demand = c_pes if rng.random() < 0.5 else c_opt
            vms.append(VM(f"h{k}", Criticality.HI, period, c_opt, c_pes,
                          workload=Workload(kind="periodic", demand=demand)))
        else:
            vms.append(VM(f"l{k}", Criticality.LO, period, c_opt,
                          workload=Workload(kind="periodic")))
    return Host(pcpus=2, vms=tuple(vms), options=SchedulerOptions(context_switch_cost=cost))


def missing_pcpus(host: Host, counting: bool, cost: int) -> tuple[int, int, int]:
    """(pCPUs used, pCPUs with a miss, VMs rejected) of one host's placement."""
    test = (admission_test_with_overheads("edf-vd", host.options) if counting
            else admission_test("edf-vd", host.options))
    placement = first_fit(host, test=test)
    reserved, where = reservation_host(host, placement, cost)
    result = Simulator(reserved, where, POLICIES["akita"](), duration=DURATION, seed=1).run()
    misses = job_misses(result, reserved)
    hi_time = [c["hi_time_ns"] for c in result.as_json()["pcpus"]]
    bad = set()
    for answer in where.vms:
        cpu = answer.pcpus[0]
        if misses.get(answer.vm.name) and (answer.vm.is_hi or not hi_time[cpu]):
            bad.add(cpu)
    rejected = sum(1 for answer in placement.vms if not answer.admitted)
    return sum(1 for load in where.pcpus if load.vcpus), len(bad), rejected


def part_sweep(hosts: int, cost: int, seed: int) -> None:
    rng = random.Random(seed)
    began = time.perf_counter()
    totals = {True: [0, 0, 0, 0], False: [0, 0, 0, 0]}
    for _ in range(hosts):
        host = random_host(rng, cost)
        for counting in (True, False):
            used, bad, rejected = missing_pcpus(host, counting, cost)
            totals[counting][3] += rejected
            totals[counting][0] += used
            totals[counting][1] += bad
            totals[counting][2] += int(bad > 0)
    print(f"{hosts} hosts, switch cost {cost} ns, seed {seed}, "
          f"{time.perf_counter() - began:.0f} s")
    for counting, label in ((True, "counting the cost"), (False, "ignoring the cost")):
        used, bad, hosts_bad, rejected = totals[counting]
        print(f"  {label}: {used} pCPUs in use, {bad} with a miss ({hosts_bad} hosts); "
              f"{rejected} of {8 * hosts} VMs rejected")


def table1_host(count: int, seed: int, cost: int) -> Host:
    rng = random.Random(seed)
    names = sorted(PRESETS)
    vms = []
    for i in range(count):
        p = PRESETS[rng.choice(names)]
        vms.append(VM(f"{p.name.lower()}-{i}", p.criticality, p.period, p.c_opt, p.c_pes))
    return Host(pcpus=count, vms=tuple(vms), options=SchedulerOptions(context_switch_cost=cost))


def part_exact(cost: int, states: int, grain: int) -> None:
    host = table1_host(1000, 16, cost)
    began = time.perf_counter()
    exact = ExactTest(attrs.evolve(host.options, context_switch_cost=0),
                      Limits(states=states, seconds=math.inf))
    test = overhead_aware(exact.admission_test(), cost, grain,
                          fast=admission_test("edf-vd", host.options))
    placement = first_fit(attrs.evolve(host, test="exact"), test=test)
    used = sum(1 for load in placement.pcpus if load.vcpus)
    rejected = sum(1 for vm in placement.vms if not vm.admitted)
    answers = ", ".join(f"{a} {sum(1 for t in exact.trials if t.outcome.status == a)}"
                        for a in ("SAFE", "UNSAFE", "UNKNOWN"))
    print(f"  1,000 Table 1 VMs, exact at {cost} ns a switch ({states:,} states a search, "
          f"searched budgets rounded up to {grain} ns): "
          f"{used} pCPUs ({rejected} rejected); searches: {answers}; "
          f"{time.perf_counter() - began:.0f} s", flush=True)


def part_pcpus(cost: int) -> None:
    host = table1_host(1000, 16, cost)
    rows = [("edf-vd ignoring the cost", admission_test("edf-vd", host.options))]
    rows += [(f"edf-vd at {c} ns a switch", admission_test_with_overheads("edf-vd", host.options, c))
             for c in sorted({1, cost})]
    for label, test in rows:
        began = time.perf_counter()
        placement = first_fit(host, test=test)
        used = sum(1 for load in placement.pcpus if load.vcpus)
        rejected = sum(1 for vm in placement.vms if not vm.admitted)
        print(f"  1,000 Table 1 VMs, {label}: {used} pCPUs ({rejected} rejected), "
              f"{time.perf_counter() - began:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--cost", type=int, default=2460, help="ns a switch (decision 70)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--part", choices=("sweep", "pcpus", "exact", "all"), default="all")
    parser.add_argument("--exact-states", type=int, default=50_000)
    parser.add_argument("--grain", type=int, default=1,
                        help="--part exact: round the searched budgets up to multiples of this")
    args = parser.parse_args()
    if args.part in ("pcpus", "all"):
        part_pcpus(args.cost)
    if args.part in ("exact", "all"):
        part_exact(args.cost, args.exact_states, args.grain)
    if args.part in ("sweep", "all"):
        part_sweep(args.hosts, args.cost, args.seed)
    sys.stdout.flush()


if __name__ == "__main__":
    main()

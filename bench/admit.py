"""Benchmark: first-fit admission of many VMs onto many pCPUs.

    python bench/admit.py [--vms 10000] [--pcpus 1000] [--seed 1] [--repeat 3]

VMs are drawn (seeded) from the paper's Table 1 types with 1-4 vCPUs each.
Prints the best of ``--repeat`` wall-clock runs of :func:`akita.model.first_fit`
and, for contrast, of :func:`akita.model.scan_fit`, a linear scan that tests every
pCPU in index order with the same O(1) incremental sums (no slack tree).  Both must agree.
"""

from __future__ import annotations

import argparse
import random
import time

from akita.model import PRESETS, VM, Host, first_fit, scan_fit


def make_host(vms: int, pcpus: int, seed: int) -> Host:
    rng = random.Random(seed)
    types = sorted(PRESETS)
    offered = []
    for i in range(vms):
        p = PRESETS[rng.choice(types)]
        offered.append(
            VM(f"vm{i}", p.criticality, p.period, p.c_opt, p.c_pes, vcpus=rng.randint(1, 4), preset=p.name)
        )
    return Host(pcpus=pcpus, vms=offered)


def best_of(repeat: int, fn, *args):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vms", type=int, default=10_000)
    parser.add_argument("--pcpus", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-linear", action="store_true", help="skip the linear-scan contrast")
    args = parser.parse_args()
    host = make_host(args.vms, args.pcpus, args.seed)
    vcpus = sum(vm.vcpus for vm in host.vms)
    seconds, placement = best_of(args.repeat, first_fit, host)
    admitted = sum(vm.admitted for vm in placement.vms)
    used = sum(1 for p in placement.pcpus if p.vcpus)
    print(f"{args.vms} VMs ({vcpus} vCPUs) onto {args.pcpus} pCPUs, test edf-vd, seed {args.seed}")
    print(f"  first_fit (slack tree): {seconds:.3f} s best of {args.repeat}, "
          f"{args.vms / seconds:,.0f} VMs/s; {admitted} admitted, {used} pCPUs used")
    if not args.no_linear:
        scan_seconds, scanned = best_of(1, scan_fit, host)
        assert scanned == placement, "linear scan disagrees"
        print(f"  linear scan (contrast): {scan_seconds:.3f} s, same placement")


if __name__ == "__main__":
    main()

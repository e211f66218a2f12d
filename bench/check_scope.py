"""Benchmark: how far the Z3 check of the HI guarantee reaches.

    python bench/check_scope.py [--per-cell 3] [--timeout 60] [--seed 0]
                                [--phases every|synchronous]

For n = 2..7 vCPUs on one pCPU and hyperperiod limits of 60, 120 and 240
ticks, draws ``--per-cell`` admitted pCPUs with x < 1 (seeded; periods from
divisors of 240, half the vCPUs HI), checks the HI guarantee over one
hyperperiod (:func:`akita.proofs.hi_guarantee.check_hi_guarantee`) and prints
the verdicts and the seconds (build + solve) per pCPU.  ``--phases every``
(the default, what ``akita check`` does for a seeded host) leaves every VM's
phase symbolic; ``--phases synchronous`` fixes them all at 0, the scope of
the check before phases existed.  The same seed draws the same pCPUs in both.
"""

from __future__ import annotations

import argparse
import random
import time

from akita.model.smt.pcpu import TickPCPU
from akita.proofs.hi_guarantee import check_hi_guarantee
from akita.proofs.pcpus import random_pcpu, synchronous

PERIODS = (10, 12, 15, 16, 20, 24, 30, 40, 48, 60, 80, 120, 240)


def budgets(rng: random.Random, period: int, hi: bool, n: int) -> tuple[int, int | None]:
    """HI: ``C_opt`` up to ``T/2n``, ``C_pes`` up to ``3T/4``; LO: ``C_opt`` in ``T/2n..2T/n``."""
    if hi:
        c_opt = rng.randint(1, max(1, period // (2 * n)))
        return c_opt, rng.randint(c_opt, max(c_opt, period * 3 // 4))
    return rng.randint(max(1, period // (2 * n)), max(1, period * 2 // n)), None


def draw_pcpu(rng: random.Random, n: int, limit: int) -> TickPCPU:
    """An admitted pCPU of *n* vCPUs with x < 1 and a hyperperiod in ``(limit/2, limit]``."""
    while True:
        pcpu = random_pcpu(rng, n, [p for p in PERIODS if p <= limit], budgets)
        if pcpu is not None and limit // 2 < pcpu.hyperperiod() <= limit and pcpu.x < 1:
            return pcpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-cell", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", default="2,3,4,5,6,7")
    parser.add_argument("--limits", default="60,120,240")
    parser.add_argument("--phases", choices=("every", "synchronous"), default="every")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"HI guarantee over one hyperperiod, {args.phases} phases; "
          f"timeout {args.timeout:.0f} s per pCPU")
    print(" n  hyperperiod  verdicts (seconds each)")
    for n in map(int, args.sizes.split(",")):
        for limit in map(int, args.limits.split(",")):
            cells = []
            for _ in range(args.per_cell):
                pcpu = draw_pcpu(rng, n, limit)
                if args.phases == "synchronous":
                    pcpu = synchronous(pcpu)
                start = time.perf_counter()
                verdict = check_hi_guarantee(pcpu, pcpu.hyperperiod(), args.timeout)
                cells.append(f"{verdict.verdict} {time.perf_counter() - start:.1f}"
                             f" ({pcpu.hyperperiod()} ticks)")
            print(f"{n:2d}  <= {limit:4d}     " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()

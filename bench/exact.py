"""Per-pCPU cost of the exact decision (``test = "exact"``, :mod:`akita.model.exact`).

Measures the search alone (the EDF-VD fast path bypassed) on seeded random
pCPUs and on the issue's mixed-period pCPU, and prints RST list tables for
docs/admission.rst:

* **targets** -- issue 16's three: 5 vCPUs with periods up to 120 ticks (<= 1 s),
  8 vCPUs with periods up to 350 ticks (<= 60 s), and the 3,000-tick pCPU of a
  2-vCPU HI VM (1 ms; 100 us / 300 us), a Type1 VM and a LO VM (30 ms; 10 ms) on a
  100 us grid (<= 60 s);
* **growth** -- with the number of vCPUs, with every phase instead of synchronous
  ones, and with the ratio of the longest to the shortest period;
* **recheck** (``--part recheck``) -- issue 16's undecided targets (the three 8-vCPU pCPUs
  with periods up to 350 ticks, the mixed 3,000-tick pCPU and its 12 ms variant) with
  the certificate re-check ``akita admit`` runs (:func:`akita.proofs.exact_certificate.check_intervals`):
  the search's states, the members the member-by-member re-check would step (every work
  value of every state at a period start, counted, not stepped), the families the
  interval re-check stepped, its answer, CPU and wall seconds of each, and the wall
  seconds of the two together (what ``akita admit`` spends on the pCPU), with the load;
* **classes** (``--part classes``) -- the three 4-vCPU every-phase pCPUs searched whole,
  then split by shift class (:func:`akita.model.exact.search.shift_classes`: no state is
  reached from two classes) into ``--parts`` runs searched side by side on a local Dask
  cluster and joined (:func:`akita.model.exact.split.decide_split`; the joined
  certificate must be the whole search's): each part's answer, states and search
  seconds, the joined answer, and the split's wall seconds;
* **pcpus** (``--part pcpus``) -- the pCPUs first fit needs under ``edf-vd`` and under
  ``exact`` on the Fig. 8/9 host (``examples/fig8.toml``, every phase) and on a generated
  host of 1,000 VMs drawn from Table 1's types (``random.Random(16)``, each type equally
  likely, synchronous phases), each exact search limited to ``--pcpu-states`` states.

A pCPU is drawn as: UUniFast (:func:`akita.model.uunifast.uunifast`) splits a LO-mode
utilisation ``U`` among ``n`` vCPUs, the first ``max(1, n // 2)`` HI; each takes a
period from the list, ``C_opt = round(u T)`` (at least 1 tick) and, for HI,
``C_pes = min(T, k C_opt)`` with ``k`` drawn in 2..4; draws with ``U3 > 1`` are
redrawn; ``x`` by Eq. (4).  Seconds are wall time on this machine, shared with
other sessions (so pessimistic); UNKNOWN is a limit reached (states or seconds).

    python bench/exact.py [--part cost|recheck|pcpus|classes|all] [--quick] [--seconds S] [--states N]
                          [--unreduced] [--only TEXT ...] [--parts N] [--workers N]

``--unreduced`` runs the search without its reductions (``decide(..., reduce=False)``:
the temperatures kept whole, :mod:`akita.model.exact.abstraction` 6.), the *before* of
bench/README.md's table.  Each row's answers, states, wall and CPU seconds and the load
average are also printed to stderr as it ends.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import random
import statistics
import time
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import attrs

from akita.model import ADMISSION_TESTS, PRESETS, VM, Criticality, Host, SchedulerOptions, \
    first_fit, load_host
from akita.model.edf_vd import edf_vd_test
from akita.model.exact.admission import ExactTest
from akita.model.exact.abstraction import layout
from akita.model.exact.machine import machine
from akita.model.exact.search import Limits, decide, explore, shift_classes
from akita.model.smt.pcpu import TickPCPU, TickVCPU
from akita.model.utilization import UtilizationSums
from akita.model.uunifast import uunifast
from akita.proofs.exact_certificate import PARTS, PARTS_FROM, CheckLimits, check_intervals

US, MS = 1_000, 1_000_000
ROOT = Path(__file__).resolve().parent.parent


def draw(rng: random.Random, n: int, periods: Sequence[int], utilization: Fraction,
         every_phase: bool) -> TickPCPU:
    """One pCPU as the module docstring says."""
    while True:
        shares = uunifast(rng, n, utilization)
        vcpus = []
        for i, u in enumerate(shares):
            period = rng.choice(periods)
            hi = i < max(1, n // 2)
            c_opt = max(1, round(u * period))
            c_pes = min(period, rng.randint(2, 4) * c_opt) if hi else None
            vcpus.append(TickVCPU(f"v{i}/0", hi, period, min(c_opt, period), c_pes, i,
                                  None if every_phase else 0))
        u1 = sum(Fraction(v.c_opt, v.period) for v in vcpus if not v.hi)
        u2 = sum(Fraction(v.c_opt, v.period) for v in vcpus if v.hi)
        u3 = sum(Fraction(v.c_pes, v.period) for v in vcpus if v.hi)
        if u1 + u2 <= 1 and u3 <= 1:
            return TickPCPU(tuple(vcpus), u2 / (1 - u1) if u1 < 1 else Fraction(1))


def mixed_pcpu(batch_c_opt_ms: int = 10) -> TickPCPU:
    """The issue's mixed-period pCPU, as the exact test scales it (synchronous phases)."""
    vms = [VM("rt", Criticality.HI, MS, 100 * US, 300 * US, vcpus=2),
           VM("web", Criticality.HI, 100 * MS, 5 * MS, 25 * MS),
           VM("batch", Criticality.LO, 30 * MS, batch_c_opt_ms * MS)]
    vcpus = [v for vm in vms for v in vm.all_vcpus()]
    sums = UtilizationSums.of(vcpus)
    return ExactTest(SchedulerOptions()).pcpu(vcpus, sums.hi_lo / (1 - sums.lo_lo))


def measure(pcpu: TickPCPU, limits: Limits, reduce: bool = True) -> tuple[str, int, float, float]:
    """The answer, the states kept, wall seconds and this process's CPU seconds (the
    latter less sensitive to other work on the machine)."""
    began, cpu = time.perf_counter(), time.process_time()
    outcome = decide(pcpu, limits, reduce=reduce)
    return (outcome.status, outcome.states, time.perf_counter() - began,
            time.process_time() - cpu)


def search_row(label: str, pcpus: Sequence[TickPCPU], limits: Limits,
               reduce: bool = True) -> list[str]:
    results = [measure(p, limits, reduce) for p in pcpus]
    seconds = [r[2] for r in results]
    cpu = [r[3] for r in results]
    states = [r[1] for r in results]
    answers = {a: sum(1 for r in results if r[0] == a) for a in ("SAFE", "UNSAFE", "UNKNOWN")}
    shown = ", ".join(f"{k} {v}" for k, v in answers.items() if v)
    ticks = max(p.hyperperiod() for p in pcpus)
    print(f"  {label}: {shown}, states {states}, wall {[round(s, 1) for s in seconds]} s, "
          f"CPU {[round(s, 1) for s in cpu]} s, load {os.getloadavg()[0]:.1f}",
          file=sys.stderr, flush=True)
    return [label, str(len(pcpus)), f"{ticks:,}", shown, f"{statistics.median(states):,.0f}",
            f"{max(states):,}", f"{statistics.median(seconds):.2f}", f"{max(seconds):.2f}",
            f"{statistics.median(cpu):.2f}"]


def table(title: str, rows: list[list[str]]) -> str:
    header = ["pCPUs", "count", "longest hyperperiod (ticks)", "answers", "states (median)",
              "states (max)", "seconds (median)", "seconds (max)", "CPU seconds (median)"]
    lines = [f".. list-table:: {title}", "   :header-rows: 1", ""]
    for r in [header] + rows:
        lines.append("   * - " + r[0])
        lines += [f"     - {cell}" for cell in r[1:]]
    return "\n".join(lines)


def generated_host(count: int, seed: int) -> Host:
    """*count* VMs of Table 1's types, each type equally likely, on enough pCPUs."""
    rng = random.Random(seed)
    names = sorted(PRESETS)
    vms = []
    for i in range(count):
        p = PRESETS[rng.choice(names)]
        vms.append(VM(f"{p.name.lower()}-{i}", p.criticality, p.period, p.c_opt, p.c_pes))
    return Host(pcpus=count, vms=tuple(vms))


def pcpus_needed(host: Host, states: int) -> list[str]:
    """One table row: the pCPUs first fit uses under edf-vd and under exact."""
    used = {}
    began = time.perf_counter()
    exact = ExactTest(host.options, Limits(states=states, seconds=math.inf))
    for name, test in (("edf-vd", ADMISSION_TESTS["edf-vd"]), ("exact", exact.admission_test())):
        placement = first_fit(attrs.evolve(host, test=name), test=test)
        used[name] = (sum(1 for load in placement.pcpus if load.vcpus),
                      sum(1 for vm in placement.vms if not vm.admitted))
    answers = {a: sum(1 for t in exact.trials if t.outcome.status == a)
               for a in ("SAFE", "UNSAFE", "UNKNOWN")}
    print(f"  ({len(host.vms)} VMs: {len(exact.trials)} searches, "
          f"{time.perf_counter() - began:.0f} s)", file=sys.stderr, flush=True)
    return [f"{len(host.vms):,}", f"{used['edf-vd'][0]} ({used['edf-vd'][1]} rejected)",
            f"{used['exact'][0]} ({used['exact'][1]} rejected)",
            ", ".join(f"{k} {v}" for k, v in answers.items()),
            f"{time.perf_counter() - began:.0f}"]


def part_pcpus(states: int) -> None:
    rows = [["Fig. 8/9 host (examples/fig8.toml, every phase)"]
            + pcpus_needed(load_host(ROOT / "examples" / "fig8.toml"), states),
            ["1,000 Table 1 VMs (random.Random(16), synchronous)"]
            + pcpus_needed(generated_host(1000, 16), states)]
    header = ["host", "VMs", "pCPUs under edf-vd", "pCPUs under exact",
              "exact searches", "seconds (both placements)"]
    lines = [f".. list-table:: pCPUs first fit needs ({states:,} states per search)",
             "   :header-rows: 1", ""]
    for r in [header] + rows:
        lines.append("   * - " + r[0])
        lines += [f"     - {cell}" for cell in r[1:]]
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("cost", "recheck", "pcpus", "classes", "all"),
                        default="all")
    parser.add_argument("--quick", action="store_true", help="fewer pCPUs per row")
    parser.add_argument("--seconds", type=float, default=60.0, help="limit per pCPU")
    parser.add_argument("--states", type=int, default=4_000_000,
                        help="--part cost: the states one search may keep")
    parser.add_argument("--unreduced", action="store_true",
                        help="--part cost: the search without its reductions (the before)")
    parser.add_argument("--families", type=int, default=50_000_000,
                        help="--part recheck: the families the re-check may step")
    parser.add_argument("--parts", type=int, default=None,
                        help="--part recheck: the parts the re-check is dealt into (default: "
                             "as akita admit, 2 from 20,000 states); --part classes: the "
                             "parts the shift classes are dealt into (default 2)")
    parser.add_argument("--workers", type=int, default=None,
                        help="--part recheck, classes: worker processes for the parts "
                             "(default: one per core; 0: in this process)")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="--part recheck, classes: only the pCPUs whose label contains "
                             "TEXT (repeatable)")
    parser.add_argument("--pcpu-states", type=int, default=50_000,
                        help="--part pcpus: the states one search may keep")
    args = parser.parse_args()
    if args.part in ("pcpus", "all"):
        part_pcpus(args.pcpu_states)
    if args.part in ("cost", "all"):
        part_cost(args)
    if args.part in ("recheck", "all"):
        part_recheck(args)
    if args.part in ("classes", "all"):
        part_classes(args)


def seeded_rows(count: int) -> list[tuple[str, list[TickPCPU]]]:
    """:func:`part_cost`'s drawn rows, *count* pCPUs each, in the order they are drawn from
    ``random.Random(16)``: the one sequence every part reads its pCPUs from (the mixed
    pCPUs are built, not drawn).  The 5-vCPU synchronous label is two rows', the target's
    and the growth's; the first is the target."""
    rng = random.Random(16)
    u = Fraction(4, 5)
    rows: list[tuple[str, int, list[int], bool]] = [
        ("5 vCPUs, periods 10-120, synchronous", 5, [10, 20, 30, 40, 60, 120], False),
        ("8 vCPUs, periods 25-350, synchronous", 8, [25, 50, 70, 100, 175, 350], False)]
    rows += [(f"{n} vCPUs, periods 10-120, synchronous", n, [10, 20, 30, 40, 60, 120], False)
             for n in range(2, 9)]
    rows += [(f"{n} vCPUs, periods 10-40, every phase", n, [10, 20, 40], True) for n in (2, 3, 4)]
    rows += [(f"3 vCPUs, periods 10 and {10 * r}, synchronous", 3, [10, 10 * r], False)
             for r in (1, 3, 10, 30, 100)]
    return [(label, [draw(rng, n, periods, u, every) for _ in range(count)])
            for label, n, periods, every in rows]


def _row(rows: list[tuple[str, list[TickPCPU]]], label: str) -> list[TickPCPU]:
    """The pCPUs of the first of *rows* labelled *label*."""
    return next(pcpus for text, pcpus in rows if text == label)


def recheck_targets(quick: bool) -> list[tuple[str, TickPCPU]]:
    """The targets of :func:`part_cost` the search decides only since decision 275: its
    8-vCPU pCPUs (:func:`seeded_rows`) and the mixed pCPU with its 12 ms variant."""
    eight = _row(seeded_rows(3 if quick else 8), "8 vCPUs, periods 25-350, synchronous")
    return ([(f"8 vCPUs, periods 25-350, #{k + 1}", p) for k, p in enumerate(eight)]
            + [("mixed 3,000-tick pCPU", mixed_pcpu()),
               ("the same, batch C_opt 12 ms", mixed_pcpu(12))])


def members_at_starts(pcpu: TickPCPU, states: Sequence[bytes]) -> int:
    """The members the member-by-member re-check steps: every work value of every state
    at a period start (counted, not stepped)."""
    m = machine(pcpu)
    lay = layout(m)
    total = 0
    for key in states:
        state = lay.unpack(key)
        if 0 in lay.field(state, "pos"):
            total += math.prod(h - w + 1 for w, h in zip(lay.field(state, "work"),
                                                         lay.field(state, "most")))
    return total


def part_recheck(args: argparse.Namespace) -> None:
    limits = Limits(states=args.states, seconds=args.seconds)
    header = ["pCPU", "search", "states", "search CPU s (wall s)", "members (by member)",
              "families stepped", "re-check", "re-check CPU s (wall s)",
              "together, wall s", "load"]
    rows = []
    for label, pcpu in recheck_targets(args.quick):
        if args.only and not any(text in label for text in args.only):
            continue
        cpu, began = time.process_time(), time.perf_counter()
        reached = explore(pcpu, limits)
        search_cpu, search_wall = time.process_time() - cpu, time.perf_counter() - began
        row = [label, reached.status, f"{len(reached.states):,}",
               f"{search_cpu:.1f} ({search_wall:.1f})"]
        if reached.status != "SAFE":
            rows.append(row + ["--"] * 6)
            continue
        members = members_at_starts(pcpu, list(reached.states))
        cpu, wall = time.process_time(), time.perf_counter()
        parts = args.parts if args.parts is not None else \
            (PARTS if len(reached.states) >= PARTS_FROM else 1)
        check = check_intervals(pcpu, reached.states, parts=parts, workers=args.workers,
                                limits=CheckLimits(families=args.families, seconds=math.inf))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        answer = "accepted" if check.accepted else ("NOT accepted" if check.checked
                                                    else "limit reached")
        rows.append(row + [f"{members:,}", f"{check.members:,}", answer,
                           f"{cpu:.1f} ({wall:.1f})", f"{search_wall + wall:.1f}",
                           f"{os.getloadavg()[0]:.1f}"])
        print(f"  {label}: {check.reason}; CPU {cpu:.1f} s, wall {wall:.1f} s, "
              f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    lines = [".. list-table:: The certificate re-check by intervals (search, then re-check)",
             "   :header-rows: 1", ""]
    for r in [header] + rows:
        lines.append("   * - " + r[0])
        lines += [f"     - {cell}" for cell in r[1:]]
    print("\n".join(lines))


def every_phase_targets() -> list[tuple[str, TickPCPU]]:
    """The three 4-vCPU every-phase pCPUs of :func:`part_cost` with ``--quick``
    (:func:`seeded_rows`)."""
    return [(f"4 vCPUs, periods 10-40, every phase, #{k + 1}", p) for k, p in
            enumerate(_row(seeded_rows(3), "4 vCPUs, periods 10-40, every phase"))]


def part_classes(args: argparse.Namespace) -> None:
    """The every-phase search whole, then split by shift class and joined
    (:func:`akita.model.exact.split.decide_split`: ``--parts`` runs of classes searched
    side by side on a local Dask cluster of ``--workers``)."""
    from akita.model.exact.split import PARTS as SPLIT_PARTS, decide_split

    limits = Limits(states=args.states, seconds=math.inf)
    parts = args.parts or SPLIT_PARTS
    print("| pCPU | classes | whole: answer, states, CPU s | split: answers, joined | states "
          "per part | search s per part | split wall s | load |\n"
          "|---|---|---|---|---|---|---|---|")
    for label, pcpu in every_phase_targets():
        if args.only and not any(text in label for text in args.only):
            continue
        cpu = time.process_time()
        whole = explore(pcpu, limits)
        whole_cpu = time.process_time() - cpu
        wall = time.perf_counter()
        joined, answers = decide_split(pcpu, limits, args.workers, parts)
        wall = time.perf_counter() - wall
        if joined.status == "SAFE" and joined.states != whole.states:
            raise SystemExit(f"{label}: the joined certificate is not the whole search's")
        print(f"| {label} | {len(shift_classes(pcpu)):,} | {whole.status}, "
              f"{len(whole.states):,}, {whole_cpu:.1f} | "
              f"{', '.join(a.status for a in answers)}; {joined.status} | "
              f"{' + '.join(f'{a.kept:,}' for a in answers)} = {joined.kept:,} | "
              f"{', '.join(f'{a.seconds:.1f}' for a in answers)} | {wall:.1f} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)


def part_cost(args: argparse.Namespace) -> None:
    limits = Limits(states=args.states, seconds=args.seconds)
    row = functools.partial(search_row, reduce=not args.unreduced)
    drawn = seeded_rows(3 if args.quick else 8)
    targets = [row(label, pcpus, limits) for label, pcpus in drawn[:2]] + [
        row("mixed 3,000-tick pCPU (issue 16)", [mixed_pcpu()], limits),
        row("the same with batch C_opt 12 ms (EDF-VD rejects)", [mixed_pcpu(12)], limits),
    ]
    print(table("Issue 16's targets (search alone)", targets), "\n")
    growth = [row(label, pcpus, limits) for label, pcpus in drawn[2:]]
    print(table("Growth with vCPUs, phases and the period ratio", growth))
    for c_opt in (10, 12):
        sums = UtilizationSums.of(VM("batch", Criticality.LO, 30 * MS, c_opt * MS).all_vcpus()
                                  + VM("rt", Criticality.HI, MS, 100 * US, 300 * US,
                                       vcpus=2).all_vcpus()
                                  + VM("web", Criticality.HI, 100 * MS, 5 * MS,
                                       25 * MS).all_vcpus())
        print(f"\nEDF-VD on the mixed pCPU with batch C_opt {c_opt} ms: "
              f"{edf_vd_test(sums).reason}")


if __name__ == "__main__":
    main()

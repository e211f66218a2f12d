"""Benchmark: the reference simulator's speed and memory.

    python bench/simulate.py                          # --part all: about 100 s on 2 cores
    python bench/simulate.py --part simso [--simso-long] [--simso-python /tmp/simso-venv/bin/python]
    python bench/simulate.py --part process [--pairs 5]
    python bench/simulate.py --part decisions [--decisions 20000]
    python bench/simulate.py --part big [--big-vms 512] [--big-pcpus 64] [--big-seconds 60]
    python bench/simulate.py --setup-simso            # create /tmp/simso-venv with simso 0.8.5

Three parts:

``simso``
    One pCPU, periodic EDF, n = 10 tasks of total utilization <= 0.9
    (UUniFast with ``random.Random(1)``; periods drawn from {10, 20, 25, 50,
    100} ms with the same generator; C_i = U_i T_i rounded to whole
    microseconds, trimmed by 1 us at a time until the total is <= 0.9),
    simulated for 100 s (about 47k jobs) by SimSo 0.8.5
    (``simso.schedulers.EDF_mono``, ETM ``wcet``, ``cycles_per_ms = 10**6``
    so that a cycle is 1 ns and the duration is 10**11 cycles) and by ours
    (``Host(pcpus=1, test="edf")``, ten LO VMs with period T_i, c_opt C_i and
    a periodic workload of demand C_i, policy ``edf``).  Each run is a fresh
    subprocess; its peak RSS is the child's ``ru_maxrss`` from
    :func:`os.wait4`.  SimSo needs SimPy 2.3.1, so it runs with the python
    of a separate venv (``--setup-simso`` makes one); it keeps every job it
    ever made, so its memory grows with the horizon (about 3.6 GB at 1000 s:
    that run only with ``--simso-long``).  Both also run at 1 s and 10 s,
    and ours at 1000 s, to show how peak memory follows the horizon.  The
    100 s figures are the fastest of ``--repeat`` runs.
``process``
    The same task set as a user runs it: ``akita simulate HOST --policy edf
    --duration 100s --json`` (the host file written from the task set, the
    ``akita`` script beside this python) against SimSo's worker above, each a
    whole fresh process timed from outside (start-up, imports, the run and
    its output), in ``--pairs`` pairs run back to back (ours, then SimSo's);
    the ratio is the median of the pairs' ratios, with the child's peak RSS.
``decisions``
    One pCPU with N in {4, 16, 64, 256, 1024} LO VMs (period 100 ms,
    c_opt = floor(0.9 * 100 ms / N), a periodic workload of demand c_opt),
    policies ``akita`` and ``edf``, simulated for enough periods to make
    about ``--decisions`` scheduling decisions.  A decision is one call of
    the policy's ``pick``, counted by a subclass defined here.  Prints wall
    time per decision (the whole simulation's cost, per decision) and, from
    a second run that times each call, the time inside ``pick`` alone; and
    the growth of each per 4x N.  Best of ``--repeat`` in-process runs.
``big``
    64 pCPUs offered 512 single-vCPU VMs: Table 1 presets (Type1..Type6) and
    a poisson (1 ms exponential service), duty (10 ms window) or periodic
    workload, each drawn with ``random.Random(--seed)``, at 50-150% of the
    VM's optimistic utilization; policy ``akita`` (host test edf-vd), 60 s,
    in a fresh subprocess, once.  First fit rejects what does not fit
    (about 240 of the 512: the mix needs about twice 64 pCPUs).

Every figure is printed with the command that produced it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import shlex
import subprocess
import sys
import time
from fractions import Fraction

_MS = 1_000_000
_S = 1_000_000_000
PERIODS_MS = (10, 20, 25, 50, 100)
DEFAULT_SIMSO_PYTHON = "/tmp/simso-venv/bin/python"
SIMSO_VERSION = "0.8.5"


# -- the task set of part 1 --------------------------------------------------------------


def uunifast(rng: random.Random, n: int, total: float) -> list[float]:
    """Bini and Buttazzo's UUniFast: *n* utilizations summing to *total*."""
    out, left = [], total
    for i in range(1, n):
        rest = left * rng.random() ** (1.0 / (n - i))
        out.append(left - rest)
        left = rest
    out.append(left)
    return out


def task_set(n: int = 10, total: str = "0.9", seed: int = 1) -> list[tuple[int, int]]:
    """``[(T_i, C_i)]`` in ns: C_i whole microseconds, sum C_i / T_i <= *total* exactly."""
    rng = random.Random(seed)
    utils = uunifast(rng, n, float(total))
    periods = [rng.choice(PERIODS_MS) * _MS for _ in range(n)]
    wcets_us = [max(1, round(u * p / 1000)) for u, p in zip(utils, periods)]
    bound = Fraction(total)
    while sum(Fraction(c * 1000, p) for c, p in zip(wcets_us, periods)) > bound:
        i = max(range(n), key=lambda k: wcets_us[k])
        wcets_us[i] -= 1
    return [(p, c * 1000) for p, c in zip(periods, wcets_us)]


def task_set_utilization(tasks: list[tuple[int, int]]) -> Fraction:
    return sum((Fraction(c, p) for p, c in tasks), Fraction(0))


# -- workers: each runs in a fresh process and prints one JSON line ------------------------


def worker_ours(tasks: list[tuple[int, int]], seconds: int) -> dict:
    from akita.model import VM, Criticality, Host, Workload
    from akita.reference.run import simulate

    vms = [
        VM(f"t{i}", Criticality.LO, period, wcet, workload=Workload(kind="periodic", demand=wcet))
        for i, (period, wcet) in enumerate(tasks)
    ]
    host = Host(pcpus=1, vms=vms, test="edf")
    start = time.perf_counter()
    result = simulate(host, "edf", duration=seconds * _S, seed=1)
    wall = time.perf_counter() - start
    doc = result.as_json()
    return {
        "wall": wall,
        "jobs": sum(vm["requests"] for vm in doc["vms"].values()),
        "rejected": len(doc["rejected"]),
        "context_switches": sum(c["context_switches"] for c in doc["pcpus"]),
    }


def worker_simso(tasks: list[tuple[int, int]], seconds: int) -> dict:
    from simso.configuration import Configuration
    from simso.core import Model

    config = Configuration()
    config.cycles_per_ms = 1_000_000  # a cycle is 1 ns
    config.duration = seconds * 1000 * config.cycles_per_ms
    config.etm = "wcet"
    config.add_processor(name="CPU 1", identifier=1)
    for i, (period, wcet) in enumerate(tasks):
        # SimSo takes milliseconds as floats and runs int(wcet * cycles_per_ms) cycles:
        # make sure that is exactly C_i ns.
        wcet_ms = wcet / _MS
        if int(wcet_ms * config.cycles_per_ms) != wcet:
            wcet_ms = (wcet + 0.5) / _MS
        assert int(wcet_ms * config.cycles_per_ms) == wcet
        config.add_task(name=f"t{i}", identifier=i + 1, period=period // _MS, activation_date=0,
                        wcet=wcet_ms, deadline=period // _MS)
    config.scheduler_info.clas = "simso.schedulers.EDF_mono"
    config.check_all()
    start = time.perf_counter()
    model = Model(config)
    model.run_model()
    wall = time.perf_counter() - start
    jobs = sum(1 for task in model.task_list for job in task.jobs if job.end_date is not None)
    aborted = sum(1 for task in model.task_list for job in task.jobs if job.aborted)
    return {"wall": wall, "jobs": jobs, "aborted": aborted}


def counting_policy(cls, timed: bool = False):
    """A subclass of policy *cls* that counts (and, if *timed*, times) its ``pick`` calls."""
    if timed:
        clock = time.perf_counter_ns

        class Timed(cls):
            decisions = 0
            pick_ns = 0

            def pick(self, cpu, t):
                start = clock()
                answer = super().pick(cpu, t)
                self.pick_ns += clock() - start
                self.decisions += 1
                return answer

        return Timed

    class Counting(cls):
        decisions = 0

        def pick(self, cpu, t):
            self.decisions += 1
            return super().pick(cpu, t)

    return Counting


def big_host(vms: int, pcpus: int, seed: int):
    from akita.model import PRESETS, VM, Host, Workload

    rng = random.Random(seed)
    types = sorted(PRESETS)
    offered = []
    for i in range(vms):
        p = PRESETS[rng.choice(types)]
        kind = rng.choice(("poisson", "duty", "periodic"))
        load = Fraction(rng.randint(50, 150), 100) * Fraction(p.c_opt, p.period)
        if kind == "poisson":
            service = _MS
            workload = Workload(kind="poisson", rate=load * _S / service, service=service,
                                distribution="exponential")
        elif kind == "duty":
            workload = Workload(kind="duty", utilization=load, window=10 * _MS)
        else:
            workload = Workload(kind="periodic", demand=max(1, math.floor(load * p.period)))
        offered.append(VM(f"vm{i}", p.criticality, p.period, p.c_opt, p.c_pes, preset=p.name,
                          workload=workload))
    return Host(pcpus=pcpus, vms=offered)


def worker_big(vms: int, pcpus: int, seconds: int, seed: int) -> dict:
    from akita.model import first_fit
    from akita.reference.policies import AkitaPolicy
    from akita.reference.simulator import Simulator

    host = big_host(vms, pcpus, seed)
    start = time.perf_counter()
    placement = first_fit(host)
    policy = counting_policy(AkitaPolicy)()
    result = Simulator(host, placement, policy, duration=seconds * _S, seed=seed).run()
    wall = time.perf_counter() - start
    doc = result.as_json()
    kinds: dict[str, int] = {}
    for vm in host.vms:
        if vm.name not in doc["rejected"]:
            kinds[vm.workload.kind] = kinds.get(vm.workload.kind, 0) + 1
    return {
        "wall": wall,
        "jobs": sum(vm["requests"] for vm in doc["vms"].values()),
        "decisions": policy.decisions,
        "rejected": len(doc["rejected"]),
        "admitted_kinds": kinds,
        "context_switches": sum(c["context_switches"] for c in doc["pcpus"]),
        "mode_switches": sum(c["mode_switches"] for c in doc["pcpus"]),
        "hi_misses": sum(vm["hi_misses"] for vm in doc["vms"].values()),
        "pcpus_used": sum(1 for load in placement.pcpus if load.vcpus),
    }


def run_worker(python: str, argv: list[str], script: str = __file__) -> dict:
    """Run *script* (this file) as a worker under *python*; its JSON answer plus its peak RSS (MiB)."""
    command = [python, os.path.abspath(script), *argv]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed ({proc.returncode}):\n{err}")
    answer = json.loads(out.strip().splitlines()[-1])
    answer["rss_mib"] = usage.ru_maxrss / 1024  # Linux: KiB
    return answer


# -- the parts -----------------------------------------------------------------------------


def best_run(python: str, argv: list[str], repeat: int) -> dict:
    """The fastest of *repeat* fresh-process runs (its peak RSS: the largest of them)."""
    runs = [run_worker(python, argv) for _ in range(repeat)]
    best = min(runs, key=lambda r: r["wall"])
    best["rss_mib"] = max(r["rss_mib"] for r in runs)
    best["runs"] = len(runs)
    return best


def part_simso(args) -> None:
    tasks = task_set()
    u = task_set_utilization(tasks)
    print("== Part 1: side by side with SimSo", SIMSO_VERSION, "==")
    print(f"task set (UUniFast, random.Random(1)): n = {len(tasks)}, U = {u} = {float(u):.6f}")
    for i, (period, wcet) in enumerate(tasks):
        print(f"  t{i}: T = {period // _MS:3d} ms  C = {wcet / 1000:8.0f} us  U = {wcet / period:.4f}")
    tasks_json = json.dumps(tasks)
    main, long = args.horizon, 10 * args.horizon
    short = sorted({1, max(1, main // 10)} - {main})
    expected = {h: sum(h * _S // p for p, _ in tasks) for h in [*short, main, long]}
    print(f"each figure: the fastest of {args.repeat} run(s), each a fresh process (peak RSS: the largest), "
          f"except at {long} s (one run)")

    def run(name: str, python: str, seconds: int) -> dict:
        argv = ["--worker", name, "--tasks", tasks_json, "--seconds", str(seconds)]
        r = best_run(python, argv, 1 if seconds == long else args.repeat)
        rate = r["jobs"] / r["wall"]
        check = "= released" if r["jobs"] == expected[seconds] else f"!= {expected[seconds]} released"
        print(f"  {name:5s} {seconds:5d} s: wall {r['wall']:8.2f} s  jobs {r['jobs']:7d} ({check})  "
              f"{rate:10,.0f} jobs/s  peak RSS {r['rss_mib']:7.1f} MiB")
        if r.get("aborted"):
            print(f"    {name} aborted {r['aborted']} jobs")
        return r

    ours = {s: run("ours", sys.executable, s) for s in [*short, main, long]}
    simso = {}
    if not os.path.exists(args.simso_python):
        print(f"  simso: {args.simso_python} not found; make it with: "
              f"python bench/simulate.py --setup-simso")
    else:
        version = subprocess.run(
            [args.simso_python, "-c", "import sys, simso, SimPy; "
             "print(sys.version.split()[0], simso.__version__, SimPy.__version__)"],
            capture_output=True, text=True, check=True).stdout.split()
        print(f"  simso: Python {version[0]}, simso {version[1]}, SimPy {version[2]} "
              f"({args.simso_python}), scheduler simso.schedulers.EDF_mono, etm wcet, "
              f"cycles_per_ms 10**6")
        for seconds in [*short, main, *([long] if args.simso_long else [])]:
            simso[seconds] = run("simso", args.simso_python, seconds)
        if not args.simso_long:
            need = " (about 3.6 GB)" if long == 1000 else ""
            print(f"  simso {long:4d} s: skipped: its memory grows with the horizon{need}; "
                  "--simso-long runs it")
    for seconds in [*short, main, long]:
        if seconds in simso:
            ratio = (ours[seconds]["jobs"] / ours[seconds]["wall"]) / (
                simso[seconds]["jobs"] / simso[seconds]["wall"])
            print(f"  at {seconds:4d} s: ours jobs/s / SimSo jobs/s = {ratio:5.1f}x; "
                  f"peak RSS SimSo / ours = {simso[seconds]['rss_mib'] / ours[seconds]['rss_mib']:5.1f}x")
    rss = ", ".join(f"{ours[s]['rss_mib']:.1f} MiB at {s} s" for s in [*short, main, long])
    print(f"  ours peak RSS: {rss} "
          f"({ours[long]['rss_mib'] - ours[main]['rss_mib']:+.1f} MiB from {main} s to {long} s)")
    if simso:
        rss = ", ".join(f"{r['rss_mib']:.1f} MiB at {s} s" for s, r in simso.items())
        print(f"  simso peak RSS: {rss}")


def host_file(tasks: list[tuple[int, int]]) -> str:
    """The task set as a host file (what ``akita simulate`` reads)."""
    lines = ["[host]", "pcpus = 1", 'test = "edf"', ""]
    for i, (period, wcet) in enumerate(tasks):
        lines += ["[[vm]]", f'name = "t{i}"', 'criticality = "LO"', f'period = "{period}ns"',
                  f'c_opt = "{wcet}ns"', f'workload = {{ kind = "periodic", demand = "{wcet}ns" }}',
                  ""]
    return "\n".join(lines)


def timed_process(command: list[str]) -> tuple[float, float, str]:
    """Run *command*; its wall time from outside, its peak RSS (MiB) and its stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed ({proc.returncode})")
    return wall, usage.ru_maxrss / 1024, out


def part_process(args) -> None:
    import statistics
    import tempfile

    tasks = task_set()
    print(f"== Part 1b: whole processes, {args.pairs} pairs, {args.horizon} s ==")
    if not os.path.exists(args.simso_python):
        print(f"  simso: {args.simso_python} not found; make it with: "
              "python bench/simulate.py --setup-simso")
        return
    akita = os.path.join(os.path.dirname(sys.executable), "akita")
    with tempfile.TemporaryDirectory() as folder:
        host = os.path.join(folder, "tasks.toml")
        with open(host, "w") as handle:
            handle.write(host_file(tasks))
        ours_cmd = [akita, "simulate", host, "--policy", "edf", "--duration",
                    f"{args.horizon}s", "--json"]
        simso_cmd = [args.simso_python, os.path.abspath(__file__), "--worker", "simso",
                     "--tasks", json.dumps(tasks), "--seconds", str(args.horizon)]
        print(f"  ours:  {shlex.join(ours_cmd)}")
        print(f"  simso: {args.simso_python} bench/simulate.py --worker simso ...")
        ratios = []
        for pair in range(args.pairs):
            ours, ours_rss, out = timed_process(ours_cmd)
            jobs = sum(vm["requests"] for vm in json.loads(out)["vms"].values())
            simso, simso_rss, out = timed_process(simso_cmd)
            simso_jobs = json.loads(out.strip().splitlines()[-1])["jobs"]
            ratios.append(simso / ours)
            print(f"  pair {pair + 1}: ours {ours:6.3f} s ({jobs} jobs, {ours_rss:.0f} MiB), "
                  f"SimSo {simso:6.3f} s ({simso_jobs} jobs, {simso_rss:.0f} MiB): "
                  f"{simso / ours:5.1f}x")
        print(f"  median ratio of {args.pairs} pairs: {statistics.median(ratios):.1f}x")


def part_decisions(args) -> None:
    from akita.model import VM, Criticality, Host, Workload, first_fit
    from akita.reference.policies import POLICIES
    from akita.reference.simulator import Simulator

    period = 100 * _MS
    print("== Part 2: decision cost vs vCPUs per pCPU ==")
    print(f"one pCPU; N LO VMs, period 100 ms, c_opt = floor(0.9 * 100 ms / N), periodic workload "
          f"of demand c_opt; about {args.decisions} decisions (pick calls) each; best of "
          f"{args.repeat} in this process")
    print("us/decision: the whole run's wall time per pick; us/pick: time inside pick alone "
          "(a second run that times each call)")
    for name in ("akita", "edf"):
        test = "edf" if name == "edf" else "edf-vd"
        print(f"policy {name} (host test {test}):")
        print(f"  {'N':>5} {'sim s':>6} {'decisions':>9} {'wall s':>7} {'us/decision':>11} "
              f"{'x per 4N':>8} {'us/pick':>8} {'x per 4N':>8}")
        previous = None
        for n in args.sizes:
            c_opt = 9 * period // (10 * n)
            vms = [VM(f"v{i}", Criticality.LO, period, c_opt,
                      workload=Workload(kind="periodic", demand=c_opt)) for i in range(n)]
            host = Host(pcpus=1, vms=vms, test=test)
            placement = first_fit(host)
            assert all(vm.admitted for vm in placement.vms), "the test rejected a VM"
            periods = max(1, math.ceil(args.decisions / (n + 1)))
            duration = periods * period
            walls, picks = [], []
            for _ in range(args.repeat):
                policy = counting_policy(POLICIES[name])()
                start = time.perf_counter()
                Simulator(host, placement, policy, duration=duration, seed=1).run()
                walls.append(time.perf_counter() - start)
                timed = counting_policy(POLICIES[name], timed=True)()
                Simulator(host, placement, timed, duration=duration, seed=1).run()
                assert timed.decisions == policy.decisions
                picks.append(timed.pick_ns)
            wall = min(walls)
            per = wall / policy.decisions * 1e6
            pick = min(picks) / policy.decisions / 1000
            growth = (f"{per / previous[0]:8.2f}", f"{pick / previous[1]:8.2f}") if previous else ("", "")
            print(f"  {n:5d} {duration / _S:6.1f} {policy.decisions:9d} {wall:7.2f} {per:11.2f} "
                  f"{growth[0]:>8} {pick:8.2f} {growth[1]:>8}")
            previous = (per, pick)


def part_big(args) -> None:
    print(f"== Part 3: {args.big_pcpus} pCPUs, {args.big_vms} single-vCPU VMs, {args.big_seconds} s, "
          f"policy akita ==")
    r = run_worker(sys.executable, ["--worker", "big", "--vms", str(args.big_vms), "--pcpus",
                                    str(args.big_pcpus), "--seconds", str(args.big_seconds),
                                    "--seed", str(args.seed)])
    admitted = args.big_vms - r["rejected"]
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["admitted_kinds"].items()))
    print(f"  first fit (edf-vd): {admitted} admitted ({kinds}) on {r['pcpus_used']} pCPUs, "
          f"{r['rejected']} rejected")
    print(f"  wall {r['wall']:.2f} s (placement + simulation), peak RSS {r['rss_mib']:.1f} MiB")
    print(f"  jobs {r['jobs']:,}: {r['jobs'] / r['wall']:,.0f} jobs/s; decisions {r['decisions']:,}: "
          f"{r['decisions'] / r['wall']:,.0f} decisions/s; "
          f"{r['wall'] / r['decisions'] * 1e6:.2f} us/decision")
    print(f"  context switches {r['context_switches']:,}, mode switches {r['mode_switches']:,}, "
          f"HI misses {r['hi_misses']:,}")


def setup_simso(venv: str) -> None:
    """A venv of its own for SimSo and the SimPy 2.3.1 it pins (not the main environment)."""
    python = os.path.join(venv, "bin", "python")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", f"simso=={SIMSO_VERSION}"], check=True)
    print(f"SimSo {SIMSO_VERSION} installed: {python}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("simso", "process", "decisions", "big", "all"),
                        default="all")
    parser.add_argument("--pairs", type=int, default=5, help="part 1b: paired whole-process runs")
    parser.add_argument("--simso-python", default=DEFAULT_SIMSO_PYTHON,
                        help="the python of a venv with simso 0.8.5 (default %(default)s)")
    parser.add_argument("--simso-long", action="store_true",
                        help="also run SimSo at 10x the horizon (about 3.6 GB, several minutes)")
    parser.add_argument("--setup-simso", action="store_true",
                        help="create the venv of --simso-python's directory with simso 0.8.5, then exit")
    parser.add_argument("--horizon", type=int, default=100, help="part 1 horizon in s")
    parser.add_argument("--repeat", type=int, default=3,
                        help="parts 1 and 2: report the fastest of this many runs")
    parser.add_argument("--decisions", type=int, default=20_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 16, 64, 256, 1024])
    parser.add_argument("--big-vms", type=int, default=512)
    parser.add_argument("--big-pcpus", type=int, default=64)
    parser.add_argument("--big-seconds", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    # Internal: one measured run in this (fresh) process.
    parser.add_argument("--worker", choices=("ours", "simso", "big"), help=argparse.SUPPRESS)
    parser.add_argument("--tasks", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--vms", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--pcpus", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker is not None:
        if args.worker == "big":
            answer = worker_big(args.vms, args.pcpus, args.seconds, args.seed)
        else:
            tasks = [tuple(t) for t in json.loads(args.tasks)]
            work = worker_ours if args.worker == "ours" else worker_simso
            answer = work(tasks, args.seconds)
        print(json.dumps(answer))
        return
    if args.setup_simso:
        setup_simso(os.path.dirname(os.path.dirname(args.simso_python)))
        return

    print(f"$ python bench/simulate.py {shlex.join(sys.argv[1:])}".rstrip())
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
          "load average before: %.2f %.2f %.2f" % os.getloadavg())
    start = time.perf_counter()
    for part, run in (("simso", part_simso), ("process", part_process),
                      ("decisions", part_decisions), ("big", part_big)):
        if args.part in (part, "all"):
            run(args)
            print("load average after this part: %.2f %.2f %.2f" % os.getloadavg())
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()

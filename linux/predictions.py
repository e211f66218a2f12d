"""The prediction table: the simulator's figures held against this machine's kernel.

The hosts are fixed in advance (``examples/kernel/``, committed before the
first measurement): the paper's Fig. 5 host and its memcached alone, Fig. 7's
shares, a CPU-bound pair of unequal weight, and a batch VM beside a periodic
one.  :func:`measure` runs each on the kernel (:func:`akita.linux.kernel_run.run_kernel`,
``runs`` runs of ``seconds``) and under the simulator with the same seeds, and
keeps everything in one JSON record (with this machine's context-switch cost
and load, measured before and after).  :func:`table` re-derives the table from
such a record alone, so that the table is a test that needs no kernel;
:func:`repredict` recomputes the simulator's side under another policy (the
simulator's ``eevdf`` where it is built) without measuring the kernel again.

Fig. 5 on the kernel (:func:`fig5_rows`): memcached's p99.9 round trip alone and
beside the three lookbusy VMs, under the kernel's default scheduler and, when
the Akita-on-Linux controller is installed (``akita.linux.run``, imported
lazily), under it (:func:`akita_on_linux`).

The simulator runs each host file as it is: its ``context_switch_cost`` (0 in
every table host) and its scheduler options, which the record keeps beside
its runs (``simulator_options``), not the cost measured on the machine; that
measurement is judged (:func:`akita.model.measured_cost.judge_switch_cost`,
decision 330) and the rendered table says its verdict (:func:`machine_note`).
:func:`check_model` runs the simulator again on a record's hosts and says
which stored predictions it no longer gives (the simulator is deterministic),
so that a prediction moved by a change of the simulator's rules or defaults
is found, not read as a property of the machine (decision 331).

    python -m akita.linux.predictions measure --runs 5 --seconds 10 --out RECORD.json
    python -m akita.linux.predictions render RECORD.json --docs docs/kernel
    python -m akita.linux.predictions check RECORD.json [--write]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from akita.model import Host, load_host
from akita.model.measured_cost import judge_switch_cost

from .kernel_run import compare, default_policy, figures, predict, ratio, run_kernel
from .programs import Unavailable

__all__ = ["HOSTS", "measure", "table", "repredict", "fig5_rows", "akita_on_linux",
           "plot", "plot_fig5", "machine", "render_rst",
           "measured_service", "repredict_measured", "MEASURED", "machine_note",
           "simulator_options", "check_model"]

#: The hosts of the table, fixed in advance (name -> file under examples/kernel/), and the
#: figures of each that the table shows (VM, figure).
HOSTS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "fig5-alone": ("fig5-alone.toml", (("memcached", "rtt_ns.p50"), ("memcached", "rtt_ns.p99"),
                                       ("memcached", "rtt_ns.p999"),
                                       ("memcached", "cpu_share"))),
    "fig5": ("fig5.toml", (("memcached", "rtt_ns.p50"), ("memcached", "rtt_ns.p99"),
                           ("memcached", "rtt_ns.p999"), ("memcached", "cpu_share"),
                           ("lookbusy1", "cpu_share"), ("lookbusy2", "cpu_share"),
                           ("lookbusy3", "cpu_share"))),
    "fig7": ("fig7.toml", (("hi", "cpu_share"), ("lookbusy1", "cpu_share"),
                           ("lookbusy2", "cpu_share"), ("lookbusy3", "cpu_share"),
                           ("hi", "cpu_share_of_host"))),
    "weights": ("weights.toml", (("heavy", "cpu_share"), ("light", "cpu_share"),
                                 ("heavy", "cpu_share_of_host"),
                                 ("light", "cpu_share_of_host"))),
    "batch-periodic": ("batch-periodic.toml", (("periodic", "response_ns.p50"),
                                               ("periodic", "response_ns.p99"),
                                               ("periodic", "response_ns.p999"),
                                               ("batch", "cpu_share"),
                                               ("periodic", "cpu_share"))),
}

_REPO = Path(__file__).resolve().parent.parent


def host_path(name: str, root: Path = _REPO) -> Path:
    """The host file of table host *name*: ``examples/kernel/`` under *root*, else the
    copy installed with :mod:`akita.examples`."""
    path = root / "examples" / "kernel" / HOSTS[name][0]
    if path.exists():
        return path
    from importlib.resources import files

    return Path(str(files("akita.examples").joinpath("kernel", HOSTS[name][0])))


def machine(cpu: int = 0) -> dict[str, Any]:
    """This machine's state: kernel, load average, and the context-switch cost measured by
    the project's own benchmark (``bench/context_switch.py``, pinned, net, median)."""
    state: dict[str, Any] = {"kernel": platform.release(), "cpus": os.cpu_count(),
                             "loadavg": Path("/proc/loadavg").read_text().split()[:3],
                             "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    bench = _REPO / "bench" / "context_switch.py"
    if bench.exists():
        done = subprocess.run([sys.executable, str(bench), "--round-trips", "20000", "--repeats",
                               "5", "--cpu", str(cpu), "--json"], capture_output=True, text=True,
                              timeout=300)
        try:  # status 3: measured but refused (decision 330); the doc says why
            state["context_switch"] = json.loads(done.stdout)
        except ValueError:
            state["context_switch"] = {"error": f"status {done.returncode}: "
                                                f"{done.stderr.strip()[-300:]}"}
    return state


def simulator_options(host: Host) -> dict[str, Any]:
    """The scheduler options the simulator ran *host* under (its host file's, defaults
    included): what a record keeps beside the simulator's runs (decision 331)."""
    return attrs.asdict(host.options)


def _switch_cost(state: Mapping[str, Any] | None) -> str:
    """What a record's machine state says of the context-switch cost, judged."""
    block = (state or {}).get("context_switch")
    if not block or "pinned" not in block:
        why = (block or {}).get("error", "the benchmark gave no figures")
        return f"not measured ({why})"
    return judge_switch_cost(block["pinned"]["net_ns"]).why


def machine_note(record: Mapping[str, Any]) -> str:
    """One paragraph: the load and the context-switch cost measured before and after the
    runs, judged (decision 330), and what the simulator charged instead: each host file's
    ``context_switch_cost`` and ``hi_mode_order``, as the record keeps them."""
    load = [" ".join((record.get(w) or {}).get("loadavg", ["?"])) for w in ("before", "after")]
    sim = []
    for name, entry in record["hosts"].items():
        options = entry.get("simulator_options")
        sim.append(f"{name} {options['context_switch_cost']} ns, ``{options['hi_mode_order']}``"
                   if options else f"{name}: not recorded")
    return (f"The machine: load average {load[0]} before the runs, {load[1]} after. "
            f"Context-switch cost (``bench/context_switch.py``, pinned, net; decision 330) "
            f"before: {_switch_cost(record.get('before'))}; after: "
            f"{_switch_cost(record.get('after'))}. The simulator charged no measured cost: "
            f"each host file's ``context_switch_cost`` and ``hi_mode_order`` ({'; '.join(sim)}).\n")


def check_model(record: dict[str, Any], root: Path = _REPO, write: bool = False,
                names: tuple[str, ...] | None = None) -> list[str]:
    """Each stored simulation of *record* run again from its host file (same policy, runs,
    length, seeds); the ones the simulator no longer gives, in words (``[]``: all the same).

    With *write*, the record's hosts whose every stored simulation is given again get
    ``simulator_options`` (:func:`simulator_options`): the options are then proved to be
    the ones those figures came from.  The ``+measured-service`` simulations are run with
    the service the record keeps.  *names*: only those hosts (default: all)."""
    moved = []
    for name, entry in record["hosts"].items():
        if names is not None and name not in names:
            continue
        host = load_host(host_path(name, root))
        same = True
        for key, stored in entry["model"].items():
            policy, _, measured = key.partition("+")
            chosen = host
            if measured:
                cost = entry["measured_service_ns"]
                chosen = attrs.evolve(host, vms=[
                    attrs.evolve(vm, workload=attrs.evolve(vm.workload, service=cost))
                    if vm.name == "memcached" else vm for vm in host.vms])
            again = json.loads(json.dumps(predict(chosen, policy=policy, runs=len(stored),
                                                  seconds=record["seconds"],
                                                  seed=record["seed"])))
            for old, new in zip(stored, again):
                if old != new:
                    same = False
                    moved.append(f"{name} {key} seed {old['seed']}: " + _moved(old, new))
        if same and write:
            entry["simulator_options"] = simulator_options(host)
    return moved


def _moved(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """What differs between two runs of a simulation, old -> new: a p99.9 latency first
    (``rtt_ns``, then ``response_ns``, any VM), else the first field that differs."""
    vms = sorted(set(old["vms"]) | set(new["vms"]))
    for figure in ("rtt_ns", "response_ns"):
        for vm in vms:
            a = old["vms"].get(vm, {}).get(figure, {}).get("p999")
            b = new["vms"].get(vm, {}).get(figure, {}).get("p999")
            if a != b:
                return f"{vm} {figure} p99.9 {a} -> {b}"
    for vm in vms:
        a, b = old["vms"].get(vm, {}), new["vms"].get(vm, {})
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return f"{vm} {key} {json.dumps(a.get(key))} -> {json.dumps(b.get(key))}"
    return "the runs differ outside their VMs"


def measure(*, runs: int, seconds: float, seed: int = 1, cpus: tuple[int, ...] = (1,),
            client_cpu: int = 0, policy: str | None = None, root: Path = _REPO,
            names: tuple[str, ...] = tuple(HOSTS), isolate: bool = True,
            progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every table host on the kernel and under the simulator: the whole record.

    The kernel runs are interleaved -- run ``k`` of every host, then run ``k + 1`` -- so
    that the machine's changing load falls on every host alike (decision 186)."""
    policy = policy or default_policy()
    record: dict[str, Any] = {"runs": runs, "seconds": seconds, "seed": seed, "cpus": list(cpus),
                              "client_cpu": client_cpu, "policy": policy, "isolate": isolate,
                              "before": machine(cpus[0]), "hosts": {}}
    hosts = {name: load_host(host_path(name, root)) for name in names}
    kernel: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    akita: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="akita-kernel-") as scratch:
        for k in range(runs):  # interleaved: run k of every host, then run k + 1
            for name, host in hosts.items():
                kernel[name] += run_kernel(host, runs=1, seconds=seconds, seed=seed + k,
                                           cpus=cpus, client_cpu=client_cpu, isolate=isolate,
                                           out_dir=Path(scratch) / name / str(k))
                if name.startswith("fig5"):  # Fig. 5's Akita column, if the controller exists
                    more = akita_on_linux(host, seconds=seconds, runs=1, seed=seed + k,
                                          cpus=cpus, client_cpu=client_cpu,
                                          out_dir=Path(scratch) / name / str(k))
                    akita[name] += more or []
                if progress is not None:
                    progress(f"{name} run {k + 1}")
    for name, host in hosts.items():
        entry: dict[str, Any] = {"file": f"examples/kernel/{HOSTS[name][0]}",
                                 "kernel": kernel[name],
                                 "simulator_options": simulator_options(host),
                                 "model": {policy: predict(host, policy=policy, runs=runs,
                                                           seconds=seconds, seed=seed)}}
        if name.startswith("fig5"):
            entry["model"]["akita"] = predict(host, policy="akita", runs=runs, seconds=seconds,
                                              seed=seed)
        if akita[name]:
            entry["akita_on_linux"] = akita[name]
        record["hosts"][name] = entry
    record["after"] = machine(cpus[0])
    return record


def repredict(record: dict[str, Any], policy: str, root: Path = _REPO,
              names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """*record* with the simulator's runs under *policy* added or replaced (the kernel's
    kept), for the hosts *names* (default: all)."""
    for name, entry in record["hosts"].items():
        if names is not None and name not in names:
            continue
        host = load_host(host_path(name, root))
        entry["model"][policy] = predict(host, policy=policy, runs=record["runs"],
                                         seconds=record["seconds"], seed=record["seed"])
    return record


#: The record's key of a simulation with memcached's service set to its measured cost.
MEASURED = "{policy}+measured-service"


def measured_service(runs: list[dict[str, Any]], vm: str = "memcached") -> int:
    """The median over *runs* of the VM's CPU time per request on the kernel (ns): what a
    request cost memcached there, its loopback network stack included."""
    costs = sorted(r["vms"][vm]["cpu_ns"] // r["vms"][vm]["requests"] for r in runs
                   if r["vms"][vm].get("requests"))
    return int(statistics.median_low(costs))


def repredict_measured(record: dict[str, Any], policy: str, root: Path = _REPO
                       ) -> dict[str, Any]:
    """*record* with Fig. 5's hosts simulated again under *policy* with memcached's
    ``service`` set to the cost measured on the kernel for that host (same distribution),
    under :data:`MEASURED`: the host file's 7.14 us against memcached's own cost."""
    for name in ("fig5-alone", "fig5"):
        entry = record["hosts"][name]
        host = load_host(host_path(name, root))
        cost = measured_service(entry["kernel"])
        vms = [attrs.evolve(vm, workload=attrs.evolve(vm.workload, service=cost))
               if vm.name == "memcached" else vm for vm in host.vms]
        entry["measured_service_ns"] = cost
        entry["model"][MEASURED.format(policy=policy)] = predict(
            attrs.evolve(host, vms=vms), policy=policy, runs=record["runs"],
            seconds=record["seconds"], seed=record["seed"])
    return record


def table(record: Mapping[str, Any], policy: str | None = None) -> list[dict[str, Any]]:
    """The prediction table from a record: per host, the figures :data:`HOSTS` names, each
    with the kernel's median and spread, the simulator's median, the ratio, and whether the
    simulator lies outside the kernel's spread."""
    policy = policy or record["policy"]
    rows = []
    for name, entry in record["hosts"].items():
        wanted = HOSTS[name][1]
        got = {(r["vm"], r["figure"]): r for r in compare(entry["kernel"],
                                                          entry["model"][policy])}
        for key in wanted:
            if key in got:
                rows.append({"host": name, **got[key]})
    return rows


def akita_on_linux(host: Host, *, seconds: float, runs: int, seed: int, cpus: tuple[int, ...],
                   client_cpu: int, out_dir: Path) -> list[dict[str, Any]] | None:
    """The same runs under the Akita-on-Linux controller, or ``None`` if it is not installed.

    The hook (decision 187): ``akita.linux.run.run_host(host, attach={}, cpus=..., seconds=...,
    seed=..., out_dir=...)`` runs the host's workloads (:class:`~akita.linux.workloads.Workloads`)
    under the controller and returns a result whose ``workloads`` are
    :meth:`~akita.linux.workloads.Workloads.results`.
    """
    try:
        controller = importlib.import_module("akita.linux.run")
    except ImportError:
        return None
    run = getattr(controller, "run_host", None)
    if run is None:
        return None
    out = []
    for k in range(runs):
        try:
            result = run(host, attach={}, cpus=list(cpus), seconds=seconds, seed=seed + k,
                         out_dir=out_dir / f"akita{k}")
        except Unavailable:  # memcached slow to answer on a loaded machine: started again once
            result = run(host, attach={}, cpus=list(cpus), seconds=seconds, seed=seed + k,
                         out_dir=out_dir / f"akita{k}-again")
        out.append({"seed": seed + k, "vms": dict(getattr(result, "workloads", None) or {})})
    return out


def fig5_rows(record: Mapping[str, Any], policy: str | None = None) -> list[dict[str, Any]]:
    """Fig. 5 on the kernel: memcached's p99.9 alone and crowded, per scheduler, the
    kernel's median [spread], the simulator's, the ratio; Akita-on-Linux when recorded."""
    policy = policy or record["policy"]
    hosts = record["hosts"]
    if "fig5" not in hosts or "fig5-alone" not in hosts:
        return []
    columns = [("EEVDF (kernel default)", "kernel", policy),
               ("EEVDF (kernel default)", "kernel", MEASURED.format(policy=policy)),
               ("Akita-on-Linux", "akita_on_linux", "akita")]
    rows = []
    for label, side, model_policy in columns:
        for setting, name in (("alone", "fig5-alone"), ("crowded", "fig5")):
            runs = hosts[name].get(side)
            k = None if runs is None else figures(runs).get("memcached", {}).get("rtt_ns.p999")
            model_runs = hosts[name]["model"].get(model_policy)
            if model_runs is None and "+" in model_policy:
                continue  # no simulation with the measured service in this record
            m = None if model_runs is None else \
                figures(model_runs).get("memcached", {}).get("rtt_ns.p999")
            r = ratio(m["median"] if m else None, k["median"] if k else None)
            rows.append({"scheduler": label, "setting": setting, "kernel": k,
                         "model_policy": model_policy, "model": m,
                         "ratio": None if r is None else f"{float(r):.3f}"})
    return rows


def _cell(figure: str, value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.1%}" if figure.startswith("cpu_share") else f"{value / 1e6:.3f}"


def _spread_cell(figure: str, s: Mapping[str, Any] | None) -> str:
    if s is None:
        return "-"
    return (f"{_cell(figure, s['median'])} [{_cell(figure, s['min'])}, "
            f"{_cell(figure, s['max'])}]")


def _grid(header: list[str], rows: list[list[str]]) -> str:
    """An RST simple table."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]
    rule = "  ".join("=" * w for w in widths)

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    return "\n".join([rule, line(header), rule, *(line(r) for r in rows), rule]) + "\n"


def render_rst(record: Mapping[str, Any], policy: str | None = None) -> str:
    """The Fig. 5 table and the prediction table of *record*, as RST (docs/kernel.rst
    includes it; ``tests/linux/test_kernel_run_table.py`` derives it again from the record)."""
    policy = policy or record["policy"]
    fig5 = [[r["scheduler"], r["setting"], _spread_cell("rtt_ns", r["kernel"]),
             f"{r['model_policy']}: {_cell('rtt_ns', r['model']['median'] if r['model'] else None)}",
             r["ratio"] or "-"] for r in fig5_rows(record, policy)]
    main = [[r["host"], r["vm"], r["figure"].replace("_ns", "").replace("rtt.", "RTT ")
             .replace("response.", "response ").replace("p999", "p99.9"),
             _spread_cell(r["figure"], r["kernel"]),
             _cell(r["figure"], r["model"]["median"] if r["model"] else None),
             r["ratio"] or "-", "yes" if r["outside_spread"] else "no"]
            for r in table(record, policy)]
    return ("Fig. 5 on the kernel: memcached's p99.9 round trip (ms), median [least, greatest] "
            f"of {record['runs']} runs of {record['seconds']:g} s\n\n"
            + _grid(["scheduler", "memcached", "kernel p99.9", "simulator", "ratio"], fig5)
            + f"\nThe prediction table (simulator: ``{policy}``; latencies in ms; ratio = "
            "simulator / kernel; *outside*: the simulator's median lies outside the kernel's "
            "range)\n\n"
            + _grid(["host", "VM", "figure", "kernel", "simulator", "ratio", "outside"], main)
            + "\n" + machine_note(record))


def plot(record: Mapping[str, Any], out: Path, policy: str | None = None) -> Path:
    """The table as a plot: per figure, the kernel's median with its spread as an error bar
    and the simulator's median, on a log axis, one panel for shares, one for latencies."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table(record, policy)
    shares = [r for r in rows if r["figure"].startswith("cpu_share")]
    times = [r for r in rows if not r["figure"].startswith("cpu_share")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, chosen, scale, unit in ((axes[0], shares, 100, "CPU share (%)"),
                                    (axes[1], times, 1e-6, "latency (ms)")):
        labels = [f"{r['host']}\n{r['vm']} {r['figure'].replace('_ns', '')}" for r in chosen]
        xs = range(len(chosen))
        med = [r["kernel"]["median"] * scale for r in chosen]
        low = [m - r["kernel"]["min"] * scale for m, r in zip(med, chosen)]
        high = [r["kernel"]["max"] * scale - m for m, r in zip(med, chosen)]
        ax.errorbar(xs, med, yerr=[low, high], fmt="o", capsize=3, label="kernel (median, range)")
        ax.plot(xs, [r["model"]["median"] * scale if r["model"] else float("nan")
                     for r in chosen], "x", markersize=8,
                label=f"simulator ({policy or record['policy']})")
        ax.set_xticks(list(xs), labels, rotation=70, fontsize=6)
        ax.set_ylabel(unit)
        if chosen is times:
            ax.set_yscale("log")
        ax.legend(fontsize=7)
    fig.suptitle("Simulator against this machine's kernel (examples/kernel/)", fontsize=9)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return out


def plot_fig5(record: Mapping[str, Any], out: Path, policy: str | None = None) -> Path:
    """Fig. 5 on the kernel as bars: memcached's p99.9 alone and crowded, the kernel's
    median with its range, beside the simulator's, on a log axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in fig5_rows(record, policy) if r["kernel"] or r["model"]]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    colours = {p: f"C{k + 1}" for k, p in enumerate(dict.fromkeys(r["model_policy"] for r in rows))}
    shown: set[str] = set()
    for i, r in enumerate(rows):
        if r["kernel"]:
            k = r["kernel"]
            ax.bar(i - 0.2, k["median"] / 1e6, 0.4, color="C0",
                   yerr=[[(k["median"] - k["min"]) / 1e6], [(k["max"] - k["median"]) / 1e6]],
                   capsize=3, label="kernel (median, range)" if i == 0 else None)
        if r["model"]:
            policy_ = r["model_policy"]
            ax.bar(i + 0.2, r["model"]["median"] / 1e6, 0.4, color=colours[policy_],
                   label=None if policy_ in shown else f"simulator ({policy_})")
            shown.add(policy_)
    short = {"EEVDF (kernel default)": "EEVDF", "Akita-on-Linux": "Akita-on-Linux"}
    ax.set_xticks(list(range(len(rows))), [f"{short.get(r['scheduler'], r['scheduler'])}, "
                                           f"{r['setting']}\nvs {r['model_policy']}"
                                           for r in rows], fontsize=6)
    ax.set_yscale("log")
    ax.set_ylabel("memcached p99.9 RTT (ms)")
    ax.set_title("Fig. 5 on this machine's kernel (CPU 1; client on CPU 0)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m akita.linux.predictions")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="measure every table host (root; minutes)")
    m.add_argument("--runs", type=int, default=5)
    m.add_argument("--seconds", type=float, default=10.0)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--policy", default=None)
    m.add_argument("--hosts", default=",".join(HOSTS))
    m.add_argument("--out", required=True)
    m.add_argument("--no-isolate", dest="isolate", action="store_false")
    r = sub.add_parser("render", help="print the tables of a record and draw its plot")
    r.add_argument("record")
    r.add_argument("--policy", default=None)
    r.add_argument("--plot", default=None)
    r.add_argument("--rst", default=None)
    p = sub.add_parser("repredict", help="add the simulator's runs under another policy")
    p.add_argument("record")
    p.add_argument("--policy", required=True)
    p.add_argument("--measured-service", action="store_true",
                   help="Fig. 5's hosts with memcached's service as measured on the kernel")
    p.add_argument("--hosts", default=None, help="only these hosts (comma-separated)")
    c = sub.add_parser("check", help="run a record's simulations again; name those that moved")
    c.add_argument("record")
    c.add_argument("--write", action="store_true",
                   help="keep the simulator's options in the record where nothing moved")
    c.add_argument("--hosts", default=None, help="only these hosts (comma-separated)")
    args = parser.parse_args(argv)
    if args.command == "measure":
        record = measure(runs=args.runs, seconds=args.seconds, seed=args.seed, policy=args.policy,
                         names=tuple(args.hosts.split(",")), isolate=args.isolate,
                         progress=lambda n: print(f"{n}: done", file=sys.stderr))
        Path(args.out).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        return 0
    record = json.loads(Path(args.record).read_text())
    if args.command == "check":
        names = None if args.hosts is None else tuple(args.hosts.split(","))
        moved = check_model(record, write=args.write, names=names)
        for line in moved:
            print(f"moved: {line}")
        if args.write:
            Path(args.record).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        return 1 if moved else 0
    if args.command == "repredict":
        names = None if args.hosts is None else tuple(args.hosts.split(","))
        record = (repredict_measured(record, args.policy) if args.measured_service
                  else repredict(record, args.policy, names=names))
        Path(args.record).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        return 0
    for row in fig5_rows(record, args.policy):
        print("fig5", json.dumps(row))
    for row in table(record, args.policy):
        print(json.dumps(row))
    if args.plot:
        plot(record, Path(args.plot), args.policy)
        plot_fig5(record, Path(args.plot).with_name("fig5.png"), args.policy)
    if args.rst:
        Path(args.rst).write_text(render_rst(record, args.policy))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``akita simulate [HOST.toml]``: run the reference scheduler on a host."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from akita.model import Host, format_duration, load_host, parse_duration
from akita.reference.policies import POLICIES
from akita.reference.promises import BROKEN, overruns, promises
from akita.reference.run import simulate as run_simulation

from .outputs import writable_file
from .pictures import draw_gantt, gantt_options, gantt_window, scratch_trace
from .progress import stderr_bar
from .reading import hi_mode_order_option, with_hi_mode_order

if TYPE_CHECKING:  # rich is imported when a table or a bar is drawn, not for --json
    from rich.console import Console

__all__ = ["simulate", "print_metrics", "print_budgets", "LEGEND", "READINGS"]

#: What the tables' less obvious columns mean, one line each; printed under the tables.
LEGEND = (
    "RTT: response time of a request (completion minus arrival).",
    "CAL p99: 99th percentile of the CPU access latency (runnable to next dispatch).",
    ("HI misses: periods of a HI vCPU served less than min(C_pes, work held at their start); "
     "any policy."),
    "HI time: share of the run the pCPU spent in HI mode (not a CPU share of HI VMs).",
    "-: nothing to measure (no request completed, or the vCPU never waited).",
    ("Budgets: periods overrun = periods its vCPUs used the whole budget and still held work; "
     "past budget = CPU got past it; ahead of budgets = of that, while another vCPU held work "
     "and budget (or, for HI, a LO vCPU held work); kept from budget = time it held work and "
     "budget while a vCPU past its budget ran."),
)


@click.command(short_help="Run the reference scheduler on a host.")
@click.argument("host_file", metavar="[HOST.toml]", required=False, type=click.Path(dir_okay=False))
@click.option("--policy", default="akita", show_default=True,
              help=f"Scheduling policy: {', '.join(POLICIES)} (eevdf: Linux's default today; "
                   "credit2: Xen's).")
@click.option("--duration", "duration_text", default="10s", show_default=True,
              help="Simulated time, with a unit (e.g. 10s, 500ms).")
@click.option("--seed", default=1, show_default=True, type=int, help="Seed of the workloads.")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False),
              help="Write the trace as JSON Lines to this file.")
@click.option("--timeline", "timeline_path", type=click.Path(dir_okay=False),
              help="Write a Chrome trace-event timeline (opens in Perfetto) to this file.")
@hi_mode_order_option
@gantt_options
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON on stdout.")
def simulate(host_file: str | None, policy: str, duration_text: str, seed: int,
             trace_path: str | None, timeline_path: str | None, hi_mode_order: str | None,
             gantt_path: str | None, from_text: str | None, to_text: str | None,
             as_json: bool) -> int:
    """Simulate HOST.toml (default: the paper's Figure 5 host) and report per-VM metrics.

    Same file and seed give the same trace and JSON, byte for byte.

    \b
    Columns: RTT = response time of a request (completion minus arrival);
    CAL p99 = 99th percentile of the CPU access latency (runnable to next
    dispatch); HI misses = periods of a HI vCPU served less than
    min(C_pes, work held at the period start), counted alike for every
    policy; HI time = share of the run the pCPU spent in HI mode (not a
    CPU share). '-' (JSON null): nothing to measure, e.g. no request done.
    """
    duration = parse_duration(duration_text, field="--duration")
    if host_file is None:
        from importlib.resources import as_file, files  # only for the shipped example

        with as_file(files("akita.examples") / "fig5.toml") as path:
            host = load_host(path)
    else:
        host = load_host(host_file)
    host = with_hi_mode_order(host, hi_mode_order)
    writable_file("--trace", trace_path)
    writable_file("--timeline", timeline_path)
    drawn = gantt_window(gantt_path, from_text, to_text)
    with stderr_bar("simulating", total=duration) as update, \
            scratch_trace(gantt_path, trace_path) as written:
        report = None if update is None else (lambda t: update(completed=t))
        result = run_simulation(host, policy, duration=duration, seed=seed, trace_path=written,
                                timeline_path=timeline_path, progress=report)
        draw_gantt(gantt_path, drawn, written, title=f"{policy}, seed {seed}")
    if as_json:
        doc = result.as_json()
        if "hi_mode_order" in doc:
            doc["promises"] = promises(doc, host).as_json()
            doc["overruns"] = overruns(doc, host)
        click.echo(json.dumps(doc))
    else:
        print_metrics(result.as_json(), host=host)
    return 0


#: What each reading of HI mode does with a vCPU past its budget (R3, R7; decision 130).
READINGS = {
    "capped": "budgets enforced: a vCPU past its budget runs only when no vCPU with budget "
              "can, a HI vCPU past C_pes only when no LO vCPU can",
    "hi-first": "a HI vCPU past C_pes runs before the LO vCPUs with budget",
    "budget-first": "the LO vCPUs with budget first, then every vCPU past its budget by "
                    "deadline",
}


def _budgets_table(doc: dict[str, Any], host: Host) -> Any:
    """Each VM's declared budget beside what it used and what it was kept from."""
    from rich.table import Table

    vms = {vm.name: vm for vm in host.vms}
    table = Table(title="Budgets", caption="past budget, ahead, kept: % of the run")
    for column in ("VM", "budget / T", "CPU share", "periods overrun", "past budget",
                   "ahead of budgets", "kept from budget"):
        table.add_column(column, justify="left" if column == "VM" else "right")
    duration = doc["duration_ns"]
    for name, m in doc["vms"].items():
        account = m.get("budget")
        if account is None:
            continue
        vm = vms[name]
        table.add_row(name, f"{vm.c_max / vm.period:.2%}", f"{m['cpu_share']:.2%}",
                      f"{account['overrun_periods']} of {account['periods']}",
                      f"{account['past_budget_ns'] / duration:.2%}",
                      f"{account['ahead_of_budget_ns'] / duration:.2%}",
                      f"{account['kept_from_budget_ns'] / duration:.2%}")
    return table


def print_budgets(doc: dict[str, Any], host: Host, console: Console) -> None:
    """The budget account, the reading of HI mode, the overruns and the promises' verdict."""
    if "hi_mode_order" not in doc:
        return
    console.print(_budgets_table(doc, host))
    order = doc["hi_mode_order"]
    console.print(f"HI mode: hi_mode_order = \"{order}\" ({READINGS[order]}).")
    for line in overruns(doc, host):
        console.print(f"Overrun: {line}.")
    verdict = promises(doc, host)
    if verdict.verdict == BROKEN:
        for line in verdict.broken:
            console.print(f"Promise broken: {line}.")
    console.print(f"Promises to the VMs: {verdict.verdict}.")


def _ms(ns: int | None) -> str:
    """Nanoseconds as milliseconds for the table; ``-`` for nothing measured (``None``)."""
    return "-" if ns is None else f"{ns / 1e6:.3f}"


def _guests_table(guests: dict[str, Any]) -> Any:
    """The SMP guests' completion and double-scheduling times (docs/guest.rst)."""
    from rich.table import Table

    table = Table(title="SMP guests", caption="times in ms: completion; spin, of it on a "
                  "preempted holder; barrier wait, of it descheduled; stacked. Online vCPUs: "
                  "fewest / at the end")
    for column in ("VM", "control", "done", "spin", "holder", "barrier", "desched", "stacked",
                   "online"):
        table.add_column(column, justify="left" if column in ("VM", "control") else "right")
    for name, g in guests.items():
        table.add_row(name, g["control"], _ms(g["completion_ns"]), _ms(g["spin_ns"]),
                      _ms(g["spin_preempted_holder_ns"]), _ms(g["barrier_wait_ns"]),
                      _ms(g["barrier_wait_descheduled_ns"]), _ms(g["stacked_ns"]),
                      f"{g['online_min']} / {g['online_final']}")
    return table


def print_metrics(doc: dict[str, Any], console: Console | None = None,
                  host: Host | None = None) -> None:
    """A simulation's metrics as tables for people; with *host*, its budgets too."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console(highlight=False, width=None if sys.stdout.isatty() else 110)
    vms = Table(title=f"VMs under {doc['policy']} for {format_duration(doc['duration_ns'])} "
                f"(seed {doc['seed']})", caption="times in ms; see the legend below")
    for column in ("VM", "CPU share", "requests", "RTT p50", "p99", "p99.9", "max",
                   "CAL p99", "HI misses"):
        vms.add_column(column, justify="left" if column == "VM" else "right")
    for name, m in doc["vms"].items():
        rtt = m["rtt_ns"]
        vms.add_row(name, f"{m['cpu_share']:.2%}", str(m["requests"]), _ms(rtt["p50"]),
                    _ms(rtt["p99"]), _ms(rtt["p999"]), _ms(rtt["max"]), _ms(m["cal_ns"]["p99"]),
                    str(m["hi_misses"]))
    console.print(vms)
    if "guests" in doc:
        console.print(_guests_table(doc["guests"]))
    phases = doc.get("phases_ns", {})
    if any(phases.values()):
        console.print("VMs created (first period) at: " + ", ".join(
            f"{name} {format_duration(phase)}" for name, phase in phases.items()))
    cpus = Table(title="pCPUs")
    for column in ("pCPU", "mode switches", "HI time", "idle", "context switches"):
        cpus.add_column(column, justify="right")
    for c in doc["pcpus"]:
        cpus.add_row(str(c["index"]), str(c["mode_switches"]),
                     f"{c['hi_time_ns'] / doc['duration_ns']:.1%}",
                     f"{c['idle_ns'] / doc['duration_ns']:.1%}", str(c["context_switches"]))
    console.print(cpus)
    switching = doc["switching"]
    console.print(f"Context switches: {switching['switches']} ({switching['per_s']:,.1f}/s), "
                  f"{switching['share']:.2%} of the CPU at "
                  f"{format_duration(switching['cost_ns'])} each (host context_switch_cost).")
    if host is not None:
        print_budgets(doc, host, console)
    for line in LEGEND:
        console.print(line, style="dim")
    if doc["rejected"]:
        console.print(f"Not simulated (rejected by admission): {', '.join(doc['rejected'])}")

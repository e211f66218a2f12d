"""``akita analyze TRACE [HOST.toml]``: what a trace shows (shares, latencies, budgets, modes)."""

from __future__ import annotations

import csv
import json
import sys
from typing import Any

import click

from akita.model import ModelError, format_duration, load_host, parse_duration
from akita.model.host_file import load_conform
from akita.trace.formats import FORMATS, format_names

from .outputs import writable_file
from .pictures import gantt_options, gantt_window
from .trace_flags import as_flags

__all__ = ["analyze"]

#: The window the plot uses when --window is not given (decision 204).
PLOT_WINDOW = "10ms"


@click.command(short_help="Say what a trace shows: shares, latencies, budgets, modes.")
@click.argument("trace_path", metavar="TRACE", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("host_file", metavar="[HOST.toml]", required=False,
                type=click.Path(dir_okay=False))
@click.option("--format", "trace_format", type=click.Choice(format_names()), default="auto",
              show_default=True,
              help="Trace format (auto tells them apart by the first bytes): "
                   + ", ".join(fmt.title for fmt in FORMATS.values()) + ".")
@click.option("--buffer", default=None, metavar="NAME",
              help="trace.dat: the trace instance to read.")
@click.option("--cpu-hz", "cpu_hz", type=click.IntRange(10**6), default=None, metavar="HZ",
              help="xentrace: the cycle counter's frequency in Hz.")
@click.option("--map", "mappings", multiple=True, metavar="TASK=VM/i",
              help="Kernel traces: the task (pid or comm) that runs a vCPU, added to the "
                   "host's [trace_map]; unmapped tasks are named comm-pid. Repeatable.")
@click.option("--origin", "origin_text", default=None, metavar="SECONDS",
              help="Kernel traces: the kernel time that is t = 0 (default: the first event).")
@click.option("--window", "window_text", default=None, metavar="TIME",
              help="Also give each task's CPU share per window of this length, e.g. 100ms.")
@click.option("--csv", "csv_path", default=None, metavar="FILE",
              type=click.Path(dir_okay=False),
              help="Write every figure as CSV rows: section,name,metric,value.")
@click.option("--plot", "plot_path", default=None, metavar="FILE.svg|png",
              type=click.Path(dir_okay=False),
              help=f"Plot shares per window (default window {PLOT_WINDOW}) and latencies.")
@gantt_options
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON on stdout.")
def analyze(trace_path: str, host_file: str | None, trace_format: str, buffer: str | None,
            cpu_hz: int | None, mappings: tuple[str, ...], origin_text: str | None,
            window_text: str | None, csv_path: str | None, plot_path: str | None,
            gantt_path: str | None, from_text: str | None, to_text: str | None,
            as_json: bool) -> int:
    """Analyse TRACE: per task, its CPU share (in total and per --window), wake-to-run
    latency percentiles (p50, p90, p99, p99.9, max; exact ns) and migrations; per CPU, its
    idle time; per pCPU, its time in LO and HI mode and its switches (JSON Lines traces,
    which record modes); per server, the budget it used in each whole period beside its
    declaration.

    TRACE is any format akita conform reads; '-' reads stdin (text formats). Without
    HOST.toml a kernel trace's tasks are named comm-pid, and a JSON Lines trace's
    declarations come from its header; with it, the host's [trace_map] names the vCPU
    tasks and its declarations are the budgets measured against.
    """
    from akita.analysis import analyze_stream
    from akita.trace.ftrace import parse_seconds

    host = load_host(host_file) if host_file is not None else None
    if host_file is not None and origin_text is None:
        origin_text = load_conform(host_file).get("origin")  # as akita conform reads it
    window = None if window_text is None else parse_duration(window_text, field="--window")
    if window is None and plot_path is not None:
        window = parse_duration(PLOT_WINDOW, field="--window")
    for option, path in (("--csv", csv_path), ("--plot", plot_path)):
        writable_file(option, path)
    if plot_path is not None and not plot_path.lower().endswith((".svg", ".png")):
        raise ModelError("--plot", plot_path, "a file name ending .svg or .png")
    drawn = gantt_window(gantt_path, from_text, to_text)
    mapping = _mapping(mappings)
    try:
        origin = None if origin_text is None else parse_seconds(origin_text)
    except ValueError:
        raise ModelError("--origin", origin_text,
                         "seconds as ftrace prints them, e.g. 5123.456789") from None
    recorder = None
    if drawn is not None:
        from akita.analysis.gantt import GanttRecorder

        recorder = GanttRecorder(*drawn)
    path = "<stdin>" if trace_path == "-" else trace_path
    try:
        stream = (getattr(sys.stdin, "buffer", sys.stdin) if trace_path == "-"
                  else open(trace_path, "rb"))
    except OSError as error:
        raise ModelError("TRACE", trace_path, f"a readable trace file ({error.strerror})") from None
    with stream, as_flags():
        found = analyze_stream(stream, path=path, host=host, trace_format=trace_format,
                               trace_map=mapping, window=window, cpu_hz=cpu_hz, buffer=buffer,
                               origin_ns=origin, recorder=recorder)
    if csv_path is not None:
        with open(csv_path, "w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(("section", "name", "metric", "value"))
            writer.writerows(found.rows())
    if plot_path is not None:
        from akita.analysis.plots import plot_analysis

        plot_analysis(found, plot_path)
    if recorder is not None:
        from akita.analysis.gantt import render, save

        save(render(recorder, title=f"{path}: schedule", modes_recorded=found.modes is not None),
             gantt_path)
    if as_json:
        click.echo(json.dumps(found.as_json()))
    else:
        _print(found)
    return 0


def _mapping(items: tuple[str, ...]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for item in items:
        task, sep, vcpu = item.partition("=")
        if not sep or not task or not vcpu:
            raise ModelError("--map", item, "TASK=VM/i, e.g. 4242=web/0")
        mapping[task] = vcpu
    return mapping


#: How many tasks the table shows (all are in --json and --csv).
_TASKS_SHOWN = 30


def _us(ns: int | None) -> str:
    return "-" if ns is None else f"{ns / 1000:,.1f}"


def _print(found: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    span = found.span_ns
    console.print(f"{found.path}: {found.trace_format}, {found.events:,} events over "
                  f"{format_duration(span)}")
    tasks = Table(title="Tasks, busiest first", caption="latencies: wake to run, in us")
    for column in ("task", "CPU share", "CPU time", "wakes", "migrations", "p50", "p90", "p99",
                   "p99.9", "max"):
        tasks.add_column(column, justify="left" if column == "task" else "right")
    for name, t in list(found.tasks.items())[:_TASKS_SHOWN]:
        lat = t["wake_to_run_ns"]
        tasks.add_row(name, f"{t['share']:.2%}", format_duration(t["cpu_ns"]), str(t["wakes"]),
                      str(t["migrations"]), _us(lat["p50"]), _us(lat["p90"]), _us(lat["p99"]),
                      _us(lat["p999"]), _us(lat["max"]))
    console.print(tasks)
    more = len(found.tasks) - _TASKS_SHOWN
    if more > 0:
        console.print(f"and {more} more tasks (all of them in --json and --csv)")
    cpus = Table(title="CPUs")
    for column in ("CPU", "idle", "unknown", "LO mode", "HI mode", "LO->HI", "HI->LO"):
        cpus.add_column(column, justify="right")
    for cpu, c in found.cpus.items():
        m = (found.modes or {}).get(cpu)
        cpus.add_row(str(cpu), _pct(c["idle_ns"], span), _pct(c["unknown_ns"], span),
                     "-" if m is None else _pct(m["LO_ns"], span),
                     "-" if m is None else _pct(m["HI_ns"], span),
                     "-" if m is None else str(m["lo_to_hi"]),
                     "-" if m is None else str(m["hi_to_lo"]))
    console.print(cpus)
    if found.modes is None:
        console.print("Modes: not recorded by this format (JSON Lines traces record them).")
    if found.budgets:
        console.print(_budgets(found.budgets))
    for note in found.notes:
        console.print(note, style="dim")


def _pct(ns: int, span: int) -> str:
    return "-" if not span else f"{ns / span:.1%}"


def _budgets(budgets: dict[str, dict[str, Any]]) -> Any:
    from rich.table import Table

    table = Table(title="Budget used per whole period (ms)",
                  caption="over: periods that used more than the budget")
    for column in ("vCPU", "crit", "T", "C_opt", "C_pes", "periods", "p50", "max",
                   "over C_opt", "over C_pes"):
        table.add_column(column, justify="left" if column in ("vCPU", "crit") else "right")
    for name, b in budgets.items():
        used = b["used_ns"]
        table.add_row(name, b["criticality"], _ms(b["period_ns"]), _ms(b["c_opt_ns"]),
                      _ms(b["c_pes_ns"]), str(b["periods"]), _ms(used["p50"]),
                      _ms(used["max"]), "-" if b["over_c_opt"] is None else str(b["over_c_opt"]),
                      "-" if b["over_c_pes"] is None else str(b["over_c_pes"]))
    return table


def _ms(ns: int | None) -> str:
    return "-" if ns is None else f"{ns / 1e6:,.3f}"

"""``akita conform HOST.toml TRACE``: check another implementation's schedule against the rules."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TextIO, cast

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from akita.model import ModelError, format_duration, load_host, parse_duration
from akita.model.host_file import load_conform
from akita.model.rules import RULE_SETS
from akita.oracle import (
    CONFORMANT, DECISIONS, FTRACE_REPORTS, RULE_TITLES, VIOLATIONS, conform_stream,
)
from akita.oracle.options import ConformOptions
from akita.oracle.placement import PlacementMode
from akita.oracle.report import ConformanceReport
from akita.oracle.tolerance import AKITA_LINUX_TOLERANCE_NS, KERNEL_TOLERANCE_NS
from akita.trace.formats import FORMATS, format_names
from akita.trace.ftrace import parse_seconds

from .outputs import writable_file
from .pictures import draw_gantt, gantt_options, gantt_window
from .progress import stderr_bar
from .trace_flags import TRACE_FLAGS, as_flags

__all__ = ["conform"]

@click.command(short_help="Check another scheduler's trace against the rules.")
@click.argument("host_file", metavar="HOST.toml", type=click.Path(dir_okay=False))
@click.argument("trace_path", metavar="TRACE", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--format", "trace_format", type=click.Choice(format_names()),
              default="auto", show_default=True,
              help="Trace format; auto tells them apart by the file's first bytes: "
                   + ", ".join(fmt.title for fmt in FORMATS.values()) + ".")
@click.option("--buffer", "buffer", default=None, metavar="NAME",
              help="trace.dat: the trace instance to read ('top', or an instance's name as "
                   "given to trace-cmd -B; default: the top one if it holds records, else the "
                   "one instance that does).")
@click.option("--cpu-hz", "cpu_hz", type=click.IntRange(10**6), default=None, metavar="HZ",
              help="xentrace: the cycle counter's frequency in Hz (xl info's cpu_mhz x 10**6).")
@click.option("--tolerance", "tolerance_text", default=None,
              help="How late (or by how much) an implementation may differ, e.g. 20us "
                   f"(default: 0ns for JSON Lines, {format_duration(KERNEL_TOLERANCE_NS)} for "
                   "kernel and hypervisor traces, a measured scheduling latency; "
                   f"{format_duration(AKITA_LINUX_TOLERANCE_NS)} for the akita-linux rule set, "
                   "that plus the controller's measured reaction).")
@click.option("--placement", type=click.Choice(["first-fit", "trace"]), default=None,
              help="Where each vCPU belongs: first fit's pCPU (R12 judged), or the pCPU of its "
                   "first event in the trace (R12 checks migrations only). Default: the host "
                   "file's [conform] placement, else first-fit.")
@click.option("--policy", type=click.Choice(list(RULE_SETS)), default=None,
              help="The rules to check against: Akita's, plain EDF over the same servers, or "
                   "Akita's as akita linux carries them out. Default: the host file's "
                   "[conform] policy, else the capture's claim, else akita.")
@click.option("--ties", type=click.Choice(["any", "strict"]), default="any", show_default=True,
              help="Equal keys: accept any tied vCPU, or require the host's queue_order "
                   "(fifo: inserted first, then host order; host: HI first, then host order).")
@click.option("--reports", "reports_text", default=None,
              help="Decision kinds the trace records, comma-separated "
                   f"(default: all for JSON Lines: {', '.join(sorted(DECISIONS))}; "
                   f"{', '.join(FTRACE_REPORTS)} for ftrace).")
@click.option("--map", "mappings", multiple=True, metavar="TASK=VM/i",
              help="ftrace: the task (pid or comm) that runs a vCPU; adds to the host's "
                   "[trace_map]. Repeatable.")
@click.option("--origin", "origin_text", default=None, metavar="SECONDS",
              help="Kernel traces: the kernel time that is t = 0, as ftrace prints it "
                   "(default: the host file's [conform] origin, else the first event).")
@click.option("--end", "end_text", default=None,
              help="End of the traced span, e.g. 10s (default: the header's duration_ns, "
                   "else the last event).")
@click.option("--max", "keep", default=10, show_default=True, type=click.IntRange(1),
              help="How many violations to report in full.")
@click.option("--window", default=8, show_default=True, type=click.IntRange(0),
              help="How many trace events to show with each violation.")
@click.option("--timeline", "timeline_path", default=None, metavar="OUT.json",
              help="Also write the trace as a Perfetto timeline with each violation marked "
                   "on its pCPU's track (written whole, or not at all).")
@gantt_options
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
def conform(host_file: str, trace_path: str, trace_format: str, buffer: str | None,
            cpu_hz: int | None, tolerance_text: str | None, placement: PlacementMode | None,
            policy: str | None,
            ties: str, reports_text: str | None, mappings: tuple[str, ...],
            origin_text: str | None, end_text: str | None, keep: int, window: int,
            timeline_path: str | None, gantt_path: str | None, from_text: str | None,
            to_text: str | None, as_json: bool) -> int:
    """Check that every decision in TRACE is one the Akita rules allow on HOST.toml.

    TRACE is a JSON Lines trace (the format of akita simulate --trace), Linux
    scheduler events as text (the kernel's trace file, trace-cmd report with
    or without -N/-R, perf script, Android systrace), trace-cmd's trace.dat
    or a Xen xentrace capture; '-' reads stdin (text formats only). Each
    vCPU's periods start at its VM's phase: declared in HOST.toml (phase =
    "3ms", or phases = "synchronous"), else taken from a JSON Lines header;
    a kernel trace of VMs with neither is refused. Exit status 0 if the
    trace conforms, 1 if it has violations, 3 if it holds nothing to check
    (no decision), 2 on bad input (an empty or unreadable trace, a kernel
    trace with no task mapped or no wakeup recorded, a phase unknown or
    contradicted).
    """
    writable_file("--timeline", timeline_path)
    drawn = gantt_window(gantt_path, from_text, to_text, trace_path)
    host = load_host(host_file)
    table = load_conform(host_file)  # what the host file says, where the flags do not
    policy = policy or table.get("policy")  # None: the capture's claim, else akita
    # load_conform checked the table's placement against its choices, click the flag's
    chosen = cast(PlacementMode, placement or table.get("placement", "first-fit"))
    if origin_text is None and "origin" in table:
        origin_text = table["origin"]
    tolerance = (None if tolerance_text is None
                 else parse_duration(tolerance_text, field="--tolerance"))
    end = None if end_text is None else parse_duration(end_text, field="--end")
    path = "<stdin>" if trace_path == "-" else trace_path
    mapping: dict[str, str] = {}
    for item in mappings:
        task, sep, vcpu = item.partition("=")
        if not sep or not task or not vcpu:
            raise ModelError("--map", item, "TASK=VM/i, e.g. 4242=web/0")
        mapping[task] = vcpu
    try:
        origin = None if origin_text is None else parse_seconds(origin_text)
    except ValueError:
        raise ModelError("--origin", origin_text,
                         "seconds as ftrace prints them, e.g. 5123.456789") from None
    reports = None if reports_text is None else tuple(
        kind.strip() for kind in reports_text.split(",") if kind.strip())
    flags = dict(TRACE_FLAGS) | ({} if end is None else {"end": "--end"})
    with as_flags(flags):
        options = ConformOptions(trace_format=trace_format, trace_map=mapping, origin_ns=origin,
                                 end=end, reports=reports, tolerance=tolerance, ties=ties,
                                 policy=policy, keep=keep, window=window, placement=chosen,
                                 cpu_hz=cpu_hz, buffer=buffer)
    try:
        stream = (getattr(sys.stdin, "buffer", sys.stdin) if trace_path == "-"
                  else open(trace_path, "rb"))
    except OSError as error:
        raise ModelError("TRACE", trace_path, f"a readable trace file ({error.strerror})") from None
    size = None if trace_path == "-" else os.path.getsize(trace_path)
    bar = nullcontext() if size is None else stderr_bar("checking", total=size)
    with stream, bar as update, _whole(timeline_path) as timeline, as_flags(flags):
        # the bar follows the bytes read, whatever the events
        progress = None if update is None else (lambda events: update(completed=stream.tell()))
        report = conform_stream(host, stream, options, path=path, progress=progress,
                                timeline=timeline)
    draw_gantt(gantt_path, drawn, trace_path, host=host,
                   title=f"{path}: {report.verdict}", marks=report.violations,
                   trace_map=mapping, trace_format=trace_format, cpu_hz=cpu_hz, buffer=buffer,
                   origin_ns=origin)
    if as_json:
        click.echo(json.dumps(report.as_json()))
    else:
        _print(report)
    return {CONFORMANT: 0, VIOLATIONS: 1}.get(report.verdict, 3)


@contextmanager
def _whole(path: str | None) -> Iterator[TextIO | None]:
    """A file written beside *path* and renamed to it only if the check ends normally."""
    if path is None:
        yield None
        return
    from akita.atomic import atomic_file

    with atomic_file(path) as out:
        yield out


#: How many VMs' phases the printed report names.
_PHASES_SHOWN = 6


def _phases_line(report: ConformanceReport) -> str:
    """Where each period grid started, for people: ``Phases (trace header): web 3ms, db 0ns``."""
    items = [f"{name} {format_duration(phase)}" for name, phase in report.phases.items()]
    more = len(items) - _PHASES_SHOWN
    shown = ", ".join(items[:_PHASES_SHOWN]) + (f" and {more} more" if more > 0 else "")
    return f"Phases ({report.phase_source}): {shown or 'no VM admitted'}"


def _print(report: ConformanceReport, console: Console | None = None) -> None:
    console = console or Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    console.print(report.summary())
    console.print(_phases_line(report))
    for rule, first in sorted(report.first_of_each_rule.items(), key=lambda i: int(i[0][1:])):
        at = "" if first.line is None else f", line {first.line}"
        console.print(f"{rule} x{report.counts[rule]} ({RULE_TITLES[rule]}); the first, at "
                      f"{format_duration(first.t)} on pCPU {first.cpu}{at}: {escape(first.text)}")
        console.print(f"  allowed: {escape(', '.join(first.allowed))}; did: {escape(first.did)}; "
                      "the trace up to it:")
        for event in first.window:  # whole lines, never wrapped: a reader copies them
            click.echo("    " + json.dumps(event, separators=(",", ":")))
    if report.violations:
        table = Table(title=f"First {len(report.violations)} of {report.total} violations, "
                            "in the order they began")
        for column in ("rule", "t", "pCPU", "line", "allowed", "did", "finding"):
            table.add_column(column, overflow="fold",
                             justify="right" if column in ("t", "pCPU", "line") else "left")
        for v in report.violations:
            table.add_row(v.rule, format_duration(v.t), str(v.cpu),
                          "-" if v.line is None else str(v.line), ", ".join(v.allowed), v.did,
                          v.text)
        console.print(table)
    for line in report.overruns():
        console.print(f"Overrun: {escape(line)}.")
    for item in report.unchecked():
        console.print(f"Not checked (not in the trace): {item}")

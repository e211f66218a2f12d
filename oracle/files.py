"""Checking a trace *file*: what ``akita conform HOST.toml TRACE`` does, for a script.

A trace is of one of the registered formats (:mod:`akita.trace.formats`,
listed in :doc:`/conform`), opened as :mod:`akita.trace.opening` opens any
trace: decompressed, its format told by its first bytes under ``"auto"``.
A format that is not a kernel's (``jsonl``, :doc:`/trace-format`) carries
every decision kind and a header with the span and the phases.  The kernel
formats (``ftrace``, ``trace.dat``, ``xentrace``) record only who ran, who
woke and who moved: they are read into
:class:`~akita.trace.kernel.SchedEvent` and translated by the one
:func:`~akita.trace.kernel.akita_events`, need the host's ``[trace_map]``
(plus any extra ``task -> VM/i`` pairs) to know which task runs which vCPU,
carry no phases (the host file must declare them), and are judged by default
with the tolerance of :mod:`.tolerance`.

A file that cannot be what it is said to be is bad input
(:class:`~akita.trace.jsonl.TraceError`), never a vacuous verdict: an
empty file; with ``"auto"``, a file that is none of the formats; a kernel
trace read with no mapping at all, with no scheduler event, none of whose
tasks is mapped, or with no wakeup at all (:func:`diagnose`: then whether a
vCPU was runnable is unknown, and the rules cannot be judged); a binary
format read from a pipe.  Every text line is bounded as
:func:`~akita.trace.jsonl.text_lines` bounds it.  Its errors name the
library's parameters (``trace_map``, ``buffer``, ``cpu_hz``, ``end``,
``trace_format``); ``akita conform`` names its flags instead.
"""

from __future__ import annotations

from os import PathLike
from typing import IO, Any, Callable, Iterator, Mapping, TextIO

import attrs
from akita.model import Host, format_duration
from akita.model.errors import ModelError
from akita.trace.formats import FORMATS
from akita.trace.jsonl import TraceError
from akita.trace.kernel import Tally, akita_events, check_mapping, check_origin
from akita.trace.opening import Opened, opened

from .claims import Claims, capture_claims
from .options import ConformOptions
from .oracle import DECISIONS
from .phases import trace_phases
from .report import ConformanceReport, conform
from .tolerance import default_tolerance

__all__ = ["FORMATS", "FTRACE_REPORTS", "conform_file", "conform_stream", "diagnose"]

#: The decision kinds a kernel trace records (its switches).
FTRACE_REPORTS = ("dispatch", "idle")


def conform_stream(host: Host, stream: IO[Any], options: ConformOptions | None = None, *,
                   path: str = "<trace>", progress: Callable[[int], None] | None = None,
                   timeline: TextIO | None = None, **keywords: Any) -> ConformanceReport:
    """Check the trace read from *stream* (named *path* in errors) against *host*'s rules.

    *stream* may be text or bytes (then read as UTF-8); the binary formats
    need bytes and a stream that can seek.  *options* is a
    :class:`~.options.ConformOptions`, or the keywords that make one
    (``conform_stream(host, stream, ties="strict")``); its fields:

    :param trace_format: ``"auto"`` (read the first bytes) or a registered
        format's name (:data:`~akita.trace.formats.FORMATS`).
    :param trace_map: kernel traces: ``task -> "VM/i"`` pairs added to the host's ``[trace_map]``.
    :param origin_ns: kernel traces: the trace time that is ``t = 0`` (default: the first
        event); events before it are skipped.
    :param end: the end of the traced span (default: a JSON Lines header's
        ``duration_ns``, else the last event).
    :param reports: the decision kinds the trace records (default: all for
        JSON Lines, :data:`FTRACE_REPORTS` for kernel traces).
    :param tolerance: ns (default by the trace's kind, :func:`.tolerance.default_tolerance`).
    :param placement: ``"first-fit"`` or ``"trace"`` (:mod:`akita.oracle.placement`).
    :param cpu_hz: ``xentrace``: the cycle counter's frequency in Hz.
    :param buffer: ``trace.dat``: the trace instance to read (``"top"`` or its name;
        default: :func:`~akita.trace.tracedat.read_tracedat` chooses).
    :param policy: the rule set (default: the one a text capture's first line
        claims, :func:`.claims.capture_claims`, else ``"akita"``); such a claim
        also gives the default *reports* and the kernel's tick.

    And besides them:

    :param path: the trace's name, in errors and the report.
    :param progress: called with the number of events read, every 65,536.
    :param timeline: a text stream for the Perfetto timeline with the violations marked.
    :raises TraceError: a line or record that is not what the format requires,
        located; or a trace with nothing the oracle could judge (see above).
    """
    try:
        options = ConformOptions.of(options, keywords)
    except TraceError as error:
        raise error.located(path=path) from None
    trace = opened(stream, path, options.trace_format)
    fmt = trace.fmt
    claims = capture_claims(trace.first, path) if fmt.kernel and not fmt.binary else Claims()
    mapping = dict(host.trace_map) | dict(options.trace_map)
    if fmt.kernel and not mapping:
        seen = fmt.tally()
        for _ in _kernel(trace, path, {}, options, seen):
            pass  # every task counted, to name the busiest in the refusal
        raise _no_map(path, seen)
    if options.buffer is not None and "buffer" not in fmt.options:
        owners = " or ".join(f.name for f in FORMATS.values() if "buffer" in f.options)
        raise ModelError("buffer", options.buffer, f"no buffer for a {fmt.name} trace (trace "
                         f"instances are a {owners}'s)")
    phases = None
    tally: Tally | None = None
    end = options.end
    if not fmt.kernel:
        header, events = fmt.read(trace.source(path, Tally(), options.reader_options()))
        assert header is not None  # a format that is not a kernel's has a header
        try:
            phases = trace_phases(header, host)
        except TraceError as error:
            raise error.located(path=f"{path}:1") from None
        if end is None and isinstance(header.get("duration_ns"), int):
            end = header["duration_ns"]
        default_reports: tuple[str, ...] = tuple(sorted(DECISIONS))
    else:
        tally = fmt.tally()
        events = _kernel(trace, path, mapping, options, tally)
        default_reports = claims.reports or FTRACE_REPORTS
    policy = options.policy or claims.policy or "akita"
    tolerance, source = options.tolerance, "given"
    if tolerance is None:
        tolerance, source = default_tolerance(kernel=fmt.kernel, policy=policy)
    resolved = attrs.evolve(options, end=end, tolerance=tolerance,
                            reports=default_reports if options.reports is None
                            else options.reports, policy=policy)
    report = conform(host, events, resolved, path=path, progress=progress,
                     tick_ns=claims.tick_ns, phases=phases, tolerance_source=source,
                     timeline=timeline, resync=fmt.kernel, unit=fmt.unit)
    if tally is not None:
        diagnose(tally, mapping, path, fmt.name)
        report = attrs.evolve(report, capture_lost_marks=tally.lost_marks,
                              capture_lost_records=tally.lost_records,
                              capture_overwritten=tally.overwritten)
    if end is not None and report.start is not None and end < report.end:
        raise TraceError("end", format_duration(end),
                         f"an end at or after the trace's last event, t = "
                         f"{format_duration(report.end)} (its first is at t = "
                         f"{format_duration(report.start)}; t = 0 is the origin)", path=path)
    return report


def _kernel(trace: Opened, path: str, mapping: dict[str, str], options: ConformOptions,
            tally: Tally) -> Iterator[dict[str, Any]]:
    """The oracle's events of a kernel trace: its format's records through
    :func:`~akita.trace.kernel.akita_events`."""
    source = trace.source(path, tally, options.reader_options())
    checked, origin = check_mapping(mapping), check_origin(options.origin_ns)
    _, records = trace.fmt.read(source)
    return akita_events(records, checked, origin_ns=origin, tally=tally)


#: How many tasks a refusal names.
_TASKS_SHOWN = 6


def _tasks(tally: Tally) -> str:
    """The tasks a trace names most, with their event counts: ``dl_a-11485 (120 events)``."""
    most = tally.most_seen(_TASKS_SHOWN)
    if not most:
        return "no task but the idle task"
    shown = ", ".join(f"{name} ({n} event{'' if n == 1 else 's'})" for name, n in most)
    more = len(tally.tasks) - len(most)
    return shown + (f" and {more} more" if more > 0 else "")


def _no_map(path: str, tally: Tally) -> TraceError:
    return TraceError("trace_map", "no mapping", "for a kernel trace, the tasks that run vCPUs: "
                      "--map TASK=VM/i (a pid or comm), or a [trace_map] table in the host "
                      f"file; the trace's tasks, busiest first: {_tasks(tally)}", path=path)


def diagnose(tally: Tally, mapping: Mapping[str, str], path: str, trace_format: str) -> None:
    """Refuse a kernel trace the oracle could judge nothing from, saying why and what to record.

    * no scheduler event at all;
    * none of its tasks mapped;
    * switches but no wakeup: which vCPU was runnable is then unknown, so the
      rules that choose among runnable vCPUs (R3, R4, R6, R7, R10) cannot be
      judged -- every dispatch would look like running a blocked vCPU.

    :raises TraceError: naming the file, what the trace held and how to record it.
    """
    how = FORMATS[trace_format].recording
    if not tally.kept:
        records = f"{tally.records} record" + ("" if tally.records == 1 else "s")
        raise TraceError("", f"{records}, none of them a scheduler event "
                         "(sched_switch, sched_wakeup, sched_migrate_task)",
                         f"a trace of the scheduler's events: record with {how}", path=path)
    if not tally.mapped:
        keys = ", ".join(sorted(mapping)[:5])
        raise TraceError("trace_map", f"{tally.kept} events, none of a mapped task",
                         f"a task of the trace mapped to a vCPU (the map names {keys}; the "
                         f"trace's tasks, busiest first: {_tasks(tally)})",
                         path=path)
    if not tally.kinds["wakeup"] + tally.kinds["wakeup_new"]:
        raise TraceError("", f"{tally.kinds['switch']} switches and no wakeup",
                         "a trace with its wakeups, without which R3, R4, R6, R7 and R10 "
                         "cannot be judged (whether a vCPU was runnable is unknown): record "
                         f"with {how}", path=path)


def conform_file(host: Host, path: str | PathLike[str], **options: Any) -> ConformanceReport:
    """:func:`conform_stream` on the file at *path*: *options* are the fields of
    :class:`~.options.ConformOptions` as keywords (or ``options=`` a record), and
    ``progress`` and ``timeline``, as there."""
    with open(path, "rb") as stream:
        return conform_stream(host, stream, path=str(path), **options)


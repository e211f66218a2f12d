"""Checking a trace *file*: what ``akita conform HOST.toml TRACE`` does, for a script.

A trace is one of four formats (:data:`FORMATS`), each with its reader:

``jsonl``
   the project's JSON Lines (:doc:`/trace-format`; its first line is a JSON
   object), with every decision kind and a header carrying the span and
   the phases;
``ftrace``
   Linux scheduler events as text, in any of the forms people record
   (:mod:`.ftrace`: the kernel's ``trace``, ``trace-cmd report`` with or
   without ``-N``/``-R``, ``perf script``, Android systrace text or HTML);
``trace.dat``
   trace-cmd's binary file (:mod:`.tracedat`);
``xentrace``
   Xen's binary scheduler records (:mod:`.xentrace`; needs the cycle
   counter's frequency, ``cpu_hz``).

A gzip, xz or zstd file is read as the trace inside it (:mod:`.compressed`).
``"auto"`` tells them apart by the file's first bytes: the ``trace.dat``
magic, a ``xentrace`` CPU-change record, a JSON first line, else a line of
one of the text forms.  The three kernel formats (ftrace, trace.dat,
xentrace) record only who ran, who woke and who moved: they are read into
:class:`~.kernel.SchedEvent` and translated by the one
:func:`~.kernel.akita_events`, need the host's ``[trace_map]`` (plus any
extra ``task -> VM/i`` pairs) to know which task runs which vCPU, carry no
phases (the host file must declare them), and are judged by default with
the tolerance of :mod:`.tolerance`.

A file that cannot be what it is said to be is bad input
(:class:`~akita.trace.jsonl.TraceError`), never a vacuous verdict: an
empty file; with ``"auto"``, a file that is none of the formats; a kernel
trace read with no mapping at all, with no scheduler event, none of whose
tasks is mapped, or with no wakeup at all (:func:`diagnose`: then whether a
vCPU was runnable is unknown, and the rules cannot be judged); a binary
format read from a pipe.  Every text line is bounded as
:func:`~akita.trace.jsonl.text_lines` bounds it.
"""

from __future__ import annotations

from os import PathLike
from typing import IO, Any, BinaryIO, Callable, Iterable, Iterator, Literal, Mapping, TextIO, cast

import attrs
from akita.model import Host, format_duration
from akita.model.errors import ModelError
from akita.trace.compressed import decompressed, peek, spooled
from akita.trace.ftrace import FtraceTally, looks_like_ftrace, read_ftrace, sched_events
from akita.trace.jsonl import TraceError, read_jsonl, text_lines
from akita.trace.kernel import Tally, akita_events, check_mapping, check_origin
from akita.trace.tracedat import is_tracedat, read_tracedat
from akita.trace.xentrace import is_xentrace, read_xentrace

from .claims import Claims, capture_claims
from .oracle import DECISIONS
from .phases import trace_phases
from .placement import PlacementMode
from .report import ConformanceReport, conform
from .tolerance import default_tolerance

__all__ = ["FORMATS", "FTRACE_REPORTS", "KERNEL_FORMATS", "RECORDING", "conform_file",
           "conform_stream", "diagnose", "open_trace"]

#: The decision kinds a kernel trace records (its switches).
FTRACE_REPORTS = ("dispatch", "idle")

TraceFormat = Literal["auto", "jsonl", "ftrace", "trace.dat", "xentrace"]
#: The trace formats, ``"auto"`` first.
FORMATS: tuple[TraceFormat, ...] = ("auto", "jsonl", "ftrace", "trace.dat", "xentrace")
#: The formats of kernels and hypervisors (no header, no bookkeeping, a mapping needed).
KERNEL_FORMATS = frozenset({"ftrace", "trace.dat", "xentrace"})
#: How to record what the oracle needs, by kernel format.
RECORDING = {
    "ftrace": "trace-cmd record -e sched_switch -e sched_wakeup -e sched_wakeup_new "
              "-e sched_migrate_task (or enable those events under /sys/kernel/tracing)",
    "trace.dat": "trace-cmd record -e sched_switch -e sched_wakeup -e sched_wakeup_new "
                 "-e sched_migrate_task",
    "xentrace": "xentrace -e 0x0002f000 (the whole TRC_SCHED class) -S 256 FILE",
}
#: Bytes read to tell the formats apart.
_SNIFF = 16


def conform_stream(
    host: Host, stream: IO[Any], *, path: str = "<trace>", trace_format: TraceFormat = "auto",
    trace_map: Mapping[str, str] | None = None, origin_ns: int | None = None,
    end: int | None = None, reports: Iterable[str] | None = None, tolerance: int | None = None,
    ties: str = "any", policy: str | None = None, keep: int = 10, window: int = 8,
    progress: Callable[[int], None] | None = None, placement: PlacementMode = "first-fit",
    timeline: TextIO | None = None, cpu_hz: int | None = None, buffer: str | None = None,
) -> ConformanceReport:
    """Check the trace read from *stream* (named *path* in errors) against *host*'s rules.

    *stream* may be text or bytes (then read as UTF-8); the binary formats
    need bytes and a stream that can seek.

    :param trace_format: one of :data:`FORMATS`; ``"auto"`` reads the first bytes.
    :param trace_map: kernel traces: ``task -> "VM/i"`` pairs added to the host's ``[trace_map]``.
    :param origin_ns: kernel traces: the trace time that is ``t = 0`` (default: the first
        event); events before it are skipped.
    :param end: the end of the traced span (default: a JSON Lines header's
        ``duration_ns``, else the last event).
    :param reports: the decision kinds the trace records (default: all for
        JSON Lines, :data:`FTRACE_REPORTS` for kernel traces).
    :param tolerance: ns (default by the trace's kind, :func:`.tolerance.default_tolerance`).
    :param placement: ``"first-fit"`` or ``"trace"`` (:mod:`akita.oracle.placement`).
    :param timeline: a text stream for the Perfetto timeline with the violations marked.
    :param cpu_hz: ``xentrace``: the cycle counter's frequency in Hz.
    :param buffer: ``trace.dat``: the trace instance to read (``"top"`` or its name;
        default: :func:`~.tracedat.read_tracedat` chooses).
    :param policy: the rule set (default: the one an ftrace capture's first line
        claims, :func:`.claims.capture_claims`, else ``"akita"``); such a claim
        also gives the default *reports* and the kernel's tick.
    :raises TraceError: a line or record that is not what the format requires,
        located; or a trace with nothing the oracle could judge (see above).
    """
    trace_format, stream, lines, first = _opened(stream, path, trace_format)
    claims = capture_claims(first, path) if trace_format == "ftrace" else Claims()
    mapping = dict(host.trace_map) | dict(trace_map or {})
    if trace_format in KERNEL_FORMATS and not mapping:
        seen = FtraceTally() if trace_format == "ftrace" else Tally()
        for _ in _kernel(stream, lines, path, trace_format, {}, origin_ns, seen, cpu_hz,
                         buffer):
            pass  # every task counted, to name the busiest in the refusal
        raise _no_map(path, seen)
    if buffer is not None and trace_format != "trace.dat":
        raise ModelError("--buffer", buffer, f"no buffer for a {trace_format} trace (trace "
                         "instances are a trace.dat's)")
    if trace_format == "xentrace" and cpu_hz is None:
        raise ModelError("--cpu-hz", "nothing", "for a xentrace capture, the cycle counter's "
                         "frequency in Hz (xl info's cpu_mhz x 10**6)")
    phases = None
    tally: Tally | None = None
    if trace_format == "jsonl":
        assert lines is not None
        header, events = read_jsonl(lines, path)
        try:
            phases = trace_phases(header, host)
        except TraceError as error:
            raise error.located(path=f"{path}:1") from None
        if end is None and isinstance(header.get("duration_ns"), int):
            end = header["duration_ns"]
        default_reports: tuple[str, ...] = tuple(sorted(DECISIONS))
    else:
        tally = FtraceTally() if trace_format == "ftrace" else Tally()
        events = _kernel(stream, lines, path, trace_format, mapping, origin_ns, tally, cpu_hz,
                         buffer)
        default_reports = claims.reports or FTRACE_REPORTS
    given_end = end
    source = "given"
    if tolerance is None:
        tolerance, source = default_tolerance(kernel=trace_format != "jsonl")
    report = conform(host, events, end=end, tolerance=tolerance, ties=ties,
                     reports=default_reports if reports is None else tuple(reports),
                     keep=keep, window=window, path=path, progress=progress,
                     policy=policy or claims.policy or "akita", tick_ns=claims.tick_ns,
                     phases=phases, tolerance_source=source, placement=placement,
                     timeline=timeline, resync=trace_format in KERNEL_FORMATS,
                     unit="event" if trace_format in ("trace.dat", "xentrace") else "line")
    if tally is not None:
        diagnose(tally, mapping, path, trace_format)
        report = attrs.evolve(report, capture_lost_marks=tally.lost_marks,
                              capture_lost_records=tally.lost_records,
                              capture_overwritten=tally.overwritten)
    if given_end is not None and report.start is not None and given_end < report.end:
        raise TraceError("--end", format_duration(given_end),
                         f"an end at or after the trace's last event, t = "
                         f"{format_duration(report.end)} (its first is at t = "
                         f"{format_duration(report.start)}; t = 0 is the origin)", path=path)
    return report


def open_trace(stream: IO[Any], *, path: str = "<trace>", trace_format: TraceFormat = "auto",
               cpu_hz: int | None = None, buffer: str | None = None,
               tally: Tally | None = None,
               ) -> tuple[str, dict[str, Any] | None, Iterator[Any]]:
    """The format of the trace on *stream*, its header, and its records, read as they are used.

    The same readers and the same telling apart as :func:`conform_stream`,
    without the oracle: ``("jsonl", header, events)`` with the trace format's
    event dictionaries, or ``(format, None, records)`` with a kernel format's
    :class:`~.kernel.SchedEvent` records, every task kept (no mapping).  What
    reads them (:mod:`akita.analysis`) names the tasks itself.

    :raises TraceError: as :func:`conform_stream`, for a file that is none of the formats.
    """
    trace_format, stream, lines, _ = _opened(stream, path, trace_format)
    if trace_format == "jsonl":
        assert lines is not None
        header, events = read_jsonl(lines, path)
        return "jsonl", header, events
    if trace_format == "xentrace" and cpu_hz is None:
        raise ModelError("--cpu-hz", "nothing", "for a xentrace capture, the cycle counter's "
                         "frequency in Hz (xl info's cpu_mhz x 10**6)")
    tally = Tally() if tally is None else tally
    if lines is not None:
        return trace_format, None, sched_events(lines, path=path, tally=tally)
    if not isinstance(stream.read(0), bytes):
        raise TraceError("stream", "a text stream", f"a binary stream for a {trace_format} "
                         "file", path=path)
    binary = cast(BinaryIO, stream)
    if trace_format == "trace.dat":
        return trace_format, None, read_tracedat(binary, path=path, tally=tally, buffer=buffer)
    assert cpu_hz is not None
    return trace_format, None, read_xentrace(binary, path=path, cpu_hz=cpu_hz, tally=tally)


def _opened(stream: IO[Any], path: str, trace_format: TraceFormat
            ) -> tuple[TraceFormat, IO[Any], Iterator[str] | None, str]:
    """The trace on *stream* opened the one way :func:`conform_stream` and
    :func:`open_trace` both read it: decompressed, its format told (``"auto"``), a
    compressed binary spooled so that it can seek; its lines and first line if it is text
    (else ``None`` and ``""``)."""
    if trace_format not in FORMATS:
        raise ModelError("--format", trace_format, f"one of {', '.join(FORMATS)}")
    stream, codec = decompressed(stream, path)
    if trace_format == "auto":
        trace_format = _binary(stream) or "auto"
    if codec is not None and trace_format in ("trace.dat", "xentrace"):
        stream = spooled(stream, path, codec)  # read out of order: seekable
    if trace_format in ("auto", "jsonl", "ftrace"):
        trace_format, lines, first = _text(stream, path, trace_format)
        return trace_format, stream, lines, first
    return trace_format, stream, None, ""


def _binary(stream: IO[Any]) -> TraceFormat | None:
    """``"trace.dat"`` or ``"xentrace"`` if *stream*'s first bytes say so (left unread)."""
    head = peek(stream, _SNIFF)
    if not isinstance(head, bytes):
        return None
    if is_tracedat(head):
        return "trace.dat"
    return "xentrace" if is_xentrace(head) else None


def _text(stream: IO[Any], path: str, trace_format: TraceFormat
          ) -> tuple[TraceFormat, Iterator[str], str]:
    """A text trace's format (told by its first line under ``"auto"``) and its lines."""
    source = text_lines(stream, path)
    first = _first_line(source, path)
    json_first = first.lstrip().startswith("{")
    if trace_format == "auto":
        if not json_first and not looks_like_ftrace(first):
            raise TraceError("", first.strip(), "a JSON Lines header or an ftrace line "
                             "('# tracer: ...', 'cpus=N', systrace HTML, or 'comm-pid [cpu] "
                             "... seconds: event: ...'), or a trace.dat or xentrace file",
                             path=f"{path}:1")
        trace_format = "jsonl" if json_first else "ftrace"
    elif trace_format == "ftrace" and json_first:
        raise TraceError("", first.strip(), "ftrace text (this is JSON: use --format "
                         "jsonl or auto)", path=f"{path}:1")
    return trace_format, _chain(first, source), first


def _kernel(stream: IO[Any], lines: Iterator[str] | None, path: str, trace_format: str,
            mapping: dict[str, str], origin_ns: int | None, tally: Tally,
            cpu_hz: int | None, buffer: str | None = None) -> Iterator[dict]:
    """The oracle's events of a kernel trace in *trace_format* (*lines*: a text one's)."""
    if lines is not None:
        return read_ftrace(lines, mapping, origin_ns=origin_ns, path=path, tally=tally)
    if not isinstance(stream.read(0), bytes):
        raise TraceError("stream", "a text stream", f"a binary stream for a {trace_format} "
                         "file", path=path)
    checked, origin = check_mapping(mapping), check_origin(origin_ns)
    binary = cast(BinaryIO, stream)  # a byte stream: checked just above
    if trace_format == "trace.dat":
        records = read_tracedat(binary, path=path, tally=tally, buffer=buffer)
    else:
        assert cpu_hz is not None
        records = read_xentrace(binary, path=path, cpu_hz=cpu_hz, tally=tally)
    return akita_events(records, checked, origin_ns=origin, tally=tally)


def _first_line(source: Iterator[str], path: str) -> str:
    first = next(source, None)
    if first is None or not first.strip():
        got = "an empty file" if first is None else "a blank first line"
        raise TraceError("", got, "a JSON Lines trace (a header line), ftrace text, a "
                         "trace.dat or a xentrace file", path=path)
    return first


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
    return TraceError("--map", "no mapping", "for a kernel trace, the tasks that run vCPUs: "
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
    how = RECORDING[trace_format]
    if not tally.kept:
        records = f"{tally.records} record" + ("" if tally.records == 1 else "s")
        raise TraceError("", f"{records}, none of them a scheduler event "
                         "(sched_switch, sched_wakeup, sched_migrate_task)",
                         f"a trace of the scheduler's events: record with {how}", path=path)
    if not tally.mapped:
        keys = ", ".join(sorted(mapping)[:5])
        raise TraceError("--map", f"{tally.kept} events, none of a mapped task",
                         f"a task of the trace mapped to a vCPU (the map names {keys}; the "
                         f"trace's tasks, busiest first: {_tasks(tally)})",
                         path=path)
    if not tally.kinds["wakeup"] + tally.kinds["wakeup_new"]:
        raise TraceError("", f"{tally.kinds['switch']} switches and no wakeup",
                         "a trace with its wakeups, without which R3, R4, R6, R7 and R10 "
                         "cannot be judged (whether a vCPU was runnable is unknown): record "
                         f"with {how}", path=path)


def conform_file(host: Host, path: str | PathLike[str], **options: Any) -> ConformanceReport:
    """:func:`conform_stream` on the file at *path* (keyword *options* as there)."""
    with open(path, "rb") as stream:
        return conform_stream(host, stream, path=str(path), **options)


def _chain(first: str, rest: Iterable[str]) -> Iterator[str]:
    yield first
    yield from rest

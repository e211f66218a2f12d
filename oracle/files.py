"""Checking a trace *file*: what ``akita conform HOST.toml TRACE`` does, for a script.

A trace file is either JSON Lines (:doc:`/trace-format`; its first line is a
JSON object) or Linux ftrace text (:mod:`.ftrace`), told apart by that first
line unless the caller says which.  A JSON Lines header carries the traced
span (``duration_ns``) and every decision kind; ftrace records only
dispatches and idles, and needs the host's ``[trace_map]`` (plus any extra
``task -> VM/i`` pairs) to know which task runs which vCPU.

Each vCPU's periods start at its VM's phase (:mod:`akita.oracle.phases`): the host
file's declaration, else the phase a JSON Lines header's host gives.  An
ftrace trace has no header, so a VM of a ``phases = "seeded"`` host that
declares no phase is refused before the trace is read; so is a header
phase that contradicts a declared one.

A file that cannot be what it is said to be is bad input
(:class:`~akita.reference.trace.TraceError`), never a vacuous verdict: an
empty file; with ``"auto"``, a file whose first line is neither JSON nor an
ftrace line; an ftrace read with no mapping at all, or with no
``sched_switch``/``sched_wakeup`` line, or none of whose tasks is mapped; a
JSON Lines trace read as ftrace.  Every line is bounded as
:func:`~akita.reference.trace.text_lines` bounds it, so binary junk is one
located error too.
"""

from __future__ import annotations

from os import PathLike
from typing import IO, Any, Callable, Iterable, Iterator, Literal, Mapping

from akita.model import Host
from akita.reference.trace import TraceError, text_lines

from .ftrace import _LINE, FtraceTally, read_ftrace
from .jsonl import read_jsonl
from .oracle import DECISIONS
from .phases import trace_phases
from .report import ConformanceReport, conform

__all__ = ["FTRACE_REPORTS", "conform_file", "conform_stream"]

#: The decision kinds an ftrace capture records (``sched_switch`` only).
FTRACE_REPORTS = ("dispatch", "idle")

TraceFormat = Literal["auto", "jsonl", "ftrace"]


def conform_stream(
    host: Host, stream: IO[Any], *, path: str = "<trace>", trace_format: TraceFormat = "auto",
    trace_map: Mapping[str, str] | None = None, origin_ns: int | None = None,
    end: int | None = None, reports: Iterable[str] | None = None, tolerance: int = 0,
    ties: str = "any", policy: str = "akita", keep: int = 10, window: int = 8,
    progress: Callable[[int], None] | None = None,
) -> ConformanceReport:
    """Check the trace read from *stream* (named *path* in errors) against *host*'s rules.

    *stream* may be text or bytes (then read as UTF-8); its lines are
    bounded (:func:`~akita.reference.trace.text_lines`).

    :param trace_format: ``"auto"`` reads a JSON first line as JSON Lines, else ftrace.
    :param trace_map: ftrace: ``task -> "VM/i"`` pairs added to the host's ``[trace_map]``.
    :param origin_ns: ftrace: the kernel time that is ``t = 0`` (default: the first event).
    :param end: the end of the traced span (default: a JSON Lines header's
        ``duration_ns``, else the last event).
    :param reports: the decision kinds the trace records (default: all for
        JSON Lines, :data:`FTRACE_REPORTS` for ftrace).
    :raises TraceError: a line that is not what the format requires, located;
        or a trace with nothing the oracle could read (see above).
    """
    mapping = dict(host.trace_map) | dict(trace_map or {})
    if trace_format == "ftrace" and not mapping:
        raise _no_map(path)
    source = text_lines(stream, path)
    first = next(source, None)
    if first is None or not first.strip():
        got = "an empty file" if first is None else "a blank first line"
        raise TraceError("", got, "a JSON Lines trace (a header line) or ftrace text",
                         path=path)
    json_first = first.lstrip().startswith("{")
    if trace_format == "auto":
        if not json_first and not first.lstrip().startswith("#") and not _LINE.match(first):
            raise TraceError("", first.strip(), "a JSON Lines header or an ftrace line "
                             "('# tracer: ...' or 'comm-pid [cpu] ... seconds: event: ...')",
                             path=f"{path}:1")
        trace_format = "jsonl" if json_first else "ftrace"
        if trace_format == "ftrace" and not mapping:
            raise _no_map(path)
    lines = _chain(first, source)
    tally = None
    phases = None
    if trace_format == "jsonl":
        header, events = read_jsonl(lines, path)
        try:
            phases = trace_phases(header, host)
        except TraceError as error:
            raise error.located(path=f"{path}:1") from None
        if end is None and isinstance(header.get("duration_ns"), int):
            end = header["duration_ns"]
        default_reports: tuple[str, ...] = tuple(sorted(DECISIONS))
    else:
        if json_first:
            raise TraceError("", first.strip(), "ftrace text (this is JSON: use --format "
                             "jsonl or auto)", path=f"{path}:1")
        tally = FtraceTally()
        events = read_ftrace(lines, mapping, origin_ns=origin_ns, path=path, tally=tally)
        default_reports = FTRACE_REPORTS
    report = conform(host, events, end=end, tolerance=tolerance, ties=ties,
                     reports=default_reports if reports is None else tuple(reports),
                     keep=keep, window=window, path=path, progress=progress, policy=policy,
                     phases=phases)
    if tally is not None:
        _check_tally(tally, mapping, path)
    return report


def _no_map(path: str) -> TraceError:
    return TraceError("--map", "no mapping", "for an ftrace trace, the tasks that run vCPUs: "
                      "--map TASK=VM/i, or a [trace_map] table in the host file", path=path)


def _check_tally(tally: FtraceTally, mapping: Mapping[str, str], path: str) -> None:
    """Refuse an ftrace trace the oracle could read nothing from."""
    if not tally.kept:
        raise TraceError("", f"{tally.lines} lines, none of them a sched_switch or "
                         "sched_wakeup event", "ftrace text with sched_switch and "
                         "sched_wakeup lines", path=path)
    if not tally.mapped:
        tasks = ", ".join(tally.unmapped) or "only idle tasks"
        keys = ", ".join(sorted(mapping)[:5])
        raise TraceError("--map", f"{tally.kept} events of tasks {tasks}, none mapped",
                         f"a task of the trace mapped to a vCPU (the map names {keys})",
                         path=path)


def conform_file(host: Host, path: str | PathLike[str], **options: Any) -> ConformanceReport:
    """:func:`conform_stream` on the UTF-8 file at *path* (keyword *options* as there)."""
    with open(path, "rb") as stream:
        return conform_stream(host, stream, path=str(path), **options)


def _chain(first: str, rest: Iterable[str]) -> Iterator[str]:
    yield first
    yield from rest

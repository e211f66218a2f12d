"""Checking a trace *file*: what ``akita conform HOST.toml TRACE`` does, for a script.

A trace file is either JSON Lines (:doc:`/trace-format`; its first line is a
JSON object) or Linux ftrace text (:mod:`.ftrace`), told apart by that first
line unless the caller says which.  A JSON Lines header carries the traced
span (``duration_ns``) and every decision kind; ftrace records only
dispatches and idles, and needs the host's ``[trace_map]`` (plus any extra
``task -> VM/i`` pairs) to know which task runs which vCPU.
"""

from __future__ import annotations

from os import PathLike
from typing import Any, Callable, Iterable, Iterator, Literal, Mapping, TextIO

from akita.model import Host

from .ftrace import read_ftrace
from .jsonl import read_jsonl
from .oracle import DECISIONS
from .report import ConformanceReport, conform

__all__ = ["FTRACE_REPORTS", "conform_file", "conform_stream"]

#: The decision kinds an ftrace capture records (``sched_switch`` only).
FTRACE_REPORTS = ("dispatch", "idle")

TraceFormat = Literal["auto", "jsonl", "ftrace"]


def conform_stream(
    host: Host, stream: TextIO, *, path: str = "<trace>", trace_format: TraceFormat = "auto",
    trace_map: Mapping[str, str] | None = None, origin_ns: int | None = None,
    end: int | None = None, reports: Iterable[str] | None = None, tolerance: int = 0,
    ties: str = "any", policy: str = "akita", keep: int = 10, window: int = 8,
    progress: Callable[[int], None] | None = None,
) -> ConformanceReport:
    """Check the trace read from *stream* (named *path* in errors) against *host*'s rules.

    :param trace_format: ``"auto"`` reads a JSON first line as JSON Lines, else ftrace.
    :param trace_map: ftrace: ``task -> "VM/i"`` pairs added to the host's ``[trace_map]``.
    :param origin_ns: ftrace: the kernel time that is ``t = 0`` (default: the first event).
    :param end: the end of the traced span (default: a JSON Lines header's
        ``duration_ns``, else the last event).
    :param reports: the decision kinds the trace records (default: all for
        JSON Lines, :data:`FTRACE_REPORTS` for ftrace).
    :raises TraceError: a line that is not what the format requires, located.
    """
    first = stream.readline()
    if trace_format == "auto":
        trace_format = "jsonl" if first.lstrip().startswith("{") else "ftrace"
    lines = _chain(first, stream)
    if trace_format == "jsonl":
        header, events = read_jsonl(lines, path)
        if end is None and isinstance(header.get("duration_ns"), int):
            end = header["duration_ns"]
        default_reports: tuple[str, ...] = tuple(sorted(DECISIONS))
    else:
        mapping = dict(host.trace_map) | dict(trace_map or {})
        events = read_ftrace(lines, mapping, origin_ns=origin_ns, path=path)
        default_reports = FTRACE_REPORTS
    return conform(host, events, end=end, tolerance=tolerance, ties=ties,
                   reports=default_reports if reports is None else tuple(reports),
                   keep=keep, window=window, path=path, progress=progress, policy=policy)


def conform_file(host: Host, path: str | PathLike[str], **options: Any) -> ConformanceReport:
    """:func:`conform_stream` on the UTF-8 file at *path* (keyword *options* as there)."""
    with open(path, encoding="utf-8") as stream:
        return conform_stream(host, stream, path=str(path), **options)


def _chain(first: str, rest: Iterable[str]) -> Iterator[str]:
    yield first
    yield from rest

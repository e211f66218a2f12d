"""Export an Akita trace as a Chrome trace-event timeline (Perfetto, chrome://tracing).

The input is a trace as ``docs/trace-format.rst`` specifies it: the header
object first, then the event objects in nondecreasing ``t``.  The output is
one JSON object in the Chrome trace-event format::

    {"displayTimeUnit": "ns", "traceEvents": [...], "otherData": {...}}

Mapping
-------

* One process, ``pid`` 0, named ``"host"``; one track (``tid`` ``i``) per
  pCPU ``i``, named ``"pCPU i"`` and sorted by index.  The header's
  ``host.pcpus``, when it is an integer, declares the tracks 0 to
  ``pcpus - 1`` up front; any other pCPU gets its track when first seen.
* A ``dispatch`` opens a complete event (``"ph": "X"``) named by the vCPU,
  with the dispatch's ``deadline``, ``key`` and ``budget`` as args.  It lasts
  until the next ``dispatch`` or ``idle`` on the same pCPU or, for the last
  one, until the header's ``duration_ns`` (never before its own start).
* A ``mode`` event is a thread-scoped instant event (``"ph": "i"``,
  ``"s": "t"``) named ``"mode HI"`` or ``"mode LO"``, with the triggering
  ``vcpu`` as arg when the trace names one.
* With ``jobs=True`` (the default), ``release`` and ``complete`` are instant
  events named ``"release VCPU"`` and ``"complete VCPU"``: a release carries
  ``deadline``, ``key`` and ``budget``, a completion ``arrival`` and
  ``response_ns = t - arrival``.
* ``wake``, ``block``, ``exhaust``, ``temperature`` and unknown events are
  not drawn.
* ``otherData`` holds the header's ``policy``, ``seed`` and ``duration_ns``,
  and ``phases_ns``: each VM's phase (its first period start), when the
  header's host gives them.

Times
-----

Chrome traces count in microseconds.  ``ts`` and ``dur`` are written as the
exact decimal ``ns / 1000`` with at most three decimals (``1500`` ns is
``1.5``, ``1234567`` ns is ``1234.567``), produced from integers: no float is
involved.

Streaming
---------

Events are written as the trace is read.  The memory held is one open slice
and one track flag per pCPU, whatever the trace's length.  A file is read by
the trace format's one reader, :func:`akita.trace.jsonl.open_trace`; a
malformed line raises its :class:`~akita.trace.jsonl.TraceError`, which
names the file, the line and the field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from .jsonl import TraceError, check_header, count, field, located, open_trace

__all__ = ["write_timeline", "main_timeline", "microseconds", "Timeline"]

_PID = 0


def microseconds(ns: int) -> str:
    """``ns / 1000`` as an exact JSON number: ``1500 -> "1.5"``, ``2000 -> "2"``.

    :raises ValueError: if ``ns`` is not an integer ``>= 0``.
    """
    if not isinstance(ns, int) or isinstance(ns, bool) or ns < 0:
        raise ValueError(f"a time must be an integer number of ns >= 0, got {ns!r}")
    whole, part = divmod(ns, 1000)
    return str(whole) if part == 0 else f"{whole}.{part:03d}".rstrip("0")


def _object(fields: Mapping[str, str]) -> str:
    """A JSON object from keys and already-encoded JSON values."""
    return "{" + ", ".join(f"{json.dumps(key)}: {value}" for key, value in fields.items()) + "}"


class _Writer:
    """Writes the comma-separated elements of the ``traceEvents`` array."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._first = True

    def event(self, ph: str, name: str, tid: int, ts: int | None = None, **rest: str) -> None:
        fields = {"name": json.dumps(name), "ph": json.dumps(ph), "pid": str(_PID), "tid": str(tid)}
        if ts is not None:
            fields["ts"] = microseconds(ts)
        fields.update(rest)
        self._out.write(("\n" if self._first else ",\n") + _object(fields))
        self._first = False

    def instant(self, name: str, tid: int, ts: int, cat: str, args: Mapping[str, Any]) -> None:
        """A thread-scoped instant event."""
        self.event("i", name, tid, ts, s='"t"', cat=json.dumps(cat), args=json.dumps(args))


class _Tracks:
    """The open slice of each pCPU and the tracks declared so far."""

    def __init__(self, writer: _Writer) -> None:
        self._writer = writer
        self._declared: set[int] = set()
        self._open: dict[int, tuple[int, str, dict[str, Any]]] = {}

    def declare(self, cpu: int) -> None:
        if cpu in self._declared:
            return
        self._declared.add(cpu)
        self._writer.event("M", "thread_name", cpu, args=json.dumps({"name": f"pCPU {cpu}"}))
        self._writer.event("M", "thread_sort_index", cpu, args=json.dumps({"sort_index": cpu}))

    def open(self, cpu: int, t: int, vcpu: str, args: dict[str, Any]) -> None:
        self.close(cpu, t)
        self._open[cpu] = (t, vcpu, args)

    def close(self, cpu: int, t: int) -> None:
        if cpu not in self._open:
            return
        start, vcpu, args = self._open.pop(cpu)
        self._writer.event(
            "X", vcpu, cpu, start, dur=microseconds(max(t, start) - start),
            cat=json.dumps("dispatch"), args=json.dumps(args),
        )

    def close_all(self, t: int) -> None:
        for cpu in sorted(self._open):
            self.close(cpu, t)


def _where(line: Mapping[str, Any], number: int, path: str | None) -> str:
    """Where an event is: in a file, the line the reader gave it; else its position."""
    return f"trace line {number}" if path is None else located(path, line)


_SERVER = ("deadline", "key", "budget")


def _draw(
    line: Mapping[str, Any], where: str, t: int, tracks: _Tracks, writer: _Writer, jobs: bool,
    partial: bool = False,
) -> None:
    """Write what one event line contributes to the timeline (*partial*: a dispatch
    shows the server fields it has, as a kernel trace's have none)."""
    cpu = count(line, "cpu", where)
    tracks.declare(cpu)
    kind = line.get("event")
    if kind == "dispatch":
        args = ({name: line[name] for name in _SERVER if name in line} if partial
                else {name: field(line, name, where) for name in _SERVER})
        tracks.open(cpu, t, field(line, "vcpu", where), args)
    elif kind == "idle":
        tracks.close(cpu, t)
    elif kind == "mode":
        args = {"vcpu": line["vcpu"]} if "vcpu" in line else {}
        writer.instant(f"mode {field(line, 'mode', where)}", cpu, t, "mode", args)
    elif jobs and kind == "release":
        args = {name: field(line, name, where) for name in _SERVER}
        writer.instant(f"release {field(line, 'vcpu', where)}", cpu, t, "release", args)
    elif jobs and kind == "complete":
        arrival = count(line, "arrival", where)
        args = {"arrival": arrival, "response_ns": t - arrival}
        writer.instant(f"complete {field(line, 'vcpu', where)}", cpu, t, "complete", args)


def write_timeline(
    trace_lines: Iterable[Mapping[str, Any]], out: TextIO, *, jobs: bool = True
) -> None:
    """Write the trace ``trace_lines`` to ``out`` as Chrome trace-event JSON.

    :param trace_lines: the header object, then the event objects in
        nondecreasing ``t`` (``docs/trace-format.rst``).
    :param out: a text stream; the JSON object is written to it piecewise.
    :param jobs: also draw ``release`` and ``complete`` as instant events.
    :raises TraceError: (a :class:`ValueError`) if the first line is not a
        version-1 header, a line lacks a field the timeline needs, or ``t``
        decreases; the message gives the line's position (``trace line 3``),
        counting the header as line 1.  What was written before the error is
        an incomplete document.
    """
    lines = iter(trace_lines)
    header = check_header(next(lines, None), "trace line 1")
    _write(header, lines, out, jobs=jobs, path=None)


class Timeline:
    """A timeline written as its events come: the one writer behind :func:`write_timeline`
    and ``akita conform --timeline`` (which marks each violation on its pCPU's track).

    :param out: a text stream; the JSON object is written to it piecewise.
    :param pcpus: the tracks to declare up front (``None``: as they are first seen).
    :param jobs: also draw ``release`` and ``complete`` as instant events.
    :param partial: a dispatch need not carry its server's fields (a kernel trace's do not).
    """

    def __init__(self, out: TextIO, pcpus: int | None = None, *, jobs: bool = True,
                 partial: bool = False) -> None:
        self._out = out
        self._jobs = jobs
        self._partial = partial
        out.write('{"displayTimeUnit": "ns", "traceEvents": [')
        self._writer = _Writer(out)
        self._tracks = _Tracks(self._writer)
        self._writer.event("M", "process_name", 0, args=json.dumps({"name": "host"}))
        for cpu in range(pcpus or 0):
            self._tracks.declare(cpu)

    def draw(self, line: Mapping[str, Any], where: str, t: int) -> None:
        """Draw one trace event (its fields checked, errors located at *where*)."""
        _draw(line, where, t, self._tracks, self._writer, self._jobs, self._partial)

    def mark(self, name: str, cpu: int, t: int, category: str, args: Mapping[str, Any]) -> None:
        """An instant event on pCPU *cpu*'s track at *t* (e.g. a violation)."""
        self._tracks.declare(cpu)
        self._writer.instant(name, cpu, t, category, args)

    def end(self, t: int, other: Mapping[str, Any]) -> None:
        """Close every open slice at *t* and finish the document with *other* as ``otherData``."""
        self._tracks.close_all(t)
        self._out.write(f'\n], "otherData": {json.dumps(dict(other))}}}\n')


def _write(
    header: Mapping[str, Any], events: Iterable[object], out: TextIO, *, jobs: bool,
    path: str | None,
) -> None:
    """The timeline of a trace whose header is read: events as read from *path*, or numbered."""
    end = count(header, "duration_ns", "trace line 1" if path is None else f"{path}:1")
    host = header.get("host")
    pcpus = host.get("pcpus") if isinstance(host, Mapping) else None
    timeline = Timeline(out, pcpus if isinstance(pcpus, int) and not isinstance(pcpus, bool)
                        else None, jobs=jobs)
    now = 0
    for number, line in enumerate(events, start=2):
        if not isinstance(line, Mapping):
            raise TraceError("event", line, "an event object", path=f"trace line {number}")
        where = _where(line, number, path)
        t = count(line, "t", where)
        if t < now:
            raise TraceError("t", t, f"a time >= {now} (events in time order)", path=where)
        now = t
        timeline.draw(line, where, t)
    other = {name: header[name] for name in ("policy", "seed", "duration_ns") if name in header}
    phases = _phases(header)
    if phases:
        other["phases_ns"] = phases
    timeline.end(end, other)


def _phases(header: Mapping[str, Any]) -> dict[str, int]:
    """Each VM's phase (its first period start, ns), as the header's host gives them."""
    host = header.get("host")
    vms = host.get("vms") if isinstance(host, Mapping) else None
    if not isinstance(vms, list):
        return {}
    return {vm["name"]: vm["phase"] for vm in vms
            if isinstance(vm, Mapping) and isinstance(vm.get("name"), str)
            and isinstance(vm.get("phase"), int) and not isinstance(vm.get("phase"), bool)}


def main_timeline(trace_path: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> None:
    """Convert the JSON Lines trace at ``trace_path`` to a timeline file at ``out_path``.

    The trace is read by :func:`akita.trace.jsonl.open_trace`; errors
    name the file and line (``trace.jsonl:12``).

    :raises TraceError: as :func:`write_timeline`, or for a line that is not JSON.
    """
    from akita.atomic import atomic_file

    with open_trace(trace_path) as (header, events), atomic_file(out_path) as out:
        _write(header, events, out, jobs=True, path=os.fspath(trace_path))

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

Times
-----

Chrome traces count in microseconds.  ``ts`` and ``dur`` are written as the
exact decimal ``ns / 1000`` with at most three decimals (``1500`` ns is
``1.5``, ``1234567`` ns is ``1234.567``), produced from integers: no float is
involved.

Streaming
---------

Events are written as the trace is read.  The memory held is one open slice
and one track flag per pCPU, whatever the trace's length.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TextIO

__all__ = ["write_timeline", "main_timeline", "microseconds"]

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


def _field(line: Mapping[str, Any], name: str, number: int) -> Any:
    if name not in line:
        raise ValueError(f"trace line {number}: {line.get('event', 'header')!r} needs {name!r}")
    return line[name]


def _time(line: Mapping[str, Any], name: str, number: int) -> int:
    value = _field(line, name, number)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"trace line {number}: {name!r} must be an integer >= 0, got {value!r}")
    return value


def _header(lines: Iterator[Mapping[str, Any]]) -> Mapping[str, Any]:
    header = next(lines, None)
    if not isinstance(header, Mapping) or "akita_trace" not in header:
        raise ValueError("trace line 1: expected the header object (with 'akita_trace')")
    _time(header, "duration_ns", 1)
    return header


def _draw(
    line: Mapping[str, Any], number: int, t: int, tracks: _Tracks, writer: _Writer, jobs: bool
) -> None:
    """Write what one event line contributes to the timeline."""
    cpu = _time(line, "cpu", number)
    tracks.declare(cpu)
    kind = line.get("event")
    if kind == "dispatch":
        args = {name: _field(line, name, number) for name in ("deadline", "key", "budget")}
        tracks.open(cpu, t, _field(line, "vcpu", number), args)
    elif kind == "idle":
        tracks.close(cpu, t)
    elif kind == "mode":
        args = {"vcpu": line["vcpu"]} if "vcpu" in line else {}
        writer.instant(f"mode {_field(line, 'mode', number)}", cpu, t, "mode", args)
    elif jobs and kind == "release":
        args = {name: _field(line, name, number) for name in ("deadline", "key", "budget")}
        writer.instant(f"release {_field(line, 'vcpu', number)}", cpu, t, "release", args)
    elif jobs and kind == "complete":
        arrival = _time(line, "arrival", number)
        args = {"arrival": arrival, "response_ns": t - arrival}
        writer.instant(f"complete {_field(line, 'vcpu', number)}", cpu, t, "complete", args)


def write_timeline(
    trace_lines: Iterable[Mapping[str, Any]], out: TextIO, *, jobs: bool = True
) -> None:
    """Write the trace ``trace_lines`` to ``out`` as Chrome trace-event JSON.

    :param trace_lines: the header object, then the event objects in
        nondecreasing ``t`` (``docs/trace-format.rst``).
    :param out: a text stream; the JSON object is written to it piecewise.
    :param jobs: also draw ``release`` and ``complete`` as instant events.
    :raises ValueError: if the first line is not a header, a line lacks a
        field the timeline needs, or ``t`` decreases; the message gives the
        line's position, counting the header as line 1.  What was written
        before the error is an incomplete document.
    """
    lines = iter(trace_lines)
    header = _header(lines)
    out.write('{"displayTimeUnit": "ns", "traceEvents": [')
    writer = _Writer(out)
    tracks = _Tracks(writer)
    writer.event("M", "process_name", 0, args=json.dumps({"name": "host"}))
    pcpus = header["host"].get("pcpus") if isinstance(header.get("host"), Mapping) else None
    if isinstance(pcpus, int) and not isinstance(pcpus, bool):
        for cpu in range(pcpus):
            tracks.declare(cpu)
    now = 0
    for number, line in enumerate(lines, start=2):
        if not isinstance(line, Mapping):
            raise ValueError(f"trace line {number}: expected an event object, got {line!r}")
        t = _time(line, "t", number)
        if t < now:
            raise ValueError(f"trace line {number}: t = {t} is before the previous t = {now}")
        now = t
        _draw(line, number, t, tracks, writer, jobs)
    tracks.close_all(header["duration_ns"])
    other = {name: header[name] for name in ("policy", "seed", "duration_ns") if name in header}
    out.write(f'\n], "otherData": {json.dumps(other)}}}\n')


def _read_jsonl(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The objects of a JSON Lines file, one per non-blank line, read lazily."""
    with open(path, encoding="utf-8") as trace:
        for number, text in enumerate(trace, start=1):
            if not text.strip():
                continue
            try:
                yield json.loads(text)
            except json.JSONDecodeError as error:
                raise ValueError(f"{os.fspath(path)}:{number}: not JSON: {error.msg}") from None


def main_timeline(trace_path: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> None:
    """Convert the JSON Lines trace at ``trace_path`` to a timeline file at ``out_path``.

    :raises ValueError: as :func:`write_timeline`, or for a line that is not JSON.
    """
    with open(out_path, "w", encoding="utf-8") as out:
        write_timeline(_read_jsonl(trace_path), out)

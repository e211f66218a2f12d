"""The JSON Lines trace (:doc:`/trace-format`): its one writer and its one reader.

A trace is UTF-8 text, one JSON object per line: line 1 the *header*
(``{"akita_trace": 1, "host": ..., "policy": ..., "seed": ...,
"duration_ns": ...}``), every other line an *event* (``{"t": ns, "cpu": i,
"event": kind, ...}``).  Everything that writes or reads one goes through
this module:

* :class:`TraceWriter` writes it, as the simulator
  (:mod:`akita.reference.simulator`) produces it: compact JSON (no space
  after ``,`` or ``:``), the fields in the order given, one line each.  The
  same calls give the same bytes.
* :func:`read_trace` reads it as a stream -- the header at once, the events
  one by one as they are asked for, each with the field ``line`` (its line
  number) added -- so that memory stays bounded and an error or a finding
  can name its line.  :func:`open_trace` does the same for a file.
  Its readers are the oracle (:func:`akita.oracle.read_jsonl`, the same
  function under its format's name, :data:`read_jsonl`), the
  timeline export (:mod:`akita.trace.timeline`), the CPU-share series
  of the experiments (:mod:`akita.experiments.series`) and the replay of
  counterexamples (:mod:`akita.proofs.replay`).
* :func:`field` and :func:`count` take a field a reader needs from a line.

Bad input raises :class:`TraceError`, a typed error
(:class:`~akita.model.errors.ModelError`) located at the file and line:
``trace.jsonl:12: field 't': expected ..., got ...``, or, for a line that is
no JSON object at all, ``trace.jsonl:12: expected a JSON object (...), got ...``.

Every line is bounded before any work is done on it (:doc:`/trace-format`,
"Ceilings"): at most :data:`MAX_LINE_CHARS` characters of UTF-8 text
(:func:`text_lines` reads no more of a longer line), JSON nested at most
:data:`MAX_DEPTH` deep, and no run of more than :data:`MAX_DIGITS` digits
(so no integer of more).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import IO, Any, TextIO

from akita.model import Host, ModelError, host_json

__all__ = [
    "VERSION", "Line", "TraceError", "TraceWriter", "read_trace", "read_jsonl", "open_trace", "check_header",
    "field", "count", "located", "text_lines", "MAX_LINE_CHARS", "MAX_DEPTH", "MAX_DIGITS",
]

#: The format version, the header's ``akita_trace``.
VERSION = 1

#: A line of a trace, parsed: the header or an event.
Line = dict[str, Any]

#: The longest line a trace may have, in characters (a header describes the
#: whole host, so it is generous; an event line is some 150 characters).
MAX_LINE_CHARS = 1 << 20
#: How deeply the JSON of one line may nest objects and arrays (a header
#: nests five deep: header, host, vms, a VM, its workload).
MAX_DEPTH = 32
#: The most digits an integer of a JSON line may have (``2**63`` has 19); no
#: run of more digits is accepted anywhere in a line, inside a string or not.
MAX_DIGITS = 20


class TraceError(ModelError):
    """A trace is not shaped as its format requires.

    Its ``path`` is ``"FILE:LINE"`` once the line is known, so the message
    reads ``trace.jsonl:12: field 't': expected ..., got ...``.  An error
    about a whole line, not one of its fields, has the field ``""`` and reads
    ``trace.jsonl:12: expected a JSON object ..., got ...``.
    """

    def _message(self) -> str:
        if self.field:
            return super()._message()
        where = f"{self.path}: " if self.path is not None else ""
        return f"{where}expected {self.expected}, got {_quoted(self.value)}"


#: The most characters of a line an error message quotes.
QUOTED_CHARS = 100


def _quoted(value: object) -> str:
    """*value* (a line or a piece of one) as a one-line message quotes it: cut, with its size."""
    text = repr(value)
    if len(text) > QUOTED_CHARS:
        return f"{text[:QUOTED_CHARS - 20]}... ({len(text)} characters)"
    return text


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


_MISSING = _Missing()


def _encode(line: Mapping[str, Any]) -> str:
    return json.dumps(line, separators=(",", ":")) + "\n"


class TraceWriter:
    """Writes a trace to a text stream: :meth:`header` once, then :meth:`event` per event."""

    __slots__ = ("_stream",)

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def header(self, host: Host, policy: str, seed: int, duration: int) -> None:
        """Line 1: the format version, the host (:func:`~akita.model.host_json`), the run."""
        self._stream.write(_encode({"akita_trace": VERSION, "host": host_json(host),
                                    "policy": policy, "seed": seed, "duration_ns": duration}))

    def event(self, t: int, cpu: int, event: str, **fields: Any) -> None:
        """One event line: ``t``, ``cpu``, ``event``, then *fields* in the order given."""
        line: Line = {"t": t, "cpu": cpu, "event": event}
        line.update(fields)
        self._stream.write(_encode(line))


def located(path: str, line: Mapping[str, Any]) -> str:
    """Where *line* is: ``"FILE:LINE"`` for a line :func:`read_trace` numbered, else *path*."""
    number = line.get("line")
    return f"{path}:{number}" if isinstance(number, int) else path


def field(line: Mapping[str, Any], name: str, where: str) -> Any:
    """The field *name* of *line*, which must have it.

    :raises TraceError: located at *where*, if the field is absent.
    """
    if name not in line:
        kind = line.get("event")
        owner = "the header" if kind is None else f"a {kind!r} event"
        raise TraceError(name, _MISSING, f"a field {name!r} of {owner}", path=where)
    return line[name]


def count(line: Mapping[str, Any], name: str, where: str) -> int:
    """The field *name* of *line*, an integer ``>= 0`` (a time in ns, a pCPU index).

    :raises TraceError: located at *where*, if it is absent or not such an integer.
    """
    value = field(line, name, where)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TraceError(name, value, "an integer >= 0", path=where)
    return value


def check_header(value: object, where: str) -> Line:
    """*value* as a version-:data:`VERSION` header.

    :raises TraceError: located at *where*, if it is no header of this version.
    """
    if value is None:
        raise TraceError("header", "an empty file", 'a header line {"akita_trace": 1, ...}',
                         path=where)
    if not isinstance(value, dict):
        raise TraceError("header", value, 'a header object {"akita_trace": 1, ...}', path=where)
    if value.get("akita_trace") != VERSION:
        raise TraceError("akita_trace", value.get("akita_trace"),
                         f"{VERSION} (the header's format version)", path=where)
    return value


#: A run of more digits than an integer may have.
_TOO_MANY_DIGITS = re.compile(r"[0-9]{%d}" % (MAX_DIGITS + 1))


def _depth(text: str) -> int:
    """How deeply the JSON *text* nests (brackets inside strings are not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _parse(text: str, where: str) -> Line:
    """One line as a JSON object, within the ceilings on nesting and digits."""
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(text) > MAX_DEPTH:
        raise TraceError("", text.strip(), f"JSON nested at most {MAX_DEPTH} deep", path=where)
    long = _TOO_MANY_DIGITS.search(text)
    if long is not None:
        raise TraceError("", text.strip(), f"numbers of at most {MAX_DIGITS} digits (a run of "
                         f"more begins at column {long.start() + 1})", path=where)
    try:
        value = json.loads(text.strip())
    except json.JSONDecodeError as error:
        raise TraceError("", text.strip(), f"a JSON object ({error.msg} at column {error.colno})",
                         path=where) from None
    except (ValueError, RecursionError) as error:
        raise TraceError("", text.strip(), f"a JSON object ({error})", path=where) from None
    if not isinstance(value, dict):
        raise TraceError("", text.strip(), f"a JSON object, not a JSON {type(value).__name__}",
                         path=where)
    return value


def text_lines(stream: IO[Any], path: str = "<trace>") -> Iterator[str]:
    """The lines of *stream*, text or bytes, as text, each within :data:`MAX_LINE_CHARS`.

    A stream of bytes is decoded as UTF-8 line by line.  No more than
    :data:`MAX_LINE_CHARS` characters of a line are ever read, so memory is
    bounded whatever the input.

    :raises TraceError: located at its line, for a line that is not UTF-8
        text or is longer than :data:`MAX_LINE_CHARS` characters.
    """
    number = 0
    while True:
        number += 1
        try:
            raw = stream.readline(MAX_LINE_CHARS + 1)
        except UnicodeDecodeError as error:
            raise TraceError("", error.object[error.start:error.start + 8],
                             "UTF-8 text", path=f"{path}:{number}") from None
        if not raw:
            return
        if isinstance(raw, bytes):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise TraceError("", raw[error.start:error.start + 8],
                                 f"UTF-8 text (byte {error.start + 1} of the line is not)",
                                 path=f"{path}:{number}") from None
        else:
            text = raw
        if len(text) > MAX_LINE_CHARS and not text.endswith("\n"):
            raise TraceError("", f"a line of more than {MAX_LINE_CHARS} characters",
                             f"a line of at most {MAX_LINE_CHARS} characters",
                             path=f"{path}:{number}")
        yield text


def read_trace(lines: Iterable[str], path: str = "<trace>") -> tuple[Line, Iterator[Line]]:
    """The header of a JSON Lines trace, and an iterator over its events.

    :param lines: the trace's text, line by line (an open file will do).
    :param path: the trace's name, for error messages.
    :returns: the header, read at once, and the events, read as the
        iterator is advanced; blank lines are skipped, and each event gets
        the field ``line``, its line number.
    :raises TraceError: the first line is not a version-1 header.  The
        iterator raises it for a line that is not a JSON object.
    """
    stream = iter(lines)
    first = next(stream, None)
    where = f"{path}:1"
    header = check_header(None if first is None else _parse(first, where), where)

    def events() -> Iterator[Line]:
        for number, text in enumerate(stream, start=2):
            if text.strip():
                event = _parse(text, f"{path}:{number}")
                event["line"] = number
                yield event

    return header, events()


#: :func:`read_trace` under the name of its format, as the registry of formats
#: (:mod:`akita.trace.formats`) and the oracle (:mod:`akita.oracle`) call it.
read_jsonl = read_trace


@contextmanager
def open_trace(path: str | os.PathLike[str]) -> Iterator[tuple[Line, Iterator[Line]]]:
    """:func:`read_trace` on the file at *path*, open for the ``with`` block."""
    with open(path, "rb") as stream:
        yield read_trace(text_lines(stream, os.fspath(path)), os.fspath(path))

"""Opening a trace of any registered format: decompressed, its format told, ready to read.

A trace file is opened one way, whoever reads it (the oracle,
:func:`akita.oracle.conform_stream`; the analysis, through :func:`open_trace`):

1. a gzip, xz or zstd file is read as the trace inside it (:mod:`.compressed`);
2. ``"auto"`` tells the format by the file's first bytes: each binary format
   of the registry (:mod:`.formats`) is asked in turn (:attr:`~.formats.Format.sniff`
   on the first :data:`~.formats.SNIFF_BYTES` bytes), else the file is text and
   each text format is asked about its first line;
3. a compressed binary file is spooled so that its reader can seek;
4. a text file's lines are bounded as :func:`~akita.trace.jsonl.text_lines`
   bounds them.

A file that cannot be what it is said to be is bad input
(:class:`~akita.trace.jsonl.TraceError`): an empty file or a blank first
line; with ``"auto"``, a file that is none of the formats; a JSON first line
read as another text format; a binary format read from a text stream; a
format read without an option it cannot do without (``xentrace``'s
``cpu_hz``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any, BinaryIO, cast

import attrs

from akita.model.errors import ModelError

from .compressed import decompressed, peek, spooled
from .formats import AUTO, FORMATS, SNIFF_BYTES, Format, Source, format_names
from .jsonl import TraceError, text_lines
from .kernel import Tally

__all__ = ["Opened", "opened", "open_trace"]


@attrs.frozen
class Opened:
    """A trace opened: its format, its stream, and a text format's lines and first line.

    :ivar fmt: the format, told or given.
    :ivar stream: the (decompressed, and for a compressed binary, spooled) stream.
    :ivar lines: a text format's lines, the first one included; ``None`` for a binary one.
    :ivar first: a text format's first line; ``""`` for a binary one.
    """

    fmt: Format
    stream: IO[Any]
    lines: Iterator[str] | None
    first: str

    def source(self, path: str, tally: Tally, options: Mapping[str, Any]) -> Source:
        """What the format's reader is given: the lines or the bytes, *tally*, and those of
        *options* (by name; ``None`` for not given) that the format takes.

        :raises ModelError: an option the format cannot be read without is not given.
        :raises TraceError: a binary format on a text stream.
        """
        taken = {name: value for name, value in options.items()
                 if name in self.fmt.options and value is not None}
        for name, expected in self.fmt.required.items():
            if name not in taken:
                raise ModelError(name, "nothing", expected)
        if self.lines is not None:
            return Source(path, lines=self.lines, tally=tally, options=taken)
        if not isinstance(self.stream.read(0), bytes):
            raise TraceError("stream", "a text stream", f"a binary stream for a "
                             f"{self.fmt.name} file", path=path)
        return Source(path, stream=cast(BinaryIO, self.stream), tally=tally, options=taken)


def opened(stream: IO[Any], path: str, trace_format: str) -> Opened:
    """The trace on *stream* (named *path*) opened as *trace_format* (``"auto"``: told).

    :raises ModelError: *trace_format* is not ``"auto"`` or a registered format's name.
    :raises TraceError: as the module says.
    """
    if trace_format != AUTO and trace_format not in FORMATS:
        raise ModelError("trace_format", trace_format, f"one of {', '.join(format_names())}")
    stream, codec = decompressed(stream, path)
    fmt = FORMATS[trace_format] if trace_format != AUTO else _binary(stream)
    if codec is not None and fmt is not None and fmt.binary:
        stream = spooled(stream, path, codec)  # read out of order: seekable
    if fmt is not None and fmt.binary:
        return Opened(fmt, stream, None, "")
    fmt, lines, first = _text(stream, path, fmt)
    return Opened(fmt, stream, lines, first)


def open_trace(stream: IO[Any], *, path: str = "<trace>", trace_format: str = AUTO,
               cpu_hz: int | None = None, buffer: str | None = None,
               tally: Tally | None = None) -> tuple[str, dict[str, Any] | None, Iterator[Any]]:
    """The format of the trace on *stream*, its header, and its records, read as they are used.

    ``("jsonl", header, events)`` with the trace format's event dictionaries,
    or ``(format, None, records)`` with a kernel format's
    :class:`~.kernel.SchedEvent` records, every task kept (no mapping).  What
    reads them (:mod:`akita.analysis`) names the tasks itself.

    :param cpu_hz: ``xentrace``: the cycle counter's frequency in Hz.
    :param buffer: ``trace.dat``: the trace instance to read.
    :param tally: counts what was read (default: a new one).
    :raises TraceError: as the module says, for a file that is none of the formats.
    """
    trace = opened(stream, path, trace_format)
    source = trace.source(path, Tally() if tally is None else tally,
                          {"cpu_hz": cpu_hz, "buffer": buffer})
    header, records = trace.fmt.read(source)
    return trace.fmt.name, header, records


def _binary(stream: IO[Any]) -> Format | None:
    """The binary format *stream*'s first bytes say it is (left unread), if any."""
    head = peek(stream, SNIFF_BYTES)
    if not isinstance(head, bytes):
        return None
    return next((fmt for fmt in FORMATS.values() if fmt.binary and fmt.sniff(head)), None)


def _text(stream: IO[Any], path: str, fmt: Format | None) -> tuple[Format, Iterator[str], str]:
    """A text trace's format (told by its first line if *fmt* is ``None``) and its lines."""
    source = text_lines(stream, path)
    first = _first_line(source, path)
    json_first = FORMATS["jsonl"].sniff(first)
    if fmt is None:
        fmt = next((f for f in FORMATS.values() if not f.binary and f.sniff(first)), None)
        if fmt is None:
            raise TraceError("", first.strip(), _told_apart(), path=f"{path}:1")
    elif fmt.name != "jsonl" and json_first:
        raise TraceError("", first.strip(), f"{fmt.described} (this is JSON: use --format "
                         "jsonl or auto)", path=f"{path}:1")
    return fmt, _chain(first, source), first


def _told_apart() -> str:
    """What ``"auto"`` looks for: the text formats' first lines, or a binary format's file."""
    text = " or ".join(fmt.first for fmt in FORMATS.values() if not fmt.binary)
    binary = " or ".join(fmt.name for fmt in FORMATS.values() if fmt.binary)
    return f"{text}, or a {binary} file" if binary else text


def _first_line(source: Iterator[str], path: str) -> str:
    first = next(source, None)
    if first is None or not first.strip():
        got = "an empty file" if first is None else "a blank first line"
        described = [fmt.described for fmt in FORMATS.values()]
        expected = ", ".join(described[:-1]) + " or " + described[-1]
        raise TraceError("", got, expected, path=path)
    return first


def _chain(first: str, rest: Iterable[str]) -> Iterator[str]:
    yield first
    yield from rest


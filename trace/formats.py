"""The registry of trace formats: one record per format, one line to add one.

Every format the project reads is a :class:`Format`: its name (what
``--format`` takes), how it is told apart from the others (*sniff*: a
binary format's first bytes, a text format's first line), how it is read
(*read*), whether it is a kernel's or a hypervisor's (then it records only
who ran, who woke and who moved, as :class:`~.kernel.SchedEvent`, and a
reader of it needs to know which task runs which vCPU), how to record what
the oracle needs, and the unit its positions count (a text format's lines,
a binary format's events).  :data:`FORMATS` holds them in the order they
are listed; ``"auto"`` tries the binary formats by their first bytes, then
the text formats by their first line, each kind in that order.

A new format is one module (its reader and its sniff) and one call of
:func:`register` -- here, for a format the project ships, or in the code
that reads it.  The oracle (:func:`akita.oracle.conform_stream`), the
analysis (:func:`akita.oracle.files.open_trace`), the command line's help
and the format table of the documentation (:doc:`/conform`) all read the
registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, BinaryIO, Literal

import attrs

from .ftrace import FtraceTally, looks_like_ftrace, sched_events
from .jsonl import read_jsonl
from .kernel import Tally
from .tracedat import is_tracedat, read_tracedat
from .xentrace import is_xentrace, read_xentrace

__all__ = ["Format", "Source", "Read", "FORMATS", "AUTO", "register", "format_named",
           "format_names", "kernel_formats"]

#: What a format's reader returns: a header (``None`` for a kernel format) and its records.
Read = tuple[dict[str, Any] | None, Iterator[Any]]

#: The name that asks for the format to be told from the file's first bytes.
AUTO = "auto"


@attrs.frozen
class Source:
    """An opened trace, as a :class:`Format`'s *read* is given it.

    :ivar path: the trace's name, for error messages.
    :ivar lines: a text format's lines (the first one included), else ``None``.
    :ivar stream: a binary format's bytes (a stream that can seek), else ``None``.
    :ivar tally: what the reader counts as it reads (:class:`~.kernel.Tally`).
    :ivar options: the reader's options by name (``cpu_hz``, ``buffer``): only
        those its format lists in :attr:`Format.options`, and only if given.
    """

    path: str
    lines: Iterator[str] | None = None
    stream: BinaryIO | None = None
    tally: Tally = attrs.field(factory=Tally)
    options: Mapping[str, Any] = attrs.field(factory=dict)

    def text(self) -> Iterator[str]:
        """The lines of a text format (a binary format's read never asks)."""
        if self.lines is None:
            raise TypeError(f"{self.path}: a text format read from a binary source")
        return self.lines

    def binary(self) -> BinaryIO:
        """The bytes of a binary format (a text format's read never asks)."""
        if self.stream is None:
            raise TypeError(f"{self.path}: a binary format read from a text source")
        return self.stream


@attrs.frozen
class Format:
    """One trace format: how to tell it, read it and record it.

    :ivar name: what ``--format`` (the library's ``trace_format``) takes.
    :ivar title: the format for people, as the command line's help lists it.
    :ivar described: what a file of it is, as a refusal of an empty file lists it.
    :ivar first: a text format: what its first line is, as a refusal of an
        unknown first line lists it (a binary format: ``""``).
    :ivar binary: whether it is read as bytes from a stream that can seek
        (else as UTF-8 text, line by line).
    :ivar sniff: whether a file is of this format: given a binary format's
        first bytes (up to :data:`SNIFF_BYTES`), a text format's first line.
    :ivar read: its reader (:data:`Read`): a header and an iterator of events
        (the format's own dictionaries), or, for a kernel format, ``None`` and
        an iterator of :class:`~.kernel.SchedEvent`.
    :ivar kernel: a kernel's or a hypervisor's record (no header, no
        bookkeeping, a mapping of tasks to vCPUs needed).
    :ivar recording: a kernel format: how to record what the oracle needs.
    :ivar unit: what a position in it counts: ``"line"`` or ``"event"``.
    :ivar options: the reader options it takes (:attr:`Source.options`).
    :ivar required: of those, the ones it cannot be read without, each with
        what it is (the refusal's expected value).
    :ivar tally: the tally its reader counts in.
    """

    name: str
    title: str
    described: str
    first: str
    binary: bool
    sniff: Callable[[Any], bool]
    read: Callable[[Source], Read]
    kernel: bool
    recording: str | None = None
    unit: Literal["line", "event"] = "line"
    options: frozenset[str] = frozenset()
    required: Mapping[str, str] = attrs.field(factory=dict)
    tally: Callable[[], Tally] = Tally


#: Bytes read to tell the binary formats apart.
SNIFF_BYTES = 16

#: The formats, by name, in the order they are listed.
FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Add *fmt* to :data:`FORMATS`, after those registered before it.

    :raises ValueError: a format of that name is registered already, or the name is ``"auto"``.
    """
    if fmt.name in FORMATS or fmt.name == AUTO:
        raise ValueError(f"a trace format named {fmt.name!r} is registered already")
    FORMATS[fmt.name] = fmt
    return fmt


def format_named(name: str) -> Format:
    """The registered format called *name*.

    :raises KeyError: no such format.
    """
    return FORMATS[name]


def format_names() -> tuple[str, ...]:
    """``"auto"``, then every registered format's name (the choices of ``--format``)."""
    return (AUTO, *FORMATS)


def kernel_formats() -> frozenset[str]:
    """The names of the kernels' and hypervisors' formats."""
    return frozenset(name for name, fmt in FORMATS.items() if fmt.kernel)


def _jsonl(source: Source) -> Read:
    header, events = read_jsonl(source.text(), source.path)
    return header, events


def _ftrace(source: Source) -> Read:
    return None, sched_events(source.text(), path=source.path, tally=source.tally)


def _tracedat(source: Source) -> Read:
    return None, read_tracedat(source.binary(), path=source.path, tally=source.tally,
                               buffer=source.options.get("buffer"))


def _xentrace(source: Source) -> Read:
    return None, read_xentrace(source.binary(), path=source.path,
                               cpu_hz=source.options["cpu_hz"], tally=source.tally)


#: How the Linux scheduler's events are recorded (text or trace.dat alike).
_SCHED_EVENTS = ("-e sched_switch -e sched_wakeup -e sched_wakeup_new -e sched_migrate_task")

register(Format(
    "jsonl", title="JSON Lines", described="a JSON Lines trace (a header line)",
    first="a JSON Lines header", binary=False, sniff=lambda first: first.lstrip().startswith("{"),
    read=_jsonl, kernel=False))
register(Format(
    "ftrace", title="ftrace text (kernel trace, trace-cmd report, perf script, systrace)",
    described="ftrace text", first="an ftrace line ('# tracer: ...', 'cpus=N', systrace HTML, "
    "or 'comm-pid [cpu] ... seconds: event: ...')", binary=False, sniff=looks_like_ftrace,
    read=_ftrace, kernel=True, recording=f"trace-cmd record {_SCHED_EVENTS} (or enable those "
    "events under /sys/kernel/tracing)", tally=FtraceTally))
register(Format(
    "trace.dat", title="trace-cmd's trace.dat", described="a trace.dat", first="", binary=True,
    sniff=is_tracedat, read=_tracedat, kernel=True,
    recording=f"trace-cmd record {_SCHED_EVENTS}", unit="event", options=frozenset({"buffer"})))
register(Format(
    "xentrace", title="Xen's xentrace", described="a xentrace file", first="", binary=True,
    sniff=is_xentrace, read=_xentrace, kernel=True,
    recording="xentrace -e 0x0002f000 (the whole TRC_SCHED class) -S 256 FILE", unit="event",
    options=frozenset({"cpu_hz"}), required={"cpu_hz": "for a xentrace capture, the cycle "
                                             "counter's frequency in Hz (xl info's cpu_mhz x "
                                             "10**6)"}))

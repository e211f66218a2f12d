"""Reading trace-cmd's binary ``trace.dat`` as a stream of scheduler events.

``trace-cmd record`` saves the kernel's ring buffers, and the descriptions
needed to read them, in one binary file.  Its format is documented by
trace-cmd's manual pages trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5)
(``Documentation/trace-cmd/trace-cmd.dat.v6.5.txt`` and ``...v7.5.txt`` in
https://git.kernel.org/pub/scm/utils/trace-cmd/trace-cmd.git, mirrored at
github.com/rostedt/trace-cmd); where the manual is silent, trace-cmd's own
reader (``lib/trace-cmd/trace-input.c``) is the authority.

The file
--------

It opens with the magic ``\\x17\\x08\\x44tracing``, the version as a
NUL-terminated string (``"6"`` or ``"7"``), a byte for the byte order (0
little-endian, 1 big-endian), a byte for the size of a userspace ``long``
and a 32-bit page size; every later number is in the file's byte order.

Version 6
   lays the rest out in a fixed order: ``header_page`` and
   ``header_event`` (each a tag, a 64-bit size and the text of the tracing
   file of that name), the ftrace formats (a count, then sized texts), the
   event formats (a count of systems; each a name, a count and sized
   texts), kallsyms (32-bit size), printk formats (32-bit size), the saved
   command lines (64-bit size), the number of CPUs, optionally
   ``"options  \\0"`` and options (a 16-bit id, a 32-bit size, data; id 0
   ends them), then ``"flyrecord\\0"`` and for each CPU the 64-bit offset
   and size of its ring-buffer pages (or ``"latency  \\0"`` and text).  If
   the options had a TRACECLOCK option, the ``trace_clock`` text follows
   the CPU table, sized by 64 bits (trace-input.c, ``init_data_v6``).
Version 7
   has, after the page size, the compression algorithm's name and version
   (``"none"`` if none) and the offset of the first options section; the
   rest is sections, each with a 16-byte header (16-bit id, 16-bit flags --
   1: compressed --, a 32-bit string id, a 64-bit size).  An options
   section's DONE option gives the offset of the next one.  Options with
   ids 16 and 18 locate the sections of the ``header_page`` /
   ``header_event`` texts and of the event formats (laid out as in
   version 6); a BUFFER option (id 3) per trace instance gives the offset
   of its flyrecord section, its trace clock, its page size and, for each
   CPU, its id and the offset and size of its pages.  The sections follow
   one another to the end of the file (trace-input.c walks them so), which
   is checked, so that a truncated file is refused before any event.

Compression (version 7)
   A compressed section holds a 32-bit compressed size, a 32-bit
   uncompressed size and the compressed bytes; compressed CPU data is a
   32-bit count of chunks, each with the same two sizes and its bytes (10
   pages per chunk, trace-output.c).  ``zlib`` (trace-cmd compresses with
   ``compress2``, a zlib stream) is read with :mod:`zlib`; ``zstd`` needs
   :mod:`compression.zstd`, in the standard library from Python 3.14 only:
   without it a zstd file is refused in one line that says how to convert
   it (``trace-cmd convert --compression none``, or ``--file-version 6``).
   trace-cmd 3.x writes version 7 compressed by default, with zstd where it
   has it (Debian's build, ``trace-cmd list -c``).

What is read
------------

Only what scheduler events need: the page layout (:mod:`.ringbuffer`),
the formats of the ``sched`` system's events (:mod:`.eventformat`), the
clock options, one buffer's CPU data and its CPUs' ``overrun`` counters
(CPUSTAT options: records the ring buffer overwrote, counted in the tally).
Kallsyms, printk formats and command lines are skipped (an event carries
its tasks' names itself).

Buffers
-------

A file holds the top trace instance's buffer and one per instance recorded
with ``-B NAME`` (BUFFER options: in version 6 the offset of the
instance's ``flyrecord`` CPU table, laid out as the top one's; in version 7
the table itself, with the instance's clock and page size).  ``trace-cmd
extract -B NAME`` leaves the top buffer empty.  One buffer is read: the one
named (:data:`TOP`, ``"top"``, for the top one), else the top one if it
holds records, else the one instance that does; several instances with
records and an empty top one are refused, naming them (their records may be
the same events twice).  An instance's clock (version 7) is its own, not
the top one's ``trace_clock``.  The kept events are ``sched:sched_switch`` (a
``switch``: ``prev_comm``, ``prev_pid``, ``prev_state``, ``next_comm``,
``next_pid``), ``sched:sched_wakeup`` and ``sched:sched_wakeup_new``
(``comm``, ``pid``, ``target_cpu``; a wakeup whose older ``success`` field
is 0 changed nothing and is skipped) and ``sched:sched_migrate_task``
(``comm``, ``pid``, ``dest_cpu``), each field found by name in the event's
format.  Pid 0 is the idle task, ``None``.  ``prev_state`` is runnable
when none of the bits that the format's ``print fmt`` tests for ``R`` is
set (:func:`~.eventformat.state_mask`).  A file with no
``sched_switch`` format is refused.

Time and order
--------------

Event times are in the units of the trace clock: nanoseconds for the
kernel's ``local``, ``global``, ``perf``, ``mono``, ``mono_raw``, ``boot``
and ``tai`` clocks (``kernel/trace/trace.c``, ``trace_clocks[].in_ns``),
raw counts for ``counter``, ``uptime`` (jiffies) and ``x86-tsc``.  The
clock is the bracketed one of the TRACECLOCK text (``[local] global ...``),
else the top BUFFER option's, else -- files of trace-cmd versions that
recorded none -- ``local``.  A TSC2NSEC option (id 14: a 32-bit
multiplier, a 32-bit shift, a 64-bit offset) converts counts to ns as
trace-cmd does, ``ns = count * mult >> shift`` (exactly, in integers;
trace-cmd's reader does not apply its offset, nor does this one).  Any
other clock is refused.  OFFSET (id 7, ns) and DATE (id 1, microseconds)
options are added to every time, as ``trace-cmd report`` adds them.  A
guest's TIME_SHIFT option is not applied: times stay on the guest's clock.

Each CPU's pages are read one at a time, in file order; the CPUs' records
are merged by time with a heap holding one page per CPU, equal times in
the order of the CPUs' numbers, which is trace-cmd's order
(``tracecmd_read_next_data``).  An event's ``cpu`` is the CPU whose buffer
held it; its ``line`` is its record's ordinal in that merged order
(1-based, every record counted, kept or not); its ``where`` is
``FILE@0xOFFSET``, the record's offset in the file (for compressed data,
the offset of the compressed chunk that holds it).

Errors
------

Whatever the bytes, reading either yields events or raises one
:class:`~.kernel.KernelTraceError` located by byte offset
(``trace.dat@0x1a2c0``): a bad magic, an unknown version, a truncated
file, a size past the end of the file or its section, a missing
``sched_switch`` format, a ``header_page`` whose commit does not follow its
timestamp (at the ``header_page``), an event field of the wrong kind -- a
``comm`` that is not a string, a ``pid`` that is not an integer (at that
event's format) --, a clock not in ns, a page whose commit runs past
the page, a record past its page's commit, compressed data that
does not inflate to its stated size, a ``--buffer`` the file does not have
or, with none named, records in several instances and none in the top one.
A page before which the kernel lost events is read, preceded by a ``lost``
:class:`~.kernel.SchedEvent` with the count the page stores, if it does
(:mod:`akita.trace.kernel`, "Lost events").  The stream must be a binary file
object that can seek (it is read out of order).
"""

from __future__ import annotations

import heapq
import importlib
import re
import struct
import zlib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, Literal

from .eventformat import EventFormat, c_string, parse_format, record_reader, state_mask
from .kernel import KernelTraceError, SchedEvent, Tally, Task
from .ringbuffer import PageLayout, page_layout, page_lost, page_records

__all__ = ["MAGIC", "TOP", "is_tracedat", "read_tracedat"]

#: The first ten bytes of every trace.dat.
MAGIC = b"\x17\x08\x44tracing"

_MAX_STRING = 4096          # a NUL-terminated string of the file
_MAX_TEXT = 64 << 20        # a text or section that is read whole
_MAX_OPTION = 1 << 20       # an option's data that is read
_MAX_CPUS = 8192            # Linux's largest NR_CPUS
_MAX_PAGE = 1 << 20
_MAX_CHUNK = 64             # pages in one compressed chunk of CPU data (trace-cmd writes 10)
_MAX_SECTIONS = 1 << 16
_MAX_BUFFERS = 256          # trace instances in one file

#: How ``--buffer`` names the top trace instance (whose name is empty in the file).
TOP = "top"
_TASKS = 4096               # tasks remembered, to share their Task records
_NEVER = 1 << 200           # a time after every record's
_NS_CLOCKS = ("local", "global", "perf", "mono", "mono_raw", "boot", "tai")
_COMPRESSED = 1

# Option ids (trace-cmd-private.h, the TRACECMD_OPTION_* enumeration).
_DONE, _DATE, _CPUSTAT, _BUFFER, _TRACECLOCK, _OFFSET, _TSC2NSEC = 0, 1, 2, 3, 4, 7, 14
_HEADER_INFO, _EVENT_FORMATS, _BUFFER_TEXT = 16, 18, 22
_WANTED = {_DATE, _CPUSTAT, _BUFFER, _TRACECLOCK, _OFFSET, _TSC2NSEC, _HEADER_INFO, _EVENT_FORMATS,
           _BUFFER_TEXT}

_CLOCK = re.compile(r"\[([^\]\s]{1,64})\]")
_C_INTEGER = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]{1,16}|0[0-7]{0,22}|[1-9][0-9]{0,19})\s*")
_NO_ZSTD = ("an uncompressed or zlib-compressed trace.dat: this Python has no zstd decoder "
            "(compression.zstd is in Python 3.14 and later); convert the file with 'trace-cmd "
            "convert --compression none -i FILE -o OUT' (or --file-version 6), or record with "
            "--compression none or --file-version 6")


def is_tracedat(first_bytes: bytes) -> bool:
    """Whether a file that starts with *first_bytes* is a trace.dat (its magic, or 3+ bytes of it).

    A truncated magic counts, so that the reader, not a text reader, says the file is cut short.
    """
    head = bytes(first_bytes[:len(MAGIC)])
    return len(head) >= 3 and MAGIC.startswith(head)


def read_tracedat(stream: BinaryIO, *, path: str, tally: Tally | None = None,
                  buffer: str | None = None) -> Iterator[SchedEvent]:
    """The scheduler events of the trace.dat *stream*, in time order.

    :param stream: the file, opened in binary mode by the caller; it must
        be able to seek.
    :param path: its name, for ``where`` and for errors.
    :param tally: if given, its ``records`` counts the records read, every
        one, kept or not.
    :param buffer: the trace instance whose records to read: its name, or
        :data:`TOP` for the top one; ``None`` chooses (see "Buffers").
    :returns: an iterator of :class:`~.kernel.SchedEvent`; it reads the
        pages only as it is advanced.
    :raises KernelTraceError: at once, for a stream that cannot seek or a
        file whose header, options, formats or CPU table cannot be read;
        while iterating, for a page or record that cannot be.
    """
    if not stream.seekable():
        raise KernelTraceError("stream", "a stream that cannot seek", "a seekable trace.dat "
                               "file (not a pipe)", path=path)
    if not isinstance(stream.read(0), bytes):
        raise KernelTraceError("stream", "a text stream", "a binary stream (open(..., 'rb'))",
                               path=path)
    cursor = _FileCursor(stream, path)
    trace = _open(cursor, buffer)
    return _events(trace, cursor, tally)


# ---------------------------------------------------------------- reading numbers and strings

class _Cursor:
    """Bounded reads of a trace.dat's numbers, strings and texts, each located by its offset."""

    _whole = "file"  # what the cursor reads, for messages

    def __init__(self, path: str, end: int, pos: int = 0) -> None:
        self.path, self.end, self.pos = path, end, pos
        self.order: Literal["little", "big"] = "little"

    def origin(self, pos: int) -> int:
        """The file offset that an error at *pos* names."""
        return pos

    def where(self, pos: int | None = None) -> str:
        return f"{self.path}@0x{self.origin(self.pos if pos is None else pos):x}"

    def _get(self, pos: int, n: int) -> bytes:
        raise NotImplementedError

    def take(self, n: int, field: str) -> bytes:
        if n > self.end - self.pos:
            raise KernelTraceError(field, f"the end of the {self._whole} after "
                                   f"{self.end - self.pos} bytes", f"{n} bytes", path=self.where())
        data = self._get(self.pos, n)
        if len(data) != n:
            raise KernelTraceError(field, f"{len(data)} bytes", f"{n} bytes (the file changed?)",
                                   path=self.where())
        self.pos += n
        return data

    def skip(self, n: int, field: str) -> None:
        if n > self.end - self.pos:
            raise KernelTraceError(field, f"{n} bytes", f"a size within the {self._whole} "
                                   f"({self.end - self.pos} bytes left)", path=self.where())
        self.pos += n

    def number(self, size: int, field: str) -> int:
        return int.from_bytes(self.take(size, field), self.order)

    def string(self, field: str, limit: int = _MAX_STRING) -> str:
        head = self._get(self.pos, min(limit + 1, self.end - self.pos))
        cut = head.find(b"\0")
        if cut < 0:
            raise KernelTraceError(field, head[:40], f"a NUL-terminated string of at most "
                                   f"{limit} bytes", path=self.where())
        return self.take(cut + 1, field)[:-1].decode("utf-8", "replace")

    def sized(self, width: int, field: str, limit: int = _MAX_TEXT) -> bytes:
        at = self.pos
        size = self.number(width, f"{field} size")
        if size > limit:
            raise KernelTraceError(f"{field} size", size, f"at most {limit} bytes",
                                   path=self.where(at))
        return self.take(size, field)

    def skip_sized(self, width: int, field: str) -> None:
        self.skip(self.number(width, f"{field} size"), field)

    def expect(self, tag: bytes, field: str) -> None:
        at = self.pos
        got = self.take(len(tag), field)
        if got != tag:
            raise KernelTraceError(field, got, repr(tag), path=self.where(at))


class _FileCursor(_Cursor):
    def __init__(self, stream: BinaryIO, path: str, end: int | None = None, pos: int = 0) -> None:
        self.stream = stream
        super().__init__(path, stream.seek(0, 2) if end is None else end, pos)

    def _get(self, pos: int, n: int) -> bytes:
        self.stream.seek(pos)
        return self.stream.read(n)

    def view(self, start: int, end: int) -> "_FileCursor":
        """A cursor over the bytes ``start:end`` of the same file."""
        view = _FileCursor(self.stream, self.path, end, start)
        view.order = self.order
        return view


class _MemoryCursor(_Cursor):
    """A cursor over bytes read or uncompressed earlier; errors name the offset *at*.

    (Uncompressed bytes have no offset in the file: their compressed section's is named.)
    """

    _whole = "section"

    def __init__(self, data: bytes, path: str, at: int, order: Literal["little", "big"]) -> None:
        super().__init__(path, len(data))
        self.data, self.at, self.order = data, at, order

    def origin(self, pos: int) -> int:
        return self.at

    def _get(self, pos: int, n: int) -> bytes:
        return self.data[pos:pos + n]


# ---------------------------------------------------------------- the trace's description

class _Cpu:
    """Where one CPU's pages are: its number, the file offset and size of its data."""

    __slots__ = ("cpu", "offset", "size", "where")

    def __init__(self, cpu: int, offset: int, size: int, where: str) -> None:
        self.cpu, self.offset, self.size, self.where = cpu, offset, size, where


class _Buffer:
    """One trace instance's buffer: where its CPU table is, and (version 7) the table read.

    Version 6 gives an instance only the offset of its ``flyrecord`` table
    (read when the buffer is chosen); version 7 gives the table in the BUFFER
    option, with the buffer's clock and page size.
    """

    __slots__ = ("name", "offset", "cpus", "clock", "page_size", "where")

    def __init__(self, name: str, offset: int, where: str, cpus: list[_Cpu] | None = None,
                 clock: str | None = None, page_size: int = 0) -> None:
        self.name, self.offset, self.where, self.cpus = name, offset, where, cpus
        self.clock, self.page_size = clock, page_size

    def holds_records(self) -> bool:
        return any(c.size for c in self.cpus or ())


class _Trace:
    """What the header, options and formats of a trace.dat say."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.endian = "<"
        self.page_size = 0
        self.header_page = self.header_event = ""
        self.formats: dict[str, EventFormat] = {}
        self.formats_where = path
        self.header_where = path
        self.format_where: dict[str, str] = {}
        self.option_clock: str | None = None
        self.buffer_clock: str | None = None
        self.clock_where = path
        self.tsc: tuple[int, int] | None = None
        self.offset_ns = 0
        self.cpus: list[_Cpu] = []
        self.buffer_offset: int | None = None
        self.clock_option = False
        self.top = False
        self.latency = False
        self.instances: list[str] = []
        #: every buffer of the file by name (``""``: the top one), in the file's order
        self.buffers: dict[str, _Buffer] = {}
        self.cpu_count = 0
        #: the buffer read (``""``: the top one)
        self.buffer_name = ""
        #: records each buffer's CPUs overwrote (CPUSTAT options' ``overrun``), by buffer,
        #: and the buffer the CPUSTAT options are about now (they follow a "Buffer:" line)
        self.overruns: dict[str, int] = {}
        self.stat_buffer = ""
        self.codec: tuple[str, Callable[[], Any], type[Exception]] | None = None
        self.compressed = False
        self.layout: PageLayout | None = None


def _open(cur: _FileCursor, buffer: str | None = None) -> _Trace:
    """The description of the trace.dat under *cur*, read from its start."""
    trace = _Trace(cur.path)
    magic = cur.take(min(len(MAGIC), cur.end), "magic")
    if magic != MAGIC:
        raise KernelTraceError("magic", magic, f"trace-cmd's trace.dat magic {MAGIC!r}",
                               path=cur.where(0))
    at = cur.pos
    version = cur.string("version", limit=16)
    if version not in ("6", "7"):
        raise KernelTraceError("version", version, "6 or 7 (trace-cmd.dat(5))", path=cur.where(at))
    at = cur.pos
    order = cur.number(1, "endianness")
    if order not in (0, 1):
        raise KernelTraceError("endianness", order, "0 (little) or 1 (big)", path=cur.where(at))
    trace.endian, cur.order = ("<", "little") if order == 0 else (">", "big")
    at = cur.pos
    long_size = cur.number(1, "long size")
    if long_size not in (4, 8):
        raise KernelTraceError("long size", long_size, "4 or 8", path=cur.where(at))
    trace.page_size = _page_size(cur.number(4, "page size"), cur.where(cur.pos - 4))
    if version == "6":
        _read_v6(cur, trace)
    else:
        _read_v7(cur, trace)
    _choose(trace, cur, buffer)
    _check(trace, cur)
    return trace


def _page_size(size: int, where: str) -> int:
    if size < 256 or size > _MAX_PAGE or size & (size - 1):
        raise KernelTraceError("page size", size, f"a power of two from 256 to {_MAX_PAGE}",
                               path=where)
    return size


def _read_v6(cur: _FileCursor, trace: _Trace) -> None:
    _header_info(cur, trace)
    for _ in range(cur.number(4, "ftrace formats")):
        cur.skip_sized(8, "ftrace format")
    _event_formats(cur, trace)
    cur.skip_sized(4, "kallsyms")
    cur.skip_sized(4, "printk formats")
    cur.skip_sized(8, "saved command lines")
    at = cur.pos
    count = cur.number(4, "cpus")
    if count > _MAX_CPUS:
        raise KernelTraceError("cpus", count, f"at most {_MAX_CPUS}", path=cur.where(at))
    at = cur.pos
    kind = cur.take(10, "data kind")
    if kind == b"options  \0":
        _option_list(cur, trace, {}, sections=False)
        at = cur.pos
        kind = cur.take(10, "data kind")
    if kind == b"latency  \0":
        trace.latency = True
        return
    if kind != b"flyrecord\0":
        raise KernelTraceError("data kind", kind, "'flyrecord' or 'latency'", path=cur.where(at))
    trace.cpu_count = count
    instances = trace.buffers
    trace.buffers = {"": _Buffer("", at, cur.where(at), _cpu_table(cur, count))}
    trace.buffers.update(instances)  # the instances' options came before the top's table
    if trace.clock_option:
        _trailing_clock(cur, trace)


def _cpu_table(cur: _Cursor, count: int) -> list[_Cpu]:
    """A version-6 ``flyrecord`` table: each CPU's data offset and size."""
    cpus = []
    for cpu in range(count):
        where = cur.where()
        offset = cur.number(8, f"cpu {cpu} data offset")
        cpus.append(_Cpu(cpu, offset, cur.number(8, f"cpu {cpu} data size"), where))
    return cpus


def _trailing_clock(cur: _FileCursor, trace: _Trace) -> None:
    """The ``trace_clock`` text after a version-6 CPU table, read as leniently as trace-cmd.

    trace-cmd falls back to ``local`` when it cannot be read (an old
    trace-cmd wrote it wrongly; trace-input.c, ``init_data_v6``).
    """
    if cur.end - cur.pos < 8:
        return
    where = cur.where()
    size = cur.number(8, "trace_clock size")
    if size <= _MAX_STRING and size <= cur.end - cur.pos:
        clock = _CLOCK.search(cur.take(size, "trace_clock").decode("utf-8", "replace"))
        if clock is not None:
            trace.option_clock, trace.clock_where = clock[1], where


def _read_v7(cur: _FileCursor, trace: _Trace) -> None:
    at = cur.pos
    name = cur.string("compression name", limit=64)
    version = cur.string("compression version", limit=64)
    trace.codec = _codec(name, version, cur.where(at))
    first = cur.number(8, "options offset")
    _walk_sections(cur, cur.pos)
    offsets = _options(cur, trace, first)
    for ident, label in ((_HEADER_INFO, "HEADER_INFO"), (_EVENT_FORMATS, "EVENT_FORMATS")):
        if ident not in offsets:
            raise KernelTraceError("options", f"no {label} option",
                                   f"a {label} option (trace-cmd.dat.v7(5))", path=cur.where(first))
    _header_info(_section(cur, trace, offsets[_HEADER_INFO], _HEADER_INFO), trace)
    _event_formats(_section(cur, trace, offsets[_EVENT_FORMATS], _EVENT_FORMATS), trace)


def _walk_sections(cur: _FileCursor, start: int) -> None:
    """Check that the sections from *start* follow one another to the end of the file."""
    pos, count = start, 0
    while pos < cur.end:
        count += 1
        if count > _MAX_SECTIONS:
            raise KernelTraceError("sections", count, f"at most {_MAX_SECTIONS}",
                                   path=cur.where(pos))
        view = cur.view(pos, cur.end)
        view.take(8, "section header")
        size = view.number(8, "section size")
        if size > cur.end - view.pos:
            raise KernelTraceError("section size", size, f"a section within the file "
                                   f"({cur.end - view.pos} bytes left: truncated?)",
                                   path=cur.where(pos))
        pos = view.pos + size


def _section(cur: _FileCursor, trace: _Trace, offset: int, ident: int) -> _Cursor:
    """A cursor over the body of the section at *offset*, which must have the id *ident*."""
    if offset > cur.end:
        raise KernelTraceError("section offset", offset, f"an offset within the file "
                               f"({cur.end} bytes)", path=cur.where(offset))
    head = cur.view(offset, cur.end)
    got = head.number(2, "section id")
    if got != ident:
        raise KernelTraceError("section id", got, f"{ident}", path=cur.where(offset))
    flags = head.number(2, "section flags")
    head.take(4, "section description")
    size = head.number(8, "section size")
    if size > head.end - head.pos:
        raise KernelTraceError("section size", size, f"a section within the file "
                               f"({head.end - head.pos} bytes left)", path=cur.where(offset))
    body = head.view(head.pos, head.pos + size)
    if not flags & _COMPRESSED:
        return body
    packed = body.number(4, "compressed size")
    unpacked = body.number(4, "uncompressed size")
    data = _inflate(trace, body.take(packed, "compressed data"), unpacked, cur.where(offset))
    return _MemoryCursor(data, cur.path, offset, cur.order)


def _codec(name: str, version: str, where: str) -> tuple[str, Callable[[], Any],
                                                         type[Exception]] | None:
    if name == "none":
        return None
    if name == "zlib":
        return name, zlib.decompressobj, zlib.error
    if name == "zstd":
        try:
            zstd = importlib.import_module("compression.zstd")  # Python >= 3.14
        except ImportError:
            raise KernelTraceError("compression", f"{name} {version}", _NO_ZSTD,
                                   path=where) from None
        return name, zstd.ZstdDecompressor, zstd.ZstdError
    raise KernelTraceError("compression", f"{name} {version}", "none, zlib or zstd", path=where)


def _inflate(trace: _Trace, data: bytes, size: int, where: str) -> bytes:
    """*data* uncompressed, which must be *size* bytes."""
    if trace.codec is None:
        raise KernelTraceError("section flags", "a compressed section",
                               "no compressed section in a file whose compression is 'none'",
                               path=where)
    if size > _MAX_TEXT:
        raise KernelTraceError("uncompressed size", size, f"at most {_MAX_TEXT} bytes", path=where)
    name, factory, error = trace.codec
    inflater = factory()
    try:
        out: bytes = inflater.decompress(data, size + 1)
    except error:
        raise KernelTraceError("compressed data", f"{len(data)} bytes that are not {name} data",
                               f"{name}-compressed data", path=where) from None
    if len(out) != size or not inflater.eof:
        raise KernelTraceError("compressed data", f"{len(out)} bytes", f"{size} bytes ({name}, "
                               f"complete)", path=where)
    return out


# ---------------------------------------------------------------- options

def _options(cur: _FileCursor, trace: _Trace, first: int) -> dict[int, int]:
    """Apply the options of version 7's options sections, from the one at *first*.

    :returns: the section offsets the options give, by option id.
    """
    offsets: dict[int, int] = {}
    seen: set[int] = set()
    offset = first
    while offset:
        if offset in seen:
            raise KernelTraceError("options offset", offset, "no options section twice",
                                   path=cur.where(offset))
        seen.add(offset)
        offset = _option_list(_section(cur, trace, offset, _DONE), trace, offsets, sections=True)
    return offsets


def _option_list(cur: _Cursor, trace: _Trace, offsets: dict[int, int], *, sections: bool) -> int:
    """Apply one list of options; the offset of the next options section (0: none)."""
    while True:
        ident = cur.number(2, "option id")
        if ident == _DONE and not sections:
            return 0
        at = cur.pos
        size = cur.number(4, "option size")
        if ident == _DONE:
            return int.from_bytes(cur.take(8, "next options offset"), cur.order) \
                if size >= 8 else 0
        if ident not in _WANTED:
            cur.skip(size, "option data")
            continue
        if size > _MAX_OPTION:
            raise KernelTraceError("option size", size, f"at most {_MAX_OPTION} bytes",
                                   path=cur.where(at))
        origin = cur.origin(cur.pos)
        data = _MemoryCursor(cur.take(size, "option data"), cur.path, origin, cur.order)
        _option(trace, ident, data, offsets, sections)


def _option(trace: _Trace, ident: int, data: _MemoryCursor, offsets: dict[int, int],
            sections: bool) -> None:
    if ident in (_HEADER_INFO, _EVENT_FORMATS):
        offsets[ident] = data.number(8, "section offset")
    elif ident == _TRACECLOCK:
        trace.clock_option = True
        clock = _CLOCK.search(data.data.decode("utf-8", "replace"))
        if clock is not None:
            trace.option_clock, trace.clock_where = clock[1], data.where()
    elif ident in (_DATE, _OFFSET):
        value = _c_integer(data.data.split(b"\0", 1)[0], "DATE" if ident == _DATE else "OFFSET",
                           data.where())
        trace.offset_ns += value * 1000 if ident == _DATE else value
    elif ident == _TSC2NSEC:
        mult, shift = data.number(4, "TSC2NSEC multiplier"), data.number(4, "TSC2NSEC shift")
        if shift > 63:
            raise KernelTraceError("TSC2NSEC shift", shift, "at most 63", path=data.where())
        trace.tsc = (mult, shift) if mult else None
    elif ident == _BUFFER:
        _buffer(trace, data, sections)
    elif ident == _CPUSTAT:
        _cpustat(trace, data.data.decode("utf-8", "replace"))
    elif ident == _BUFFER_TEXT:
        data.number(8, "buffer offset")
        if data.string("buffer name") == "":
            trace.latency = True


_STAT_BUFFER = re.compile(r"^\s*Buffer: (\S{1,256})\s*$", re.MULTILINE)
_STAT_OVERRUN = re.compile(r"^overrun: ([0-9]{1,20})\s*$", re.MULTILINE)


def _cpustat(trace: _Trace, text: str) -> None:
    """A CPUSTAT option: one CPU's ``per_cpu/cpuN/stats`` text, or the ``Buffer: NAME``
    line that starts an instance's (trace-cmd writes the top instance's first)."""
    named = _STAT_BUFFER.search(text)
    if named is not None:
        trace.stat_buffer = named[1]
    overrun = _STAT_OVERRUN.search(text)
    if overrun is not None:
        trace.overruns[trace.stat_buffer] = (trace.overruns.get(trace.stat_buffer, 0)
                                             + int(overrun[1]))


def _c_integer(raw: bytes, field: str, where: str) -> int:
    """An integer as C's ``strtoll(text, NULL, 0)`` reads it: decimal, ``0x`` hex or ``0`` octal."""
    text = raw.decode("ascii", "replace")
    match = _C_INTEGER.fullmatch(text)
    if match is None:
        raise KernelTraceError(field, text[:40], "an integer (decimal, 0x hex or 0 octal)",
                               path=where)
    digits = match[2]
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 8 if digits[0] == "0"
                                                                       else 10)
    return -value if match[1] == "-" else value


def _buffer(trace: _Trace, data: _MemoryCursor, sections: bool) -> None:
    """A BUFFER option: a trace instance, with its CPU table in version 7."""
    where = data.where()
    offset = data.number(8, "buffer offset")
    name = data.string("buffer name")
    if name in trace.buffers or (name == "" and not sections):
        raise KernelTraceError("buffer name", repr(name), "each trace instance once",
                               path=where)
    if len(trace.buffers) >= _MAX_BUFFERS:
        raise KernelTraceError("buffers", len(trace.buffers) + 1,
                               f"at most {_MAX_BUFFERS} trace instances", path=where)
    if not sections:  # version 6: the instance's table is at the offset
        trace.buffers[name] = _Buffer(name, offset, where)
        return
    clock = data.string("buffer clock", limit=64)
    page_size = _page_size(data.number(4, "buffer page size"), data.where())
    count = data.number(4, "buffer cpus")
    if count > _MAX_CPUS:
        raise KernelTraceError("buffer cpus", count, f"at most {_MAX_CPUS}", path=data.where())
    cpus = []
    for _ in range(count):
        cpu = data.number(4, "buffer cpu id")
        cpus.append(_Cpu(cpu, data.number(8, "cpu data offset"),
                         data.number(8, "cpu data size"), data.where()))
    cpus.sort(key=lambda c: c.cpu)  # trace-cmd indexes them by CPU id
    if len({c.cpu for c in cpus}) != len(cpus):
        raise KernelTraceError("buffer cpus", [c.cpu for c in cpus][:16],
                               "each CPU once (trace-input.c refuses a CPU twice)",
                               path=data.where())
    trace.buffers[name] = _Buffer(name, offset, where, cpus, clock, page_size)


def _choose(trace: _Trace, cur: _FileCursor, wanted: str | None) -> None:
    """Take the CPU data of the buffer *wanted* (:data:`TOP` or an instance's name), or
    with ``None`` the top one if it holds records, else the one instance that does."""
    buffers = trace.buffers
    trace.instances = [name for name in buffers if name][:8]
    if wanted is not None:
        key = "" if wanted == TOP else wanted
        if key not in buffers:
            raise KernelTraceError("buffer", wanted, f"a buffer of the file "
                                   f"({_buffer_names(trace)})", path=cur.where(0))
    elif "" in buffers and (buffers[""].cpus is None or buffers[""].holds_records()):
        key = ""
    else:
        _load_all(trace, cur)
        full = [name for name, b in buffers.items() if b.holds_records()]
        if len(full) > 1:
            raise KernelTraceError("buffer", "nothing", "the trace instance to read: records "
                                   f"are in {len(full)} of them ({_buffer_names(trace, full)})",
                                   path=cur.where(0))
        key = full[0] if full else "" if "" in buffers else next(iter(buffers), "")
        if key not in buffers:
            return  # no buffer at all: _check says so
    chosen = buffers[key]
    _load(trace, cur, chosen)
    assert chosen.cpus is not None
    trace.cpus = chosen.cpus
    trace.buffer_name = key
    trace.top = True
    if chosen.clock is not None:  # version 7
        trace.buffer_clock = chosen.clock
        trace.page_size = chosen.page_size
        trace.buffer_offset = chosen.offset
        if key:  # an instance's own clock, not the top's trace_clock file
            trace.option_clock, trace.clock_where = None, chosen.where


def _load_all(trace: _Trace, cur: _FileCursor) -> None:
    for buffer in trace.buffers.values():
        _load(trace, cur, buffer)


def _load(trace: _Trace, cur: _FileCursor, buffer: _Buffer) -> None:
    """Read a version-6 instance's ``flyrecord`` table at its offset (and its clock)."""
    if buffer.cpus is not None:
        return
    if buffer.offset > cur.end:
        raise KernelTraceError("buffer offset", buffer.offset, f"an offset within the file "
                               f"({cur.end} bytes)", path=buffer.where)
    view = cur.view(buffer.offset, cur.end)
    view.expect(b"flyrecord\0", f"buffer {buffer.name!r} flyrecord")
    buffer.cpus = _cpu_table(view, trace.cpu_count)


def _buffer_names(trace: _Trace, names: list[str] | None = None) -> str:
    shown = [n or TOP for n in (trace.buffers if names is None else names)]
    return ", ".join(repr(n) for n in shown[:8]) + (" ..." if len(shown) > 8 else "")


# ---------------------------------------------------------------- formats

def _header_info(cur: _Cursor, trace: _Trace) -> None:
    trace.header_where = cur.where()
    cur.expect(b"header_page\0", "header_page")
    trace.header_page = cur.sized(8, "header_page").decode("utf-8", "replace")
    cur.expect(b"header_event\0", "header_event")
    trace.header_event = cur.sized(8, "header_event").decode("utf-8", "replace")


def _event_formats(cur: _Cursor, trace: _Trace) -> None:
    """The formats of the ``sched`` system's events; the others are skipped."""
    trace.formats_where = cur.where()
    for _ in range(cur.number(4, "event systems")):
        system = cur.string("event system")
        for _ in range(cur.number(4, f"{system} events")):
            if system != "sched":
                cur.skip_sized(8, f"{system} event format")
                continue
            at = cur.where()
            text = cur.sized(8, "sched event format").decode("utf-8", "replace")
            try:
                event = parse_format(text, system)
            except KernelTraceError as error:
                raise error.located(path=at) from None
            trace.formats[event.name] = event
            trace.format_where[event.name] = at


def _check(trace: _Trace, cur: _FileCursor) -> None:
    """Refuse what cannot be read as scheduler events; fix the page layout and the CPU data."""
    if trace.latency and not trace.top:
        raise KernelTraceError("trace", "a latency trace (text)", "a flyrecord trace "
                               "(trace-cmd record -e ...)", path=cur.where(0))
    if not trace.top:
        raise KernelTraceError("buffers", "no buffer of CPU data", "a trace-cmd record or "
                               "extract file with a buffer", path=cur.where(0))
    try:
        trace.layout = page_layout(trace.header_page, trace.header_event, trace.endian,
                                   trace.page_size)
    except KernelTraceError as error:
        raise error.located(path=trace.header_where) from None
    if "sched_switch" not in trace.formats:
        raise KernelTraceError("sched:sched_switch", "no format", "a trace recorded with "
                               "-e sched_switch", path=trace.formats_where)
    _check_clock(trace)
    if trace.buffer_offset is not None:
        section = cur.view(trace.buffer_offset, cur.end)
        got = section.number(2, "section id")
        if got != _BUFFER:
            raise KernelTraceError("section id", got, f"{_BUFFER} (a flyrecord section)",
                                   path=cur.where(trace.buffer_offset))
        trace.compressed = bool(section.number(2, "section flags") & _COMPRESSED)
        if trace.compressed and trace.codec is None:
            raise KernelTraceError("section flags", "a compressed section", "no compressed "
                                   "section in a file whose compression is 'none'",
                                   path=cur.where(trace.buffer_offset))
    for data in trace.cpus:
        if data.size and data.offset + data.size > cur.end:
            raise KernelTraceError(f"cpu {data.cpu} data", f"{data.size} bytes at "
                                   f"0x{data.offset:x}", f"data within the file ({cur.end} bytes:"
                                   f" truncated?)", path=data.where)
        if not trace.compressed and data.size % trace.page_size:
            raise KernelTraceError(f"cpu {data.cpu} data size", data.size,
                                   f"a multiple of the page size {trace.page_size}",
                                   path=data.where)


def _check_clock(trace: _Trace) -> None:
    clock = trace.option_clock or trace.buffer_clock or "local"
    if trace.tsc is None and clock not in _NS_CLOCKS:
        raise KernelTraceError("trace clock", clock, f"a clock in nanoseconds "
                               f"({', '.join(_NS_CLOCKS)}) or a TSC2NSEC option: record with "
                               f"-C local, or --tsc2nsec", path=trace.clock_where)


# ---------------------------------------------------------------- pages and records

def _pages(trace: _Trace, cur: _FileCursor, data: _Cpu) -> Iterator[tuple[bytes, int, int]]:
    """One CPU's pages, each with the file offset that names its bytes: ``(page, base, step)``.

    The offset of byte *pos* of a page is ``base + pos * step``: *step* is 1
    for a page stored as it is, 0 for one uncompressed from the chunk at *base*.
    """
    page = trace.page_size
    if not trace.compressed:
        for base in range(data.offset, data.offset + data.size, page):
            yield cur.view(base, base + page).take(page, "page"), base, 1
        return
    if not data.size:
        return
    view = cur.view(data.offset, data.offset + data.size)
    for _ in range(view.number(4, "chunks")):
        at = view.pos
        packed = view.number(4, "chunk compressed size")
        unpacked = view.number(4, "chunk uncompressed size")
        if unpacked % page or unpacked > _MAX_CHUNK * page:
            raise KernelTraceError("chunk uncompressed size", unpacked, f"a multiple of the page "
                                   f"size {page}, at most {_MAX_CHUNK} pages", path=view.where(at))
        chunk = _inflate(trace, view.take(packed, "chunk data"), unpacked, view.where(at))
        for start in range(0, unpacked, page):
            yield chunk[start:start + page], at, 0


class _Stream:
    """One CPU's records, a page at a time."""

    __slots__ = ("cpu", "pages", "recs", "i", "page", "base", "step", "layout", "convert",
                 "prefix")

    def __init__(self, cpu: int, pages: Iterator[tuple[bytes, int, int]], layout: PageLayout,
                 convert: Callable[[int], int] | None, path: str) -> None:
        self.cpu, self.pages, self.layout, self.convert = cpu, pages, layout, convert
        self.recs: list[tuple[int, int, int, int]] = []
        self.i = self.base = self.step = 0
        self.page = b""
        self.prefix = f"{path}@0x"

    def where(self, pos: int) -> str:
        """The place of byte *pos* of the current page."""
        return f"{self.prefix}{self.base + pos * self.step:x}"

    def next_page(self) -> bool:
        """Load the next page that has records; ``False`` at the end of the CPU's data."""
        for page, base, step in self.pages:
            self.base, self.step = base, step
            recs = page_records(page, self.layout, self.where)
            lost, count = page_lost(page, self.layout)
            if lost:  # a marker record (offset -1) before the page's first: the hole
                first = recs[0][0] if recs else self.layout.header.unpack_from(page, 0)[0]
                recs.insert(0, (first, -1, -1 if count is None else count, 0))
            if recs:
                if self.convert is not None:
                    convert = self.convert
                    recs = [(convert(ts), pos, data, size) for ts, pos, data, size in recs]
                self.page, self.recs, self.i = page, recs, 0
                return True
        return False


def _events(trace: _Trace, cur: _FileCursor, tally: Tally | None) -> Iterator[SchedEvent]:
    """The kept events of all CPUs, merged by time (ties: CPU order), with their ordinals."""
    layout = trace.layout
    assert layout is not None
    decoders, id_at = _decoders(trace)
    ident = struct.Struct(trace.endian + "H").unpack_from
    id_end = id_at + 2
    convert = None
    if trace.tsc is not None:
        mult, shift = trace.tsc
        convert = lambda ts: ts * mult >> shift  # noqa: E731
    if tally is not None:
        tally.overwritten += trace.overruns.get(trace.buffer_name, 0)
    streams = [_Stream(data.cpu, _pages(trace, cur, data), layout, convert, trace.path)
               for data in trace.cpus]
    heap = [(s.recs[0][0], i) for i, s in enumerate(streams) if s.next_page()]
    heapq.heapify(heap)
    at = f"{trace.path}@"
    line = 0
    try:
        while heap:
            _, idx = heapq.heappop(heap)
            bound, bound_idx = heap[0] if heap else (_NEVER, 0)
            s = streams[idx]
            recs, i, page, cpu, base, step = s.recs, s.i, s.page, s.cpu, s.base, s.step
            while True:
                if i == len(recs):
                    if not s.next_page():
                        break
                    recs, i, page, base, step = s.recs, 0, s.page, s.base, s.step
                ts, pos, data, length = recs[i]
                if ts > bound or (ts == bound and idx > bound_idx):
                    s.i = i
                    heapq.heappush(heap, (ts, idx))
                    break
                i += 1
                if pos < 0:
                    yield SchedEvent(ts, cpu, "lost", at + hex(base), line,
                                     count=None if data < 0 else data)
                    continue
                line += 1
                if length < id_end:
                    continue
                decode = decoders.get(ident(page, data + id_at)[0])
                if decode is None:
                    continue
                where = at + hex(base + pos * step)
                try:
                    event = decode(page, data, length, ts, cpu, where, line)
                except KernelTraceError as error:
                    raise error.located(path=where) from None
                if event is not None:
                    if tally is not None:
                        tally.records = line
                    yield event
    finally:
        if tally is not None:
            tally.records = line


# ---------------------------------------------------------------- scheduler events

_Decoder = Callable[[bytes, int, int, int, int, str, int], "SchedEvent | None"]


def _decoders(trace: _Trace) -> tuple[dict[int, _Decoder], int]:
    """The decoder of each kept event, by event id, and the offset of the id in a record."""
    formats, endian, offset = trace.formats, trace.endian, trace.offset_ns
    switch = formats["sched_switch"]
    common = switch.fields.get("common_type")
    if common is None or common.size != 2:
        raise KernelTraceError("sched:sched_switch.common_type", "no 2-byte field",
                               "a 2-byte common_type", path=trace.formats_where)
    tasks: dict[tuple[int, bytes], Task] = {}
    decoders: dict[int, _Decoder] = {}
    for name, kind in (("sched_switch", "switch"), ("sched_wakeup", "wakeup"),
                       ("sched_wakeup_new", "wakeup_new"), ("sched_migrate_task", "migrate")):
        if name not in formats:
            continue
        event = formats[name]
        try:
            decoders[event.id] = _switch(event, state_mask(event.print_fmt), endian, offset,
                                         tasks) if kind == "switch" \
                else _task_event(event, kind, endian, offset, tasks)
        except KernelTraceError as error:  # located at the event's own format
            raise error.located(path=trace.format_where.get(name, trace.formats_where)) \
                from None
    return decoders, common.offset


def _task(known: dict[tuple[int, bytes], Task], pid: int, raw: bytes | None) -> Task:
    """The task of *pid* and the raw comm *raw*, remembered in *known* (a bounded cache)."""
    if raw is None:
        raise KernelTraceError("comm", "a string outside its record",
                               "a __data_loc string within the record")
    if len(known) >= _TASKS:
        known.clear()
    task = known[pid, raw] = Task(str(pid), c_string(raw).decode("utf-8", "replace"))
    return task


def _short(event: EventFormat, length: int, need: int) -> KernelTraceError:
    return KernelTraceError(f"{event.system}:{event.name}", f"a record of {length} bytes",
                            f"at least {need} bytes (its format)")


def _switch(event: EventFormat, mask: int, endian: str, offset: int,
            known: dict[tuple[int, bytes], Task]) -> _Decoder:
    reader = record_reader(event, ("prev_comm", "prev_pid", "prev_state", "next_comm",
                                   "next_pid"), endian, text=("prev_comm", "next_comm"))
    need, read, direct = reader.need, reader.read, reader.direct

    def decode(page: bytes, data: int, length: int, ts: int, cpu: int, where: str,
               line: int) -> SchedEvent:
        if length < need:
            raise _short(event, length, need)
        prev_comm, prev_pid, state, next_comm, next_pid = \
            direct(page, data) if direct is not None else read(page, data, length)
        prev = None if prev_pid == 0 else (known.get((prev_pid, prev_comm))
                                           or _task(known, prev_pid, prev_comm))
        nxt = None if next_pid == 0 else (known.get((next_pid, next_comm))
                                          or _task(known, next_pid, next_comm))
        return SchedEvent(ts + offset, cpu, "switch", where, line, prev=prev,
                          prev_runnable=state & mask == 0, next=nxt)

    return decode


def _task_event(event: EventFormat, kind: str, endian: str, offset: int,
                known: dict[tuple[int, bytes], Task]) -> _Decoder:
    """A decoder of a wakeup (``target_cpu``; an optional ``success``) or a migration
    (``dest_cpu``)."""
    target = "dest_cpu" if kind == "migrate" else "target_cpu"
    names = ["comm", "pid"]
    success = kind != "migrate" and "success" in event.fields
    if success:
        names.append("success")
    has_target = kind == "migrate" or target in event.fields
    if has_target:
        names.append(target)
    reader = record_reader(event, names, endian, text=("comm",))
    need, read, direct = reader.need, reader.read, reader.direct

    def decode(page: bytes, data: int, length: int, ts: int, cpu: int, where: str,
               line: int) -> SchedEvent | None:
        if length < need:
            raise _short(event, length, need)
        values = direct(page, data) if direct is not None else read(page, data, length)
        if success and values[2] == 0:
            return None
        comm, pid = values[0], values[1]
        task = None if pid == 0 else known.get((pid, comm)) or _task(known, pid, comm)
        return SchedEvent(ts + offset, cpu, kind, where, line,  # type: ignore[arg-type]
                          task=task, target_cpu=values[-1] if has_target else None)

    return decode

"""The pages of the Linux kernel's trace ring buffer, as trace-cmd saves them.

``trace-cmd record`` copies each CPU's ring buffer into ``trace.dat`` page
by page (trace-cmd.dat(5), "CPU DATA": "copied directly from the Ftrace
ring buffer").  The layout is the kernel's (``kernel/trace/ring_buffer.c``,
``include/linux/ring_buffer.h``), described in the file itself by the
tracing file system's ``events/header_page`` and ``events/header_event``:

A page
   starts with a header -- ``u64 timestamp`` (the time of the page's
   first event), ``local_t commit`` (a kernel ``long``: the bytes of
   event data on the page, in its low 27 bits; bit 31 set if events were
   lost before the page, bit 30 if their count is stored after the data)
   -- followed by the events, from the offset of ``header_page``'s
   ``data`` field.
An event
   starts with a 32-bit word: ``type_len`` (5 bits) and ``time_delta``
   (27 bits), the low bits first on a little-endian machine, the high
   bits first on a big-endian one.  ``type_len`` 1 to 28 is a data record
   of ``4 * type_len`` bytes; 0 is a data record whose length (plus 4) is
   in the next word; 29 is padding (a discarded event whose length is in
   the next word, or with ``time_delta`` 0 the end of the page); 30 is a
   time extend, whose next word holds bits 27 and up of a delta; 31 is an
   absolute time stamp, the same way, its top five bits taken from the
   current time.  Each event's time is the previous one's plus its
   ``time_delta``, from the page's ``timestamp``.

Times are read exactly as libtraceevent reads them (``src/kbuffer-parse.c``,
``translate_data`` and ``update_pointers``): a discarded event's delta is
added too.  A data record is given as its time, the offset of its event
header in the page, and the offset and length of its data, whose first two
bytes are the event id (``common_type``).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable

import attrs

from .eventformat import parse_fields
from .kernel import KernelTraceError

__all__ = ["PageLayout", "page_layout", "page_records", "page_lost"]

TYPE_PADDING = 29
TYPE_TIME_EXTEND = 30
TYPE_TIME_STAMP = 31
TS_SHIFT = 27
TS_MSB = 0xF8 << 56
COMMIT_MASK = (1 << 27) - 1
MISSED_EVENTS = 1 << 31
MISSED_STORED = 1 << 30

_HEADER_EVENT = (
    (r"type_len\s*:\s*([0-9]{1,9})\s*bits", 5, "type_len : 5 bits"),
    (r"time_delta\s*:\s*([0-9]{1,9})\s*bits", 27, "time_delta : 27 bits"),
)
_HEADER_TYPES = (
    (r"padding\s*:\s*type\s*==\s*([0-9]{1,9})", TYPE_PADDING),
    (r"time_extend\s*:\s*type\s*==\s*([0-9]{1,9})", TYPE_TIME_EXTEND),
    (r"time_stamp\s*:\s*type\s*==\s*([0-9]{1,9})", TYPE_TIME_STAMP),
    (r"data max type_len\s*==\s*([0-9]{1,9})", TYPE_PADDING - 1),
)


@attrs.frozen(slots=True)
class PageLayout:
    """Where a page's header fields are, and how its words are read.

    :ivar page_size: bytes per page.
    :ivar data: the offset of the first event.
    :ivar header: a :class:`struct.Struct` of the header's timestamp and commit.
    :ivar word: a :class:`struct.Struct` of one 32-bit word.
    :ivar endian: the traced machine's byte order, ``"<"`` or ``">"``.
    :ivar commit_size: the size of ``commit`` (the kernel's ``long``).
    """

    page_size: int
    data: int
    header: struct.Struct
    word: struct.Struct
    endian: str
    commit_size: int


def page_layout(header_page: str, header_event: str, endian: str, page_size: int) -> PageLayout:
    """The page layout that ``events/header_page`` and ``events/header_event`` describe.

    :raises KernelTraceError: a field is missing or misplaced, or the event
        header is not the 5-bit ``type_len`` / 27-bit ``time_delta`` one of
        Linux 2.6.31 and later (unlocated).
    """
    fields = parse_fields(header_page)
    stamp, commit, data = (fields.get(name) for name in ("timestamp", "commit", "data"))
    if stamp is None or commit is None or data is None:
        raise KernelTraceError("header_page", header_page[:60],
                               "fields 'timestamp', 'commit' and 'data'")
    if stamp.size != 8 or commit.size not in (4, 8) or stamp.offset + 8 > commit.offset \
            or commit.offset + commit.size > data.offset or data.offset >= page_size:
        raise KernelTraceError("header_page", f"timestamp {stamp.size} bytes at {stamp.offset}, "
                               f"commit {commit.size} at {commit.offset}, data at {data.offset}",
                               f"an 8-byte timestamp, then a 4- or 8-byte commit, then the data, "
                               f"within a page of {page_size} bytes")
    for pattern, want, shown in _HEADER_EVENT:
        found = re.search(pattern, header_event)
        if found is None or int(found[1]) != want:
            raise KernelTraceError("header_event", header_event[:60],
                                   f"'{shown}' (the ring buffer of Linux 2.6.31 and later)")
    for pattern, want in _HEADER_TYPES:
        found = re.search(pattern, header_event)
        if found is not None and int(found[1]) != want:
            raise KernelTraceError("header_event", found[0], f"type {want}")
    gap = commit.offset - stamp.offset - 8
    header = struct.Struct(f"{endian}{stamp.offset}xQ{gap}x{'Q' if commit.size == 8 else 'I'}")
    return PageLayout(page_size, data.offset, header, struct.Struct(endian + "I"), endian,
                      commit.size)


def page_records(page: bytes, layout: PageLayout, where: Callable[[int], str]
                 ) -> list[tuple[int, int, int, int]]:
    """The data records of *page*: ``(time, event offset, data offset, data length)`` each.

    Offsets are from the start of the page; times are raw trace-clock values.
    *where* names the place of an offset in the page, for errors.

    A page that says events were lost before it is read all the same
    (:func:`page_lost` tells).

    :raises KernelTraceError: the commit runs past the page, or a record
        runs past the commit.
    """
    ts, commit = layout.header.unpack_from(page, 0)
    end = layout.data + (commit & COMMIT_MASK)
    if end > len(page):
        raise KernelTraceError("commit", commit & COMMIT_MASK,
                               f"at most {len(page) - layout.data} bytes of events on a page",
                               path=where(0))
    word = layout.word.unpack_from
    big = layout.endian == ">"
    out = []
    pos = layout.data
    while pos < end:
        if pos + 4 > end:
            raise _overrun(where(pos), "an event header of 4 bytes")
        head = word(page, pos)[0]
        if big:
            kind, delta = head >> 27, head & 0x7FFFFFF
        else:
            kind, delta = head & 31, head >> 5
        if 0 < kind < TYPE_PADDING:
            data, length = pos + 4, kind * 4
        elif kind == 0:
            if pos + 8 > end:
                raise _overrun(where(pos), "a record length after the event header")
            size = word(page, pos + 4)[0]
            if size < 4:
                raise KernelTraceError("record length", size, "at least 4", path=where(pos))
            data, length = pos + 8, (size - 4 + 3) & ~3
        elif kind == TYPE_PADDING:
            if delta == 0 or pos + 8 > end:
                break
            ts += delta
            pos += 4 + word(page, pos + 4)[0]
            continue
        else:
            if pos + 8 > end:
                raise _overrun(where(pos), "a time stamp word after the event header")
            high = word(page, pos + 4)[0] << TS_SHIFT
            ts = ts + high + delta if kind == TYPE_TIME_EXTEND else (high | delta) | (ts & TS_MSB)
            pos += 8
            continue
        if data + length > end:
            raise _overrun(where(pos), f"a record of {length} bytes within the page's "
                                       f"{end - layout.data} bytes of events")
        ts += delta
        out.append((ts, pos, data, length))
        pos = data + length
    return out


def page_lost(page: bytes, layout: PageLayout) -> tuple[bool, int | None]:
    """Whether the kernel lost events before *page* (``commit`` bit 31), and how many
    if the page stores the count after its data (bit 30; else ``None``)."""
    commit = layout.header.unpack_from(page, 0)[1]
    if not commit & MISSED_EVENTS:
        return False, None
    if commit & MISSED_STORED:
        end = layout.data + (commit & COMMIT_MASK)
        if end + layout.commit_size <= len(page):
            code = layout.endian + ("Q" if layout.commit_size == 8 else "I")
            return True, int(struct.unpack_from(code, page, end)[0])
    return True, None


def _overrun(where: str, expected: str) -> KernelTraceError:
    return KernelTraceError("record", "a record that runs past the end of its page", expected,
                            path=where)

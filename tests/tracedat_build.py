"""trace.dat files built for the tests, from trace-cmd.dat(5) v6 and v7.

:func:`split_v6` cuts a version-6 file into its parts; :func:`build` lays
parts out again as version 6 (byte for byte as trace-cmd does, which the
tests check on a real capture) or as version 7, uncompressed or with zlib;
:func:`page` and the ``*_record`` functions make ring-buffer pages
(``include/linux/ring_buffer.h``) for the cases a short capture does not
hold: time extends, absolute time stamps, discarded events, long records,
lost events, big-endian machines, 32-bit kernels.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

HEADER_EVENT = ("# compressed entry header\n\ttype_len    :    5 bits\n"
                "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                "\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")

_REPORT = "((0x00000000 | 0x00000001 | 0x00000002) + 1)"  # TASK_REPORT + 1, three state bits
_STATE_FMT = ('print fmt: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s '
              'next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, '
              f'(REC->prev_state & (({_REPORT} << 1) - 1)) ? __print_flags(REC->prev_state & '
              f'(({_REPORT} << 1) - 1), "|", {{ 0x00000001, "S" }}, {{ 0x00000002, "D" }}) : "R", '
              f'REC->prev_state & ({_REPORT} << 1) ? "+" : "", REC->next_comm, REC->next_pid, '
              'REC->next_prio\n')
#: ``prev_state`` of a preempted task under :func:`switch_format` (its ``TASK_REPORT_MAX``).
PREEMPTED = 0x8

_COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
           "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
           "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
           "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def header_page(long_size: int = 8, page_size: int = 4096) -> str:
    """The text of ``events/header_page`` for a kernel whose ``long`` has *long_size* bytes."""
    data = 8 + long_size
    return (f"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
            f"\tfield: local_t commit;\toffset:8;\tsize:{long_size};\tsigned:1;\n"
            f"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
            f"\tfield: char data;\toffset:{data};\tsize:{page_size - data};\tsigned:0;\n")


def switch_format(ident: int, state_size: int = 8) -> str:
    """A ``sched_switch`` format (Linux >= 4.14's ``prev_state`` test, three state bits)."""
    return (f"name: sched_switch\nID: {ident}\nformat:\n{_COMMON}"
            "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
            "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
            "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
            f"\tfield:long prev_state;\toffset:32;\tsize:{state_size};\tsigned:1;\n"
            f"\tfield:char next_comm[16];\toffset:{32 + state_size};\tsize:16;\tsigned:0;\n"
            f"\tfield:pid_t next_pid;\toffset:{48 + state_size};\tsize:4;\tsigned:1;\n"
            f"\tfield:int next_prio;\toffset:{52 + state_size};\tsize:4;\tsigned:1;\n\n"
            + _STATE_FMT)


def wakeup_format(ident: int, name: str = "sched_wakeup", success: bool = False) -> str:
    """A ``sched_wakeup``-like format; with *success*, the field of kernels before 4.x."""
    tail = ("\tfield:int success;\toffset:32;\tsize:4;\tsigned:1;\n"
            "\tfield:int target_cpu;\toffset:36;\tsize:4;\tsigned:1;\n") if success else \
        "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
    return (f"name: {name}\nID: {ident}\nformat:\n{_COMMON}"
            "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
            "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
            "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" + tail +
            '\nprint fmt: "comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, '
            'REC->prio, REC->target_cpu\n')


def switch_record(ident: int, prev: tuple[int, str], state: int, nxt: tuple[int, str],
                  endian: str = "<", state_size: int = 8) -> bytes:
    """The data of a ``sched_switch`` record laid out as :func:`switch_format` says."""
    code = "q" if state_size == 8 else "i"
    return struct.pack(f"{endian}HBBi16si i{code}16si i", ident, 0, 0, prev[0],
                       prev[1].encode(), prev[0], 120, state, nxt[1].encode(), nxt[0], 120)


def wakeup_record(ident: int, task: tuple[int, str], target: int, endian: str = "<",
                  success: int | None = None) -> bytes:
    """The data of a ``sched_wakeup`` record laid out as :func:`wakeup_format` says."""
    extra = (struct.pack(f"{endian}i", success) if success is not None else b"")
    return (struct.pack(f"{endian}HBBi16sii", ident, 0, 0, 1, task[1].encode(), task[0], 120)
            + extra + struct.pack(f"{endian}i", target))


def page(ts: int, items: list[tuple], *, endian: str = "<", long_size: int = 8,
         page_size: int = 4096, flags: int = 0) -> bytes:
    """A ring-buffer page of time *ts* and the events *items*.

    An item is ``("data", delta, payload)`` (``type_len`` 1-28, or 0 for a
    payload of more than 112 bytes), ``("long", delta, payload)`` (always
    ``type_len`` 0), ``("extend", delta)`` (a time extend), ``("abs", ts)``
    (an absolute time stamp), ``("pad", delta, length)`` (a discarded event
    of *length* bytes after its header) or ``("raw", bytes)``.  *flags* are
    or-ed into the commit (bit 31: events lost).
    """
    body = b""
    for item in items:
        body += _event(item, endian)
    commit = len(body) | flags
    head = struct.pack(f"{endian}Q" + ("Q" if long_size == 8 else "I"), ts, commit)
    out = head + body
    assert len(out) <= page_size
    return out + bytes(page_size - len(out))


def _word(kind: int, delta: int, endian: str) -> bytes:
    value = (kind << 27) | delta if endian == ">" else (delta << 5) | kind
    return struct.pack(f"{endian}I", value)


def _event(item: tuple, endian: str) -> bytes:
    kind = item[0]
    if kind == "raw":
        return item[1]
    if kind == "extend":
        return _word(30, item[1] & 0x7FFFFFF, endian) + struct.pack(f"{endian}I", item[1] >> 27)
    if kind == "abs":
        return _word(31, item[1] & 0x7FFFFFF, endian) + struct.pack(f"{endian}I",
                                                                     (item[1] >> 27) & 0xFFFFFFFF)
    if kind == "pad":
        return _word(29, item[1], endian) + struct.pack(f"{endian}I", item[2]) + bytes(item[2] - 4)
    payload = item[2] + bytes(-len(item[2]) % 4)
    if kind == "data" and len(payload) <= 112:
        return _word(len(payload) // 4, item[1], endian) + payload
    return _word(0, item[1], endian) + struct.pack(f"{endian}I", len(payload) + 4) + payload


@dataclass
class Parts:
    """What a trace.dat holds, as :func:`build` lays it out."""

    endian: str = "<"
    long_size: int = 8
    page_size: int = 4096
    header_page: str = field(default_factory=header_page)
    header_event: str = HEADER_EVENT
    ftrace: list[bytes] = field(default_factory=list)
    systems: list[tuple[str, list[bytes]]] = field(default_factory=list)
    kallsyms: bytes = b""
    printk: bytes = b""
    cmdlines: bytes = b""
    options: list[tuple[int, bytes]] = field(default_factory=list)
    clock: bytes | None = b"[local]"
    cpus: list[bytes] = field(default_factory=list)


def split_v6(data: bytes) -> Parts:
    """The parts of the version-6 file *data* (flyrecord, top instance only)."""
    at = [0]
    endian = "<" if data[data.index(b"\0", 10) + 1] == 0 else ">"

    def take(n: int) -> bytes:
        out = data[at[0]:at[0] + n]
        at[0] += n
        return out

    def num(n: int) -> int:
        return int.from_bytes(take(n), "little" if endian == "<" else "big")

    def cstr() -> bytes:
        end = data.index(b"\0", at[0])
        return take(end - at[0] + 1)[:-1]

    take(10), cstr()
    parts = Parts(endian=endian)
    take(1)
    parts.long_size, parts.page_size = num(1), num(4)
    take(12)
    parts.header_page = take(num(8)).decode()
    take(13)
    parts.header_event = take(num(8)).decode()
    parts.ftrace = [take(num(8)) for _ in range(num(4))]
    for _ in range(num(4)):
        name = cstr().decode()
        parts.systems.append((name, [take(num(8)) for _ in range(num(4))]))
    parts.kallsyms, parts.printk, parts.cmdlines = take(num(4)), take(num(4)), take(num(8))
    ncpus = num(4)
    assert take(10) == b"options  \0"
    while (ident := num(2)) != 0:
        parts.options.append((ident, take(num(4))))
    assert take(10) == b"flyrecord\0"
    table = [(num(8), num(8)) for _ in range(ncpus)]
    parts.clock = take(num(8)) if any(i == 4 for i, _ in parts.options) else None
    parts.cpus = [data[offset:offset + size] for offset, size in table]
    return parts


class _Out:
    def __init__(self, endian: str) -> None:
        self.buf = bytearray()
        self.endian = endian

    def num(self, value: int, n: int) -> None:
        self.buf += value.to_bytes(n, "little" if self.endian == "<" else "big")

    def put(self, data: bytes) -> None:
        self.buf += data

    def sized(self, data: bytes, n: int) -> None:
        self.num(len(data), n)
        self.put(data)

    def align(self, size: int) -> None:
        self.buf += bytes(-len(self.buf) % size)


def _initial(out: _Out, parts: Parts, version: int) -> None:
    out.put(b"\x17\x08\x44tracing" + str(version).encode() + b"\0")
    out.put(bytes([0 if parts.endian == "<" else 1, parts.long_size]))
    out.num(parts.page_size, 4)


def _header_info(out: _Out, parts: Parts) -> None:
    out.put(b"header_page\0")
    out.sized(parts.header_page.encode(), 8)
    out.put(b"header_event\0")
    out.sized(parts.header_event.encode(), 8)


def _events(out: _Out, parts: Parts) -> None:
    out.num(len(parts.systems), 4)
    for name, formats in parts.systems:
        out.put(name.encode() + b"\0")
        out.num(len(formats), 4)
        for text in formats:
            out.sized(text, 8)


def build(parts: Parts, version: int = 6, compression: str | None = None,
          chunk_pages: int = 10) -> bytes:
    """The trace.dat of *parts*: version 6, or 7 (uncompressed, or *compression* ``"zlib"``)."""
    return _build_v6(parts) if version == 6 else _build_v7(parts, compression, chunk_pages)


def _build_v6(parts: Parts) -> bytes:
    out = _Out(parts.endian)
    _initial(out, parts, 6)
    _header_info(out, parts)
    out.num(len(parts.ftrace), 4)
    for text in parts.ftrace:
        out.sized(text, 8)
    _events(out, parts)
    out.sized(parts.kallsyms, 4)
    out.sized(parts.printk, 4)
    out.sized(parts.cmdlines, 8)
    out.num(len(parts.cpus), 4)
    out.put(b"options  \0")
    for ident, data in parts.options:
        out.num(ident, 2)
        out.sized(data, 4)
    out.num(0, 2)
    out.put(b"flyrecord\0")
    table = len(out.buf)
    out.put(bytes(16 * len(parts.cpus)))
    if parts.clock is not None:
        out.sized(parts.clock, 8)
    offsets = []
    for data in parts.cpus:
        out.align(parts.page_size)
        offsets.append(len(out.buf))
        out.put(data)
    for i, (offset, data) in enumerate(zip(offsets, parts.cpus)):
        fix = _Out(parts.endian)
        fix.num(offset, 8)
        fix.num(len(data), 8)
        out.buf[table + 16 * i:table + 16 * i + 16] = fix.buf
    return bytes(out.buf)


def _section(out: _Out, ident: int, body: bytes, compress: bool) -> int:
    start = len(out.buf)
    out.num(ident, 2)
    out.num(1 if compress else 0, 2)
    out.num(0, 4)
    if compress:
        packed = zlib.compress(body, 9)
        inner = _Out(out.endian)
        inner.num(len(packed), 4)
        inner.num(len(body), 4)
        body = bytes(inner.buf) + packed
    out.sized(body, 8)
    return start


def _options_body(parts: Parts, options: list[tuple[int, bytes]], after: int) -> bytes:
    out = _Out(parts.endian)
    for ident, data in options:
        out.num(ident, 2)
        out.sized(data, 4)
    out.num(0, 2)
    out.num(8, 4)
    out.num(after, 8)
    return bytes(out.buf)


def _build_v7(parts: Parts, compression: str | None, chunk_pages: int) -> bytes:
    zipped = compression == "zlib"
    out = _Out(parts.endian)
    _initial(out, parts, 7)
    out.put(b"zlib\x001.2.13\0" if zipped else b"none\0\0")
    first = len(out.buf)
    out.num(0, 8)
    head, events = _Out(parts.endian), _Out(parts.endian)
    _header_info(head, parts)
    _events(events, parts)
    info_at = _section(out, 16, bytes(head.buf), zipped)
    formats_at = _section(out, 18, bytes(events.buf), zipped)
    buffer_at = len(out.buf)
    out.num(3, 2)
    out.num(1 if zipped else 0, 2)
    out.num(0, 4)
    size_at = len(out.buf)
    out.num(0, 8)
    table = []
    for data in parts.cpus:
        out.align(parts.page_size)
        start = len(out.buf)
        out.put(_chunks(parts, data, chunk_pages) if zipped else data)
        table.append((start, len(out.buf) - start))
    out.buf[size_at:size_at + 8] = _number(parts, len(out.buf) - size_at - 8, 8)
    buffer = _Out(parts.endian)
    buffer.num(buffer_at, 8)
    buffer.put(b"\0local\0")
    buffer.num(parts.page_size, 4)
    buffer.num(len(table), 4)
    for cpu, (start, size) in enumerate(table):
        buffer.num(cpu, 4)
        buffer.num(start, 8)
        buffer.num(size, 8)
    last_at = _section(out, 0, _options_body(parts, [(3, bytes(buffer.buf))], 0), zipped)
    clock = [(4, parts.clock + b"\0")] if parts.clock is not None else []
    offsets = [(16, _number(parts, info_at, 8)), (18, _number(parts, formats_at, 8))]
    first_at = _section(out, 0, _options_body(parts, offsets + clock + parts.options, last_at),
                        zipped)
    out.buf[first:first + 8] = _number(parts, first_at, 8)
    return bytes(out.buf)


def _number(parts: Parts, value: int, n: int) -> bytes:
    return value.to_bytes(n, "little" if parts.endian == "<" else "big")


def _chunks(parts: Parts, data: bytes, chunk_pages: int) -> bytes:
    step = parts.page_size * chunk_pages
    pieces = [data[i:i + step] for i in range(0, len(data), step)]
    out = _Out(parts.endian)
    out.num(len(pieces), 4)
    for piece in pieces:
        packed = zlib.compress(piece, 9)
        out.num(len(packed), 4)
        out.num(len(piece), 4)
        out.put(packed)
    return bytes(out.buf)


"""The trace.dat reader (akita.trace.tracedat) against trace-cmd's own reading of real files.

Real files (tests/data/README.md, "trace.dat"): ARM-software/trappy's
``raw_trace.dat`` (version 6, 2015) with its ``trace-cmd report -N`` text,
and captures made with trace-cmd 3.1.6 on Linux 6.18 (versions 6 and 7)
with their ``trace-cmd report -t -N`` text, which every kept event must
match: time, CPU, tasks, runnability, target CPU and ordinal.  Files built
by ``tests/tracedat_build.py`` cover what a short capture does not: zlib,
big-endian and 32-bit kernels, time extends, absolute stamps, discarded and
long records, lost events, the TSC2NSEC / OFFSET / DATE options.
"""

from __future__ import annotations

import io
import re
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from akita.trace.eventformat import state_mask
from akita.trace.kernel import KernelTraceError, SchedEvent, Tally
from akita.trace.tracedat import MAGIC, is_tracedat, read_tracedat
from tracedat_build import (HEADER_EVENT, PREEMPTED, Parts, build, header_page, page,
                            split_v6, switch_format, switch_record, wakeup_format,
                            wakeup_record)

DATA = Path(__file__).resolve().parent.parent / "data"
TRAPPY = DATA / "trappy_raw_trace.dat"
V6, V7 = DATA / "tracecmd_v6.dat", DATA / "tracecmd_v7.dat"

_REC = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<s>\d+)\.(?P<f>\d+):"
                  r"\s+(?P<event>\w+):\s+(?P<body>.*)$")
_SW = re.compile(r"prev_comm=(?P<pc>.*?) prev_pid=(?P<pp>\d+) prev_prio=-?\d+"
                 r" prev_state=(?P<st>\S+) ==> next_comm=(?P<nc>.*?) next_pid=(?P<np>\d+)"
                 r" next_prio=-?\d+")
_WK = re.compile(r"comm=(?P<c>.*?) pid=(?P<p>\d+) prio=-?\d+(?: success=(?P<ok>\d))?"
                 r" target_cpu=(?P<t>\d+)")
_MG = re.compile(r"comm=(?P<c>.*?) pid=(?P<p>\d+) prio=-?\d+ orig_cpu=\d+ dest_cpu=(?P<d>\d+)")


def _task(pid: str, comm: str) -> tuple[str, str] | None:
    return None if pid == "0" else (pid, comm)


def report_events(path: Path) -> tuple[list[tuple], int]:
    """The kept events of a ``trace-cmd report -N`` text, and its decimals of a second.

    An event is ``(time, cpu, kind, ordinal, task..., runnable or target)``;
    the ordinal counts every record line, as the reader's ``line`` does.
    """
    out: list[tuple] = []
    ordinal, digits = 0, 9
    for text in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _REC.match(text)
        if m is None:
            continue
        ordinal += 1
        digits = len(m["f"])
        ns = int(m["s"]) * 10**9 + int(m["f"].ljust(9, "0"))
        event, body, cpu = m["event"], m["body"].strip(), int(m["cpu"])
        if event == "sched_switch":
            b = _SW.fullmatch(body)
            assert b is not None, text
            out.append((ns, cpu, "switch", ordinal, _task(b["pp"], b["pc"]),
                        b["st"] in ("R", "R+"), _task(b["np"], b["nc"])))
        elif event in ("sched_wakeup", "sched_wakeup_new"):
            b = _WK.fullmatch(body)
            assert b is not None, text
            if b["ok"] != "0":
                out.append((ns, cpu, event[len("sched_"):], ordinal, _task(b["p"], b["c"]),
                            int(b["t"])))
        elif event == "sched_migrate_task":
            b = _MG.fullmatch(body)
            assert b is not None, text
            out.append((ns, cpu, "migrate", ordinal, _task(b["p"], b["c"]), int(b["d"])))
    return out, digits


def shape(e: SchedEvent, digits: int = 9) -> tuple:
    """*e* as :func:`report_events` writes an event, its time rounded as the report rounds it."""
    q = 10 ** (9 - digits)
    ns = (e.ns + q // 2) // q * q

    def task(t):
        return None if t is None else (t.pid, t.comm)

    if e.kind == "switch":
        return (ns, e.cpu, "switch", e.line, task(e.prev), e.prev_runnable, task(e.next))
    return (ns, e.cpu, e.kind, e.line, task(e.task), e.target_cpu)


def read(data: bytes, path: str = "t.dat", tally: Tally | None = None) -> list[SchedEvent]:
    return list(read_tracedat(io.BytesIO(data), path=path, tally=tally))


def read_file(path: Path, tally: Tally | None = None) -> list[SchedEvent]:
    with path.open("rb") as stream:
        return list(read_tracedat(stream, path=str(path), tally=tally))


# ---------------------------------------------------------------- real files against trace-cmd

def test_trappy_file_matches_its_report():
    """Every sched_switch of trace-cmd's report of trappy's file, at the report's microseconds."""
    expected, digits = report_events(DATA / "sched_text" / "trappy_raw_trace.reportN.txt")
    tally = Tally()
    events = read_file(TRAPPY, tally)
    assert digits == 6 and len(expected) == 755
    assert [shape(e, digits) for e in events] == expected
    assert tally.records == 757  # and two bprint records, counted, not yielded
    # Exact ns, from `trace-cmd report -t -N` of the same file.
    assert (events[0].ns, events[0].line, events[0].cpu) == (106439675591340, 3, 2)
    assert events[0].prev.comm == "trace-cmd" and events[0].prev_runnable  # R+: 1024
    assert events[1].ns == 106439675612860 and not events[1].prev_runnable  # S
    assert events[-1].ns == 106439679363540 and events[-1].next is None  # swapper/1


@pytest.mark.parametrize("name", ["tracecmd_v6", "tracecmd_v7"])
def test_capture_matches_its_report(name):
    """Every kept event of a capture of this machine, exactly as ``trace-cmd report -t -N``."""
    expected, digits = report_events(DATA / f"{name}.report.txt")
    events = read_file(DATA / f"{name}.dat")
    assert digits == 9
    assert [shape(e) for e in events] == expected
    kinds = {e.kind for e in events}
    assert kinds == {"switch", "wakeup", "wakeup_new", "migrate"}
    assert any(e.kind == "switch" and not e.prev_runnable for e in events)
    assert any(e.kind == "switch" and e.prev_runnable for e in events)


@pytest.mark.parametrize("path", [TRAPPY, V6, V7])
def test_where_is_the_record_header(path):
    """``where`` is the offset of the record: its event header, then data with the event's id."""
    data = path.read_bytes()
    ids = {}
    for e in read_file(path):
        offset = int(e.where.rsplit("@0x", 1)[1], 16)
        assert e.where == f"{path}@0x{offset:x}"
        head = struct.unpack_from("<I", data, offset)[0]
        kind = head & 31
        assert kind <= 28
        ident = struct.unpack_from("<H", data, offset + (8 if kind == 0 else 4))[0]
        assert ids.setdefault(e.kind, ident) == ident  # one id per kind
    assert len(set(ids.values())) == len(ids)


def test_lines_are_ordinals_in_time_order():
    events = read_file(V7)
    assert [e.line for e in events] == sorted(e.line for e in events)
    assert all(a.ns <= b.ns for a, b in zip(events, events[1:]))
    assert events[0].line == 1 and len({e.line for e in events}) == len(events)


def test_reads_only_what_it_needs():
    """The 2.3 MB of kallsyms are skipped: the first event comes after a few pages are read."""
    class Counting(io.BytesIO):
        taken = 0

        def read(self, n=-1):
            out = super().read(n)
            Counting.taken += len(out)
            return out

    stream = Counting(TRAPPY.read_bytes())
    first = next(read_tracedat(stream, path="trappy.dat"))
    assert first.kind == "switch"
    assert Counting.taken < 64 * 1024 < len(stream.getvalue()) // 30


def test_zstd_is_refused_in_one_line():
    try:
        import compression.zstd  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("this Python reads zstd")
    with pytest.raises(KernelTraceError) as raised:
        read_file(DATA / "tracecmd_v7_zstd.dat")
    message = str(raised.value)
    assert "\n" not in message and "tracecmd_v7_zstd.dat@0x" in message
    assert "zstd" in message and "trace-cmd convert --compression none" in message
    assert "--file-version 6" in message


def test_a_clock_in_cycles_is_refused():
    with pytest.raises(KernelTraceError, match=r"tracecmd_v6_x86tsc\.dat@0x[0-9a-f]+: field "
                                               r"'trace clock'.*got 'x86-tsc'"):
        read_file(DATA / "tracecmd_v6_x86tsc.dat")


def test_layouts_agree():
    """A real version-6 file, split and laid out again: the same bytes as v6, the same events as
    version 7 and as version 7 compressed with zlib (10 pages a chunk, or 1)."""
    data = V6.read_bytes()
    parts = split_v6(data)
    assert build(parts) == data
    want = [shape(e) for e in read(data)]
    for layout in (build(parts, 7), build(parts, 7, "zlib"), build(parts, 7, "zlib", 1)):
        assert [shape(e) for e in read(layout)] == want
    assert TRAPPY.read_bytes() == build(split_v6(TRAPPY.read_bytes()))


# ---------------------------------------------------------------- built files

SW, WK, WN, OTHER = 316, 318, 319, 999
A, B = (4242, "CPU 0/KVM"), (77, "qemu-web")


def parts_of(cpus: list[list[bytes]], *, endian: str = "<", long_size: int = 8,
             clock: str = "local", options: tuple = (), success: bool = False) -> Parts:
    """Parts with the three sched formats and the pages *cpus* (a list of pages per CPU)."""
    formats = [switch_format(SW, long_size).encode(), wakeup_format(WK, success=success).encode(),
               wakeup_format(WN, "sched_wakeup_new").encode()]
    return Parts(endian=endian, long_size=long_size, header_page=header_page(long_size),
                 header_event=HEADER_EVENT, systems=[("sched", formats)],
                 options=[(4, f"[{clock}] global\0".encode()), *options],
                 clock=f"[{clock}]".encode(), cpus=[b"".join(pages) for pages in cpus])


def sw(prev, state, nxt, endian="<", state_size=8):
    return switch_record(SW, prev, state, nxt, endian, state_size)


def test_time_extends_absolute_stamps_discards_and_long_records():
    msb = 1 << 59
    items = [("data", 5, sw(A, 0, B)),
             ("extend", (1 << 30) + 3), ("data", 7, sw(B, 1, A)),
             ("pad", 3, 8),                       # a discarded event: its delta counts
             ("long", 4, sw(A, PREEMPTED, (0, "swapper/0"))),
             ("abs", 5000), ("data", 2, sw((0, "swapper/0"), 0, B))]
    events = read(build(parts_of([[page(msb + 1000, items)]])))
    t1 = msb + 1005
    t2 = t1 + (1 << 30) + 3 + 7
    assert [e.ns for e in events] == [t1, t2, t2 + 3 + 4, (msb | 5000) + 2]
    assert [e.prev_runnable for e in events] == [True, False, True, True]
    assert events[2].next is None and events[3].prev is None
    assert events[0].prev.comm == "CPU 0/KVM" and events[0].next.pid == "77"


def test_null_padding_ends_the_page():
    null = struct.pack("<I", 29)  # type PADDING, delta 0: the rest of the page is padding
    items = [("data", 1, sw(A, 0, B)), ("raw", null + bytes(4)), ("data", 1, sw(B, 0, A))]
    assert len(read(build(parts_of([[page(10, items)]])))) == 1


@pytest.mark.parametrize("endian,long_size", [(">", 8), ("<", 4), (">", 4)])
def test_byte_orders_and_kernel_longs(endian, long_size):
    """A big-endian machine, a 32-bit kernel (4-byte commit and prev_state): the same events."""
    def pages(e, size):
        return [[page(100, [("data", 1, sw(A, 1, B, e, size)), ("long", 2, sw(B, 0, A, e, size))],
                      endian=e, long_size=size)],
                [page(100, [("data", 2, wakeup_record(WK, A, 1, e))], endian=e, long_size=size)]]

    want = [shape(e) for e in read(build(parts_of(pages("<", 8))))]
    got = read(build(parts_of(pages(endian, long_size), endian=endian, long_size=long_size)))
    assert [shape(e) for e in got] == want and len(want) == 3
    for version in (7,):
        again = build(parts_of(pages(endian, long_size), endian=endian, long_size=long_size),
                      version, "zlib")
        assert [shape(e) for e in read(again)] == want


def test_merge_order_ties_and_ordinals():
    """By time across CPUs; at equal times the lower CPU first; every record counted."""
    cpu0 = [page(100, [("data", 0, sw(A, 0, B)), ("data", 10, struct.pack("<H6x", OTHER)),
                       ("data", 0, sw(B, 0, A))])]
    cpu1 = [page(105, [("data", 5, sw(A, 0, B)), ("data", 100, wakeup_record(WK, A, 0))])]
    tally = Tally()
    events = read(build(parts_of([cpu0, cpu1])), tally=tally)
    assert [(e.ns, e.cpu, e.line) for e in events] == [(100, 0, 1), (110, 0, 3), (110, 1, 4),
                                                       (210, 1, 5)]
    assert tally.records == 5


def test_where_of_a_built_record():
    data = build(parts_of([[page(100, [("data", 1, sw(A, 0, B)), ("data", 1, sw(B, 0, A))])]]))
    start = data.index(page(100, [("data", 1, sw(A, 0, B)), ("data", 1, sw(B, 0, A))]))
    events = read(data, path="x.dat")
    size = 4 + len(sw(A, 0, B))
    assert [e.where for e in events] == [f"x.dat@0x{start + 16:x}",
                                         f"x.dat@0x{start + 16 + size:x}"]


def test_wakeups_with_success():
    """Kernels before 4.x: a wakeup with success=0 found its task runnable: skipped."""
    items = [("data", 1, wakeup_record(WK, A, 1, success=1)),
             ("data", 1, wakeup_record(WK, B, 0, success=0))]
    events = read(build(parts_of([[page(100, items)]], success=True)))
    assert [(e.kind, e.task.comm, e.target_cpu) for e in events] == [("wakeup", "CPU 0/KVM", 1)]


def test_tsc2nsec_offset_and_date():
    """Cycles of x86-tsc converted as trace-cmd converts them (count * mult >> shift), plus
    OFFSET (ns) and DATE (microseconds)."""
    items = [("data", 0, sw(A, 0, B)), ("extend", 3_000_000_007), ("data", 0, sw(B, 0, A))]
    mult, shift = 1398101, 22  # about 1/3 ns a cycle: a 3 GHz TSC
    tsc = (14, struct.pack("<IIQ", mult, shift, 12345))
    raw = 10**12
    for version in (6, 7):
        parts = parts_of([[page(raw, items)]], clock="x86-tsc",
                         options=(tsc, (7, b"-500\0"), (1, b"0x10\0")))
        events = read(build(parts, version))
        base = -500 + 16 * 1000
        assert [e.ns for e in events] == [(raw * mult >> shift) + base,
                                          ((raw + 3_000_000_007) * mult >> shift) + base]
    with pytest.raises(KernelTraceError, match="'x86-tsc'"):
        read(build(parts_of([[page(raw, items)]], clock="x86-tsc")))
    for clock in ("mono", "boot", "global"):
        assert len(read(build(parts_of([[page(raw, items)]], clock=clock)))) == 2
    for clock in ("counter", "uptime"):
        with pytest.raises(KernelTraceError, match=f"got '{clock}'"):
            read(build(parts_of([[page(raw, items)]], clock=clock), 7))


def test_lost_events_are_read_as_lost():
    """A page whose commit has the missed-events bit: a ``lost`` event before its first record,
    located at the page, with the count the page stores after its data (bit 30), if any."""
    lost = page(100, [("data", 1, sw(A, 0, B))], flags=1 << 31)
    data = build(parts_of([[page(50, [("data", 1, sw(B, 0, A))]), lost]]))
    at = data.index(lost)
    events = read(data)
    assert [e.kind for e in events] == ["switch", "lost", "switch"]
    assert events[1].where == f"t.dat@0x{at:x}" and events[1].count is None
    assert events[1].ns == events[2].ns
    counted = bytearray(lost)
    struct.pack_into("<Q", counted, 8, struct.unpack_from("<Q", lost, 8)[0] | 1 << 30)
    struct.pack_into("<Q", counted, 16 + 4 + len(sw(A, 0, B)), 42)
    events = read(build(parts_of([[bytes(counted)]])))
    assert [(e.kind, e.count) for e in events] == [("lost", 42), ("switch", None)]


def test_records_past_their_page_are_refused():
    header = struct.pack("<I", 28)  # a data record of 112 bytes
    bad = page(100, [("raw", header + bytes(20))])
    data = build(parts_of([[bad]]))
    with pytest.raises(KernelTraceError, match=rf"@0x{data.index(bad) + 16:x}: field 'record'"):
        read(data)
    huge = bytearray(page(100, []))
    struct.pack_into("<Q", huge, 8, 5000)  # a commit of more than the page
    with pytest.raises(KernelTraceError, match="field 'commit'"):
        read(build(parts_of([[bytes(huge)]])))


def test_a_short_sched_record_is_refused():
    short = struct.pack("<HBBi16s", SW, 0, 0, 1, b"x")  # 24 of the 60 bytes up to next_pid
    with pytest.raises(KernelTraceError, match=r"field 'sched:sched_switch'.*at least 60 bytes"):
        read(build(parts_of([[page(100, [("data", 1, short)])]])))


def test_a_trace_without_sched_switch_is_refused():
    parts = parts_of([[page(100, [("data", 1, wakeup_record(WK, A, 0))])]])
    parts.systems = [("sched", [wakeup_format(WK).encode()])]
    for version in (6, 7):
        with pytest.raises(KernelTraceError, match="'sched:sched_switch'.*-e sched_switch"):
            read(build(parts, version))


def test_bad_headers_are_refused_at_their_offset():
    good = build(parts_of([[page(100, [("data", 1, sw(A, 0, B))])]]))
    cases = [(b"\x17\x08\x44tracinX" + good[10:], r"@0x0: field 'magic'"),
             (good[:10] + b"5\0" + good[12:], r"@0xa: field 'version'.*got '5'"),
             (good[:12] + b"\x02" + good[13:], r"@0xc: field 'endianness'"),
             (good[:13] + b"\x03" + good[14:], r"@0xd: field 'long size'"),
             (good[:14] + struct.pack("<I", 1000) + good[18:], r"@0xe: field 'page size'"),
             (b"", r"field 'magic'")]
    for data, message in cases:
        with pytest.raises(KernelTraceError, match=message):
            read(data)


def test_streams_it_cannot_read_are_refused():
    class Pipe(io.BytesIO):
        def seekable(self):
            return False

    with pytest.raises(KernelTraceError, match="seekable"):
        read_tracedat(Pipe(V6.read_bytes()), path="pipe")
    with pytest.raises(KernelTraceError, match="binary stream"):
        read_tracedat(io.StringIO("x"), path="text")


def test_is_tracedat():
    assert is_tracedat(V6.read_bytes()[:64]) and is_tracedat(MAGIC) and is_tracedat(MAGIC[:3])
    assert not is_tracedat(b"") and not is_tracedat(MAGIC[:2])
    assert not is_tracedat(b"# tracer: nop\n") and not is_tracedat(b'{"version": 1}')


def test_state_masks_of_three_kernel_generations():
    assert state_mask(switch_format(SW).split("print fmt: ", 1)[1]) == PREEMPTED - 1
    linux_6 = ('(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | '
               '0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? '
               '__print_flags(...) : "R"')
    assert state_mask(linux_6) == 0xFF
    assert state_mask('REC->prev_state & (1024-1) ? __print_flags(REC->prev_state & (1024-1), '
                      '"|", { 1, "S"}) : "R", REC->prev_state & 1024 ? "+" : ""') == 0x3FF
    assert state_mask('REC->prev_state ? __print_flags(REC->prev_state, "|") : "R"') == -1
    for junk in ("", "REC->prev_state & (TASK_REPORT_MAX - 1) ?", "REC->prev_state & (1 << 999) ?",
                 "REC->prev_state & " + "(" * 200 + "1" + ")" * 200 + " ?",
                 "REC->prev_state & " + "~" * 900 + "1 ?", "REC->prev_state & (09) ?"):
        with pytest.raises(KernelTraceError):
            state_mask(junk)


# ---------------------------------------------------------------- junk

def _outcome(data: bytes) -> list[tuple] | None:
    """The events of *data*, or ``None`` for a KernelTraceError (anything else fails the test)."""
    try:
        return [shape(e) for e in read(data)]
    except KernelTraceError as error:
        assert "\n" not in str(error) and "t.dat" in str(error)
        return None


@pytest.mark.parametrize("path", [V7])
def test_every_truncation_is_refused(path):
    """A file cut anywhere is refused -- or, cut after a section the reader does not need (the
    STRINGS section at the end), reads to the same events: never a partial answer."""
    data = path.read_bytes()
    whole = _outcome(data)
    assert whole
    for cut in range(len(data)):
        assert _outcome(data[:cut]) in (None, whole), cut


def test_truncations_of_a_version_6_file():
    """Every offset of the first 4 kB and of the options and CPU table, every 17th elsewhere (every
    one under ``-m slow``): each cut is refused."""
    data = V6.read_bytes()
    options = data.index(b"options  \0")
    table = data.index(b"flyrecord\0") + 10 + 16 * 2 + 8 + len(b"[local]")
    cuts = {*range(4096), *range(options - 16, table + 1), *range(0, len(data), 17)}
    for cut in sorted(cuts):
        assert _outcome(data[:cut]) is None, cut


@pytest.mark.slow
def test_every_truncation_of_a_version_6_file():
    data = V6.read_bytes()
    for cut in range(len(data)):
        assert _outcome(data[:cut]) is None, cut


_FLIPS = st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 7)), min_size=1, max_size=4)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from([V6, V7]), flips=_FLIPS)
def test_bit_flips(which, flips):
    data = bytearray(which.read_bytes())
    for at, bit in flips:
        data[at % len(data)] ^= 1 << bit
    _outcome(bytes(data))


@given(st.binary(max_size=2048), st.sampled_from([b"", MAGIC + b"6\0", MAGIC + b"7\0",
                                                  MAGIC + b"7\0\0\x08\0\x10\0\0none\0\0"]))
def test_random_bytes(tail, head):
    _outcome(head + tail)


_COMMITS = st.integers(0, 4200) | st.integers(0, 2**64 - 1) | st.sampled_from([1 << 31, 3 << 30])
_PAGES = st.lists(st.tuples(st.integers(0, 2**64 - 1), _COMMITS, st.binary(max_size=600)),
                  min_size=1, max_size=3)


@given(_PAGES, st.sampled_from([6, 7]))
def test_random_pages(pages, version):
    """Well-formed headers, junk pages: every page is read and refused or decoded."""
    raw = [(struct.pack("<QQ", ts, commit) + body).ljust(4096, b"\0")[:4096]
           for ts, commit, body in pages]
    _outcome(build(parts_of([raw]), version, "zlib" if version == 7 else None))


@given(st.lists(st.sampled_from([("data", 1), ("long", 9), ("extend", 1 << 28), ("abs", 123),
                                 ("pad", 2), ("other", 1)]), max_size=40),
       st.sampled_from(["<", ">"]))
def test_built_pages_read_back(kinds, endian):
    """Pages of every kind of event read back: the kept records, in order, at the times they say."""
    items, want, ts = [], [], 1 << 40
    for kind, value in kinds:
        if kind in ("data", "long"):
            ts += value
            items.append((kind, value, sw(A, 0, B, endian)))
            want.append(ts)
        elif kind == "extend":
            ts += value
            items.append((kind, value))
        elif kind == "abs":
            ts = value
            items.append((kind, value))
        elif kind == "pad":
            ts += value
            items.append((kind, value, 8))
        else:
            ts += value
            items.append(("data", value, struct.pack(f"{endian}H6x", OTHER)))
    data = build(parts_of([[page(1 << 40, items, endian=endian)]], endian=endian))
    assert [e.ns for e in read(data)] == want

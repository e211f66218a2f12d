"""The ``xentrace`` reader: captures made by the tests' writer, a real capture, and junk."""

from __future__ import annotations

import gzip
import io
import struct
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.model.errors import ModelError
from akita.trace import xentrace
from akita.trace.kernel import KernelTraceError, SchedEvent, Tally, Task, akita_events
from akita.trace.xentrace import MAX_CPUS, is_xentrace, read_xentrace

import xentrace_writer as xw
from xentrace_writer import BLOCKED, OFFLINE, RUNNABLE, Xen, chunk, record, runstate

HZ = 2_000_000_000  # 2 cycles per ns
DATA = Path(__file__).resolve().parents[1] / "data"
REAL = DATA / "xentrace-credit2-excerpt.bin.gz"


def read(data: bytes, *, path: str = "t.bin", hz: int = HZ,
         tally: Tally | None = None) -> list[SchedEvent]:
    return list(read_xentrace(io.BytesIO(data), path=path, cpu_hz=hz, tally=tally))


def refusal(data: bytes) -> str:
    with pytest.raises(KernelTraceError) as caught:
        read(data)
    return str(caught.value)


def task(name: str) -> Task:
    return Task(pid=name, comm=name)


def switch(ns: int, cpu: int, prev: str | None, runnable: bool, nxt: str | None) -> SchedEvent:
    return SchedEvent(ns=ns, cpu=cpu, kind="switch", where="", line=0,
                      prev=None if prev is None else task(prev), prev_runnable=runnable,
                      next=None if nxt is None else task(nxt))


def wakeup(ns: int, cpu: int, name: str, target: int | None) -> SchedEvent:
    return SchedEvent(ns=ns, cpu=cpu, kind="wakeup", where="", line=0, task=task(name),
                      target_cpu=target)


def migrate(ns: int, cpu: int, name: str, target: int) -> SchedEvent:
    return SchedEvent(ns=ns, cpu=cpu, kind="migrate", where="", line=0, task=task(name),
                      target_cpu=target)


def bare(events: list[SchedEvent]) -> list[SchedEvent]:
    """*events* without their places, to compare with a schedule."""
    return [attrs.evolve(e, where="", line=0) for e in events]


D1, D2 = (1, 0), (2, 0)


def schedule(xen: Xen) -> list[SchedEvent]:
    """A known schedule on 2 pCPUs written into *xen*; its events (origin: tsc 1000)."""
    xen.raw(0, record(xw.TRC_HVM_VMENTRY, tsc=1_000))     # the first record: the origin
    xen.wake(0, 2_000, D1)                                 # d1v0 woken by pCPU 0
    xen.switch(0, 3_000, None, RUNNABLE, D1)               # idle -> d1v0
    xen.wake(1, 3_500, D2)
    xen.switch(1, 4_000, None, RUNNABLE, D2)
    xen.block(0, 5_000, D1)
    xen.switch(0, 5_100, D1, BLOCKED, None)                # d1v0 blocks
    xen.wake(1, 6_000, D1)                                 # pCPU 1 wakes d1v0 (it ran on 0)
    xen.switch(1, 7_000, D2, RUNNABLE, D1)                 # d2v0 preempted by d1v0, moved
    xen.switch(0, 8_000, None, RUNNABLE, D2)               # d2v0 moves to pCPU 0
    xen.raw(0, record(xw.TRC_SCHED_YIELD, 2, 0, tsc=8_900))
    xen.switch(0, 9_000, D2, RUNNABLE, None)               # it yields: still runnable
    xen.raw(1, record(xw.TRC_SCHED_SLEEP, 1, 0, tsc=9_900))
    xen.switch(1, 10_000, D1, OFFLINE, None)               # d1v0 paused
    return [
        wakeup(500, 0, "d1v0", None),
        switch(1_000, 0, None, True, "d1v0"),
        wakeup(1_250, 1, "d2v0", None),
        switch(1_500, 1, None, True, "d2v0"),
        switch(2_050, 0, "d1v0", False, None),
        wakeup(2_500, 1, "d1v0", 0),
        migrate(3_000, 0, "d1v0", 1),
        switch(3_000, 1, "d2v0", True, "d1v0"),
        migrate(3_500, 1, "d2v0", 0),
        switch(3_500, 0, None, True, "d2v0"),
        switch(4_000, 0, "d2v0", True, None),
        switch(4_500, 1, "d1v0", False, None),
    ]


# -- round trips ----------------------------------------------------------------------------


def test_a_known_schedule_on_two_pcpus_reads_back_exactly():
    xen = Xen(2)
    expected = schedule(xen)
    data = xen.poll()  # pCPU 0's whole chunk, then pCPU 1's: out of time order
    events = read(data)
    assert bare(events) == expected
    assert [e.line for e in events] == list(range(1, len(expected) + 1))
    for e in events:  # each event names its record: a TRC_SCHED_SWITCH or a runstate change
        offset = int(e.where.removeprefix("t.bin@0x"), 16)
        header = struct.unpack_from("<I", data, offset)[0] & 0x0FFFFFFF
        assert header == (xw.TRC_SCHED_SWITCH if e.kind != "wakeup" else
                          xw.TRC_SCHED_RUNSTATE_CHANGE | BLOCKED << 8 | RUNNABLE << 4)


def test_chunks_in_any_order_and_polls_give_the_same_events():
    one = Xen(2)
    expected = schedule(one)
    reversed_chunks = one.poll(order=[1, 0])
    assert bare(read(reversed_chunks)) == expected
    many = Xen(2)
    schedule(many)
    # the same records, drained in three rounds of single records and the rest
    parts = []
    for cpu in (1, 0, 1):
        first, *rest = many.buffers[cpu]
        parts.append(chunk(cpu, [first]))
        many.buffers[cpu] = rest
    assert bare(read(b"".join(parts) + many.poll())) == expected


def test_times_are_exact_integers_from_the_first_record():
    base, gap, hz = 2**40 + 7, 3 * 10**12, 2_394_455_000
    xen = Xen(1)
    xen.raw(0, record(xw.TRC_HVM_VMENTRY, tsc=base))  # of any class: it sets the origin
    xen.switch(0, base + 10, None, RUNNABLE, D1)
    xen.switch(0, base + gap, D1, BLOCKED, None)
    first, second = read(xen.poll(), hz=hz)
    assert first.ns == 4  # 10 cycles at 2.394455 GHz: 4.176 ns, rounded down
    assert second.ns == 1_252_894_708_816  # 3 * 10**21 // 2_394_455_000, no float


def test_a_spurious_wake_and_a_pause_while_queued_are_no_events():
    xen = Xen(1)
    xen.switch(0, 100, None, RUNNABLE, D1)
    xen.raw(0, record(xw.TRC_SCHED_WAKE, 1, 0, tsc=200))   # already running: no runstate change
    xen.raw(0, runstate(D2, RUNNABLE, OFFLINE, 300))        # d2v0 paused in the queue
    xen.raw(0, record(xw.TRC_SCHED_CONTINUE_RUNNING, 1 << 16, tsc=400))
    assert [e.kind for e in read(xen.poll())] == ["switch"]


def test_wrap_padding_may_sit_between_a_switch_and_its_runstate_change():
    xen = Xen(1)
    xen.switch(0, 100, None, RUNNABLE, D1)
    records = xen.buffers[0]
    records.insert(3, record(xw.TRC_TRACE_WRAP_BUFFER, 0, 0, 0))           # no cycles
    records.insert(4, record(xw.TRC_TRACE_WRAP_BUFFER, *[0] * 7, tsc=100))  # with cycles
    assert bare(read(xen.poll())) == [switch(1, 0, None, True, "d1v0")]  # origin: INFPREV


def test_a_switch_may_wait_for_its_runstate_change_in_the_next_chunk():
    xen = Xen(2)
    xen.switch(0, 100, None, RUNNABLE, D1)
    records = xen.buffers[0]
    data = chunk(0, records[:3]) + chunk(1, [record(xw.TRC_HVM_VMENTRY, tsc=50)])
    data += chunk(0, records[3:])
    assert bare(read(data)) == [switch(25, 0, None, True, "d1v0")]


@pytest.mark.parametrize("block", [4, 12, 16, 20, 28, 40, 64, 1 << 16])
def test_records_cut_by_the_block_size_read_the_same(monkeypatch, block):
    xen = Xen(2)
    expected = schedule(xen)
    data = xen.poll()
    monkeypatch.setattr(xentrace, "BLOCK_BYTES", block)
    events = read(data)
    assert bare(events) == expected


def test_the_tally_counts_every_record():
    xen = Xen(2)
    schedule(xen)
    tally = Tally()
    read(xen.poll(), tally=tally)
    # pCPU 0: vmentry 1, a wake 2, 4 switches 20, block 1, yield 1 = 25; pCPU 1: 2 wakes 4,
    # 3 switches 15, sleep 1 = 20; and two chunk headers
    assert tally.records == 25 + 20 + 2


def test_events_become_oracle_events_through_the_mapping():
    xen = Xen(2)
    schedule(xen)
    events = list(akita_events(read(xen.poll()), {"d1v0": "web/0"}))
    assert [(e["t"], e["cpu"], e["event"], e.get("vcpu")) for e in events] == [
        (0, 0, "wake", "web/0"),
        (500, 0, "dispatch", "web/0"),
        (1_000, 1, "idle", None),
        (1_550, 0, "block", "web/0"),
        (1_550, 0, "idle", None),
        (2_000, 0, "wake", "web/0"),
        (2_500, 1, "dispatch", "web/0"),
        (4_000, 1, "block", "web/0"),
        (4_000, 1, "idle", None),
    ]


# -- refusals ---------------------------------------------------------------------------------


def at(message: str, offset: int) -> bool:
    return message.startswith(f"t.bin@0x{offset:x}: ")


def test_lost_records_are_refused():
    lost = record(xw.TRC_LOST_RECORDS, 17, 1 << 16, 5, 0, tsc=150)
    xen = Xen(1)
    xen.switch(0, 100, None, RUNNABLE, D1)
    xen.raw(0, lost)
    data = xen.poll()
    message = refusal(data)
    assert at(message, data.index(lost)) and "17 records lost on pCPU 0" in message
    assert "xentrace -S" in message


def test_a_switch_without_a_cycle_count_is_refused():
    data = chunk(0, [record(xw.TRC_SCHED_SWITCH, xw.IDLE, 0, 1, 0)])
    message = refusal(data)
    assert at(message, 12) and "the oracle needs times" in message


def test_a_wakeup_without_a_cycle_count_is_refused():
    data = chunk(0, [runstate(D1, BLOCKED, RUNNABLE, None)])
    assert "the oracle needs times" in refusal(data)


def test_a_switch_without_its_runstate_change_is_refused():
    xen = Xen(1)
    xen.switch(0, 100, None, RUNNABLE, D1)
    del xen.buffers[0][3:]  # traced with -e 0x00028000: no TRC_SCHED_MIN records
    xen.raw(0, record(xw.TRC_HVM_VMENTRY, tsc=200))
    data = xen.poll()
    message = refusal(data)
    assert at(message, data.index(record(xw.TRC_SCHED_SWITCH, xw.IDLE, 0, 1, 0, tsc=100)))
    assert "-e 0x0002f000" in message and "0x00081001" in message


@pytest.mark.parametrize("after, text", [
    (runstate(D1, 0, BLOCKED, 101), "d1v0 running -> blocked next"),       # another vCPU
    (runstate(D2, RUNNABLE, BLOCKED, 101), "d2v0 runnable -> blocked next"),  # not from running
    (runstate(D2, 0, 0, 101), "d2v0 running -> running next"),
    (record(xw.TRC_SCHED_RUNSTATE_CHANGE | 4 << 4, 2 << 16, tsc=101), "states from 0"),
    (runstate(D2, 0, BLOCKED, None), "the oracle needs times"),
    (record(xw.TRC_SCHED_RUNSTATE_CHANGE | BLOCKED << 4, tsc=101), "at least 1"),
])
def test_a_switch_followed_by_another_runstate_change_is_refused(after, text):
    xen = Xen(1)
    xen.switch(0, 100, D2, BLOCKED, D1)
    xen.buffers[0][3] = after
    data = xen.poll()
    message = refusal(data)
    assert text in message and at(message, data.index(xen_switch_record(D2, D1, 100)))


def xen_switch_record(prev: tuple[int, int], nxt: tuple[int, int], tsc: int) -> bytes:
    return record(xw.TRC_SCHED_SWITCH, *prev, *nxt, tsc=tsc)


def test_a_trace_that_stops_after_a_switch_is_refused():
    xen = Xen(1)
    xen.switch(0, 100, None, RUNNABLE, D1)
    del xen.buffers[0][3:]
    assert "the end of the trace" in refusal(xen.poll())


def test_a_cycle_count_that_goes_backwards_is_refused():
    xen = Xen(1)
    xen.switch(0, 100, None, RUNNABLE, D1)
    xen.raw(0, record(xw.TRC_HVM_VMENTRY, tsc=50))
    assert "at or after pCPU 0's previous one, 102" in refusal(xen.poll())


def test_a_vcpu_on_two_pcpus_at_once_is_refused():
    xen = Xen(2)
    xen.switch(0, 100, None, RUNNABLE, D1)
    xen.raw(0, record(xw.TRC_HVM_VMENTRY, tsc=1_000))
    xen.switch(1, 200, None, RUNNABLE, D1)
    assert "TSC skew" in refusal(xen.poll())


def test_a_pcpu_whose_records_end_early_is_named():
    xen = Xen(2)
    xen.switch(0, 100, None, RUNNABLE, D1)  # pCPU 0's records stop with d1v0 running
    xen.switch(1, 200, None, RUNNABLE, D1)
    assert "pCPU 0's records end before this switch" in refusal(xen.poll())


def test_a_wrong_state_and_wrong_ids_are_refused():
    assert "states from 0 (running) to 3" in refusal(
        chunk(0, [record(xw.TRC_SCHED_RUNSTATE_CHANGE | 4 << 8 | 1 << 4, 1 << 16, tsc=1)]))
    assert "16 bits" in refusal(
        chunk(0, [record(xw.TRC_SCHED_SWITCH, 1 << 16, 0, 1, 0, tsc=1)]))
    assert "at least 4" in refusal(chunk(0, [record(xw.TRC_SCHED_SWITCH, 1, 0, tsc=1)]))


@pytest.mark.parametrize("data, offset, text", [
    (b"\x00" * 12, 0, "header word 0x2001f003"),
    (struct.pack("<IiI", 0x2001F003, MAX_CPUS, 4) + b"\x00" * 4, 0, "a pCPU number"),
    (struct.pack("<IiI", 0x2001F003, -1, 4) + b"\x00" * 4, 0, "a pCPU number"),
    (struct.pack("<IiI", 0x2001F003, 0, 6) + b"\x00" * 8, 0, "whole 4-byte words"),
    (struct.pack("<IiI", 0x2001F003, 0, 0), 0, "a positive number"),
    (chunk(0, [record(xw.TRC_HVM_VMENTRY, tsc=5)]) + b"\x03\xf0\x01", 24, "12-byte"),
    (chunk(0, [record(xw.TRC_HVM_VMENTRY, tsc=5)])[:-4], 0, "within the file"),
    (struct.pack("<IiI", 0x2001F003, 0, 8) + record(xw.TRC_HVM_VMENTRY, tsc=5), 20,
     "12-byte"),
    (struct.pack("<IiI", 0x2001F003, 0, 8) + record(xw.TRC_HVM_VMENTRY, tsc=5)[:8], 12,
     "end with pCPU 0's window at 0x14"),
    (chunk(0, [chunk(1, [])[:12]]), 12, "CPU-change records only between windows"),
])
def test_a_file_that_is_not_chunks_is_refused_at_its_offset(data, offset, text):
    message = refusal(data)
    assert at(message, offset) and text in message, message


def test_arguments_are_checked_at_once():
    for hz in (0, True, 2400, 2.4e9, "2400000000"):
        with pytest.raises(ModelError):
            read_xentrace(io.BytesIO(b""), path="t.bin", cpu_hz=hz)  # type: ignore[arg-type]

    class Pipe(io.BytesIO):
        def seekable(self) -> bool:
            return False

    with pytest.raises(KernelTraceError, match="save a pipe to a file"):
        read_xentrace(Pipe(b""), path="t.bin", cpu_hz=HZ)


def test_an_empty_file_has_no_events():
    tally = Tally()
    assert read(b"", tally=tally) == [] and tally.records == 0


# -- recognizing a capture --------------------------------------------------------------------


def test_is_xentrace_recognizes_the_first_chunk_header_only():
    xen = Xen(2)
    schedule(xen)
    assert is_xentrace(xen.poll()[:12])
    assert is_xentrace(chunk(MAX_CPUS - 1, [record(1, tsc=1)]))
    for other in (b"", b"\x03\xf0\x01\x20" + b"\0" * 7,
                  b"<idle>-0     [001] d..2.  5123.456789: sched_switch: prev_comm=x",
                  b'{"akita_trace": 1}\n', b"\x17\x08\x44tracing6\0\0\0",
                  chunk(MAX_CPUS, [record(1, tsc=1)]),
                  struct.pack("<IiI", 0x2001F003, 0, 6), struct.pack("<IiI", 0x2001F003, 0, 0),
                  struct.pack("<IiI", 0xA001F003, 0, 8)):
        assert not is_xentrace(other), other


# -- generated schedules ----------------------------------------------------------------------


@st.composite
def schedules(draw: st.DrawFn) -> tuple[Xen, list[bytes]]:
    """A consistent random schedule of 3 vCPUs on 3 pCPUs, written as xentrace would poll it."""
    cpus = 3
    xen = Xen(cpus)
    running: list[tuple[int, int] | None] = [None] * cpus
    state = {(1, v): BLOCKED for v in range(3)}
    tsc = draw(st.integers(0, 2**48))
    polls = []
    for _ in range(draw(st.integers(1, 40))):
        tsc += draw(st.integers(5, 10**6))  # a switch's records span tsc - 2 to tsc + 2
        cpu = draw(st.integers(0, cpus - 1))
        blocked = [v for v, s in state.items() if s in (BLOCKED, OFFLINE)]
        queued = [v for v, s in state.items() if s == RUNNABLE]
        action = draw(st.sampled_from(["wake", "switch", "poll"]))
        if action == "wake" and blocked:
            who = draw(st.sampled_from(blocked))
            xen.wake(cpu, tsc, who, old=state[who])
            state[who] = RUNNABLE
        elif action == "switch":
            nxt = draw(st.sampled_from([None, *queued]))
            prev = running[cpu]
            if prev == nxt:
                continue
            left = draw(st.sampled_from([RUNNABLE, BLOCKED, OFFLINE]))
            xen.switch(cpu, tsc, prev, left, nxt)
            if prev is not None:
                state[prev] = left
            if nxt is not None:
                state[nxt] = 0
            running[cpu] = nxt
        elif action == "poll":
            polls.append(xen.poll(order=draw(st.permutations(range(cpus)))))
    polls.append(xen.poll())
    return xen, polls


@given(schedules())
def test_any_polling_of_a_schedule_merges_into_time_order(case):
    _, polls = case
    events = read(b"".join(polls))
    assert all(a.ns <= b.ns for a, b in zip(events, events[1:]))
    whole = b"".join(polls)
    # the same records, re-framed as one chunk per pCPU (all of a pCPU, in its order)
    per_cpu: dict[int, list[bytes]] = {}
    for cpu, window in _chunks(whole):
        per_cpu.setdefault(cpu, []).append(window)
    reframed = b"".join(chunk(cpu, parts) for cpu, parts in sorted(per_cpu.items(), reverse=True))
    assert bare(read(reframed)) == bare(events)
    switches = sum(1 for _, window in _chunks(whole) for r in _records(window)
                   if r[0] == xw.TRC_SCHED_SWITCH)
    assert sum(e.kind == "switch" for e in events) == switches


# -- junk -------------------------------------------------------------------------------------


def _sample() -> bytes:
    xen = Xen(2)
    schedule(xen)
    return xen.poll()


def _survives(data: bytes) -> None:
    try:
        read(data)
    except KernelTraceError as error:
        assert str(error).startswith("t.bin@0x")


def test_every_truncation_is_read_or_refused_in_one_line():
    data = _sample()
    for end in range(len(data) + 1):
        _survives(data[:end])


@given(st.binary(max_size=600))
def test_random_bytes_are_read_or_refused_in_one_line(junk):
    _survives(junk)
    words = junk[:len(junk) // 4 * 4]  # the same bytes as the window of a well-framed chunk
    _survives(struct.pack("<IiI", 0x2001F003, 0, len(words)) + words)


@given(st.data())
def test_bit_flips_are_read_or_refused_in_one_line(data):
    sample = bytearray(_sample())
    for _ in range(data.draw(st.integers(1, 4))):
        bit = data.draw(st.integers(0, 8 * len(sample) - 1))
        sample[bit // 8] ^= 1 << bit % 8
    _survives(bytes(sample))


# -- a real capture ---------------------------------------------------------------------------


def _chunks(data: bytes):
    """``(cpu, window)`` of each chunk, read simply in file order (for the checks)."""
    pos = 0
    while pos < len(data):
        _, cpu, size = struct.unpack_from("<IiI", data, pos)
        yield cpu, data[pos + 12:pos + 12 + size]
        pos += 12 + size


def _records(window: bytes):
    """``(event, tsc or None, extra words)`` of each record of a window."""
    pos = 0
    while pos < len(window):
        (h,) = struct.unpack_from("<I", window, pos)
        n, cycles = h >> 28 & 7, h >> 31
        words = struct.unpack_from(f"<{n + 2 * cycles}I", window, pos + 4)
        yield (h & 0x0FFFFFFF, words[0] | words[1] << 32 if cycles else None,
               words[2:] if cycles else words)
        pos += 4 * (1 + n + 2 * cycles)


def test_a_real_credit2_capture():
    data = gzip.decompress(REAL.read_bytes())
    assert is_xentrace(data[:12])
    tally = Tally()
    events = read(data, path="x.bin", hz=2_400_000_000, tally=tally)
    chunks = list(_chunks(data))
    records = [(cpu, r) for cpu, window in chunks for r in _records(window)]
    assert tally.records == len(records) + len(chunks)
    assert {cpu for cpu, _ in chunks} == set(range(8))
    assert all(a.ns <= b.ns for a, b in zip(events, events[1:]))
    switches = [r for _, r in records if r[0] == xw.TRC_SCHED_SWITCH]
    wakes = [r for _, r in records if r[0] & 0x0FFFF00F == xw.TRC_SCHED_RUNSTATE_CHANGE
             and r[0] >> 4 & 0xF == RUNNABLE and r[0] >> 8 & 0xF in (BLOCKED, OFFLINE)
             and r[2][0] >> 16 != xw.IDLE]
    kinds = [e.kind for e in events]
    assert kinds.count("switch") == len(switches) > 500
    assert kinds.count("wakeup") == len(wakes) > 200
    streams: dict[int, list] = {}  # each pCPU's records in its order, padding aside
    for cpu, r in records:
        if r[0] != xw.TRC_TRACE_WRAP_BUFFER:
            streams.setdefault(cpu, []).append(r)
    runnable_after = [nxt[0] >> 4 & 0xF == RUNNABLE for stream in streams.values()
                      for r, nxt in zip(stream, stream[1:]) if r[0] == xw.TRC_SCHED_SWITCH]
    assert len(runnable_after) == len(switches)
    assert sorted(e.prev_runnable for e in events if e.kind == "switch") == \
        sorted(runnable_after)
    first = events[0]
    assert (first.where, first.cpu, first.prev, first.prev_runnable, first.next) == \
        ("x.bin@0xcc", 0, task("d0v2"), False, None)
    assert {e.task.pid for e in events if e.kind == "wakeup"} >= {"d0v0", "d0v7"}

"""Malformed structures of a trace.dat refused in one line, at their byte offset.

Two classes the command-line fuzzing campaign found (bench/README.md, "bench/fuzz.py --cli"):
a ``header_page`` whose ``commit`` overlaps its ``timestamp`` (it made
:func:`~akita.trace.ringbuffer.page_layout` build an impossible ``struct`` format), and
an event format that gives a string field (``comm``) an integer type, or an integer field
(``pid``) a string type (it handed an ``int`` to :func:`~akita.trace.eventformat.c_string`).
Each is checked on the function that owns the structure and on a whole file, where the
error names the file, the offset of the structure and what was expected; the well-formed
file next to each is read, so the refusal is the malformation's doing.
"""

from __future__ import annotations

import io
import re

import pytest

from akita.trace.eventformat import parse_format, record_reader
from akita.trace.kernel import KernelTraceError
from akita.trace.ringbuffer import page_layout
from akita.trace.tracedat import read_tracedat
from tracedat_build import (HEADER_EVENT, Parts, build, header_page, page, switch_format,
                            switch_record, wakeup_format, wakeup_record)

SW, WK = 316, 318
A, B = (4242, "CPU 0/KVM"), (77, "qemu-web")
GOOD_PAGE = header_page(8)


def _header(timestamp: int, commit: int, commit_size: int = 8, data: int = 16) -> str:
    return (f"\tfield: u64 timestamp;\toffset:{timestamp};\tsize:8;\tsigned:0;\n"
            f"\tfield: local_t commit;\toffset:{commit};\tsize:{commit_size};\tsigned:1;\n"
            f"\tfield: char data;\toffset:{data};\tsize:{4096 - data};\tsigned:0;\n")


def _file(*, header: str = GOOD_PAGE, switch: str | None = None,
          wakeup: str | None = None, version: int = 6) -> bytes:
    records = [("data", 1, switch_record(SW, A, 0, B)), ("data", 2, wakeup_record(WK, B, 0))]
    parts = Parts(header_page=header, header_event=HEADER_EVENT,
                  systems=[("sched", [(switch or switch_format(SW)).encode(),
                                      (wakeup or wakeup_format(WK)).encode()])],
                  options=[(4, b"[local] global\0")], clock=b"[local]",
                  cpus=[page(100, records)])
    return build(parts, version)


def _read(data: bytes) -> list:
    return list(read_tracedat(io.BytesIO(data), path="t.dat"))


def _refused(data: bytes, at: int, field: str, expected: str) -> None:
    """*data* is refused naming t.dat, the offset *at*, *field* and *expected*."""
    with pytest.raises(KernelTraceError) as caught:
        _read(data)
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(f"t.dat@0x{at:x}: field '{field}'"), line
    assert f"expected {expected}" in line, line


# ---------------------------------------------------------------- header_page


@pytest.mark.parametrize("timestamp, commit", [(1, 8), (0, 4), (8, 0), (4, 4)])
def test_a_commit_that_overlaps_or_precedes_the_timestamp_is_refused(timestamp, commit):
    with pytest.raises(KernelTraceError, match=r"field 'header_page'.*then a 4- or 8-byte "
                                               r"commit, then the data") as caught:
        page_layout(_header(timestamp, commit), HEADER_EVENT, "<", 4096)
    assert f"commit 8 at {commit}" in str(caught.value)


@pytest.mark.parametrize("timestamp, commit, data", [(0, 8, 16), (0, 12, 24), (4, 16, 24)])
def test_a_commit_after_the_timestamp_is_laid_out(timestamp, commit, data):
    layout = page_layout(_header(timestamp, commit, data=data), HEADER_EVENT, "<", 4096)
    raw = bytearray(4096)
    raw[timestamp:timestamp + 8] = (123).to_bytes(8, "little")
    raw[commit:commit + 8] = (45).to_bytes(8, "little")
    assert layout.header.unpack_from(bytes(raw), 0) == (123, 45) and layout.data == data


@pytest.mark.parametrize("version", [6, 7])
def test_a_file_whose_commit_overlaps_the_timestamp_is_refused_at_its_header_page(version):
    assert len(_read(_file(version=version))) == 2
    data = _file(header=_header(1, 8), version=version)
    _refused(data, data.index(b"header_page\0"), "header_page",
             "an 8-byte timestamp, then a 4- or 8-byte commit")


# ---------------------------------------------------------------- event fields of the wrong kind


def _retyped(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1
    return text.replace(old, new)


_INT_COMM = ("field:char comm[16];\toffset:8;\tsize:16;", "field:int comm;\toffset:8;\tsize:4;")
_STR_PID = ("field:pid_t pid;\toffset:24;\tsize:4;", "field:char pid[4];\toffset:24;\tsize:4;")


@pytest.mark.parametrize("name, old, new, expected", [
    ("comm", *_INT_COMM, "a string"),
    ("pid", *_STR_PID, "an integer of 1, 2, 4 or 8 bytes"),
])
def test_record_reader_refuses_a_field_of_the_wrong_kind(name, old, new, expected):
    good = parse_format(wakeup_format(WK), "sched")
    assert record_reader(good, ["comm", "pid"], "<", text=["comm"]).need == 28
    bad = parse_format(_retyped(wakeup_format(WK), old, new), "sched")
    with pytest.raises(KernelTraceError, match=rf"'sched:sched_wakeup\.{name}'.*"
                                               rf"expected {re.escape(expected)}"):
        record_reader(bad, ["comm", "pid"], "<", text=["comm"])


def test_a_data_loc_comm_is_a_string():
    text = _retyped(wakeup_format(WK), "field:char comm[16];\toffset:8;\tsize:16;",
                    "field:__data_loc char[] comm;\toffset:8;\tsize:4;")
    reader = record_reader(parse_format(text, "sched"), ["comm", "pid"], "<", text=["comm"])
    record = bytearray(wakeup_record(WK, A, 0))
    record[8:12] = (28 | 4 << 16).to_bytes(4, "little")  # the 4 bytes after pid, prio's place
    record[28:32] = b"kvm\0"
    assert reader.read(bytes(record), 0, len(record)) == (b"kvm\0", A[0])


@pytest.mark.parametrize("event, old, new, field", [
    ("wakeup", *_INT_COMM, "sched:sched_wakeup.comm"),
    ("wakeup", *_STR_PID, "sched:sched_wakeup.pid"),
    ("switch", "field:char prev_comm[16];\toffset:8;\tsize:16;",
     "field:long prev_comm;\toffset:8;\tsize:8;", "sched:sched_switch.prev_comm"),
    ("switch", "field:pid_t next_pid;\toffset:56;\tsize:4;",
     "field:char next_pid[4];\toffset:56;\tsize:4;", "sched:sched_switch.next_pid"),
])
def test_a_file_with_a_field_of_the_wrong_kind_is_refused_at_its_format(event, old, new, field):
    text = _retyped(wakeup_format(WK) if event == "wakeup" else switch_format(SW), old, new)
    data = _file(**{event: text})
    at = data.index(text.encode()[:40]) - 8  # the format's 8-byte size comes first
    _refused(data, at, field, "a string" if "comm" in field else "an integer")

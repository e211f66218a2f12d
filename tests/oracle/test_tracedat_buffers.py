"""trace.dat buffers: the top one and every trace instance's, in versions 6 and 7.

``trace-cmd extract -B INSTANCE`` writes a tracefs instance's records into
that instance's buffer and leaves the top one empty.  The real files
(tests/data/instance, README there) were recorded this way on this machine:
three SCHED_DEADLINE tasks traced through an instance of their own; version
7 as trace-cmd wrote it, version 6 by ``trace-cmd convert``.  Every kept
event must be the one ``trace-cmd report -t -N`` prints.
"""

from __future__ import annotations

import pytest
from repo import ROOT
from test_tracedat import read_file, report_events, shape

from akita.model import load_host
from akita.oracle import conform_file
from akita.trace.ftrace import parse_seconds
from akita.trace.kernel import KernelTraceError, Tally
from akita.trace.tracedat import read_tracedat
from akita.trace.jsonl import TraceError

DATA = ROOT / "tests" / "data" / "instance"
FILES = ["dl.v7.dat", "dl.v6.dat"]


@pytest.mark.parametrize("name", FILES)
def test_an_instance_buffer_is_read_as_trace_cmd_reports_it(name):
    expected, digits = report_events(DATA / "dl.report.txt")
    tally = Tally()
    events = read_file(DATA / name, tally)
    assert digits == 9 and len(expected) == 154
    assert [shape(e) for e in events] == expected


@pytest.mark.parametrize("name", FILES)
def test_the_instance_is_chosen_by_name_and_the_empty_top_is_empty(name):
    with (DATA / name).open("rb") as stream:
        named = list(read_tracedat(stream, path=name, buffer="akita_oracle_10424"))
    assert len(named) == 154
    with (DATA / name).open("rb") as stream:
        assert list(read_tracedat(stream, path=name, buffer="top")) == []
    with (DATA / name).open("rb") as stream, pytest.raises(
            KernelTraceError, match=r"field 'buffer': expected a buffer of the file \('top', "
                                    r"'akita_oracle_10424'\), got 'nope'"):
        read_tracedat(stream, path=name, buffer="nope")


@pytest.mark.parametrize("name", FILES)
def test_conform_judges_the_instance(name):
    origin = parse_seconds((DATA / "dl.txt").read_text().rsplit("T0 = ", 1)[1].strip())
    report = conform_file(load_host(DATA / "dl.toml"), DATA / name, policy="edf",
                          placement="trace", origin_ns=origin)
    assert report.verdict == "conformant" and report.decisions == 59
    assert report.vcpus_seen == 3 and report.lost == 0


def test_the_empty_top_buffer_chosen_is_nothing_to_read():
    with pytest.raises(TraceError, match="0 records, none of them a scheduler event"):
        conform_file(load_host(DATA / "dl.toml"), DATA / "dl.v7.dat", policy="edf",
                     placement="trace", buffer="top")

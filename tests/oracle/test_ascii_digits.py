"""Every numeric field the oracle reads from text is ASCII digits; free text stays text.

Python's ``\\d`` in a ``str`` pattern and :meth:`str.isdigit` take any script's digits
(Arabic-Indic ``'٤٢'``, which :func:`int` reads as 42) and ``isdigit`` also takes
superscripts (``'²'``, which :func:`int` refuses).  A kernel prints ASCII, so a pid, a time,
a CPU, a count, a format's offset or a tick in other digits is refused in one line at its
place; a comm, which is free text, is read as the text it is.
"""

from __future__ import annotations

import re

import pytest

from akita.oracle.claims import capture_claims
from akita.trace.eventformat import parse_fields, parse_format
from akita.trace.ftrace import read_ftrace, sched_events
from akita.trace.kernel import KernelTraceError, ascii_digits
from akita.trace.ringbuffer import page_layout
from akita.trace.jsonl import TraceError
from repo import ROOT
from tracedat_build import HEADER_EVENT, header_page, wakeup_format

AR = "\u0664\u0662"  # Arabic-Indic 42
SW = "prev_comm=a prev_pid={pid} prev_prio=120 prev_state=S ==> next_comm={comm} next_pid=7 " \
     "next_prio=120"


def line(body: str, *, event: str = "sched_switch", time_: str = "100.000001",
         cpu: str = "[001]") -> str:
    return f"{'x-1':>16} {cpu} d..2. {time_}: {event}: {body}"


def events(lines: list[str]) -> list:
    return list(sched_events(lines, path="t.txt"))


def test_ascii_digits():
    assert ascii_digits("0123456789") and ascii_digits("007")
    assert not any(ascii_digits(t) for t in ("", AR, "\u00b2", "4\u0662", "-1", " 1", "1.0"))
    assert AR.isdigit() and "\u00b2".isdigit()  # what str.isdigit takes, and this refuses


# -- ftrace text: numbers refused at their line, a comm read as text ----------------------

@pytest.mark.parametrize("lines, what", [
    ([line(SW.format(pid=AR, comm="b"))], f"prev_pid='{AR}' is not a pid"),
    ([line(SW.format(pid="42", comm="b").replace("next_pid=7", f"next_pid={AR}"))],
     "is not a pid"),
    ([line(SW.format(pid="42", comm="b").replace("prev_state=S", "prev_state=\u0661"))],
     "is not a state"),
    ([line("comm=a pid=\u0664 prio=120 target_cpu=001", event="sched_wakeup")],
     "pid='\u0664' is not a pid"),
    ([line("comm=a pid=4 prio=120 target_cpu=\u0660\u0660\u0661", event="sched_wakeup")],
     "is not a CPU number"),
    ([line(SW.format(pid="42", comm="b"), time_="100.00000\u0661")], "field 'line'"),
    ([line(SW.format(pid="42", comm="b"), time_="\u0661\u0660\u0660.000001")], "field 'line'"),
    ([line(SW.format(pid="42", comm="b"), cpu="[\u0660\u0660\u0661]")], "field 'line'"),
    ([f"CPU:1 [LOST {AR} EVENTS]"], "field 'lost events'"),
    ([f"CPU:1 [{AR} EVENTS DROPPED]"], "field 'lost events'"),
    ([f"CPU:\u0661 [LOST 42 EVENTS]"], "a lost-events line naming its CPU"),
])
def test_a_number_in_other_digits_is_refused_at_its_line(lines, what):
    good = [ln.replace(AR, "42").translate(str.maketrans("\u0660\u0661\u0664", "014"))
            for ln in lines]
    assert events(good)  # the same line in ASCII digits is read
    with pytest.raises(KernelTraceError, match=rf"^t\.txt:1: .*{re.escape(what)}"):
        events(lines)


def test_a_comm_in_other_digits_is_text():
    (e,) = events([line(SW.format(pid="42", comm=f"w{AR}"))])
    assert (e.next.pid, e.next.comm) == ("7", f"w{AR}")
    (w,) = events([line(f"comm={AR} pid=4 prio=120 target_cpu=001", event="sched_wakeup")])
    assert (w.task.pid, w.task.comm, w.target_cpu) == ("4", AR, 1)


# -- the controller's marks and a capture's claims ------------------------------------------

MARKS = ["   akita-9   [000] ...1.   1.500000: tracing_mark_write: akita: origin",
         "   akita-9   [000] ...1.   1.800100: tracing_mark_write: akita: {mark}"]


@pytest.mark.parametrize("mark, expected", [
    (f"mode pcpu={AR} HI", "pcpu=N"), ("mode pcpu=\u00b2 HI", "pcpu=N"),
    (f"temperature pcpu=0 vcpu=web/0 value={AR}", "value=K"),
    ("temperature pcpu=0 vcpu=web/0 value=\u00b2", "value=K"),
])
def test_a_mark_number_in_other_digits_is_refused(mark, expected):
    good = [MARKS[0], MARKS[1].format(mark=mark.replace(AR, "1").replace("\u00b2", "2"))]
    assert [e["event"] for e in read_ftrace(good, {})][-1] in ("mode", "temperature")
    with pytest.raises(KernelTraceError, match=rf"^<ftrace>:2: field 'mark'.*{expected}"):
        list(read_ftrace([MARKS[0], MARKS[1].format(mark=mark)], {}))


@pytest.mark.parametrize("tick", [AR, "\u00b2", "4\u0660"])
def test_a_tick_in_other_digits_is_refused(tick):
    first = "# akita-linux capture: policy=akita-linux reports=dispatch,idle tick={}"
    assert capture_claims(first.format("4000000")).tick_ns == 4_000_000
    with pytest.raises(TraceError, match=rf"field 'tick'.*got '{tick}'"):
        capture_claims(first.format(tick))


# -- trace.dat's text parts: event formats and the page headers -----------------------------

def test_a_format_offset_size_or_id_in_other_digits_is_no_field():
    text = wakeup_format(318)
    assert parse_fields(text)["pid"].offset == 24
    assert "pid" not in parse_fields(text.replace("offset:24;", f"offset:{AR};"))
    assert "pid" not in parse_fields(text.replace("pid;\toffset:24;\tsize:4;",
                                                  "pid;\toffset:24;\tsize:\u0664;"))
    with pytest.raises(KernelTraceError, match="'ID:'"):
        parse_format(text.replace("ID: 318", f"ID: {AR}"), "sched")


@pytest.mark.parametrize("header, event", [
    (header_page(8).replace("offset:8;\tsize:8;", "offset:\u0668;\tsize:8;"), HEADER_EVENT),
    (header_page(8), HEADER_EVENT.replace("5 bits", "\u0665 bits")),
])
def test_a_page_header_number_in_other_digits_is_refused(header, event):
    assert page_layout(header_page(8), HEADER_EVENT, "<", 4096).data == 16
    with pytest.raises(KernelTraceError, match="field 'header_(page|event)'"):
        page_layout(header, event, "<", 4096)


# -- no Unicode \d left in the readers -------------------------------------------------------

READERS = sorted((ROOT / "oracle").glob("*.py")) + [ROOT / "linux" / "capture.py",
                                                    ROOT / "linux" / "wakeups.py"]
#: The one deliberate Unicode ``\d``: the loose test that refuses (not skips) a line whose
#: time is in other digits.
ALLOWED = {("ftrace.py", "_KEPT_AFTER_TIME")}


def test_no_reader_pattern_takes_digits_of_other_scripts():
    found = []
    for path in READERS:
        for number, text in enumerate(path.read_text().splitlines(), 1):
            if "\\d" in text and not any(path.name == name and text.startswith(what)
                                         for name, what in ALLOWED):
                found.append(f"{path.name}:{number}: {text.strip()}")
    assert found == []

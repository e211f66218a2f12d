"""Verdicts a kernel engineer can trust (issue 14): the tolerance, placement from the trace,
a trace that cannot be judged, the first finding of each rule, the timeline.

Each behaviour is shown beside the setting that turns it off, so that each
assertion could fail.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from akita.model import VM, Criticality, Host, SchedulerOptions
from akita.oracle import TraceError, conform, conform_stream
from akita.oracle.placement import LOOKAHEAD, look_ahead, trace_placement
from akita.oracle.tolerance import (AKITA_LINUX_TOLERANCE_NS, KERNEL_TOLERANCE_NS,
                                   default_tolerance)

MS, US = 1_000_000, 1_000
DECIDED = ("dispatch", "idle")
SYNC = SchedulerOptions(phases="synchronous")


def lo(name: str, period: int = 10 * MS, c: int = 2 * MS) -> VM:
    return VM(name, Criticality.LO, period, c)


def ev(t: int, kind: str, vcpu: str | None = None, cpu: int = 0) -> dict[str, Any]:
    event: dict[str, Any] = {"t": t, "cpu": cpu, "event": kind}
    return event if vcpu is None else event | {"vcpu": vcpu}


def late_run(delay: int) -> list[dict[str, Any]]:
    """a wakes at 0 and runs *delay* ns later (a scheduling latency), then blocks."""
    return [ev(0, "wake", "a/0"), ev(0, "idle"), ev(delay, "dispatch", "a/0"),
            ev(delay + MS, "block", "a/0"), ev(delay + MS, "idle")]


# -- the tolerance ---------------------------------------------------------------------------

def test_a_latency_within_the_tolerance_is_counted_not_hidden():
    host = Host(1, [lo("a")], options=SYNC)
    report = conform(host, late_run(6 * US), end=10 * MS, reports=DECIDED, tolerance=20 * US)
    assert report.verdict == "conformant"
    assert report.tolerated == {"R7": (1, 6 * US)}
    assert "within it: R7 x1 (up to 6us)" in report.summary()
    assert report.as_json()["within_tolerance"] == {"R7": {"count": 1, "max_ns": 6 * US}}


def test_the_same_latency_beyond_the_tolerance_is_a_violation():
    host = Host(1, [lo("a")], options=SYNC)
    report = conform(host, late_run(6 * US), end=10 * MS, reports=DECIDED, tolerance=5 * US)
    assert report.verdict == "violations" and report.counts == {"R7": 1}
    assert report.tolerated == {}


def test_kernel_traces_default_to_a_measured_latency_and_json_lines_to_exact():
    assert default_tolerance(kernel=True)[0] == KERNEL_TOLERANCE_NS > 0
    assert default_tolerance(kernel=False)[0] == 0
    host = Host(1, [lo("a")], options=SYNC, trace_map=(("4242", "a/0"),))
    text = ("a-4242 [000] d..2. 1.000000: sched_wakeup: comm=a pid=4242 prio=120 "
            "target_cpu=000\n"
            "b-7 [000] d..2. 1.000100: sched_switch: prev_comm=b prev_pid=7 prev_prio=120 "
            "prev_state=S ==> next_comm=a next_pid=4242 next_prio=120\n")
    report = conform_stream(host, io.StringIO(text))
    assert report.tolerance == KERNEL_TOLERANCE_NS and report.verdict == "conformant"
    assert report.tolerance_source.startswith("default for kernel traces")
    exact = conform_stream(host, io.StringIO(text), tolerance=0)
    assert exact.verdict == "violations" and exact.tolerance_source == "given"


def test_an_akita_linux_capture_defaults_to_the_latency_plus_the_controllers_reaction():
    """Decision 349: the akita-linux rule set's default is its own measured figure; the same
    capture judged by Akita's rules keeps the kernel default."""
    assert default_tolerance(kernel=True, policy="akita-linux")[0] == AKITA_LINUX_TOLERANCE_NS
    assert AKITA_LINUX_TOLERANCE_NS > KERNEL_TOLERANCE_NS
    assert default_tolerance(kernel=False, policy="akita-linux")[0] == 0  # JSON Lines: exact
    host = Host(1, [lo("a")], options=SYNC, trace_map=(("4242", "a/0"),))
    text = ("# akita-linux capture: policy=akita-linux reports=dispatch,idle tick=4000000\n"
            "a-4242 [000] d..2. 1.000000: sched_wakeup: comm=a pid=4242 prio=120 "
            "target_cpu=000\n"
            "b-7 [000] d..2. 1.000700: sched_switch: prev_comm=b prev_pid=7 prev_prio=120 "
            "prev_state=S ==> next_comm=a next_pid=4242 next_prio=120\n")
    report = conform_stream(host, io.StringIO(text))
    assert report.policy == "akita-linux" and report.tolerance == AKITA_LINUX_TOLERANCE_NS
    assert report.tolerance_source.startswith("default for akita-linux")
    assert report.verdict == "conformant"
    strict = conform_stream(host, io.StringIO(text), policy="akita")
    assert strict.tolerance == KERNEL_TOLERANCE_NS and strict.verdict == "violations"


# -- placement from the trace ----------------------------------------------------------------

#: Two LO vCPUs that first fit puts on pCPU 0; the implementation put b on pCPU 1.
TWO = Host(2, [lo("a"), lo("b")], options=SYNC)
ON_1 = [ev(0, "wake", "a/0"), ev(0, "dispatch", "a/0"), ev(0, "wake", "b/0", cpu=1),
        ev(0, "dispatch", "b/0", cpu=1), ev(MS, "block", "a/0"), ev(MS, "idle"),
        ev(MS, "block", "b/0", cpu=1), ev(MS, "idle", cpu=1)]


def test_first_fit_placement_names_a_vcpu_the_trace_put_elsewhere():
    report = conform(TWO, ON_1, end=10 * MS, reports=DECIDED)
    assert report.counts == {"R12": 1} and "first fit puts it on pCPU 0" in \
        report.violations[0].text


def test_placement_from_the_trace_judges_the_schedule_on_each_pcpu():
    report = conform(TWO, ON_1, end=10 * MS, reports=DECIDED, placement="trace")
    assert report.verdict == "conformant" and report.placement == "trace"
    assert any("placement by first fit" in item for item in report.unchecked())


@pytest.mark.rule("R12")
def test_a_migration_is_still_named_under_placement_from_the_trace():
    moved = ON_1 + [ev(2 * MS, "wake", "b/0"), ev(2 * MS, "dispatch", "b/0")]
    report = conform(TWO, moved, end=10 * MS, reports=DECIDED, placement="trace")
    # and its home pCPU 1, checked at once, idles while b runs on pCPU 0 (R7)
    assert report.counts == {"R12": 1, "R7": 1}
    assert "the trace first put it on pCPU 1" in report.first_of_each_rule["R12"].text
    home = report.first_of_each_rule["R7"]
    assert (home.cpu, home.t, home.allowed) == (1, 2 * MS, ("b/0",))


@pytest.mark.rule("R11")
def test_a_trace_placement_the_admission_test_rejects_is_named_r11():
    full = Host(2, [lo("a", c=6 * MS), lo("b", c=6 * MS)], options=SYNC)
    both_on_0 = [ev(0, "wake", "a/0"), ev(0, "wake", "b/0"), ev(0, "dispatch", "a/0")]
    report = conform(full, both_on_0, end=10 * MS, reports=DECIDED, placement="trace")
    assert report.counts.get("R11") == 1
    assert "a/0, b/0 on pCPU 0" in report.first_of_each_rule["R11"].text
    assert "R11" not in conform(full, both_on_0, end=10 * MS, reports=DECIDED).counts


def test_the_look_ahead_stops_once_every_vcpu_is_named_and_is_bounded():
    events = iter(ON_1)
    head, first = look_ahead(events, frozenset({"a/0", "b/0"}))
    assert first == {"a/0": 0, "b/0": 1} and len(head) == 3 and next(events) == ON_1[3]
    endless = ({"t": t, "cpu": 0, "event": "idle"} for t in range(10 * LOOKAHEAD))
    head, first = look_ahead(endless, frozenset({"a/0"}))
    assert len(head) == LOOKAHEAD and first == {}
    placement = trace_placement(TWO, {"b/0": 1})
    assert [a.pcpus for a in placement.vms] == [(0,), (1,)]  # a keeps first fit's pCPU


# -- a trace that cannot be judged -----------------------------------------------------------

SWITCHES = "".join(
    f"x-1 [000] d..2. 1.{i:06d}: sched_switch: prev_comm={p} prev_pid={pp} prev_prio=120 "
    f"prev_state=S ==> next_comm={n} next_pid={np} next_prio=120\n"
    for i, (p, pp, n, np) in enumerate([("x", 1, "a", 4242), ("a", 4242, "x", 1)] * 3))


def test_a_kernel_trace_without_wakeups_is_refused_with_what_to_record():
    host = Host(1, [lo("a")], options=SYNC, trace_map=(("4242", "a/0"),))
    with pytest.raises(TraceError) as error:
        conform_stream(host, io.StringIO(SWITCHES), path="cap.txt")
    message = str(error.value)
    assert message.startswith("cap.txt: ") and "6 switches and no wakeup" in message
    assert "R3, R4, R6, R7 and R10 cannot be judged" in message
    assert "trace-cmd record -e sched_switch -e sched_wakeup" in message
    woken = ("x-1 [000] d..2. 0.999999: sched_wakeup: comm=a pid=4242 prio=120 "
             "target_cpu=000\n") + SWITCHES
    assert conform_stream(host, io.StringIO(woken), path="cap.txt").decisions > 0


# -- the report ------------------------------------------------------------------------------

def test_the_first_violation_of_each_rule_is_kept_whatever_max_is():
    host = Host(2, [lo("a"), lo("b")], options=SYNC)
    events = ON_1 + [ev(3 * MS, "wake", "a/0"), ev(3 * MS, "idle")]  # R12, then an R7 at 3 ms
    report = conform(host, events, end=10 * MS, reports=DECIDED, keep=1)
    assert len(report.violations) == 1 and set(report.first_of_each_rule) == {"R7", "R12"}
    assert report.first_of_each_rule["R7"].t == 3 * MS
    assert set(report.as_json()["first_of_each_rule"]) == {"R7", "R12"}


def test_the_timeline_marks_each_violation_on_its_pcpu_at_the_instant_it_began():
    host = Host(1, [lo("a")], options=SYNC)
    out = io.StringIO()
    report = conform(host, late_run(6 * US), end=10 * MS, reports=DECIDED, timeline=out)
    timeline = json.loads(out.getvalue())
    marks = [e for e in timeline["traceEvents"] if e.get("cat") == "violation"]
    assert report.total == 1 and len(marks) == 1
    assert marks[0]["name"] == "R7 violation" and marks[0]["ts"] == 0 and marks[0]["tid"] == 0
    assert marks[0]["args"]["allowed"] == ["a/0"]
    slices = [e for e in timeline["traceEvents"] if e.get("ph") == "X"]
    assert [(s["name"], s["ts"], s["dur"]) for s in slices] == [("a/0", 6, 1000)]
    assert timeline["otherData"] == {"violations_marked": 1, "violations_not_marked": 0}

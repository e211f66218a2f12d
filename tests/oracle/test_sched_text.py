"""Every text form of Linux scheduler events, read into SchedEvents: real captures, each form
of one capture agreeing, prev_state's encodings, systrace HTML, order, errors, bounded work."""

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.trace.ftrace import (FtraceTally, looks_like_ftrace, prev_state_runnable, read_ftrace,
                                 sched_events)
from akita.trace.kernel import KernelTraceError, Tally, Task
from repo import ROOT

DATA = ROOT / "tests" / "data" / "sched_text"
FORMS = ("kernel", "report", "reportN", "reportR")  # one capture, four text forms


def read(name, **options):
    """The SchedEvents of the shipped file *name*."""
    with open(DATA / name) as f:
        return list(sched_events(f, path=name, **options))


def facts(events):
    """What an event says, without where it is."""
    return [(e.ns, e.cpu, e.kind, e.prev, e.prev_runnable, e.next, e.task, e.target_cpu)
            for e in events]


def line(body, *, event="sched_switch", time_="100.000001", cpu="[001]", head="x-1"):
    return f"{head:>16} {cpu} d..2. {time_}: {event}: {body}"


# -- real captures ------------------------------------------------------------------------

@pytest.mark.parametrize("form", FORMS[1:])
def test_every_form_of_one_capture_gives_the_same_events(form):
    kernel = facts(read("vcpus.kernel.txt"))
    assert facts(read(f"vcpus.{form}.txt")) == kernel
    kinds = [e[2] for e in kernel]
    assert (len(kernel), kinds.count("switch"), kinds.count("wakeup"), kinds.count("wakeup_new"),
            kinds.count("migrate")) == (105, 64, 34, 3, 4)


def test_what_the_capture_says():
    events = {e.line: e for e in read("vcpus.kernel.txt")}
    first = events[13]  # the first event: the main thread creates the first vCPU thread
    assert (first.kind, first.task, first.target_cpu, first.ns) == (
        "wakeup_new", Task("8538", "python3"), 0, 4803_759_786_000)
    preempted = events[69]  # prev_state=R+: preempted, so runnable
    assert (preempted.prev, preempted.prev_runnable, preempted.next) == (
        Task("8540", "python3"), True, Task("8539", "CPU 1/KVM:x"))
    blocked = events[30]  # prev_state=S
    assert (blocked.prev, blocked.prev_runnable) == (Task("8538", "CPU 0/KVM"), False)
    moved = events[51]
    assert (moved.kind, moved.cpu, moved.task, moved.target_cpu) == (
        "migrate", 1, Task("8539", "CPU 1/KVM:x"), 0)


def test_trace_cmd_report_pids_after_the_last_colon():
    """'CPU 1/KVM:x:8539 [120]': the comm holds a colon and a space."""
    by_line = {e.line: e for e in read("vcpus.report.txt")}
    assert by_line[32].prev == Task("8539", "CPU 1/KVM:x")
    assert (by_line[34].kind, by_line[34].task, by_line[34].target_cpu) == (
        "wakeup", Task("8539", "CPU 1/KVM:x"), 1)  # '... [120] CPU:001'


def test_trappy_report_and_report_n_agree_and_skip_bprint_continuations():
    tally = Tally()
    report = read("trappy_raw_trace.report.txt", tally=tally)
    assert tally.records == 760 and len(report) == 755  # 'cpus=6', 2 bprints, 2 continuations
    assert facts(report) == facts(read("trappy_raw_trace.reportN.txt"))
    assert (report[0].prev, report[0].prev_runnable, report[0].next) == (
        Task("4734", "trace-cmd"), True, Task("18", "migration/2"))  # -N: prev_state=R+
    assert (report[4].prev, report[4].next, report[5].prev) == (  # swapper/1:0 is the idle task
        Task("4729", "trace-cmd"), None, None)


def test_the_raw_form_reads_as_the_same_capture_printed_by_its_kernel():
    raw = facts(read("trappy_raw_trace.R.txt"))  # prev_state=1024 (a 3.x preemption), 1, 1
    printed = {e[0]: e for e in facts(read("trappy_raw_trace.reportN.txt"))}
    assert [e[4] for e in raw] == [True, False, False]
    assert raw == [printed[e[0]] for e in raw]


def test_kernel_text_with_a_tgid_column_and_no_flags():
    events = read("tgid_noflags.kernel.txt")
    assert len(events) == 23 and events[0].where == "tgid_noflags.kernel.txt:7"
    assert (events[0].kind, events[0].task, events[0].target_cpu) == (
        "wakeup_new", Task("7696", "bash"), 0)


def test_perf_script():
    """'comm pid [cpu] time: sched:sched_switch: ...', of another run of the same workload."""
    tally = Tally()
    events = read("vcpus.perf.txt", tally=tally)
    kinds = [e.kind for e in events]
    assert (tally.records, kinds.count("switch"), kinds.count("wakeup"),
            kinds.count("wakeup_new"), kinds.count("migrate")) == (681, 439, 189, 43, 10)
    assert sum(e.prev_runnable for e in events) == 210
    assert {e.prev for e in events if e.prev and "KVM" in e.prev.comm} == {
        Task("19450", "CPU 0/KVM"), Task("19451", "CPU 1/KVM:x")}


def test_android_systrace_legacy_html():
    events = read("trappy_trace_legacy_systrace.html")
    assert [(e.line, e.kind, e.cpu) for e in events] == [
        (35, "wakeup", 7), (41, "switch", 7), (45, "switch", 7), (46, "wakeup", 2),
        (49, "switch", 2)]
    assert (events[0].task, events[0].target_cpu) == (Task("9996", "kworker/7:0"), 7)
    assert [e.prev_runnable for e in events if e.kind == "switch"] == [True, False, True]


def test_a_trace_cmd_raw_file_cut_short_is_refused_at_its_last_line():
    """trappy's trace_idle_unsorted.txt: its cpu_idle lines are out of order (CPU 6 stamped
    .449811 before .449809), its sched lines are not; its last line is cut after prev_pid."""
    tally = Tally()
    with pytest.raises(KernelTraceError) as error:
        read("trappy_trace_idle_unsorted.txt", tally=tally)
    assert str(error.value) == (
        "trappy_trace_idle_unsorted.txt:17: field 'sched_switch': expected 'prev_comm=C "
        "prev_pid=P prev_prio=N prev_state=S ==> next_comm=C next_pid=P next_prio=N' (no "
        "'prev_prio=' field after 'prev_pid=14840'), got 'prev_comm=bash prev_pid=14840'")
    assert tally.records == 17


def test_read_ftrace_through_akita_events_on_every_form():
    mapping = {"8538": "vm/0", "8539": "vm/1"}
    outs = []
    for form in FORMS:
        tally = FtraceTally()
        with open(DATA / f"vcpus.{form}.txt") as f:
            outs.append([{k: v for k, v in e.items() if k != "line"}
                         for e in read_ftrace(f, mapping, tally=tally)])
        assert (tally.kept, tally.mapped) == (105, 52)
        assert tally.lines == (117 if form == "kernel" else 106)
    assert all(out == outs[0] for out in outs)
    assert outs[0][0] == {"t": 0, "cpu": 0, "event": "wake", "vcpu": "vm/0"}


# -- prev_state ---------------------------------------------------------------------------

@pytest.mark.parametrize("state, runnable", [
    ("R", True), ("R+", True), ("S", False), ("D", False), ("D|W", False), ("I", False),
    ("X", False), ("S+", True),
    ("0", True), ("1", False), ("2", False), ("64", False), ("128", False),
    ("256", True),  # TASK_REPORT_MAX: preempted (4.14 and later)
    ("1024", True), ("2048", True), ("4096", True),  # TASK_STATE_MAX before 4.14: preempted
    ("130", False), ("1026", False),  # pre-4.14 TASK_KILLABLE, TASK_IDLE: blocked
    ("512", True),  # pre-4.14 TASK_PARKED alone: read as runnable (documented)
])
def test_prev_state_runnable(state, runnable):
    assert prev_state_runnable(state) is runnable


def test_prev_state_with_the_recording_kernels_preempt_bit():
    assert prev_state_runnable("256", report_max=1024) is False  # 3.x: TASK_WAKING ('W')
    assert prev_state_runnable("1024", report_max=1024) is True
    assert prev_state_runnable("1026", report_max=2048) is False


# -- forms, synthetic ---------------------------------------------------------------------

FIELDS = ("prev_comm=CPU 0/KVM prev_pid=4242 prev_prio=120 prev_state={} ==> next_comm=swapper/1"
          " next_pid=0 next_prio=120")


@pytest.mark.parametrize("text", [
    line(FIELDS.format("S")),
    line(FIELDS.format("S"), head="x-1 (   1)"),  # record-tgid
    line(FIELDS.format("S"), head="x-1 (-----)"),  # trace-cmd: unknown tgid
    f"akftext:        x-1  [001]  100.000001: sched_switch:         {FIELDS.format('S')}",
    f"        x-1  [001]  100.000001: (+24)    sched_switch:         {FIELDS.format('S')}",
    f"  x-1    1d..2.  100.000001: sched_switch:         {FIELDS.format('S')}",  # report -l
    "  x-1  [001]  100.000001: sched_switch:  CPU 0/KVM:4242 [120] S ==> swapper/1:0 [120]",
    "  x-1  [001]  100.000001: sched_switch:  " + FIELDS.format("1").replace(" ==>", ""),  # -R
    f"\t  x-1 [001]  100.000001000: sched_switch: {FIELDS.format('S')}\r\n",
    f"            perf 19382 [001]  100.000001:       sched:sched_switch: {FIELDS.format('S')}",
], ids=["kernel", "tgid", "tgid-unknown", "buffer", "ts-diff", "latency", "plugin", "raw",
        "tab-nine-decimals-crlf", "perf-script"])
def test_each_switch_form_gives_the_same_event(text):
    (event,) = sched_events([text])
    assert (event.ns, event.cpu, event.kind, event.prev, event.prev_runnable, event.next) == (
        100_000_001_000, 1, "switch", Task("4242", "CPU 0/KVM"), False, None)


def test_plugin_comms_with_colons_and_spaces():
    text = line("CPU 0/KVM:4242 [120] R ==> a:b c:12:77 [-51]")
    (event,) = sched_events([text])
    assert (event.prev, event.prev_runnable, event.next) == (
        Task("4242", "CPU 0/KVM"), True, Task("77", "a:b c:12"))


@pytest.mark.parametrize("event, body, kind, target", [
    ("sched_wakeup", "comm=a b pid=7 prio=120 target_cpu=003", "wakeup", 3),
    ("sched_wakeup", "comm=a b pid=7 prio=120 success=1 target_cpu=003", "wakeup", 3),
    ("sched_wakeup", "comm=a b pid=7 prio=120 success=1 target_cpu=003 state=W", "wakeup", 3),
    ("sched_wakeup_new", "comm=a b pid=7 prio=120 target_cpu=3", "wakeup_new", 3),
    ("sched_wakeup", "a b:7 [120] CPU:003", "wakeup", 3),
    ("sched_wakeup", "a b:7 [120] success=1 CPU:003", "wakeup", 3),
    ("sched_wakeup_new", "a b:7 [120] CPU:003", "wakeup_new", 3),
    ("sched_migrate_task", "comm=a b pid=7 prio=120 orig_cpu=1 dest_cpu=3", "migrate", 3),
    ("sched_migrate_task", "comm=a b pid=7 prio=120 orig_cpu=-1 dest_cpu=3 running=1",
     "migrate", 3),
])
def test_wakeup_and_migrate_forms(event, body, kind, target):
    (got,) = sched_events([line(body, event=event)])
    assert (got.kind, got.task, got.target_cpu, got.cpu, got.prev, got.next) == (
        kind, Task("7", "a b"), target, 1, None, None)


@pytest.mark.parametrize("body", ["comm=a pid=7 prio=120 success=0 target_cpu=003",
                                  "a:7 [120] success=0 CPU:003"])
def test_a_wakeup_that_changed_nothing_is_no_event(body):
    assert list(sched_events([line(body, event="sched_wakeup")])) == []


def test_other_lines_are_skipped():
    lines = [
        "cpus=8", "version = 6", "CPU 3 is empty", "# tracer: nop", "",
        "##### CPU 2 buffer started ####",
        line("comm=a pid=7 prio=120 target_cpu=003", event="sched_waking"),
        line("comm=a pid=7 runtime=1 [ns] vruntime=2 [ns]", event="sched_stat_runtime"),
        line("select_task_rq_fair: sched_switch: in a message", event="bprint"),
        " gid=1 sched_switch: a continuation of a bprint",
        "       x-1 [001] 100.000001: print: tracing_mark_write: sched_wakeup: x",
    ]
    tally = Tally()
    assert list(sched_events(lines, tally=tally)) == [] and tally.records == len(lines)


# -- systrace HTML ------------------------------------------------------------------------

SWITCH = ("          <...>-10144 [007] d..3  7480.992816: sched_switch: prev_comm=sh prev_pid=10144"
          " prev_prio=120 prev_state=S ==> next_comm=kworker/7:0 next_pid=9996 next_prio=120")


def test_systrace_html_reads_only_its_blocks_of_ftrace_text():
    later = SWITCH.replace("7480.992816", "7480.992900")
    html = [
        "<!DOCTYPE html>", "<html><head><title>x</title></head><body>",
        SWITCH,  # outside any block: page text, not trace
        '  <script class="trace-data" type="application/text">',
        '{"traceEvents": [], "note": "' + SWITCH + '"}',  # a JSON block
        "  </script>",
        '  <script class="trace-data" type="application/text">',
        "# tracer: nop", SWITCH,
        "  </script>",
        "<script>var linuxPerfData = \"\\", later + "\\n\\", "</script>",  # legacy, escaped
        "</body></html>",
    ]
    assert [(e.line, e.ns) for e in sched_events(html)] == [
        (9, 7480_992_816_000), (12, 7480_992_900_000)]


def test_a_compressed_systrace_block_is_refused():
    html = ["<html>", '<script class="trace-data" type="application/text">', "H4sIAAAAAAAA/+xd",
            "</script>"]
    with pytest.raises(KernelTraceError, match=r"^t.html:3: expected a systrace block of ftrace "
                       r"text \(this one is compressed"):
        list(sched_events(html, path="t.html"))


# -- order and errors ---------------------------------------------------------------------

def test_lines_out_of_time_order_are_refused_naming_both():
    lines = ["# tracer: nop", line(FIELDS.format("S"), time_="5.000002"),
             line(FIELDS.format("S"), time_="5.000002"),  # equal times are in order
             line(FIELDS.format("S"), time_="5.000001", cpu="[000]")]
    with pytest.raises(KernelTraceError) as error:
        list(sched_events(lines, path="pipe.txt"))
    assert str(error.value).startswith(
        "pipe.txt:4: field 'timestamp': expected a time at or after 5.000002 (line 3), the lines"
        " in time order (sort them by time, or read the capture with 'trace-cmd report'")
    assert str(error.value).endswith("got '5.000001'")


@pytest.mark.parametrize("text, cpu, count", [("CPU:1 [LOST 42 EVENTS]", 1, 42),
                                              ("CPU:7 [204600 EVENTS DROPPED]", 7, 204600),
                                              ("CPU:2 [EVENTS DROPPED]", 2, None)])
def test_lost_events_are_read_as_lost(text, cpu, count):
    """The kernel's and trace-cmd's lost-events lines: a ``lost`` event of the CPU they name,
    dated at the last event read, with the count where they give one."""
    first, lost = list(sched_events([line(FIELDS.format("S")), text]))
    assert (lost.kind, lost.cpu, lost.count, lost.ns, lost.line) == ("lost", cpu, count,
                                                                    first.ns, 2)


@pytest.mark.parametrize("text, field, part", [
    # trace-cmd report -N pads after the name: the message shows the body, not the padding
    ("  x-1  [001]  1.0: sched_switch:         prev_comm=a prev_pid=1 prev_prio=120 "
     "prev_state=R ==> next_comm=b next_pid=2", "sched_switch",
     "(no 'next_prio=' field after 'next_pid=2'), got 'prev_comm=a "),
    (line(FIELDS.format("S").replace("prev_pid=4242", "prev_pid=x")), "sched_switch",
     "(prev_pid='x' is not a pid)"),
    (line(FIELDS.format("S?")), "sched_switch", "(prev_state='S?' is not a state"),
    (line(FIELDS.format("S") + " extra=1"), "sched_switch", "(an unknown field 'extra=')"),
    (line("a:1 [120] S => b:2 [120]"), "sched_switch", "expected trace-cmd's 'C:P [N] S ==> "
     "C:P [N]' (no ' ==> ' between"),
    (line("a:1 [120] S ==> b"), "sched_switch", "(the task switched in 'b' is not 'comm:pid"),
    (line("a [120] S ==> b:2 [120]"), "sched_switch", "(the task switched out 'a [120] S'"),
    (line("a:1 [120]", event="sched_wakeup"), "sched_wakeup", "(no ' CPU:NNN'"),
    (line("a:1 [120] CPU:x", event="sched_wakeup"), "sched_wakeup", "(the target CPU 'x'"),
    (line("comm=a pid=1 prio=120", event="sched_wakeup_new"), "sched_wakeup_new",
     "(no 'target_cpu=' field after 'prio=120')"),
    (line("comm=a pid=1 prio=1 orig_cpu=0", event="sched_migrate_task"), "sched_migrate_task",
     "(no 'dest_cpu=' field after 'orig_cpu=0')"),
    (line("pid=1", event="sched_migrate_task"), "sched_migrate_task", "(no 'comm=' field"),
    (line("comm=a pid=1 prio=120 target_cpu=1234567", event="sched_wakeup"), "target_cpu",
     "expected a CPU number of at most 6 digits, got '1234567'"),
    (line("comm=a pid=1 prio=1 orig_cpu=0 dest_cpu=1234567", event="sched_migrate_task"),
     "dest_cpu", "expected a CPU number of at most 6 digits"),
    (line("a:1 [120] CPU:1234567", event="sched_wakeup"), "target_cpu", "at most 6 digits"),
    (line(FIELDS.format("S"), cpu="[1234567]"), "cpu", "at most 6 digits"),
    (line(FIELDS.format("S"), time_="1234567890123.0"), "timestamp", "expected seconds"),
    (line(FIELDS.format("S"), time_="1.0000000001"), "timestamp", "expected seconds"),
    (line(FIELDS.format("S"), time_="100"), "line", "expected an ftrace line"),
    ("  x-1 [001] d..2    3us : sched_switch: " + FIELDS.format("S"), "line",
     "expected an ftrace line"),  # the latency-format option: relative microseconds
])
def test_a_broken_kept_line_names_the_part_that_failed(text, field, part):
    with pytest.raises(KernelTraceError) as error:
        list(sched_events(["# tracer: nop", text], path="t.txt"))
    message = str(error.value)
    assert (error.value.field, error.value.path) == (field, "t.txt:2")
    assert message.startswith(f"t.txt:2: field '{field}': expected ") and part in message
    assert "\n" not in message


# -- the first line, for format detection -------------------------------------------------

@pytest.mark.parametrize("first, ftrace", [
    ("# tracer: nop\n", True), ("cpus=6\n", True), ("version = 6\n", True),
    ("<!DOCTYPE html>\n", True), ("<!doctype HTML>", True), ("<html>\n", True),
    (line(FIELDS.format("S")), True), ("  x-1    1d..2.  1.000001: sched_switch: x", True),
    ("akftext:   x-1  [001]  1.000001: sched_wakeup:  a:1 [120] CPU:001", True),
    ("  x-1 [" + "9" * 5000 + "] 1.0: sched_switch: x", True),  # refused later, by its CPU
    ('{"akita_trace":1}\n', False), ("hello world\n", False), ("", False), ("cpus=six", False),
])
def test_looks_like_ftrace(first, ftrace):
    assert looks_like_ftrace(first) is ftrace


# -- bounded work and no tracebacks -------------------------------------------------------

HEAD = "x-1 [000] 1.0: sched_switch: "
HOSTILE = [
    HEAD + "a:1 [1] R ==> " * 60_000,
    HEAD + "prev_comm=a prev_pid=1 prev_prio=1 prev_state=R next_comm=" * 12_000,
    " " * 900_000 + "sched_switch: x",
    "-1 " * 300_000 + "sched_switch:",
    "1: sched_switch: " * 50_000,
    HEAD * 30_000,
    "x-1 [000] 1.0: sched_wakeup: comm=a pid=1 prio=1 target_cpu=1" + " a=b" * 100_000 + " !",
    HEAD + ":1 [" * 200_000,
    "x-1 (" + "-" * 500_000 + " [000] 1.0: sched_switch: x",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_line_is_read_in_bounded_time(text):
    start = time.process_time()
    try:
        list(sched_events([text]))
    except KernelTraceError as error:
        assert "\n" not in str(error)
    assert time.process_time() - start < 3  # linear: about 0.05 s each on the reference VM


def _real_lines():
    """From each form of the capture, its first line of each kept event."""
    chosen = []
    for form in FORMS:
        with open(DATA / f"vcpus.{form}.txt") as f:
            lines = f.readlines()
        for name in ("sched_switch:", "sched_wakeup:", "sched_wakeup_new:", "sched_migrate_task:"):
            chosen.append(next(text for text in lines if name in text))
    return chosen


REAL = _real_lines()


@given(st.sampled_from(REAL), st.integers(0, 200), st.integers(0, 200),
       st.text(st.sampled_from(" :[]()=>-+|0123456789abcxR\t\\"), max_size=12))
def test_mutated_real_lines_are_read_or_refused_in_one_line(text, start, length, junk):
    mutated = text[:start] + junk + text[start + length:]
    try:
        events = list(sched_events([mutated, mutated]))
    except KernelTraceError as error:
        assert "\n" not in str(error) and error.path.startswith("<ftrace>:")
    else:
        assert len(events) in (0, 2) and all(isinstance(e.ns, int) for e in events)

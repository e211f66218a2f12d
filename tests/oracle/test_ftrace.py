"""Reading ftrace text as Akita trace events: formats, semantics, exact times, errors."""

import pickle

import pytest

from akita.model import ModelError
from akita.oracle import TraceError
from akita.trace.ftrace import FtraceError, FtraceTally, parse_seconds, read_ftrace

SWITCH_IN = (
    "          <idle>-0       [001] d..2.  5123.456789: sched_switch: prev_comm=swapper/1"
    " prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=qemu-web next_pid=4242 next_prio=120"
)
SWITCH_OUT = (
    "        qemu-web-4242    [001] d..2.  5123.458000: sched_switch: prev_comm=qemu-web"
    " prev_pid=4242 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120"
)
WAKEUP = (
    "          <idle>-0       [000] dNh4.  5123.459000: sched_wakeup: comm=qemu-web pid=4242"
    " prio=120 target_cpu=001"
)
WEB = {"4242": "web/0"}


def switch(time, cpu, prev, state, nxt, *, flags="d..2. ", tgid=""):
    """A sched_switch line; *prev* and *nxt* are (comm, pid)."""
    (pc, pp), (nc, np) = prev, nxt
    return (
        f"{pc:>16}-{pp:<7} {tgid}[{cpu:03d}] {flags} {time}: sched_switch: prev_comm={pc}"
        f" prev_pid={pp} prev_prio=120 prev_state={state} ==> next_comm={nc} next_pid={np}"
        f" next_prio=120"
    )


def events(lines, mapping=WEB, **options):
    """The events read, without the ``line`` each carries (checked on its own below)."""
    return [{k: v for k, v in e.items() if k != "line"}
            for e in read_ftrace(lines, mapping, **options)]


def test_each_event_names_its_line():
    lines = ["# tracer: nop", SWITCH_IN, SWITCH_OUT]
    assert [(e["event"], e["line"]) for e in read_ftrace(lines, WEB)] == [
        ("dispatch", 2), ("block", 3), ("idle", 3)]


def test_the_example_lines():
    assert events(["# tracer: nop", "#", SWITCH_IN, SWITCH_OUT, WAKEUP]) == [
        {"t": 0, "cpu": 1, "event": "dispatch", "vcpu": "web/0"},
        {"t": 1_211_000, "cpu": 1, "event": "block", "vcpu": "web/0"},
        {"t": 1_211_000, "cpu": 1, "event": "idle"},
        {"t": 2_211_000, "cpu": 1, "event": "wake", "vcpu": "web/0"},
    ]


def test_older_formats():
    lines = [
        # no flags column, a tgid column, and the old sched_wakeup with success=
        "     qemu-web-4242  (  4242) [002]  100.000001: sched_wakeup: comm=qemu-web pid=4242"
        " prio=120 success=1 target_cpu=002",
        "       <idle>-0     [002]  100.000002: sched_switch: prev_comm=swapper/2 prev_pid=0"
        " prev_prio=120 prev_state=R ==> next_comm=qemu-web next_pid=4242 next_prio=120",
        # success=0: the task was already runnable; nothing changed
        "       <idle>-0     [000]  100.000003: sched_wakeup: comm=qemu-web pid=4242 prio=120"
        " success=0 target_cpu=002",
        switch("100.000004", 2, ("qemu-web", 4242), "R+", ("swapper/2", 0), flags="d..3"),
        switch("100.000005", 2, ("swapper/2", 0), "R", ("qemu-web", 4242), flags="d..3"),
        switch("100.000006", 2, ("qemu-web", 4242), "D", ("swapper/2", 0), flags=""),
        "       <idle>-0     [003]  100.000007: sched_wakeup_new: comm=qemu-web pid=4242"
        " prio=120 target_cpu=003",
        switch("100.000008", 3, ("swapper/3", 0), "R", ("qemu-web", 4242)),
        switch("100.000009", 3, ("qemu-web", 4242), "S|W", ("swapper/3", 0)),
    ]
    assert [(e["t"], e["cpu"], e["event"]) for e in events(lines)] == [
        (0, 2, "wake"),
        (1_000, 2, "dispatch"),
        (3_000, 2, "idle"),
        (4_000, 2, "dispatch"),
        (5_000, 2, "block"),
        (5_000, 2, "idle"),
        (6_000, 3, "wake"),
        (7_000, 3, "dispatch"),
        (8_000, 3, "block"),
        (8_000, 3, "idle"),
    ]


def test_preemption_is_no_block_but_a_dispatch_of_the_next():
    mapping = {"4242": "web/0", "5151": "db/0"}
    lines = [
        switch("1.000000", 0, ("swapper/0", 0), "R", ("qemu-web", 4242)),
        switch("1.000010", 0, ("qemu-web", 4242), "R+", ("qemu-db", 5151)),
        switch("1.000020", 0, ("qemu-db", 5151), "R", ("qemu-web", 4242)),
        switch("1.000030", 0, ("qemu-web", 4242), "S", ("qemu-db", 5151)),
    ]
    assert [(e["t"], e["event"], e.get("vcpu")) for e in events(lines, mapping)] == [
        (0, "dispatch", "web/0"),
        (10_000, "dispatch", "db/0"),
        (20_000, "dispatch", "web/0"),
        (30_000, "block", "web/0"),
        (30_000, "dispatch", "db/0"),
    ]


def test_a_pid_key_wins_over_a_comm_key():
    mapping = {"qemu-web": "web/1", "4242": "web/0"}
    lines = [
        switch("1.0", 0, ("swapper/0", 0), "R", ("qemu-web", 4242)),
        switch("1.1", 0, ("qemu-web", 4242), "R", ("qemu-web", 4243)),
    ]
    assert [e["vcpu"] for e in events(lines, mapping)] == ["web/0", "web/1"]


def test_comms_with_spaces_and_dashes():
    # QEMU names its vCPU threads "CPU 0/KVM"; a comm may contain '-' too.
    lines = [
        switch("7.0", 1, ("swapper/1", 0), "R", ("CPU 0/KVM", 900)),
        switch("7.5", 1, ("CPU 0/KVM", 900), "S", ("a-b-12", 31)),
    ]
    assert events(lines, {"CPU 0/KVM": "vm/0", "a-b-12": "vm/1"}) == [
        {"t": 0, "cpu": 1, "event": "dispatch", "vcpu": "vm/0"},
        {"t": 500_000_000, "cpu": 1, "event": "block", "vcpu": "vm/0"},
        {"t": 500_000_000, "cpu": 1, "event": "dispatch", "vcpu": "vm/1"},
    ]


def test_an_unmapped_task_is_idle_and_invisible():
    lines = [
        switch("2.000000", 0, ("swapper/0", 0), "R", ("kworker/0:1", 77)),
        switch("2.000001", 0, ("kworker/0:1", 77), "S", ("sshd", 88)),  # still idle: no event
        "          <idle>-0       [000] d..2.  2.000002: sched_wakeup: comm=sshd pid=99"
        " prio=120 target_cpu=000",
        switch("2.000003", 0, ("sshd", 88), "S", ("qemu-web", 4242)),
        switch("2.000004", 0, ("qemu-web", 4242), "R+", ("sshd", 88)),
    ]
    assert events(lines) == [
        {"t": 0, "cpu": 0, "event": "idle"},
        {"t": 3_000, "cpu": 0, "event": "dispatch", "vcpu": "web/0"},
        {"t": 4_000, "cpu": 0, "event": "idle"},
    ]


def test_pid_0_is_never_mapped_even_by_comm():
    line = switch("1.0", 0, ("qemu-web", 4242), "R", ("swapper/0", 0))
    assert events([line], {"swapper/0": "web/0"}) == [{"t": 0, "cpu": 0, "event": "idle"}]
    with pytest.raises(ModelError, match="pid 0 is the idle task"):
        read_ftrace([line], {"0": "web/0"})


def test_other_events_and_text_are_skipped():
    lines = [
        "# tracer: nop",
        "",
        "##### CPU 2 buffer started ####",
        "     qemu-web-4242  [001] d..2.  5.000000: sched_waking: comm=qemu-web pid=4242 prio=120"
        " target_cpu=001",
        "     qemu-web-4242  [001] d..2.  5.000000: sched_stat_runtime: comm=qemu-web pid=4242",
        "some unrelated text",
        switch("5.000001", 1, ("swapper/1", 0), "R", ("qemu-web", 4242)) + "\n",
    ]
    assert events(lines) == [{"t": 0, "cpu": 1, "event": "dispatch", "vcpu": "web/0"}]


@pytest.mark.parametrize(
    "text, ns",
    [
        ("5123.456789", 5_123_456_789_000),
        ("5123.456789123", 5_123_456_789_123),
        ("0.000000001", 1),
        ("18446744073.709551615", 18_446_744_073_709_551_615),
        ("1.1", 1_100_000_000),
    ],
)
def test_seconds_are_exact_nanoseconds(text, ns):
    assert parse_seconds(text) == ns


def test_exact_times_through_the_reader():
    nine = switch("5123.456789123", 0, ("swapper/0", 0), "R", ("qemu-web", 4242))
    six = switch("5123.456790", 0, ("qemu-web", 4242), "S", ("swapper/0", 0))
    got = events([nine, six], origin_ns=0)
    assert [e["t"] for e in got] == [5_123_456_789_123, 5_123_456_790_000, 5_123_456_790_000]
    assert all(type(e["t"]) is int for e in got)


def test_the_origin():
    lines = [SWITCH_IN, SWITCH_OUT, WAKEUP]
    assert [e["t"] for e in events(lines)] == [0, 1_211_000, 1_211_000, 2_211_000]
    origin = 5_123_000_000_000
    assert [e["t"] for e in events(lines, origin_ns=origin)] == [
        456_789_000, 458_000_000, 458_000_000, 459_000_000,
    ]
    # the default origin is the first kept event, even one that yields nothing
    unmapped_wakeup = WAKEUP.replace("5123.459000", "5123.400000").replace("pid=4242", "pid=1")
    unmapped_wakeup = unmapped_wakeup.replace("comm=qemu-web", "comm=sshd")
    assert events([unmapped_wakeup, SWITCH_IN])[0]["t"] == 56_789_000
    # events before a given origin are skipped (the check begins there), and counted
    tally = FtraceTally()
    assert [(e["t"], e["event"]) for e in read_ftrace(lines, WEB, origin_ns=5_123_457_000_000,
                                                      tally=tally)] == [
        (1_000_000, "block"), (1_000_000, "idle"), (2_000_000, "wake")]
    assert (tally.before_origin, tally.kept, tally.lines) == (1, 3, 3)
    with pytest.raises(ModelError, match="origin_ns"):
        read_ftrace(lines, WEB, origin_ns=-1)


def test_a_malformed_line_is_named_with_its_file_line_and_field():
    broken = SWITCH_OUT.replace(" prev_state=S", "")
    with pytest.raises(FtraceError) as error:
        events(["# tracer: nop", SWITCH_IN, broken], path="host.trace")
    assert error.value.path == "host.trace:3" and error.value.field == "sched_switch"
    message = str(error.value)
    assert message.startswith("host.trace:3: field 'sched_switch': expected 'prev_comm=C ")
    assert "got 'prev_comm=qemu-web prev_pid=4242 prev_prio=120 ==> next_comm=" in message
    assert "\n" not in message
    assert isinstance(error.value, TraceError) and isinstance(error.value, ModelError)
    copy = pickle.loads(pickle.dumps(error.value))
    assert (type(copy), str(copy)) == (FtraceError, message)


@pytest.mark.parametrize(
    "line, field, expected",
    [
        (WAKEUP.replace(" target_cpu=001", ""), "sched_wakeup", "expected 'comm=C pid=P"),
        (WAKEUP.replace("sched_wakeup", "sched_wakeup_new"), None, None),
        (SWITCH_IN.replace("[001]", "[cpu1]"), "line", "expected an ftrace line"),
        (SWITCH_IN.replace("5123.456789", "5123456789"), "line", "expected an ftrace line"),
        (SWITCH_IN.replace("5123.456789", "5123.4567891234"), "timestamp",
         "expected seconds with at most 9 decimals"),
        ("[LOST 42 EVENTS]", "trace", "expected a lost-events line naming its CPU"),
    ],
    ids=["wakeup-fields", "wakeup-new-control", "cpu", "integer-clock", "ten-decimals",
         "lost-no-cpu"],
)
def test_malformed_kept_lines(line, field, expected):
    if field is None:  # the control: the same line, well formed
        assert events([line])[0]["event"] == "wake"
        return
    with pytest.raises(FtraceError) as error:
        events([SWITCH_IN, line])
    assert (error.value.field, error.value.path) == (field, "<ftrace>:2")
    assert str(error.value).startswith(f"<ftrace>:2: field '{field}': {expected}")


def test_time_going_backwards_is_an_error_but_equal_is_not():
    same = SWITCH_OUT.replace("5123.458000", "5123.456789")
    assert [e["t"] for e in events([SWITCH_IN, same])] == [0, 0, 0]
    earlier = SWITCH_OUT.replace("5123.458000", "5123.456788")
    with pytest.raises(FtraceError) as error:
        events([SWITCH_IN, earlier], path="t.txt")
    assert str(error.value) == (
        "t.txt:2: field 'timestamp': expected a time at or after 5123.456789 (line 1), the lines"
        " in time order (sort them by time, or read the capture with 'trace-cmd report', which"
        " merges the CPUs' buffers by time), got '5123.456788'"
    )


def test_streaming_reads_lines_only_as_needed():
    def lines():
        yield SWITCH_IN
        yield SWITCH_OUT
        raise AssertionError("read too far")

    stream = read_ftrace(lines(), WEB)
    assert next(stream)["event"] == "dispatch"
    assert next(stream)["event"] == "block"


@pytest.mark.parametrize(
    "mapping, match",
    [
        ({"4242": "web"}, "a vCPU name 'VM/i'"),
        ({"4242": 3}, "a vCPU name 'VM/i'"),
        ({4242: "web/0"}, "a pid or a comm"),
        ({"04242": "web/0"}, "leading zeros"),
        ({"qemu-system-x86_64": "web/0"}, "at most 15 bytes"),
        ([("4242", "web/0")], "a mapping"),
    ],
)
def test_a_bad_mapping_is_refused_at_once(mapping, match):
    with pytest.raises(ModelError, match=match):
        read_ftrace([], mapping)


def test_a_host_trace_map_is_a_mapping():
    from akita.model import loads_host

    host = loads_host(
        '[host]\npcpus = 2\n[[vm]]\nname = "web"\ntype = "Type1"\n'
        '[trace_map]\n"4242" = "web/0"\n'
    )
    assert events([SWITCH_IN], dict(host.trace_map))[0]["vcpu"] == "web/0"

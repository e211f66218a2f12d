"""A host's workloads as an rt-app use case and back (akita.linux.rtapp)."""

import json
from pathlib import Path
from fractions import Fraction

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from akita.linux.rtapp import export, loads_use_case, read_use_case, use_case
from akita.model import VM, Criticality, Host, ModelError, load_host
from akita.model.phases import resolve_phases, with_phases
from akita.model.share import Share
from akita.model.workload import Workload
from repo import EXAMPLES

_US = 1_000


def test_fig7_becomes_four_pinned_threads_of_run_and_timer():
    doc = use_case(load_host(EXAMPLES / "kernel" / "fig7.toml"), cpus=(1,), seed=1, seconds=2)
    tasks = doc["tasks"]
    assert sorted(tasks) == ["hi-0", "lookbusy1-0", "lookbusy2-0", "lookbusy3-0"]
    assert tasks["hi-0"]["run"] == 5000 and tasks["hi-0"]["timer"]["period"] == 10000
    assert tasks["lookbusy1-0"]["run"] == 2500
    assert all(t["cpus"] == [1] and t["policy"] == "SCHED_OTHER" for t in tasks.values())
    # the seeded phase is the delay; the offset (a third of a window) a first phase of one sleep
    host = load_host(EXAMPLES / "kernel" / "fig7.toml")
    phases = resolve_phases(host, 1)
    assert tasks["lookbusy2-0"]["delay"] == phases["lookbusy2"] // 1000
    assert tasks["lookbusy2-0"]["phases"]["offset"] == {"loop": 1, "sleep": 3300}
    assert tasks["lookbusy2-0"]["phases"]["jobs"]["timer"] == {"ref": "lookbusy2-0",
                                                               "period": 10000}
    assert doc["global"]["duration"] == 2 and doc["global"]["calibration"] == "CPU1"


def test_nice_is_the_threads_priority():
    doc = use_case(load_host(EXAMPLES / "kernel" / "weights.toml"), cpus=(1,), seed=1,
                   seconds=1)
    assert doc["tasks"]["light-0"]["priority"] == 5 and "timer" not in doc["tasks"]["heavy-0"]


def test_a_request_server_is_approximated_by_its_mean_demand_and_says_so():
    made = export(load_host(EXAMPLES / "kernel" / "fig5.toml"), seconds=1)
    task = made.document["tasks"]["memcached-0"]
    # 35,000/s of 7.14 us = 249.9 us of every millisecond, rounded down to whole us
    assert task["run"] == 249 and task["timer"]["period"] == 1000
    assert [(n.vm, n.field) for n in made.notes] == [("memcached", "workload.kind")]
    assert "latencies are not reproduced" in made.notes[0].outcome


@pytest.mark.parametrize("kind", ["sporadic", "trace", "closed"])
def test_random_replayed_and_closed_kinds_are_refused_with_the_vm_named(kind):
    workload = {"sporadic": Workload("sporadic", demand=1_000_000, probability=Fraction(1, 2)),
                "trace": Workload("trace", path="x.csv"),
                "closed": Workload("closed", connections=2, service=10_000)}[kind]
    vm = VM("odd", Criticality.LO, 10_000_000, 1_000_000, workload=workload)
    with pytest.raises(ModelError) as caught:
        export(Host(1, (vm,)), seconds=1)
    assert caught.value.vm == "odd" and caught.value.field == "workload.kind"


def test_a_time_that_is_not_whole_microseconds_is_rounded_down_and_noted():
    vm = VM("p", Criticality.LO, 10_000_000, 1_000_500,
            workload=Workload("periodic"), phase=0)
    made = export(Host(1, (vm,)), seconds=1)
    assert made.document["tasks"]["p-0"]["run"] == 1000
    assert [(n.field, n.value) for n in made.notes] == [("workload.demand", "1.0005ms")]


def test_deadline_servers_carry_c_opt_and_the_period_and_note_c_pes():
    made = export(load_host(EXAMPLES / "kernel" / "fig7.toml"), seconds=1, policy="deadline")
    hi = made.document["tasks"]["hi-0"]
    host = load_host(EXAMPLES / "kernel" / "fig7.toml")
    vm = host.vm("hi") if hasattr(host, "vm") else next(v for v in host.vms if v.name == "hi")
    assert hi["policy"] == "SCHED_DEADLINE" and "priority" not in hi
    assert (hi["dl-runtime"], hi["dl-period"], hi["dl-deadline"]) == \
        (vm.c_opt // _US, vm.period // _US, vm.period // _US)
    assert ("hi", "c_pes") in [(n.vm, n.field) for n in made.notes]


def test_a_foreign_use_case_reads_as_lo_vms_with_derived_servers():
    doc = {"tasks": {"thread0": {"instance": 2, "loop": -1, "run": 2000,
                                 "timer": {"ref": "unique", "period": 10000}},
                     "dl": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 20000,
                            "run0": 1000, "sleep0": 19000}}}
    host, notes = read_use_case(doc)
    a, b = host.vms
    assert (a.name, a.vcpus, a.criticality, a.period, a.c_opt) == \
        ("thread0", 2, Criticality.LO, 10_000_000, 2_000_000)
    assert a.workload == Workload("periodic")  # demand and period are the server's
    assert (b.period, b.c_opt, b.workload) == \
        (20_000_000, 3_000_000, Workload("periodic", demand=1_000_000))
    assert {(n.vm, n.field) for n in notes} >= {("thread0", "server"), ("dl", "sleep")}


@pytest.mark.parametrize("task, field", [
    ({"run": 10, "lock": "m"}, "lock"),
    ({"run": -1}, "run"),
    ({"phases": {"a": {"run": 1}, "b": {"sleep": 1}, "c": {"run": 1}}}, "phases"),
    ({"policy": "SCHED_DEADLINE", "run": 10}, "dl-runtime"),
    ({"timer": {"ref": "t", "period": 10}, "run": 1}, "events"),
])
def test_what_a_host_file_cannot_say_is_refused_with_the_thread_named(task, field):
    with pytest.raises(ModelError) as caught:
        read_use_case({"tasks": {"t": task}}, source="x.json")
    assert (caught.value.vm, caught.value.field, caught.value.path) == ("t", field, "x.json")


# -- the round trip ---------------------------------------------------------------------

_us = st.integers(1, 100_000).map(lambda n: n * _US)


@st.composite
def _vms(draw, name):
    period = draw(st.integers(100, 100_000)) * _US
    c_opt = draw(st.integers(1, period // _US)) * _US
    hi = draw(st.booleans())
    c_pes = draw(st.integers(c_opt // _US, period // _US)) * _US if hi else None
    kind = draw(st.sampled_from(["cpu-bound", "periodic", "duty", "idle"]))
    offset = draw(st.none() | st.integers(1, period // _US).map(lambda n: n * _US))
    if kind == "periodic":
        workload = Workload("periodic", demand=draw(st.none() | _us),
                            period=draw(st.none() | _us), offset=offset)
    elif kind == "duty":
        window = draw(st.none() | st.integers(1, 100_000).map(lambda n: n * _US))
        busy = draw(st.integers(0, (window or 10_000_000) // _US))
        workload = Workload("duty", utilization=Fraction(busy * _US, window or 10_000_000),
                            window=window, offset=offset)
    else:
        workload = Workload(kind)
    return VM(name, Criticality.HI if hi else Criticality.LO, period, c_opt, c_pes,
              vcpus=draw(st.integers(1, 3)), workload=workload,
              share=Share(nice=draw(st.integers(-20, 19))),
              phase=draw(st.none() | st.integers(0, period // _US - 1).map(lambda n: n * _US)))


@st.composite
def _hosts(draw):
    names = draw(st.lists(st.sampled_from(["web", "db", "a-1", "lookbusy", "x-0", "rt"]),
                          min_size=1, max_size=4, unique=True))
    vms = tuple(draw(_vms(name)) for name in names)
    return Host(draw(st.integers(1, 3)), vms,
                options=attrs.evolve(Host(1).options,
                                     phases=draw(st.sampled_from(["seeded", "synchronous"]))))


def _expected(host: Host, seed: int, policy: str) -> Host:
    """*host* as a use case can say it: phases resolved, a periodic demand or period equal to
    the server's left out, a duty window written, no nice under SCHED_DEADLINE."""
    host = with_phases(host, resolve_phases(host, seed))
    vms = []
    for vm in host.vms:
        w = vm.workload
        if w.kind == "periodic":
            w = attrs.evolve(w, demand=None if w.demand == vm.c_opt else w.demand,
                             period=None if w.period == vm.period else w.period)
        if w.kind == "duty":
            w = attrs.evolve(w, window=w.window_or_default)
        vms.append(attrs.evolve(vm, workload=w,
                                share=Share(nice=0) if policy == "deadline" else vm.share))
    return attrs.evolve(host, vms=tuple(vms))


@settings(max_examples=150, deadline=None)
@given(_hosts(), st.integers(0, 2**16), st.sampled_from(["other", "deadline"]))
def test_host_to_rt_app_to_host_gives_the_same_vms_and_workloads(host, seed, policy):
    made = export(host, cpus=(1, 2, 3), seed=seed, seconds=1, policy=policy)
    text = json.dumps(made.document)  # through the bytes rt-app reads
    back, _ = read_use_case(json.loads(text))
    expected = _expected(host, seed, policy)
    assert back.vms == expected.vms
    assert (back.pcpus, back.test, back.options) == (host.pcpus, host.test, host.options)


def test_the_round_trip_reads_the_use_case_not_the_extension():
    """A wrong variant: the same use case with one thread's run changed reads back changed."""
    host = load_host(EXAMPLES / "kernel" / "fig7.toml")
    doc = export(host, seconds=1).document
    doc["tasks"]["hi-0"]["run"] += 1
    back, _ = read_use_case(doc)
    assert next(v for v in back.vms if v.name == "hi").workload.utilization == \
        Fraction(5001, 10000)


def test_a_use_case_with_comments_and_trailing_commas_reads_as_rt_app_reads_it():
    """rt-app reads its JSON with json-c, which allows comments and a comma before a
    closing brace; its own examples use both.  A zero sleep is no event."""
    text = '''{
        /* 10% load, as rt-app's template.json */
        "tasks" : {
            "thread0" : {
                "loop" : -1,   // for ever
                "run" : 10000,
                "sleep" : 0,
                "timer" : { "ref" : "unique", "period" : 100000 },
            },
        },
        "global" : { "logdir" : "./ /* not a comment */" }
    }'''
    document = loads_use_case(text)
    assert document["global"]["logdir"] == "./ /* not a comment */"
    host, _ = read_use_case(document)
    (vm,) = host.vms
    assert (vm.period, vm.c_opt, vm.workload) == (100_000_000, 10_000_000, Workload("periodic"))
    with pytest.raises(ModelError) as caught:
        loads_use_case('{"tasks": {"a": {"run": 1} /* open', source="x.json")
    assert caught.value.path == "x.json" and caught.value.field == "json"


_TEMPLATE = Path("/usr/share/doc/rt-app/examples/template.json")


@pytest.mark.skipif(not _TEMPLATE.is_file(), reason="needs rt-app's examples (Debian's rt-app)")
def test_rt_apps_own_template_reads_as_one_lo_vm_of_ten_percent():
    host, notes = read_use_case(loads_use_case(_TEMPLATE.read_text()))
    (vm,) = host.vms
    assert (vm.name, vm.criticality, Fraction(vm.c_opt, vm.period)) == \
        ("thread0", Criticality.LO, Fraction(1, 10))
    assert [n.field for n in notes] == ["server"]

"""The ``cfs`` and ``rtds`` baselines: their rules, checked on short simulations (and, for
the properties every migrating baseline shares, ``eevdf`` and ``credit2``)."""

import io
import json
from fractions import Fraction
from importlib.resources import files

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import MS, sim_hosts

from akita.model import VM, Criticality, Host, Placement, SchedulerOptions, Share, Workload
from akita.model import VMPlacement
from akita.reference.placement import place_all
from akita.reference.policies import POLICIES, CFSPolicy, RTDSPolicy
from akita.reference.policies.cfs import MIN_GRANULARITY, SCHED_LATENCY, WAKEUP_GRANULARITY
from akita.reference.run import simulate
from akita.reference.simulator import Simulator

LO, HI = Criticality.LO, Criticality.HI
SCHEMA = jsonschema.Draft202012Validator(
    json.loads((files("akita.trace") / "trace_schema.json").read_text()))


def vm(name, **fields):
    """A LO cpu-bound VM of period 10 ms, C_opt 5 ms, unless told otherwise."""
    spec = {"criticality": LO, "period": 10 * MS, "c_opt": 5 * MS} | fields
    return VM(name=name, **spec)


def run(host, policy, duration, placement=None, trace=None, seed=1, progress=None):
    placement = placement if placement is not None else policy.place(host)
    return Simulator(host, placement, policy, duration=duration, seed=seed, trace=trace,
                     progress=progress).run()


def traced(host, policy, duration, **kw):
    out = io.StringIO()
    result = run(host, policy, duration, trace=out, **kw)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return result, lines[1:]


def instants(events):
    """``(t, events of t)`` in order."""
    group = []
    for event in events:
        if group and event["t"] != group[0]["t"]:
            yield group[0]["t"], group
            group = []
        group.append(event)
    if group:
        yield group[0]["t"], group


def check_never_twice(events, pcpus):
    """At the end of every instant no vCPU is the current one of two pCPUs."""
    running = [None] * pcpus
    for _, group in instants(events):
        for e in group:
            if e["event"] == "dispatch":
                running[e["cpu"]] = e["vcpu"]
            elif e["event"] == "idle":
                running[e["cpu"]] = None
        busy = [v for v in running if v is not None]
        assert len(busy) == len(set(busy)), running


# -- cfs ---------------------------------------------------------------------------------


def test_cfs_nice_weights_share_the_cpu_1024_to_335():
    duration = 3000 * MS
    host = Host(pcpus=1, vms=[vm("n0"), vm("n5", share=Share(nice=5))])
    vms = simulate(host, "cfs", duration=duration, seed=1).as_json()["vms"]
    expected = Fraction(duration * 1024, 1024 + 335)
    # tolerance: one sched_latency over the 3 s
    assert abs(vms["n0"]["cpu_ns"] - expected) <= SCHED_LATENCY
    assert vms["n0"]["cpu_ns"] + vms["n5"]["cpu_ns"] == duration


def test_cfs_equal_weights_keep_vruntimes_within_one_slice():
    host = Host(pcpus=1, vms=[vm("a", vcpus=2), vm("b")])
    policy = CFSPolicy()
    slice_ = SCHED_LATENCY // 3
    samples = []

    def sample(t):
        vruntimes = [s.sched.vruntime for s in policy.sim.vcpus]
        samples.append(max(vruntimes) - min(vruntimes))

    run(host, policy, 600 * MS, progress=sample)
    assert len(samples) >= 90
    assert max(samples) <= slice_
    assert all(s.sched.slice == slice_ for s in policy.sim.vcpus)


@pytest.mark.parametrize("scaling, factors", [
    ("log", {1: 1, 2: 2, 3: 2, 4: 3, 7: 3, 8: 4, 64: 4}),  # 1 + ilog2(min(cpus, 8))
    ("linear", {1: 1, 2: 2, 3: 3, 8: 8, 64: 8}),
    ("none", {1: 1, 8: 1, 64: 1}),
])
def test_cfs_tunables_scale_by_the_cpus_online_as_linux_scales_them(scaling, factors):
    """get_update_sysctl_factor: the CPUs counted are at most 8."""
    from akita.reference.policies.cfs import tunable_factor

    assert {cpus: tunable_factor(scaling, cpus) for cpus in factors} == factors


@pytest.mark.parametrize("options, slice_", [
    ({}, SCHED_LATENCY // 2),                                  # 1 CPU online: x1
    ({"online_cpus": 8}, 4 * SCHED_LATENCY // 2),              # the machine's 8: x4
    ({"online_cpus": 8, "cfs_tunable_scaling": "none"}, SCHED_LATENCY // 2),
    ({"online_cpus": 3, "cfs_tunable_scaling": "linear"}, 3 * SCHED_LATENCY // 2),
])
def test_cfs_slices_follow_the_scaled_latency(options, slice_):
    """Two hogs on one pCPU share the (scaled) latency: each slice is half of it, and the
    pCPU switches every slice -- so the scaling is what the run does, not a constant."""
    host = Host(pcpus=1, vms=[vm("a"), vm("b")], options=SchedulerOptions(**options))
    policy = CFSPolicy()
    result, events = traced(host, policy, 20 * SCHED_LATENCY)
    assert {s.sched.slice for s in policy.sim.vcpus} == {slice_}
    dispatches = [e["t"] for e in events if e["event"] == "dispatch"]
    assert {b - a for a, b in zip(dispatches, dispatches[1:])} == {slice_}


def test_cfs_sleeper_is_credited_at_most_half_a_latency():
    sleeper = Workload("periodic", demand=100 * MS, offset=500 * MS)
    host = Host(pcpus=1, vms=[vm("hog"), vm("sleeper", period=1000 * MS, c_opt=100 * MS,
                                             workload=sleeper)])
    _, events = traced(host, CFSPolicy(), 1000 * MS)
    dispatches = [e for e in events if e["event"] == "dispatch" and e["t"] >= 500 * MS]
    first = dispatches[0]
    assert (first["t"], first["vcpu"]) == (500 * MS, "sleeper/0")
    # the hog ran alone for 500 ms: min_vruntime = 500 ms, the sleeper is placed 3 ms before
    assert Fraction(first["key"]) == 500 * MS - SCHED_LATENCY // 2
    hog_back = next(e["t"] for e in dispatches if e["vcpu"] == "hog/0")
    assert hog_back <= 500 * MS + SCHED_LATENCY // 2 + SCHED_LATENCY // 2


@pytest.mark.parametrize("wake_preempts", [True, False])
def test_cfs_latency_vm_is_dispatched_within_the_wakeup_granularity(wake_preempts):
    rpc = vm("rpc", c_opt=100_000, workload=Workload("periodic", demand=100_000, offset=MS // 3))
    host = Host(pcpus=1, vms=[vm("hog1"), vm("hog2"), rpc],
                options=SchedulerOptions(wake_preempts=wake_preempts))
    result, events = traced(host, CFSPolicy(), 500 * MS)
    assert result.as_json()["vms"]["rpc"]["requests"] == 50
    waits, woke = [], None
    for e in events:
        if e.get("vcpu") == "rpc/0" and e["event"] == "wake":
            woke = e["t"]
        elif e.get("vcpu") == "rpc/0" and e["event"] == "dispatch":
            waits.append((woke, e["t"] - woke))
    # after the first period (at 0 every vruntime is 0: the first job has no credit)
    steady = [wait for woke, wait in waits if woke >= 10 * MS]
    assert len(steady) == 49
    if wake_preempts:
        assert max(steady) <= WAKEUP_GRANULARITY
    else:  # the control: without wakeup preemption it waits for the running slice
        assert max(steady) > WAKEUP_GRANULARITY


def test_cfs_idle_balance_keeps_both_pcpus_busy():
    host = Host(pcpus=2, vms=[vm("a", vcpus=3)])
    start = place_all(host)
    on_zero = Placement(start.test, (VMPlacement(host.vms[0], (0, 0, 0), None),), start.pcpus)
    duration = 200 * MS
    result = run(host, CFSPolicy(), duration, placement=on_zero).as_json()
    assert [c["idle_ns"] for c in result["pcpus"]] == [0, 0]
    assert result["pcpus"][1]["migrations"] >= 1
    assert result["vms"]["a"]["cpu_ns"] == 2 * duration


def test_cfs_pin_is_honoured_by_the_idle_balance_and_the_wakeup():
    # pCPU 1 goes idle at 0: it may pull free/0 only, not pinned/1 (first in vruntime order)
    host = Host(pcpus=2, vms=[vm("pinned", vcpus=2, share=Share(pin=(0,))), vm("free")])
    result, events = traced(host, CFSPolicy(), 100 * MS)
    where = {(e["vcpu"], e["cpu"]) for e in events if e["event"] == "dispatch"}
    assert where == {("pinned/0", 0), ("pinned/1", 0), ("free/0", 1)}
    assert result.as_json()["pcpus"][1]["idle_ns"] == 0
    # a pinned sleeper does not wake on the idle pCPU 1
    sleeper = vm("rpc", share=Share(pin=(0,)), workload=Workload("periodic", demand=MS))
    host = Host(pcpus=2, vms=[vm("hog", share=Share(pin=(0,))), sleeper])
    _, events = traced(host, CFSPolicy(), 100 * MS)
    assert {e["cpu"] for e in events if e["event"] == "dispatch"} == {0}
    # the control: unpinned, it does
    free = vm("rpc", workload=sleeper.workload)
    host = Host(pcpus=2, vms=[vm("hog", share=Share(pin=(0,))), free])
    _, events = traced(host, CFSPolicy(), 100 * MS)
    assert {e["cpu"] for e in events if e["event"] == "dispatch"} == {0, 1}


# -- rtds --------------------------------------------------------------------------------


def test_rtds_without_extratime_a_vcpu_gets_exactly_its_budget():
    host = Host(pcpus=1, vms=[vm("a", c_opt=3 * MS)])
    result = run(host, RTDSPolicy(extratime=False), 1000 * MS).as_json()
    assert result["vms"]["a"]["cpu_ns"] == 300 * MS


def test_rtds_extratime_is_on_by_default_and_fills_the_pcpu():
    assert RTDSPolicy.extratime is True
    host = Host(pcpus=1, vms=[vm("a", c_opt=3 * MS)])
    result = simulate(host, "rtds", duration=1000 * MS).as_json()
    assert result["vms"]["a"]["cpu_ns"] == 1000 * MS


def test_rtds_extratime_runs_below_every_vcpu_with_budget():
    # same deadline, and the hog comes first in host order: only its demotion to
    # priority_level 1 after 2 ms lets the HI vCPU have its 6 ms every period
    hi = VM("hi", HI, 10 * MS, 6 * MS, 6 * MS, workload=Workload("periodic"))
    host = Host(pcpus=1, vms=[vm("hog", c_opt=2 * MS), hi])
    vms = simulate(host, "rtds", duration=1000 * MS).as_json()["vms"]
    assert vms["hi"]["hi_misses"] == 0 and vms["hi"]["requests"] == 100
    assert vms["hi"]["rtt_ns"]["max"] <= 10 * MS
    assert vms["hog"]["cpu_ns"] == 400 * MS


def test_rtds_is_a_deferrable_server(tmp_path):
    """Budget 3 ms every 10 ms: kept while blocked, lost at the period's end."""
    jobs = tmp_path / "jobs.txt"
    jobs.write_text("0ms, 1ms\n5ms, 5ms\n30ms, 1ms\n40ms, 5ms\n")
    host = Host(pcpus=1, vms=[vm("d", c_opt=3 * MS, workload=Workload("trace", path=str(jobs)))])
    _, events = traced(host, RTDSPolicy(extratime=False), 100 * MS)
    done = [(e["arrival"], e["t"]) for e in events if e["event"] == "complete"]
    # the job of 5 ms uses the 2 ms left at 5 ms, then 3 ms of the next period;
    # at 40 ms the 2 ms unused in [30, 40) are gone: 3 ms, then 2 ms from 50 ms
    assert done == [(0, MS), (5 * MS, 13 * MS), (30 * MS, 31 * MS), (40 * MS, 52 * MS)]


class CheckedRTDS(RTDSPolicy):
    """RTDS that checks that a vCPU's time is charged to the period it was spent in:
    the core brings a vCPU's pCPU up to date before replenishing it, because the
    replenishment timer follows the vCPU when it migrates."""

    def setup(self, sim):
        self.period_start = {}
        super().setup(sim)

    def _replenish(self, state, t):
        super()._replenish(state, t)
        self.period_start[state] = t

    def charge(self, state, ran, t):
        assert t - ran >= self.period_start[state], (state, t, ran)
        super().charge(state, ran, t)
        assert 0 < state.sched.budget <= state.sched.full or state.sched.depleted


@pytest.mark.parametrize("extratime", [True, False])
def test_rtds_charges_budget_in_the_period_it_was_spent_in(extratime):
    periods, budgets = (10, 7, 9), (7, 7, 5)  # U > 2: vCPUs run across their boundaries
    vms = [VM(f"v{i}", LO, p * MS, b * MS) for i, (p, b) in enumerate(zip(periods, budgets))]
    host = Host(pcpus=2, vms=vms)
    result = run(host, CheckedRTDS(extratime=extratime), 630 * MS).as_json()
    assert sum(c["migrations"] for c in result["pcpus"]) > 0
    if extratime:  # work conserving
        assert sum(v["cpu_ns"] for v in result["vms"].values()) == 2 * 630 * MS
    else:  # never more than the budget of each period begun
        for v in vms:
            assert result["vms"][v.name]["cpu_ns"] <= -(-630 * MS // v.period) * v.c_opt


def check_global_edf(host, events):
    """At the end of every instant the pCPUs run the runnable vCPUs with budget of the
    earliest deadlines (then host order), as many as there are pCPUs."""
    order = {v.name: i for i, v in enumerate(v for vm in host.vms for v in vm.all_vcpus())}
    runnable, exhausted, deadline = set(), set(), {}
    running = [None] * host.pcpus
    for t, group in instants(events):
        for e in group:
            kind, name = e["event"], e.get("vcpu")
            if kind == "wake":
                runnable.add(name)
            elif kind == "block":
                runnable.discard(name)
            elif kind == "release":
                deadline[name] = e["deadline"]
                exhausted.discard(name)
            elif kind == "exhaust":
                exhausted.add(name)
            elif kind == "dispatch":
                running[e["cpu"]] = name
            elif kind == "idle":
                running[e["cpu"]] = None
        released = (runnable - exhausted) & deadline.keys()  # none before its phase
        eligible = sorted(released, key=lambda v: (deadline[v], order[v]))
        busy = [v for v in running if v is not None]
        assert len(busy) == len(set(busy)), (t, running)
        assert set(busy) == set(eligible[:host.pcpus]), (t, running, eligible)


def test_rtds_global_edf_meets_deadlines_on_two_pcpus():
    # U = 0.3 + 0.3 + 0.4 = 1 on 2 pCPUs, no heavy vCPU: no Dhall effect
    vms = [VM("x", HI, 5 * MS, 1_500_000, 1_500_000, workload=Workload("periodic")),
           VM("y", HI, 10 * MS, 3 * MS, 3 * MS, workload=Workload("periodic")),
           VM("z", HI, 20 * MS, 8 * MS, 8 * MS, workload=Workload("periodic"))]
    host = Host(pcpus=2, vms=vms)
    result, events = traced(host, RTDSPolicy(extratime=False), 1000 * MS)
    stats = result.as_json()["vms"]
    for v in vms:
        assert stats[v.name]["hi_misses"] == 0
        assert stats[v.name]["requests"] == 1000 * MS // v.period
        assert stats[v.name]["rtt_ns"]["max"] <= v.period
    check_global_edf(host, events)
    # the control: at U = 2.4 the miss counter does count
    heavy = [VM(f"h{i}", HI, 10 * MS, 8 * MS, 8 * MS, workload=Workload("periodic"))
             for i in range(3)]
    stats = run(Host(pcpus=2, vms=heavy), RTDSPolicy(extratime=False), 200 * MS).as_json()["vms"]
    assert sum(s["hi_misses"] for s in stats.values()) > 0


@settings(max_examples=40)
@given(sim_hosts(max_pcpus=3, max_vms=5, options=SchedulerOptions()))
def test_rtds_is_global_edf_at_every_instant(host):
    _, events = traced(host, RTDSPolicy(extratime=False), 60 * MS)
    # the run's last instant is cut: the final charge is traced, no decision follows it
    check_global_edf(host, [e for e in events if e["t"] < 60 * MS])


@settings(max_examples=40)
@given(sim_hosts(max_pcpus=3, max_vms=5), st.sampled_from(["cfs", "rtds", "eevdf", "credit2"]),
       st.data())
def test_traces_are_valid_and_never_run_a_vcpu_twice(host, policy, data):
    pins = [data.draw(st.sets(st.integers(0, host.pcpus - 1), max_size=host.pcpus))
            for _ in host.vms]
    host = Host(pcpus=host.pcpus, options=host.options,
                vms=[VM(v.name, v.criticality, v.period, v.c_opt, v.c_pes, v.vcpus,
                        workload=v.workload, share=Share(pin=tuple(sorted(p))))
                     for v, p in zip(host.vms, pins)])
    _, events = traced(host, POLICIES[policy](), 60 * MS)
    for e in events:
        assert not list(SCHEMA.iter_errors(e)), e
    check_never_twice(events, host.pcpus)
    for e in events:
        if e["event"] == "dispatch":
            allowed = dict(zip([v.name for v in host.vms], pins))[e["vcpu"].split("/")[0]]
            assert not allowed or e["cpu"] in allowed


@pytest.mark.parametrize("policy", ["cfs", "rtds", "eevdf", "credit2"])
def test_same_seed_same_trace_bytes(tmp_path, policy):
    rpc = Workload("poisson", rate=Fraction(2000), service=200_000, distribution="exponential")
    host = Host(pcpus=2, vms=[vm("hog", vcpus=2), vm("rpc", vcpus=2, workload=rpc),
                              vm("nice", share=Share(nice=3), workload=Workload("duty",
                                 utilization=Fraction(1, 2), window=2 * MS))])
    paths = [tmp_path / f"{n}.jsonl" for n in range(3)]
    docs = [simulate(host, policy, duration=300 * MS, seed=seed, trace_path=str(path)).as_json()
            for path, seed in zip(paths, (7, 7, 8))]
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert json.dumps(docs[0]) == json.dumps(docs[1])
    assert paths[0].read_bytes() != paths[2].read_bytes()  # the seed does matter


def test_cfs_slices_stretch_the_period_and_never_go_below_min_granularity():
    # 10 > latency / min_granularity: the period stretches to 10 * 0.75 ms
    policy = CFSPolicy()
    run(Host(pcpus=1, vms=[vm("many", vcpus=10)]), policy, 50 * MS)
    assert {s.sched.slice for s in policy.sim.vcpus} == {MIN_GRANULARITY}
    # nice 19 beside nice 0: 6 ms * 15 / 1039 is below min_granularity
    policy = CFSPolicy()
    run(Host(pcpus=1, vms=[vm("n0"), vm("n19", share=Share(nice=19))]), policy, 50 * MS)
    assert [s.sched.slice for s in policy.sim.vcpus] == [SCHED_LATENCY * 1024 // 1039,
                                                         MIN_GRANULARITY]

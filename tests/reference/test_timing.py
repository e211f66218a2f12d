"""Timing as a real host has it: phases (R2), the paper's queue order (R4), HI-mode order (R7).

Each behaviour is shown next to the option that turns it off, so that each assertion
could fail.
"""

import io
import json

import attrs
import pytest
from strategies import MS

from akita.model import VM, Criticality, Host, SchedulerOptions, Workload, first_fit
from akita.reference.policies import POLICIES
from akita.reference.simulator import Simulator

HI, LO = Criticality.HI, Criticality.LO


def traced(host, policy="akita", duration=100 * MS, seed=1):
    out = io.StringIO()
    pol = POLICIES[policy]()
    result = Simulator(host, pol.place(host), pol, duration=duration, seed=seed, trace=out).run()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return result, lines[0], lines[1:]


def of(events, kind, vcpu=None):
    return [e for e in events if e["event"] == kind and (vcpu is None or e.get("vcpu") == vcpu)]


@pytest.mark.rule("R2")
@pytest.mark.parametrize("policy", ["akita", "edf-vd", "edf", "amc", "rm", "rtds"])
def test_periods_start_at_the_phase_under_every_server_policy(policy):
    host = Host(1, [VM("a", LO, 10 * MS, 2 * MS, phase=3 * MS), VM("b", LO, 10 * MS, 2 * MS)],
                test="edf")
    _, header, events = traced(host, policy, duration=40 * MS)
    assert [e["t"] for e in of(events, "release", "a/0")] == [3 * MS, 13 * MS, 23 * MS, 33 * MS]
    assert [e["t"] for e in of(events, "release", "b/0")] == [0, 10 * MS, 20 * MS, 30 * MS]
    assert [vm["phase"] for vm in header["host"]["vms"]] == [3 * MS, 0]


@pytest.mark.rule("R2")
def test_a_periodic_workload_comes_at_the_vms_own_period_starts():
    job = Workload("periodic", demand=MS)
    host = Host(1, [VM("hi", HI, 10 * MS, MS, 2 * MS, workload=job, phase=4 * MS)])
    result, _, events = traced(host, duration=30 * MS)
    assert [e["t"] for e in of(events, "wake", "hi/0")] == [4 * MS, 14 * MS, 24 * MS]
    assert result.metrics.vms["hi"].hi_misses == 0


def served(events, vcpu, start, end):
    """Time *vcpu* held the (one) pCPU in ``[start, end)``, read from the trace."""
    total, running, since = 0, None, 0
    changes = sorted((e["t"], e.get("vcpu") if e["event"] == "dispatch" else None)
                     for e in events if e["event"] in ("dispatch", "idle"))
    for t, who in [*changes, (end, None)]:
        if running == vcpu:
            total += max(0, min(t, end) - max(since, start))
        running, since = who, t
    return total


@pytest.mark.rule("R2")
def test_hi_misses_are_judged_on_the_phase_grid():
    # a HI job of C_pes = 6 ms at each of its period starts (phase 5 ms) beside two LO VMs,
    # under CFS: a period on its own grid [5 + 10k, 15 + 10k) is a miss iff it got < 6 ms;
    # the whole ones in 100 ms are 5-15 .. 85-95 ms.
    hi = VM("hi", HI, 10 * MS, 2 * MS, 6 * MS, workload=Workload("periodic", demand=6 * MS),
            phase=5 * MS)
    host = Host(1, [hi, VM("lo1", LO, 10 * MS, 2 * MS), VM("lo2", LO, 10 * MS, 2 * MS)])
    result, _, events = traced(host, "cfs", duration=100 * MS)
    expected = sum(served(events, "hi/0", s, s + 10 * MS) < 6 * MS
                   for s in range(5 * MS, 90 * MS, 10 * MS))
    assert 0 < result.metrics.vms["hi"].hi_misses == expected


def _first_dispatches(queue_order):
    """Two LO vCPUs with equal periods and phases, so equal deadlines (10 ms): b's job
    arrives at 0.5 ms, a's at 1 ms, 2 ms each."""
    def job(offset):
        return Workload("periodic", demand=2 * MS, offset=offset)
    host = Host(1, [VM("a", LO, 10 * MS, 3 * MS, workload=job(MS)),
                    VM("b", LO, 10 * MS, 3 * MS, workload=job(MS // 2))],
                options=SchedulerOptions(queue_order=queue_order))
    _, _, events = traced(host, duration=10 * MS)
    return [(e["t"], e["vcpu"]) for e in of(events, "dispatch")]


@pytest.mark.rule("R4")
def test_equal_keys_go_in_insertion_order_and_a_waking_equal_does_not_preempt():
    # "fifo": b, queued first, keeps the pCPU when a wakes with the same deadline.
    assert _first_dispatches("fifo") == [(MS // 2, "b/0"), (5 * MS // 2, "a/0")]
    # "host": a comes first by host order, and preempts b when it wakes.
    assert _first_dispatches("host") == [(MS // 2, "b/0"), (MS, "a/0"), (3 * MS, "b/0")]


@pytest.mark.rule("R4")
def test_a_descheduled_vcpu_goes_behind_its_equals():
    # a and b: equal deadlines, cpu-bound; c (earlier deadline) wakes at 1 ms and preempts a.
    # "fifo": a, descheduled at 1 ms, is inserted behind b (queued since 0), so b runs next.
    def host(queue_order):
        c = VM("c", LO, 5 * MS, MS, workload=Workload("periodic", demand=MS, offset=MS))
        return Host(1, [VM("a", LO, 10 * MS, 3 * MS), VM("b", LO, 10 * MS, 3 * MS), c],
                    options=SchedulerOptions(queue_order=queue_order))
    for order, after_c in (("fifo", "b/0"), ("host", "a/0")):
        _, _, events = traced(host(order), duration=5 * MS)
        dispatches = [(e["t"], e["vcpu"]) for e in of(events, "dispatch")]
        assert dispatches[:3] == [(0, "a/0"), (MS, "c/0"), (2 * MS, after_c)], order


@pytest.mark.rule("R7")
@pytest.mark.parametrize("order, first", [("hi-first", "hi/0"), ("budget-first", "lo/0")])
def test_hi_mode_runs_a_hi_vcpu_without_budget_before_lo_work(order, first):
    # hi is cpu-bound: it passes C_opt (HI mode) and exhausts C_pes at 5 ms; lo has budget.
    host = Host(1, [VM("hi", HI, 10 * MS, MS, 5 * MS), VM("lo", LO, 20 * MS, 4 * MS)],
                options=SchedulerOptions(hi_mode_order=order))
    _, _, events = traced(host, duration=10 * MS)
    exhausted = of(events, "exhaust", "hi/0")[0]["t"]
    after = [e["vcpu"] for e in of(events, "dispatch") if e["t"] == exhausted]
    running = after[0] if after else "hi/0"  # no dispatch: hi kept the pCPU
    assert running == first


@pytest.mark.rule("R2")
def test_the_timeline_carries_the_phases(tmp_path):
    from akita.reference.run import simulate
    from akita.trace.timeline import main_timeline

    host = Host(1, [VM("a", LO, 10 * MS, 2 * MS, phase=3 * MS), VM("b", LO, 10 * MS, 2 * MS)],
                options=SchedulerOptions(phases="seeded"))
    trace, out = tmp_path / "t.jsonl", tmp_path / "t.json"
    simulate(host, "akita", duration=20 * MS, seed=4, trace_path=str(trace))
    main_timeline(trace, out)
    phases = json.loads(out.read_text())["otherData"]["phases_ns"]
    assert phases["a"] == 3 * MS and 0 <= phases["b"] < 10 * MS


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_phases(tmp_path):
    from akita.reference.run import simulate

    host = Host(1, [VM(f"v{i}", LO, 100 * MS, 10 * MS) for i in range(3)],
                options=SchedulerOptions(phases="seeded"))
    texts = []
    for n, seed in enumerate((5, 5, 6)):
        path = tmp_path / f"{n}.jsonl"
        simulate(host, "akita", duration=50 * MS, seed=seed, trace_path=str(path))
        texts.append(path.read_text())
    assert texts[0] == texts[1] and texts[0] != texts[2]

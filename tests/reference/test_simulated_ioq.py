"""R14 in the simulator: each VM's CAL samples above its IOQ are counted exactly (the
count equals the one read off the trace's wake and dispatch events), and the bound is
reported under akita only (reference/ioq.py, reference/metrics.py)."""

import json

import attrs
import pytest

from akita.model import load_host
from akita.reference.run import simulate
from repo import EXAMPLES

pytestmark = pytest.mark.rule("R14")

MS = 1_000_000


def cals_from_trace(path, vcpu):
    """Every CAL of *vcpu* in a trace: from a wake to the next dispatch of it."""
    waking, cals = None, []
    for line in open(path, encoding="utf-8"):
        event = json.loads(line)
        if event.get("vcpu") != vcpu:
            continue
        if event["event"] == "wake":
            waking = event["t"]
        elif event["event"] == "dispatch" and waking is not None:
            cals.append(event["t"] - waking)
            waking = None
    return cals


@pytest.mark.parametrize("policy", ["credit", "akita"])
def test_the_count_above_the_ioq_is_the_traces(tmp_path, policy):
    host = load_host(EXAMPLES / "ioq.toml")
    # a tight IOQ on memcached so that some latencies exceed it under either policy
    host = attrs.evolve(host, vms=tuple(attrs.evolve(vm, ioq=20 * MS if vm.name == "memcached"
                                                     else vm.ioq) for vm in host.vms))
    trace = tmp_path / "t.jsonl"
    result = simulate(host, policy, duration=400 * MS, seed=3, trace_path=str(trace))
    doc = result.as_json()["vms"]["memcached"]["ioq"]
    cals = cals_from_trace(trace, "memcached/0")
    assert doc["cal_samples"] == len(cals) > 0
    assert doc["over_ioq"] == sum(1 for c in cals if c > 20 * MS)


def test_a_one_nanosecond_ioq_counts_every_nonzero_latency(tmp_path):
    host = load_host(EXAMPLES / "ioq.toml")
    host = attrs.evolve(host, vms=tuple(attrs.evolve(vm, ioq=1 if vm.name == "rpc" else vm.ioq)
                                        for vm in host.vms))
    trace = tmp_path / "t.jsonl"
    doc = simulate(host, "credit", duration=300 * MS, trace_path=str(trace)).as_json()
    cals = cals_from_trace(trace, "rpc/0")
    assert doc["vms"]["rpc"]["ioq"]["over_ioq"] == sum(1 for c in cals if c > 1) > 0


def test_the_bound_is_reported_under_akita_and_not_under_a_baseline():
    host = load_host(EXAMPLES / "ioq.toml")
    akita = simulate(host, "akita", duration=50 * MS).as_json()["vms"]
    assert akita["memcached"]["ioq"]["cal_bound"]["lo_mode_ns"] == str(20 * MS)
    assert akita["rpc"]["ioq"]["cal_bound"]["lo_mode_ns"] == str(5 * MS)
    assert "logger" not in akita  # rejected by its IOQ
    credit = simulate(host, "credit", duration=50 * MS).as_json()["vms"]
    assert credit["memcached"]["ioq"]["cal_bound"] is None
    assert "ioq" not in credit["lookbusy1"]  # no IOQ, no key

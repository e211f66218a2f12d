"""A finding is named after its longest deviation; a migration re-checks the home pCPU at once.

An open obligation may change what is wrong while it lasts: a pCPU idles
for a moment while a vCPU is runnable (R7), then runs the vCPU with the
later deadline (R4).  The violation is the deviation that lasted longest in
its window, dated from when that one began.  And a vCPU that wakes, runs or
blocks on a pCPU other than its own (a migration, R12) makes the oracle
check its home pCPU at that instant, not when an event next names it.
"""

from __future__ import annotations

import pytest

from akita.model import loads_host
from akita.oracle import Oracle

HOST = """
[host]
pcpus = {pcpus}
test = "edf"
phases = "synchronous"
[[vm]]
name = "a"
criticality = "LO"
period = "10ms"
c_opt = "2ms"
[[vm]]
name = "b"
criticality = "LO"
period = "5ms"
c_opt = "1ms"
"""


def judge(events: list[dict], pcpus: int = 1, end: int = 2_000_000):
    oracle = Oracle(loads_host(HOST.format(pcpus=pcpus)), policy="edf", tolerance=500_000,
                    reports=("dispatch", "idle"))
    for event in events:
        oracle.feed(event)
    oracle.close(end)
    return oracle


@pytest.mark.rule("R4")
def test_the_longest_deviation_names_the_violation():
    """Idle 15 us while both are runnable, then a (deadline 10 ms) before b (5 ms) for 742 us."""
    oracle = judge([
        {"t": 0, "cpu": 0, "event": "idle"},
        {"t": 100, "cpu": 0, "event": "wake", "vcpu": "a/0"},
        {"t": 100, "cpu": 0, "event": "wake", "vcpu": "b/0"},
        {"t": 15_100, "cpu": 0, "event": "dispatch", "vcpu": "a/0"},
        {"t": 757_100, "cpu": 0, "event": "dispatch", "vcpu": "b/0"},
    ])
    assert oracle.counts == {"R4": 1}  # not R7: the idling lasted 15 us of the 757
    (v,) = oracle.violations
    assert (v.t, v.did, v.allowed) == (15_100, "a/0", ("b/0",))
    assert v.line is None and v.window[-1]["t"] == 15_100


@pytest.mark.rule("R7")
def test_a_long_idling_keeps_its_name():
    oracle = judge([
        {"t": 0, "cpu": 0, "event": "idle"},
        {"t": 100, "cpu": 0, "event": "wake", "vcpu": "a/0"},
        {"t": 100, "cpu": 0, "event": "wake", "vcpu": "b/0"},
        {"t": 600_100, "cpu": 0, "event": "dispatch", "vcpu": "a/0"},
        {"t": 700_100, "cpu": 0, "event": "dispatch", "vcpu": "b/0"},
    ])
    assert oracle.counts == {"R7": 1} and oracle.violations[0].t == 100


@pytest.mark.rule("R7", "R12")
def test_a_migrated_vcpu_makes_its_home_idle_at_once():
    """b runs on pCPU 1 from 100 ns to 2.9 ms; first fit puts it on pCPU 0, which idles."""
    oracle = judge([
        {"t": 0, "cpu": 0, "event": "idle"},
        {"t": 0, "cpu": 1, "event": "idle"},
        {"t": 100, "cpu": 1, "event": "wake", "vcpu": "b/0"},
        {"t": 100, "cpu": 1, "event": "dispatch", "vcpu": "b/0"},
        {"t": 2_900_100, "cpu": 1, "event": "block", "vcpu": "b/0"},
        {"t": 2_900_100, "cpu": 1, "event": "idle"},
    ], pcpus=2, end=3_000_000)
    assert oracle.counts == {"R12": 1, "R7": 1}
    r7 = oracle.first_of_each_rule["R7"]
    assert (r7.cpu, r7.t, r7.allowed) == (0, 100, ("b/0",))


@pytest.mark.rule("R7")
def test_a_block_on_another_pcpu_closes_the_homes_obligation_at_once():
    """b wakes at home, runs on pCPU 1 and blocks there 300 us later: within the tolerance."""
    oracle = judge([
        {"t": 0, "cpu": 0, "event": "idle"},
        {"t": 0, "cpu": 1, "event": "idle"},
        {"t": 100, "cpu": 0, "event": "wake", "vcpu": "b/0"},
        {"t": 100, "cpu": 1, "event": "dispatch", "vcpu": "b/0"},
        {"t": 300_100, "cpu": 1, "event": "block", "vcpu": "b/0"},
        {"t": 300_100, "cpu": 1, "event": "idle"},
    ], pcpus=2)
    assert oracle.counts == {"R12": 1}
    assert oracle.tolerated["R7"] == 1 and oracle.tolerated_max["R7"] == 300_000

"""Ballooning sizes a VM's online vCPUs to the CPU it gets, and so removes stacking."""

import pytest

from akita.guest.balloon import Balloon
from akita.reference.run import simulate
from guest_hosts import host, vm

S = 1_000_000_000


def _run(policy: str, control: str) -> dict:
    """A 4-vCPU guest beside a 2-vCPU hog on 4 pCPUs."""
    shared = host(4, vm("a", 4, program="blackscholes", work="800ms", control=control),
                  vm("hog", 2))
    return simulate(shared, policy, duration=2 * S).as_json()["guests"]["a"]


def test_under_credit_ballooning_to_the_share_removes_stacking():
    """credit shares per VM: the guest's share is two pCPUs; with two or three vCPUs online
    none waits behind a sibling."""
    before, after = _run("credit", "none"), _run("credit", "balloon")
    assert before["stacked_ns"] > 100_000_000
    assert after["stacked_ns"] == 0
    assert after["online_min"] == 2 and after["online_changes"] > 0
    assert after["completion_ns"] is not None


def test_under_cfs_ballooning_cuts_stacking():
    before, after = _run("cfs", "none"), _run("cfs", "balloon")
    assert after["stacked_ns"] < before["stacked_ns"] // 2
    assert after["online_min"] < 4


@pytest.mark.parametrize("policy", ["credit", "cfs"])
def test_a_controller_that_never_acts_keeps_the_stacking(monkeypatch, policy):
    """Deliberately wrong: a balloon that never changes the online vCPUs."""
    monkeypatch.setattr(Balloon, "step", lambda self, t: None)
    assert _run(policy, "balloon")["stacked_ns"] == _run(policy, "none")["stacked_ns"] > 0


def test_the_estimate_is_the_online_vcpus_time_less_the_steal():
    class Account:
        steal = [0, 0]

    class State:
        ran_ns = 0

    class Kernel:
        states = [State(), State()]
        online = [True, True]

        def online_count(self):
            return 2

    balloon = Balloon(Kernel(), Account(), period=10, hysteresis=2, estimator="steal")
    Account.steal = [9, 2]  # 11 of 20 stolen: 9 left, a pCPU's worth rounded up
    assert balloon.target() == 1
    Account.steal = [9, 3]  # none stolen since: still 2 (no vCPU offline to probe)
    assert balloon.target() == 2

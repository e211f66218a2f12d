"""A preempted lock holder makes its waiters spin, and the spin is measured exactly."""

import pytest

from akita.guest.observe import DoubleScheduling
from akita.guest.runtime import program_for
from akita.reference.run import simulate
from guest_hosts import host, vm

S = 1_000_000_000


#: CFS's tunables unscaled (a 6 ms latency): the slices this scenario is built on.  Scaled
#: for 2 CPUs online (x2, Linux's default) a holder finishes its critical section within its
#: longer slice here and no waiter spins, which would leave nothing to measure.
UNSCALED = 'cfs_tunable_scaling = "none"\n'


def _run(*others: str) -> dict:
    shared = host(2, vm("a", 2, program="fluidanimate", work="200ms"), *others,
                  options=UNSCALED)
    doc = simulate(shared, "cfs", duration=S).as_json()
    return {"guest": doc["guests"]["a"], "cpu_ns": doc["vms"]["a"]["cpu_ns"],
            "work": program_for(shared.vms[0], 1).work}


def _burnt_beyond_work(run: dict) -> int:
    """The vCPU time the guest used beyond its program's work and its spins: its halts."""
    return run["cpu_ns"] - run["work"] - run["guest"]["spin_ns"]


def test_alone_the_holder_always_runs():
    alone = _run()
    assert alone["guest"]["completion_ns"] is not None
    assert alone["guest"]["spin_preempted_holder_ns"] == 0
    assert alone["guest"]["stacked_ns"] == 0


def test_a_preempted_holder_makes_waiters_spin():
    shared = _run(vm("hog", 1))
    guest = shared["guest"]
    assert guest["completion_ns"] is not None
    # the hog shares the host: CFS's idle balance stacks the VM's two vCPUs on one pCPU, and a
    # holder preempted by its own sibling leaves that sibling spinning for its slice
    assert guest["spin_preempted_holder_ns"] > 0.9 * guest["spin_ns"] > 50_000_000
    assert guest["stacked_ns"] > 0


@pytest.mark.parametrize("others", [(), (vm("hog", 1),)])
def test_spin_is_the_cpu_used_beyond_the_work(others):
    """What the VM ran = its program's work + its spins + 1 ns per halt."""
    assert 0 <= _burnt_beyond_work(_run(*others)) < 1_000_000


def test_an_account_blind_to_the_host_fails_the_check(monkeypatch):
    """Deliberately wrong: counting a spin whether or not the host runs the vCPU."""
    monkeypatch.setattr(DoubleScheduling, "running", lambda self, v: True)
    assert _burnt_beyond_work(_run(vm("hog", 1))) < 0

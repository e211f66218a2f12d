"""The host mechanisms FlexCore's KVM host has (decisions 290-295): a cgroup per VM,
wake and migration costs, the guest's lock kinds, pause-loop exiting, and the
fragmentation and inversion measures -- each against a deliberately wrong variant."""

import pytest

from akita.guest.observe import DoubleScheduling
from akita.guest.runtime import program_for
from akita.reference.policies.cfs import CFSPolicy, group_weight
from akita.reference.policy import Policy
from akita.reference.run import simulate
from guest_hosts import host, vm

S = 1_000_000_000
MS = 1_000_000
#: CFS unscaled (6 ms latency), as test_spin.py builds its preempted holder on.
UNSCALED = 'cfs_tunable_scaling = "none"\n'


def _locked(locks: str, options: str = "") -> dict:
    """fluidanimate on 2 vCPUs beside a cpu hog on 2 pCPUs: holders get preempted."""
    text = vm("a", 2, program="fluidanimate", work="200ms").replace(
        'control = "none"\n', f'control = "none"\nlocks = "{locks}"\n')
    shared = host(2, text, vm("hog", 1), options=UNSCALED + options)
    doc = simulate(shared, "cfs", duration=S).as_json()
    return {"guest": doc["guests"]["a"], "cpu_ns": doc["vms"]["a"]["cpu_ns"],
            "work": program_for(shared.vms[0], 1).work}


# -- a cgroup per VM ------------------------------------------------------------------------

def test_group_weight_is_the_vms_share_split_over_its_runnable_vcpus():
    assert group_weight(1024, 12 * 1024) == 85
    assert group_weight(1024, 1024) == 1024
    assert group_weight(15, 100 * 1024) == 2  # MIN_SHARES


def _share_of_b(groups: str) -> float:
    shared = host(1, vm("a", 2), vm("b", 1), options=f'cfs_groups = "{groups}"\n')
    vms = simulate(shared, "cfs", duration=S).as_json()["vms"]
    return vms["b"]["cpu_ns"] / (vms["a"]["cpu_ns"] + vms["b"]["cpu_ns"])


def test_a_cgroup_per_vm_shares_the_host_per_vm_not_per_vcpu():
    """Two vCPUs of a against one of b on a pCPU: flat, b gets a third; grouped, half."""
    assert 0.3 < _share_of_b("none") < 0.36
    assert 0.47 < _share_of_b("vm") < 0.53


def test_a_group_weight_that_ignores_the_group_fails(monkeypatch):
    """Deliberately wrong: every vCPU keeps its own weight (flat, though grouped)."""
    monkeypatch.setattr("akita.reference.policies.cfs.group_weight", lambda own, total: own)
    assert _share_of_b("vm") < 0.36


# -- wake and migration costs -------------------------------------------------------------

def _beyond_work(options: str, program: str = "streamcluster") -> int:
    shared = host(2, vm("a", 2, program=program, work="100ms"), vm("hog", 1), options=options)
    doc = simulate(shared, "cfs", duration=S).as_json()
    guest = doc["guests"]["a"]
    assert guest["completion_ns"] is not None
    return doc["vms"]["a"]["cpu_ns"] - program_for(shared.vms[0], 1).work - guest["spin_ns"]


@pytest.mark.parametrize("option", ["wake_cost", "migration_cost"])
def test_a_cost_shows_as_vcpu_time_beyond_the_work(option):
    """Without costs a guest's vCPU time is its work, spins and 1 ns halts; a 1 ms cost per
    wake (barrier waits halt streamcluster's vCPUs) or per migration (CFS's idle balance
    moves them beside the hog) adds whole milliseconds."""
    assert _beyond_work("") < MS
    assert _beyond_work(f'{option} = "1ms"\n') >= MS


def test_a_simulator_that_charges_no_cost_fails(monkeypatch):
    """Deliberately wrong: the simulator forgets the wake cost it was given."""
    from akita.reference.simulator import Simulator

    original = Simulator.__init__

    def forgetful(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.wake_cost = 0
    monkeypatch.setattr(Simulator, "__init__", forgetful)
    assert _beyond_work('wake_cost = "1ms"\n') < MS


# -- lock kinds ---------------------------------------------------------------------------

def test_futex_waiters_sleep_and_free_the_pcpu_for_the_holder():
    """A sleeping waiter's vCPU halts, so it does not stack on the holder's pCPU: the wait on
    a preempted holder that the spin lock's waiters suffer all but vanishes."""
    futex, spin = _locked("futex")["guest"], _locked("spin")["guest"]
    assert futex["completion_ns"] is not None
    assert futex["spin_ns"] == 0
    assert futex["lock_wait_ns"] > 0
    assert futex["lock_wait_preempted_holder_ns"] < spin["lock_wait_preempted_holder_ns"] / 2


def test_pv_waiters_spin_at_most_their_threshold_then_halt():
    spin, pv = _locked("spin")["guest"], _locked("pv")["guest"]
    assert pv["completion_ns"] is not None
    assert 0 < pv["spin_ns"] < spin["spin_ns"] / 2


def test_a_pv_lock_that_never_halts_spins_as_a_spin_lock(monkeypatch):
    """Deliberately wrong: a threshold beyond any wait."""
    monkeypatch.setattr("akita.guest.kernel.PV_SPIN", 10 * S)
    assert _locked("pv")["guest"]["spin_ns"] == _locked("spin")["guest"]["spin_ns"]


# -- pause-loop exiting ---------------------------------------------------------------------

def test_pause_loop_exits_yield_to_the_preempted_holder():
    without = _locked("spin")["guest"]
    with_ple = _locked("spin", 'ple_window = "2us"\n')["guest"]
    assert with_ple["completion_ns"] is not None
    assert with_ple["ple_exits"] > 0 and with_ple["ple_yields"] > 0
    assert with_ple["spin_preempted_holder_ns"] < without["spin_preempted_holder_ns"] / 2


def test_exits_that_do_not_yield_leave_the_spin(monkeypatch):
    """Deliberately wrong: cfs ignores the directed yield."""
    monkeypatch.setattr(CFSPolicy, "yield_to", Policy.yield_to)
    without = _locked("spin")["guest"]
    ignored = _locked("spin", 'ple_window = "2us"\n')["guest"]
    assert ignored["ple_exits"] > 0
    assert ignored["spin_preempted_holder_ns"] > without["spin_preempted_holder_ns"] / 2


# -- fragmentation and inversion -------------------------------------------------------------

def _alone(vcpus: int, threads: int) -> dict:
    text = vm("a", vcpus, program="blackscholes", work="40ms").replace(
        'control = "none"\n', f'control = "none"\nthreads = {threads}\n')
    return simulate(host(2, text), "cfs", duration=S).as_json()["guests"]["a"]


def test_threads_queued_on_one_vcpu_beside_an_idle_pcpu_are_fragmentation():
    one = _alone(1, 2)
    assert one["fragmented_ns"] >= one["completion_ns"] // 3
    two = _alone(2, 2)
    assert two["fragmented_ns"] == 0
    assert two["inverted_ns"] == 0


def test_a_fragmentation_blind_to_idle_pcpus_fails(monkeypatch):
    """Deliberately wrong: counting waiting threads whether or not a pCPU idles."""
    monkeypatch.setattr(DoubleScheduling, "_fragmented",
                        lambda self, running: sum(len(q) for q in self.kernel.rq) + 1)
    assert _alone(2, 2)["fragmented_ns"] > 0


def test_a_holder_preempted_by_its_spinning_sibling_is_inversion():
    assert _locked("spin")["guest"]["inverted_ns"] > 0


def test_an_inversion_blind_to_the_host_fails(monkeypatch):
    """Deliberately wrong: an urgent thread counts whether or not its vCPU runs.  Three
    threads on two vCPUs alone on two pCPUs: the lone thread waits at the barrier for the
    two that share a vCPU, which always runs -- no inversion, unless miscounted."""
    assert _alone(2, 3)["inverted_ns"] == 0
    monkeypatch.setattr("akita.guest.observe._inverted",
                        lambda cur, running, urgent: sum(1 for th in cur
                                                         if th is not None and id(th) in urgent))
    assert _alone(2, 3)["inverted_ns"] > 0

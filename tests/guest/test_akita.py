"""With Akita: only LO VMs balloon, and the HI guarantee holds for what admission decided."""

import pytest

from akita.guest import Guests
from akita.model import ModelError
from akita.reference.mutants import mutant_named
from akita.reference.policies import POLICIES
from akita.reference.simulator import Simulator
from guest_hosts import host, vm

S = 1_000_000_000


def _host():
    """On 2 pCPUs: a HI SMP guest that wants its pessimistic budget, sharing its pCPU with a LO
    guest that balloons; another LO guest that balloons and a cpu-bound LO VM."""
    return host(2,
                vm("hi", 2, program="blackscholes", work="400ms", budget="2ms", pes="3ms"),
                vm("lo1", 2, program="streamcluster", work="300ms", control="balloon",
                   budget="2ms"),
                vm("lo2", 2, program="fluidanimate", work="300ms", control="balloon",
                   budget="2ms"),
                vm("lo3", 2, budget="1ms"))


def _run(policy) -> dict:
    shared = _host()
    placement = policy.place(shared)
    assert all(answer.admitted for answer in placement.vms)
    assert placement.vms[0].pcpus == placement.vms[1].pcpus == (0, 0)
    return Simulator(shared, placement, policy, duration=S, guest=Guests(shared, 1)).run().as_json()


def test_the_hi_guarantee_holds_while_lo_vms_balloon():
    doc = _run(POLICIES["akita"]())
    assert doc["guests"]["lo1"]["online_changes"] + doc["guests"]["lo2"]["online_changes"] > 0
    assert doc["guests"]["hi"]["online_changes"] == 0
    assert doc["guests"]["hi"]["online_final"] == 2
    assert all(m["hi_misses"] == 0 for m in doc["vms"].values())
    assert doc["vms"]["hi"]["cpu_share"] > 0


def test_a_scheduler_that_serves_lo_first_in_hi_mode_misses():
    """Deliberately wrong (R6 broken): LO servers before HI ones in HI mode."""
    doc = _run(mutant_named("lo-first-in-hi-mode").policy())
    assert doc["vms"]["hi"]["hi_misses"] > 0


def test_a_hi_vm_may_not_balloon():
    with pytest.raises(ModelError) as caught:
        host(1, vm("hi", 1, program="blackscholes", control="balloon", budget="3ms", pes="5ms"))
    assert caught.value.field == "guest.control" and caught.value.vm == "hi"

"""A ``burn`` guest: requests are interrupt-level work that runs ahead of its CPU-bound process."""

import io
import json

import pytest
from strategies import MS

from akita.model import VM, Criticality, Host, ModelError, Workload, dumps_host, loads_host
from akita.reference.policies import POLICIES
from akita.reference.run import simulate
from akita.reference.simulator import Simulator

LO = Criticality.LO
US = 1_000


def pinger(burn: bool = True, **fields) -> VM:
    workload = Workload(kind="poisson", rate=100, service=50 * US, distribution="fixed",
                        burn=burn)
    spec = {"criticality": LO, "period": 10 * MS, "c_opt": 5 * MS} | fields
    return VM(name="ping", workload=workload, **spec)


def hog(name: str) -> VM:
    return VM(name=name, criticality=LO, period=10 * MS, c_opt=5 * MS)


def traced(host: Host, policy: str, duration: int) -> tuple[dict, list[dict]]:
    out = io.StringIO()
    placement = POLICIES[policy]().place(host)
    result = Simulator(host, placement, POLICIES[policy](), duration=duration, trace=out).run()
    return result.as_json(), [json.loads(line) for line in out.getvalue().splitlines()[1:]]


def test_alone_every_request_takes_exactly_its_service_and_the_vcpu_burns_the_rest():
    """Alone on a pCPU the guest runs all the time: a request runs at once, ahead of the
    burn, so its response time is its service exactly; the vCPU never blocks."""
    duration = 1000 * MS
    doc = simulate(Host(pcpus=1, vms=[pinger()]), "credit", duration=duration).as_json()
    ping = doc["vms"]["ping"]
    assert ping["requests"] > 50
    assert ping["rtt_ns"]["p50"] == ping["rtt_ns"]["max"] == 50 * US
    assert ping["cpu_ns"] == duration  # the burn takes what the requests leave
    assert doc["pcpus"][0]["idle_ns"] == 0


def test_without_burn_the_same_guest_idles_between_requests():
    """The negative control: the same requests without ``burn`` leave the pCPU idle."""
    doc = simulate(Host(pcpus=1, vms=[pinger(burn=False)]), "credit",
                   duration=1000 * MS).as_json()
    assert doc["vms"]["ping"]["cpu_ns"] < 1000 * MS // 10
    assert doc["pcpus"][0]["idle_ns"] > 0


@pytest.mark.parametrize("policy", ["credit-3.3", "credit", "cfs", "edf"])
def test_requests_never_wake_the_vcpu_and_wait_for_its_turn(policy):
    """Beside a hog the vCPU is always runnable: the trace shows one wake (at 0), and a
    request completes only while its vCPU runs -- after a wait for its turn, not at once."""
    doc, events = traced(Host(pcpus=1, vms=[pinger(), hog("hog")]), policy, 500 * MS)
    wakes = [e for e in events if e["event"] == "wake" and e["vcpu"] == "ping/0"]
    assert [e["t"] for e in wakes] == [0]
    running = None
    for e in events:
        if e["event"] == "dispatch":
            running = e["vcpu"]
        elif e["event"] == "complete" and e["vcpu"] == "ping/0":
            assert running == "ping/0"
    ping = doc["vms"]["ping"]
    assert ping["requests"] > 20
    assert ping["rtt_ns"]["max"] > 50 * US  # some request waited for the hog's slice


def test_burn_is_a_boolean_of_request_workloads_and_round_trips():
    with pytest.raises(ModelError, match="burn"):
        Workload(kind="duty", utilization=1, burn=True)
    with pytest.raises(ModelError, match="true or false"):
        Workload(kind="poisson", rate=1, service=1, burn="yes")
    host = Host(pcpus=1, vms=[pinger()])
    assert loads_host(dumps_host(host)) == host


def test_a_bad_burn_in_a_host_file_is_one_line_naming_the_vm_and_field():
    text = ('[host]\npcpus = 1\n[[vm]]\nname = "p"\ncriticality = "LO"\nperiod = "10ms"\n'
            'c_opt = "1ms"\nworkload = { kind = "poisson", rate = 10, service = "1ms", '
            'burn = "yes" }\n')
    with pytest.raises(ModelError) as caught:
        loads_host(text)
    assert str(caught.value) == ("<string>: vm 'p': field 'workload.burn': expected true or "
                                 "false, got 'yes'")

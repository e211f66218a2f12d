"""Requests that travel an I/O path (reference/iopath.py, model/io_path.py): the round trip
is the hops plus the network, each hop waits for its vCPU, a deliberately wrong path that
skips the reply is caught, determinism, and bad paths are refused naming the field."""

import json
from fractions import Fraction

import pytest
from strategies import MS

from akita.model import VM, Criticality, Host, ModelError, Share, Workload, loads_host
from akita.model.io_path import IOPath
from akita.reference import iopath
from akita.reference.run import simulate

US = 1_000


def dom0(cost=25 * US, **share):
    return VM("dom0", Criticality.LO, 10 * MS, MS, workload=Workload("idle"),
              io=IOPath(packet_cost=cost), share=Share(**share))


def pinger(rate=100, service=50 * US, latency=50 * US, workload=None):
    return VM("ping", Criticality.HI, 10 * MS, MS, 5 * MS,
              workload=workload or Workload("poisson", rate=Fraction(rate), service=service),
              io=IOPath(via="dom0", latency=latency))


def burn(name):
    return VM(name, Criticality.LO, 10 * MS, MS)


EVERY_10MS = Workload("periodic", demand=50 * US, period=10 * MS)


def test_alone_the_round_trip_is_network_backend_guest_backend():
    host = Host(2, (dom0(), pinger(workload=EVERY_10MS)))
    doc = simulate(host, "credit", duration=2000 * MS).as_json()
    ping = doc["vms"]["ping"]
    assert ping["requests"] > 100
    expected = 2 * 50 * US + 2 * 25 * US + 50 * US
    assert ping["io_path"]["rtt_mean_ns"] == expected
    assert ping["rtt_ns"]["max"] >= expected  # the histogram rounds up within its precision
    assert ping["io_path"]["backend_in_ns"]["p50"] >= 25 * US
    assert doc["vms"]["dom0"]["requests"] == 0  # its jobs are hops, not requests
    assert doc["vms"]["dom0"]["cpu_ns"] == ping["requests"] * 2 * 25 * US


def test_the_backend_waits_for_the_pcpu_like_any_vcpu():
    host = Host(1, (dom0(weight=1), pinger(rate=50), burn("b1"), burn("b2")))
    doc = simulate(host, "cfs", duration=3000 * MS).as_json()
    hops = doc["vms"]["ping"]["io_path"]
    assert hops["backend_in_ns"]["max"] > 25 * US  # it waited, at least once
    assert doc["vms"]["ping"]["io_path"]["rtt_mean_ns"] > 2 * 50 * US + 2 * 25 * US + 50 * US


def test_a_path_that_skips_the_reply_is_caught(monkeypatch):
    real = iopath.IOPaths.completed

    def skip_reply(self, job, t):  # deliberately wrong: the guest's answer goes out at once
        request = job[2]
        if request.stage == iopath.AT_GUEST:
            request.stage = iopath.OUTBOUND
        real(self, job, t)

    monkeypatch.setattr(iopath.IOPaths, "completed", skip_reply)
    doc = simulate(Host(2, (dom0(), pinger(workload=EVERY_10MS))), "credit",
                   duration=500 * MS).as_json()
    assert doc["vms"]["ping"]["io_path"]["rtt_mean_ns"] != 2 * 50 * US + 2 * 25 * US + 50 * US


def test_same_seed_same_bytes(tmp_path):
    host = Host(1, (dom0(), pinger(rate=300), burn("b")))
    texts = []
    for name in ("one", "two"):
        path = tmp_path / f"{name}.jsonl"
        doc = simulate(host, "credit-3.3", duration=300 * MS, seed=5, trace_path=str(path))
        texts.append((path.read_bytes(), json.dumps(doc.as_json(), sort_keys=True)))
    assert texts[0] == texts[1]


@pytest.mark.parametrize("text, field", [
    ('[[vm]]\nname = "p"\ntype = "Type1"\nio_via = "nobody"\n'
     'workload = { kind = "poisson", rate = 10, service = "50us" }\n', "io_via"),
    ('[[vm]]\nname = "d"\ntype = "Type2"\npacket_cost = "25us"\nio_via = "d"\n', "io_via"),
    ('[[vm]]\nname = "d"\ntype = "Type2"\npacket_cost = "0us"\nworkload = { kind = "idle" }\n',
     "packet_cost"),
    ('[[vm]]\nname = "d"\ntype = "Type2"\npacket_cost = "25us"\nworkload = { kind = "idle" }\n'
     '[[vm]]\nname = "p"\ntype = "Type2"\nio_via = "d"\n', "workload.kind"),
    ('[[vm]]\nname = "p"\ntype = "Type2"\nio_latency = "5us"\n', "io_latency"),
])
def test_a_bad_path_names_its_field(text, field):
    with pytest.raises(ModelError) as error:
        loads_host("[host]\npcpus = 1\n" + text)
    assert error.value.field == field


def test_a_host_file_path_reads_back():
    text = ('[host]\npcpus = 1\n[[vm]]\nname = "d"\ntype = "Type2"\npacket_cost = "25us"\n'
            'workload = { kind = "idle" }\n[[vm]]\nname = "p"\ntype = "Type1"\nio_via = "d"\n'
            'io_latency = "50us"\nworkload = { kind = "poisson", rate = 10, service = "50us" }\n')
    from akita.model import dumps_host
    host = loads_host(text)
    assert host.vms[1].io == IOPath("d", 50 * US, None)
    assert loads_host(dumps_host(host)) == host


def test_credit_33_takes_a_whole_tick_from_the_vcpu_a_tick_catches():
    """A VM that runs 1 ms across every other 10 ms tick beside two cpu-bound VMs: Xen 3.3
    charges it 10 ms each time, 15 ms a 30 ms accounting against a fair 10, so it turns
    OVER and waits behind their 30 ms slices; today's credit charges it 1 ms."""
    job = VM("a", Criticality.LO, 20 * MS, MS,
             workload=Workload("periodic", demand=MS, offset=9_500_000, period=20 * MS))
    host = Host(1, (job, burn("b"), burn("c")))
    p99 = {p: simulate(host, p, duration=3000 * MS).as_json()["vms"]["a"]["rtt_ns"]["p99"]
           for p in ("credit", "credit-3.3")}
    assert p99["credit"] < 3 * MS < 10 * MS < p99["credit-3.3"], p99


def closed(connections, service=50 * US, vcpus=1):
    return VM("client", Criticality.LO, 10 * MS, MS, vcpus=vcpus,
              workload=Workload("closed", connections=connections, service=service),
              io=IOPath(via="dom0", latency=50 * US))


def test_a_closed_loop_sends_the_next_request_when_the_reply_is_back():
    # one connection, dom0 and the guest on pCPUs of their own: each round trip is
    # 2 x 50us + 2 x 25us + 50us = 200us, back to back
    host = Host(2, (dom0(pin=[0]), attrs_pin(closed(1), [1])))
    doc = simulate(host, "credit", duration=1000 * MS).as_json()
    client = doc["vms"]["client"]
    assert client["io_path"]["rtt_mean_ns"] == 200 * US
    assert client["requests"] == 1000 * MS // (200 * US)


def attrs_pin(vm, pins):
    import attrs
    return attrs.evolve(vm, share=Share(pin=pins))


def test_a_backend_notifies_its_guest_once_per_batch(tmp_path):
    # four requests reach dom0 at 50us; the guest is woken once dom0 has done all four
    trace = tmp_path / "t.jsonl"
    simulate(Host(1, (dom0(), closed(4))), "credit", duration=10 * MS, trace_path=str(trace))
    events = [json.loads(line) for line in trace.read_text().splitlines()[1:]]
    first = next(e for e in events if e["event"] == "dispatch" and e["vcpu"] == "client/0")
    assert first["t"] == 50 * US + 4 * 25 * US


def test_a_closed_loop_needs_a_path():
    with pytest.raises(ModelError) as error:
        Host(1, (VM("c", Criticality.LO, 10 * MS, MS,
                    workload=Workload("closed", connections=2, service=US)),))
    assert error.value.field == "workload.kind"


def busy_dom0(offset):
    """dom0 on pCPU 0 with 1 ms of its own work every 10 ms from *offset* (its daemons)."""
    import attrs
    own = Workload("periodic", demand=MS, period=10 * MS, offset=offset)
    return attrs.evolve(dom0(pin=[0]), workload=own)


def test_a_backend_with_work_of_its_own_passes_packets_on_without_waiting_for_it():
    """The packet reaching dom0 at 50 us is done at 75 us; dom0's own job, arrived at 60 us,
    is queued behind it: the request goes on at 75 us, not when that job is done; the
    reply, arriving while the job runs, waits behind it (arrival order)."""
    host = Host(2, (busy_dom0(60 * US), attrs_pin(pinger(workload=EVERY_10MS), [1])))
    doc = simulate(host, "credit", duration=1000 * MS).as_json()
    hops, requests = doc["vms"]["ping"]["io_path"], doc["vms"]["ping"]["requests"]
    assert requests == 100
    assert hops["backend_in_ns"]["max"] < 30 * US  # 25 us, within the histogram's rounding
    assert hops["backend_out_ns"]["p50"] > MS - 100 * US  # behind the rest of dom0's own job
    assert doc["vms"]["dom0"]["cpu_ns"] == requests * (2 * 25 * US + MS)


def test_a_backend_whose_own_work_never_meets_a_packet_leaves_the_path_as_it_was():
    """The control: dom0's own job at 5 ms, far from every packet, changes no hop."""
    host = Host(2, (busy_dom0(5 * MS), attrs_pin(pinger(workload=EVERY_10MS), [1])))
    doc = simulate(host, "credit", duration=1000 * MS).as_json()
    assert doc["vms"]["ping"]["io_path"]["rtt_mean_ns"] == 2 * 50 * US + 2 * 25 * US + 50 * US


def test_a_cpu_bound_backend_runs_its_packets_ahead_of_its_endless_work():
    import attrs
    host = Host(2, (attrs.evolve(dom0(pin=[0]), workload=Workload("cpu-bound")),
                    attrs_pin(pinger(workload=EVERY_10MS), [1])))
    doc = simulate(host, "credit", duration=1000 * MS).as_json()
    assert doc["vms"]["ping"]["io_path"]["rtt_mean_ns"] == 2 * 50 * US + 2 * 25 * US + 50 * US
    assert doc["vms"]["dom0"]["cpu_share"] > 0.99

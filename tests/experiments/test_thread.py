"""The thread experiments' per-packet CPU (experiments/thread.py, decision 108): derived from
the thread's own figures, carried by every ``examples/thread-ex*.toml``, and a wrong
derivation is caught."""

from __future__ import annotations

from fractions import Fraction

import pytest

from akita.experiments import thread
from akita.experiments.experiment import example_host


def test_one_run_s_packet_cpu_is_what_the_burn_guests_left_over_the_packets():
    # revised ex7: 407.53 Mbps of 1500-byte packets is 33,961 packets a second; the burn
    # guests took 72%, so each packet had 0.28 s / 33,961 = 8,245 ns
    ns = thread.packet_cpu_ns((143.63, 132.13, 131.77), (24, 24, 24))
    assert ns == Fraction(28, 100) * 10**9 / (Fraction("407.53") * 10**6 / 12_000)
    assert 8_244 < ns < 8_245


def test_the_hop_is_a_third_of_the_median_run_rounded_to_100_ns():
    each = sorted(thread.packet_cpu_ns(s, b) for s, b in thread.MEASURED_RUNS)
    assert len(each) == 6 and 8_000 < each[0] < each[-1] < 16_000
    assert thread.hop_ns() == 2_900  # (9,076 + 8,440) / 2 / 3 = 2,919


@pytest.mark.parametrize("ex", ["ex3", "ex5", "ex7", "ex8"])
def test_every_thread_host_file_carries_the_derived_hop(ex):
    host = example_host(f"thread-{ex}.toml")
    dom0 = next(vm for vm in host.vms if vm.name == "dom0")
    assert dom0.io.packet_cost == thread.hop_ns()
    streams = [vm for vm in host.vms if vm.name.startswith("stream")]
    assert all(vm.workload.service == thread.hop_ns() for vm in streams)
    assert bool(streams) == (ex != "ex3")


def test_a_derivation_that_forgets_the_burn_guests_share_is_caught(monkeypatch):
    """A deliberately wrong variant: all of the pCPU counted for the packets."""
    def whole_cpu(streams, burns):
        mbps = sum(Fraction(str(each)) for each in streams)
        return 10**9 / (mbps * 10**6 / (thread.PACKET_BYTES * 8))

    monkeypatch.setattr(thread, "packet_cpu_ns", whole_cpu)
    assert thread.hop_ns() != example_host("thread-ex7.toml").vms[0].io.packet_cost

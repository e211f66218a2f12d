"""Each scheduler's distinctive behaviour, and a deliberately broken variant it catches.

Deadline's expiry, CFQ's idling, AS's anticipation and SPLA's rule (wait
only when the predicted wait is shorter than the seek): each scenario is
run under the scheduler and under its mutant (:mod:`akita.disk.schedulers.mutants`),
and the assertion that holds for the one fails for the other.
"""

import pytest

from akita.disk import ProcessSpec, VMSpec, simulate
from akita.disk.schedulers import Anticipatory, CFQ, Deadline, Pregather
from akita.disk.schedulers.mutants import (AnticipatoryWithoutAnticipation, CFQWithoutIdling,
                                           DeadlineWithoutExpiry, PregatherAlwaysWaiting)

S = 10**9
MS = 10**6

#: A request behind the head (VM "x", lower sectors) and four interleaved
#: sequential readers ahead of it that always leave one request further up.
BEHIND = (VMSpec("x", (ProcessSpec("x0", "rndrd"),)),
          VMSpec("s", tuple(ProcessSpec(f"s{i}", "seqrd", file=0, start=32 * i, stride=128)
                            for i in range(4))))
#: Two VMs, one sequential reader each, far apart.
TWO_STREAMS = tuple(VMSpec(f"v{i}", (ProcessSpec(f"v{i}", "seqrd"),)) for i in range(2))


def _run(vms, scheduler, seconds=1):
    return simulate(vms, scheduler, duration_ns=seconds * S).as_json()


def _deadline_bounds_the_wait(run):
    # a request still queued at the end is not counted: x must be served again and again
    x = run["vms"]["x"]
    return x["requests"] >= 3 and x["latency_ns"]["max"] <= Deadline.read_expire + 100 * MS


@pytest.mark.parametrize("scheduler, bounded", [(Deadline, True), (DeadlineWithoutExpiry, False)])
def test_deadline_serves_a_request_behind_the_head_by_its_deadline(scheduler, bounded):
    assert _deadline_bounds_the_wait(_run(BEHIND, scheduler, seconds=2)) is bounded


def _idles_and_streams(run):
    return run["waits"] > 0 and run["mean_seek_sectors"] < 1_000_000 and \
        run["wait_successes"] * 10 >= run["waits"] * 9


@pytest.mark.parametrize("scheduler, idles", [(CFQ, True), (CFQWithoutIdling, False),
                                              (Anticipatory, True),
                                              (AnticipatoryWithoutAnticipation, False)])
def test_cfq_idles_and_as_anticipates_for_a_synchronous_stream(scheduler, idles):
    assert _idles_and_streams(_run(TWO_STREAMS, scheduler)) is idles


@pytest.mark.parametrize("scheduler", [CFQ, Anticipatory])
def test_neither_waits_for_a_process_that_thinks_longer_than_its_idle_window(scheduler):
    slow = tuple(VMSpec(f"v{i}", (ProcessSpec(f"v{i}", "seqrd", think_ns=20 * MS),))
                 for i in range(2))
    run = _run(slow, scheduler)
    assert run["waits"] <= 2  # the first completion, before any think time is known


def _vm_with_two_streams(think_ns):
    return (VMSpec("m", (ProcessSpec("m0", "seqrd", think_ns=think_ns),
                         ProcessSpec("m1", "seqwr", think_ns=think_ns))),)


@pytest.mark.parametrize("scheduler, waits_when_slow", [(Pregather, False),
                                                         (PregatherAlwaysWaiting, True)])
def test_spla_waits_only_when_the_predicted_wait_is_shorter_than_the_seek(scheduler,
                                                                          waits_when_slow):
    fast = _run(_vm_with_two_streams(100_000), scheduler)
    slow = _run(_vm_with_two_streams(30 * MS), scheduler)  # 30 ms > any seek in one image
    assert fast["wait_kinds"]["fine"][0] > 100  # 0.1 ms < the seek to the other file
    assert (slow["wait_kinds"]["fine"][0] > 0) is waits_when_slow


def test_pregather_serves_vms_in_200_ms_slices():
    run = _run(TWO_STREAMS, Pregather, seconds=2)
    shares = [v["bytes"] for v in run["vms"].values()]
    assert abs(shares[0] - shares[1]) * 4 <= sum(shares)  # neither VM starves
    assert run["wait_kinds"]["coarse"][0] > 0  # each VM's stream held for its slice

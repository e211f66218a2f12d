"""The ``credit2`` baseline: Xen's credit2, its rules checked on short simulations.

The share bound is derived from the rules (``docs/policies/credit2.rst``).
On one pCPU every vCPU starts with ``CREDIT_INIT`` and every reset adds the
same amount to all of them; a vCPU of weight ``w`` that ran ``s`` ns has
burnt ``floor(s * max_weight / w)`` credits (the residual carries the
remainder).  So ``n_i = s_i * max_weight / w_i`` differs between two vCPUs
by the difference of their final credits only -- at most
``CREDIT_INIT + CARRYOVER_MAX - CREDIT_MIN`` = 20.5 ms, plus 1 -- provided
no credit ever hits ``CREDIT_MIN`` (a cpu-bound vCPU overshoots 0 by at
most the rate limit times ``max_weight / w``: 4 ms at a weight ratio of 4)
and no reset clips (at a reset on one pCPU every runnable vCPU is <= 0).
"""

import io
import json
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import MS

from akita.model import VM, Criticality, Host, Share, Workload
from akita.reference.mutants import Credit2WithoutReset
from akita.reference.placement import place_all
from akita.reference.policies import Credit2Policy
from akita.reference.policies.credit2 import (CAP_PERIOD, CARRYOVER_MAX, CREDIT_INIT, CREDIT_MIN,
                                              RATELIMIT)
from akita.reference.simulator import Simulator

LO = Criticality.LO


def vm(name, **fields):
    spec = {"criticality": LO, "period": 10 * MS, "c_opt": 5 * MS} | fields
    return VM(name=name, **spec)


def run(host, policy, duration, trace=None, placement=None):
    placement = placement if placement is not None else policy.place(host)
    return Simulator(host, placement, policy, duration=duration, seed=1, trace=trace).run()


def normalised(host, cls, duration):
    result = run(host, cls(), duration).as_json()["vms"]
    top = max(v.share.weight for v in host.vms)
    return {v.name: Fraction(result[v.name]["cpu_ns"] * top, v.share.weight) for v in host.vms}


weighted_hosts = st.lists(st.sampled_from([128, 256, 512]), min_size=2, max_size=4).map(
    lambda weights: Host(pcpus=1, vms=[vm(f"v{i}", share=Share(weight=w))
                                       for i, w in enumerate(weights)]))

BOUND = CREDIT_INIT + CARRYOVER_MAX - CREDIT_MIN + 1


@settings(max_examples=15, deadline=None)
@given(weighted_hosts)
def test_credit2_weights_share_the_cpu(host):
    """Service over weight is the same for every cpu-bound vCPU, within 20.5 ms."""
    n = normalised(host, Credit2Policy, 1000 * MS)
    assert max(n.values()) - min(n.values()) <= BOUND


def test_credit2_weights_share_the_cpu_and_the_reset_is_what_makes_them():
    """256 against 512 on one pCPU: 1:2 within the bound.  Without the reset (the mutant)
    the credits sink to CREDIT_MIN, stay there, and the weights stop mattering."""
    host = Host(pcpus=1, vms=[vm("light", share=Share(weight=256)),
                              vm("heavy", share=Share(weight=512))])
    n = normalised(host, Credit2Policy, 2000 * MS)
    assert abs(n["light"] - n["heavy"]) <= BOUND
    control = normalised(host, Credit2WithoutReset, 2000 * MS)
    assert abs(control["light"] - control["heavy"]) > 20 * BOUND


def test_reset_adds_credit_init_and_clips_at_the_carryover():
    policy = Credit2Policy()
    seen = []
    reset = policy.reset_credit

    def watched(snext, t):
        before = [s.sched.credit for s in policy.units]
        reset(snext, t)
        seen.append((before, [s.sched.credit for s in policy.units]))
    policy.reset_credit = watched
    host = Host(pcpus=1, vms=[vm("a"), vm("b", share=Share(weight=512)),
                              vm("sleepy", workload=Workload("periodic", demand=MS // 10))])
    run(host, policy, 500 * MS)
    assert len(seen) > 20
    for before, after in seen:
        for b, a in zip(before, after):
            assert a == min(b + CREDIT_INIT, CREDIT_INIT + CARRYOVER_MAX)
    assert any(a == CREDIT_INIT + CARRYOVER_MAX for _, after in seen for a in after)


def test_a_waking_vcpu_runs_within_the_rate_limit():
    """A light vCPU has more credit than the hogs it wakes beside: it is tickled onto the
    pCPU as soon as the running hog has run the rate limit (1 ms).  Not at the first
    request: at time 0 every credit is equal and a hog queued first goes first."""
    host = Host(pcpus=1, vms=[vm("hog"), vm("hog2"),
                              vm("rpc", workload=Workload("periodic", demand=MS // 10,
                                                          offset=MS // 3))])
    out = io.StringIO()
    run(host, Credit2Policy(), 1000 * MS, trace=out)
    waits, woke = [], None
    for line in out.getvalue().splitlines()[1:]:
        e = json.loads(line)
        if e.get("vcpu") == "rpc/0" and e["event"] == "wake":
            woke = e["t"]
        elif e.get("vcpu") == "rpc/0" and e["event"] == "dispatch" and woke is not None:
            waits.append(e["t"] - woke)
            woke = None
    assert len(waits) == 100
    assert max(waits[1:]) <= RATELIMIT
    assert waits[0] > RATELIMIT


def test_a_cap_holds_a_vm_to_its_percentage():
    """cap 25 beside a hog: 25% of the pCPU, within one period's budget and one rate limit
    of overrun over the run."""
    duration = 2000 * MS
    host = Host(pcpus=1, vms=[vm("capped", share=Share(cap=25)), vm("hog")])
    result = run(host, Credit2Policy(), duration).as_json()["vms"]
    assert abs(result["capped"]["cpu_ns"] - duration // 4) <= CAP_PERIOD + RATELIMIT
    assert result["hog"]["cpu_ns"] == duration - result["capped"]["cpu_ns"]


def test_one_run_queue_keeps_every_pcpu_busy_and_moves_vcpus():
    host = Host(pcpus=2, vms=[vm("a", vcpus=3)])
    start = place_all(host)
    result = run(host, Credit2Policy(), 300 * MS, placement=start).as_json()
    assert [c["idle_ns"] for c in result["pcpus"]] == [0, 0]
    assert sum(c["migrations"] for c in result["pcpus"]) >= 1
    assert result["vms"]["a"]["cpu_ns"] == 2 * 300 * MS

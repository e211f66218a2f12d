"""The akita-linux rule set's L6 and L7, each with a deliberately wrong case it must refuse."""

from __future__ import annotations

from fractions import Fraction

import pytest

from akita.model import load_host
from akita.oracle.linux_rules import LinuxRules
from akita.oracle.shadow import Choice, ShadowVCPU
from repo import EXAMPLES

MS = 1_000_000
SLACK = 500_000  # the default tolerance for kernel traces


def _rules() -> tuple[LinuxRules, ShadowVCPU, ShadowVCPU]:
    host = load_host(EXAMPLES / "fig5.toml")
    vcpus = [ShadowVCPU(v, 0, i, Fraction(1, 5))
             for i, v in enumerate(vm.all_vcpus()[0] for vm in host.vms)]
    rules = LinuxRules(vcpus, 4 * MS, SLACK)
    for v in vcpus:
        v.start_period(0)
        rules.period_start(v, False)
    return rules, vcpus[0], vcpus[1]


@pytest.mark.rule("R5")
def test_l6_an_ask_within_the_traces_resolution_of_c_opt_is_taken():
    rules, memcached, _ = _rules()
    memcached.consumed = memcached.c_opt - 3_000  # microseconds lost to the trace's rounding
    assert rules.claimed_ask(memcached, 2, 2)


@pytest.mark.rule("R5")
def test_l6_refuses_an_ask_far_below_c_opt_and_a_claim_that_is_no_ask():
    rules, memcached, lookbusy = _rules()
    memcached.consumed = memcached.c_opt - SLACK - 1
    assert not rules.claimed_ask(memcached, 2, 2)  # wrong: asked with C_opt not consumed
    memcached.consumed = memcached.c_opt
    assert not rules.claimed_ask(memcached, 1, 2)  # a cooling mark is no ask
    lookbusy.consumed = lookbusy.c_opt
    assert not rules.claimed_ask(lookbusy, 2, 2)  # a LO vCPU never asks
    memcached.asked = True
    assert not rules.claimed_ask(memcached, 2, 2)  # already asked: nothing to accept


@pytest.mark.rule("R5")
def test_l7_a_hi_vcpu_waking_after_its_virtual_deadline_is_throttled_until_its_period():
    rules, memcached, lookbusy = _rules()
    memcached.runnable = lookbusy.runnable = True
    key = int(memcached.key)  # x T = 20 ms after the period start
    rules.woke(memcached, key + SLACK)  # within the tolerance: the kernel's grid lags
    assert "memcached/0" not in rules.throttled
    rules.woke(memcached, key + SLACK + 1)
    assert "memcached/0" in rules.throttled
    cpu = type("Cpu", (), {"vcpus": [memcached, lookbusy], "deferred": set(),
                           "running": None})()
    options, _ = rules.allowed(cpu, False, Choice(False, False, False, None), key + MS)
    assert memcached not in options and lookbusy in options
    rules.woke(lookbusy, 10 * key)  # a LO vCPU's deadline is implicit: never throttled so
    assert "lookbusy1/0" not in rules.throttled
    memcached.start_period(memcached.period)
    rules.period_start(memcached, False)
    assert "memcached/0" not in rules.throttled  # its next period ends the throttle


@pytest.mark.rule("R5")
def test_l7_hi_mode_ends_the_throttle():
    rules, memcached, lookbusy = _rules()
    rules.woke(memcached, int(memcached.key) + MS)
    cpu = type("Cpu", (), {"vcpus": [memcached, lookbusy]})()
    rules.to_hi(cpu)
    assert not rules.throttled


@pytest.mark.rule("R4")
def test_l7_a_wake_within_the_tolerance_after_the_virtual_deadline_allows_both():
    rules, memcached, lookbusy = _rules()
    memcached.runnable = lookbusy.runnable = True
    key = int(memcached.key)
    cpu = type("Cpu", (), {"vcpus": [memcached, lookbusy], "deferred": set(),
                           "running": None})()
    choice = Choice(False, False, False, None)
    before, _ = rules.allowed(cpu, False, choice, key)
    assert before == [memcached]  # woken before its deadline: R4's head, nothing else
    rules.woke(memcached, key + SLACK // 2)
    options, _ = rules.allowed(cpu, False, choice, key + SLACK // 2)
    assert memcached in options and lookbusy in options

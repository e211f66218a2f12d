"""The akita-linux rule set's L6, L7 and L8, each with a deliberately wrong case it must refuse."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from akita.model import load_host
from akita.oracle.linux_rules import LinuxRules, Server
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


def _cpu(*vcpus: ShadowVCPU) -> object:
    return type("Cpu", (), {"vcpus": list(vcpus), "deferred": set(), "running": None})()


@pytest.mark.rule("R5")
def test_l7_a_hi_vcpu_waking_just_after_its_virtual_deadline_may_be_throttled():
    rules, memcached, lookbusy = _rules()
    memcached.runnable = lookbusy.runnable = True
    key = int(memcached.key)  # x T = 20 ms after the period start
    rules.woke(memcached, key + SLACK)  # within the tolerance: the kernel's grid lags
    assert "memcached/0" in rules.maybe_throttled and "memcached/0" not in rules.throttled
    rules.woke(lookbusy, 10 * key)  # a LO vCPU's deadline is implicit: never throttled so
    assert "lookbusy1/0" not in rules.throttled | rules.maybe_throttled
    memcached.start_period(memcached.period)
    rules.period_start(memcached, False)
    assert "memcached/0" not in rules.maybe_throttled  # its next period ends the throttle


@pytest.mark.rule("R2", "R4")
def test_l8_past_its_virtual_deadline_a_hi_vcpu_runs_as_fifo_below_the_deadline_class():
    rules, memcached, lookbusy = _rules()
    memcached.runnable = lookbusy.runnable = True
    key = int(memcached.key)
    rules.woke(memcached, key + SLACK + 1)  # asleep at it, woken past it: throttled (L7)...
    assert "memcached/0" in rules.throttled and "memcached/0" not in rules.past
    choice = Choice(False, False, False, None)
    lookbusy.runnable = False
    options, _ = rules.allowed(_cpu(memcached, lookbusy), False, choice, key + SLACK + 2)
    assert memcached in options and None in options  # ...until moved, within the tolerance
    lookbusy.runnable = True
    options, rule = rules.allowed(_cpu(memcached, lookbusy), False, choice, key + 2 * SLACK + 2)
    assert "memcached/0" in rules.past and "memcached/0" not in rules.throttled
    assert options == [lookbusy] and rule == "R4"  # the active deadline task first
    lookbusy.runnable = False
    options, rule = rules.allowed(_cpu(memcached, lookbusy), False, choice, key + 2 * MS)
    assert options == [memcached] and rule == "R4"  # then it: idling is R4's violation
    memcached.start_period(memcached.period)
    rules.period_start(memcached, False)
    assert "memcached/0" not in rules.past | rules.outside  # back in the deadline class


@pytest.mark.rule("R2")
def test_l8_a_hi_vcpu_that_asked_is_not_moved_and_hi_mode_is_l2s():
    rules, memcached, lookbusy = _rules()
    memcached.asked = True
    rules.pass_virtual_deadlines(_cpu(memcached, lookbusy), int(memcached.key) + MS)
    assert not rules.past
    memcached.asked = False
    rules.pass_virtual_deadlines(_cpu(memcached, lookbusy), int(memcached.key) + MS)
    assert not rules.past  # asleep: moved out only when it wakes (decision 312)
    memcached.runnable = True
    rules.pass_virtual_deadlines(_cpu(memcached, lookbusy), int(memcached.key) + SLACK)
    assert not rules.past  # within the tolerance: not yet
    rules.pass_virtual_deadlines(_cpu(memcached, lookbusy), int(memcached.key) + SLACK + 1)
    assert rules.past == {"memcached/0"}
    rules.to_hi(_cpu(memcached, lookbusy))
    assert not rules.past


@pytest.mark.rule("R5")
def test_l7_hi_mode_ends_the_throttle():
    rules, memcached, lookbusy = _rules()
    rules.woke(memcached, int(memcached.key) + SLACK // 2)
    cpu = type("Cpu", (), {"vcpus": [memcached, lookbusy]})()
    rules.to_hi(cpu)
    assert not rules.throttled and not rules.maybe_throttled


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


@pytest.mark.rule("R3")
def test_l9_a_wake_within_its_density_keeps_the_runtime():
    rules, memcached, _ = _rules()
    memcached.consumed = 4 * MS  # 1 ms left, 10 ms to its deadline: 1/10 <= 5/20
    rules.woke(memcached, 10 * MS)
    assert "memcached/0" not in rules.cut


@pytest.mark.rule("R3")
def test_l9_a_wake_above_its_density_cuts_the_runtime_and_the_wrong_rule_does_not():
    rules, memcached, lookbusy = _rules()
    memcached.runnable = lookbusy.runnable = True
    rules.woke(memcached, 15 * MS)  # 5 ms left, 5 ms to its deadline: cut to 5 * 5/20
    assert rules.cut["memcached/0"] == (1_250_000, 0)
    memcached.consumed = 1_250_000 + SLACK + 1  # the cut runtime spent: throttled
    choice = Choice(False, False, False, None)
    options, _ = rules.allowed(_cpu(memcached, lookbusy), False, choice, 17 * MS)
    assert memcached not in options and lookbusy in options
    memcached.consumed = 1_250_000 - SLACK // 2  # within the tolerance of it: either
    options, _ = rules.allowed(_cpu(memcached, lookbusy), False, choice, 17 * MS)
    assert memcached in options and lookbusy in options
    wrong, memcached2, lookbusy2 = _rules()
    wrong.wakeup_rule = "new-period"  # the deliberately wrong rule: a full runtime
    memcached2.runnable = lookbusy2.runnable = True
    wrong.woke(memcached2, 15 * MS)
    memcached2.consumed = 1_250_000 + SLACK + 1
    options, _ = wrong.allowed(_cpu(memcached2, lookbusy2), False, choice, 17 * MS)
    assert options == [memcached2]


@pytest.mark.rule("R3")
def test_l9_a_period_start_restores_the_runtime():
    rules, memcached, _ = _rules()
    rules.woke(memcached, 15 * MS)
    memcached.start_period(memcached.period)
    rules.period_start(memcached, False)
    assert "memcached/0" not in rules.cut


#: The first 60 ms of a real capture (``akita linux examples/fig5.toml --seconds 10 --seed
#: 1``, real memcached, the first version of decision 310, load average 9.5): memcached woke
#: at 49.446 ms above its density, the kernel cut its runtime (L9), and it was throttled,
#: runnable, before its virtual deadline (51.494 ms).
CAPTURE = EXAMPLES.parent / "tests" / "data" / "linux" / "fig5-memcached-wakeup.txt"


def _judged(capsys: pytest.CaptureFixture[str], capture: Path = CAPTURE) -> dict:
    import json

    from akita.cli import run

    code = run(["conform", str(capture.with_suffix(".toml")), str(capture), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == (0 if report["verdict"] == "conformant" else 1)
    return report


@pytest.mark.rule("R3", "R7")
def test_l9_a_real_capture_conforms_and_refutes_the_wrong_wakeup_rule(capsys, monkeypatch):
    report = _judged(capsys)
    assert report["verdict"] == "conformant" and report["decisions"] > 300
    monkeypatch.setattr(LinuxRules, "wakeup_rule", "new-period")
    wrong = _judged(capsys)
    assert wrong["counts"] == {"R7": 1}
    (finding,) = wrong["violations"]
    assert finding["t"] == 49_586_000 and "memcached/0" in finding["text"]


# -- L10: the CBS of a LO vCPU (implicit deadline) -------------------------------------------

def _lo(rule: str = "cbs") -> tuple[LinuxRules, ShadowVCPU, ShadowVCPU]:
    """fig5.toml's lookbusy1 and lookbusy2 (LO, C_opt 25 ms every 100 ms) in the deadline
    class from t = 0, asleep there (their wakes decide, L10), under *rule*."""
    host = load_host(EXAMPLES / "fig5.toml")
    one, two = (ShadowVCPU(vm.all_vcpus()[0], 0, i, Fraction(1, 5))
                for i, vm in enumerate(host.vms[1:3]))
    rules = LinuxRules([one, two], 4 * MS, SLACK)
    rules.lo_rule = rule
    for v in (one, two):
        v.start_period(0)
        rules.period_start(v, False)
    return rules, one, two


def _woken() -> tuple[LinuxRules, ShadowVCPU, ShadowVCPU]:
    """:func:`_lo`, lookbusy1 runnable and woken at 0: its CBS is (100 ms, 25 ms)."""
    rules, one, two = _lo()
    one.runnable = True
    rules.woke(one, 0)
    return rules, one, two


@pytest.mark.rule("R2", "R4")
def test_l10_a_lo_vcpu_waking_above_its_bandwidth_gets_a_new_period_and_grid_does_not():
    """lookbusy1 runs 2.5 ms, blocks, wakes at 30 ms with 22.5 ms left and 70 ms to its
    deadline: 22.5 x 100 > 25 x 70, so the kernel gives it (130 ms, 25 ms); lookbusy2, woken
    at 10 ms (deadline 110 ms), runs first.  R2's grid (the wrong rule) runs lookbusy1."""
    choice = Choice(False, False, False, None)
    for rule, first in (("cbs", "lookbusy2/0"), ("grid", "lookbusy1/0")):
        rules, one, two = _lo(rule)
        one.runnable = True
        rules.woke(one, 0)
        rules.charged(one, 2_500_000, 0)
        one.runnable = False
        two.runnable = True
        rules.woke(two, 10 * MS)
        one.runnable = True
        rules.woke(one, 30 * MS)
        options, rule_name = rules.allowed(_cpu(one, two), False, choice, 30 * MS)
        assert [v.name for v in options if v is not None][:1] == [first] and rule_name == "R4"
    assert rules.lo_rule == "grid" and "lookbusy1/0" not in rules.servers
    rules, one, _ = _woken()
    rules.charged(one, 2_500_000, 0)
    rules.woke(one, 30 * MS)
    assert rules.servers["lookbusy1/0"] == Server(130 * MS, 25 * MS, 2_500_000)


@pytest.mark.rule("R2")
def test_l10_a_wake_within_its_bandwidth_keeps_deadline_and_runtime():
    rules, one, _ = _woken()
    rules.charged(one, 20 * MS, 0)  # 5 ms left, 70 ms to go at 30 ms: 5 x 100 <= 25 x 70
    rules.woke(one, 30 * MS)
    assert rules.servers["lookbusy1/0"].deadline == 100 * MS
    assert rules._budget(one) == 5 * MS


@pytest.mark.rule("R3")
def test_l10_a_spent_runtime_is_replenished_at_the_deadline_with_the_overrun_carried():
    rules, one, two = _woken()
    two.runnable = True
    rules.charged(one, 26 * MS, 0)  # a tick-late throttle (L4): 1 ms overrun, spent at 25 ms
    assert rules.servers["lookbusy1/0"].out == 25 * MS
    choice = Choice(False, False, False, None)
    options, _ = rules.allowed(_cpu(one, two), False, choice, 99 * MS)
    assert one not in options  # throttled until its deadline (L1)
    rules.allowed(_cpu(one, two), False, choice, 100 * MS)
    assert rules.servers["lookbusy1/0"] == Server(200 * MS, 24 * MS, 26 * MS)


@pytest.mark.rule("R3")
def test_l10_spent_past_its_deadline_a_new_period_from_then():
    rules, one, _ = _woken()
    rules.charged(one, 10 * MS, 0)
    rules.charged(one, 15 * MS, 215 * MS)  # spent at 230 ms, its deadline + T long past
    rules.replenish(one, 230 * MS)
    assert rules.servers["lookbusy1/0"] == Server(330 * MS, 25 * MS, 25 * MS)


@pytest.mark.rule("R2")
def test_l10_outside_the_class_a_lo_vcpu_keeps_its_cbs_until_it_rejoins():
    rules, one, _ = _woken()
    rules.charged(one, 5 * MS, 0)
    rules.to_hi(_cpu(one))  # HI mode: SCHED_OTHER, 20 ms of runtime kept
    rules.charged(one, 30 * MS, 5 * MS)  # run as SCHED_OTHER: not the CBS's
    rules.join(one, 90 * MS)  # rejoins runnable before its deadline: kept
    rules.outside.discard("lookbusy1/0")
    assert rules._budget(one) == 20 * MS and rules._key(one) == 100 * MS
    rules.to_hi(_cpu(one))
    rules.join(one, 300 * MS)  # its deadline long past: a new period
    rules.outside.discard("lookbusy1/0")
    assert rules.servers["lookbusy1/0"] == Server(400 * MS, 25 * MS, 35 * MS)


#: The first 109 ms of a real capture (``akita linux examples/fig5.toml --seconds 10 --seed
#: 2``: real memcached and three lookbusy programs, load average about 5): lookbusy3 woke
#: at 87.439 ms with 22.425 ms of runtime left, 83.468 ms before its R2 deadline; above its
#: bandwidth, it got the deadline 187.439 ms and lookbusy2 (173.108 ms) ran on (L10).
CBS_CAPTURE = CAPTURE.with_name("fig5-lo-cbs-wakeup.txt")


@pytest.mark.rule("R2", "R4")
def test_l10_a_real_capture_conforms_and_refutes_r2s_grid_for_lo_vcpus(capsys, monkeypatch):
    report = _judged(capsys, CBS_CAPTURE)
    assert report["verdict"] == "conformant" and report["decisions"] > 800
    monkeypatch.setattr(LinuxRules, "lo_rule", "grid")
    wrong = _judged(capsys, CBS_CAPTURE)
    assert wrong["counts"] == {"R10": 1}
    (finding,) = wrong["violations"]
    assert finding["t"] == 87_439_000 and "lookbusy3/0" in finding["text"]


@pytest.mark.rule("R2")
def test_l10_a_first_sighting_is_no_wake_the_cbs_is_the_joinings():
    """A CPU-bound vCPU runnable since before the capture joined at 0 (R2's start); first
    seen at 32 ms, it has the CBS it got then, (100 ms, 25 ms).  Taken as a wake (the wrong
    reading) it would get a new period, (132 ms, 25 ms)."""
    rules, one, _ = _lo()
    one.runnable = True
    rules.woke(one, 32 * MS, first=True)
    assert rules.servers["lookbusy1/0"] == Server(100 * MS, 25 * MS, 0)
    wrong, one, _ = _lo()
    one.runnable = True
    wrong.woke(one, 32 * MS)
    assert wrong.servers["lookbusy1/0"].deadline == 132 * MS


def test_the_capture_reader_marks_a_first_sighting_and_not_a_wake():
    from akita.trace.ftrace import read_ftrace

    lines = [
        "python-9 [000] ...1. 1.000000: tracing_mark_write: akita: origin",
        "x-7 [000] d..2. 1.001000: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 "
        "prev_state=R ==> next_comm=a next_pid=41 next_prio=-1",
        "a-41 [000] d..2. 1.002000: sched_wakeup: comm=b pid=42 prio=-1 target_cpu=000",
    ]
    events = [e for e in read_ftrace(lines, {"41": "a/0", "42": "b/0"}) if e["event"] == "wake"]
    assert [(e["vcpu"], e.get("first")) for e in events] == [("a/0", True), ("b/0", None)]

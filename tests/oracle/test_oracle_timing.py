"""The oracle and the timing of issue 11: phases, queue order, HI-mode order and x, by hand.

Each trace here is written by hand, small enough to check on paper, so that
each claim is shown on the schedule that makes it true and on a
deliberately wrong variant that it refutes.  The end-to-end checks against
the reference simulator are in ``tests/oracle/test_timing_reference.py``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import attrs
import pytest

from akita.model import VM, Criticality, Host, SchedulerOptions, host_json
from akita.model.edf_vd import virtual_deadline_factor
from akita.model.first_fit import first_fit
from akita.oracle import Oracle, PhaseError, TraceError, conform, read_jsonl, trace_phases
from akita.oracle.phases import host_phases, resolve_oracle_phases

MS = 1_000_000
DECIDED = ("dispatch", "idle")


def lo(name: str, phase: int | None = None, period: int = 10 * MS, c: int = 2 * MS) -> VM:
    return VM(name, Criticality.LO, period, c, phase=phase)


def host_of(*vms: VM, **options: Any) -> Host:
    return Host(1, list(vms), options=SchedulerOptions(**options))


def header(host: Host, end: int) -> dict[str, Any]:
    return {"akita_trace": 1, "host": host_json(host), "duration_ns": end}


def judge(host: Host, events: list[dict[str, Any]], *, end: int, claimed: Host | None = None,
          reports: tuple[str, ...] = DECIDED, ties: str = "any"):
    """Check *events* of *host*, the header written for *claimed* (default: *host*)."""
    lines = [json.dumps(header(claimed or host, end))] + [json.dumps(e) for e in events]
    head, stream = read_jsonl(lines)
    return conform(host, stream, end=end, reports=reports, ties=ties,
                   phases=trace_phases(head, host))


def ev(t: int, kind: str, vcpu: str | None = None, **fields: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"t": t, "cpu": 0, "event": kind}
    if vcpu is not None:
        event["vcpu"] = vcpu
    return event | fields


# -- phases: where the periods start ---------------------------------------------------------

#: One LO vCPU, T = 10 ms, C = 2 ms, cpu-bound, whose periods start at 3 ms, 13 ms, ...
#: Before 3 ms it is inactive, its deadline (and background key) 3 ms.
PHASED = [
    ev(0, "wake", "a/0"),
    ev(0, "dispatch", "a/0", deadline=3 * MS, budget=0),
    ev(3 * MS, "release", "a/0", deadline=13 * MS, key=str(13 * MS), budget=2 * MS),
    ev(5 * MS, "exhaust", "a/0"),
    ev(13 * MS, "release", "a/0", deadline=23 * MS, key=str(23 * MS), budget=2 * MS),
    ev(15 * MS, "exhaust", "a/0"),
]
ALL = ("dispatch", "idle", "release", "exhaust")


def test_a_vcpu_s_periods_start_at_its_declared_phase():
    host = host_of(lo("a", phase=3 * MS))
    report = judge(host, PHASED, end=20 * MS, reports=ALL)
    assert report.verdict == "conformant", report.violations
    assert report.phases == {"a": 3 * MS} and report.phase_source == "host file"


def test_the_same_schedule_on_the_grid_from_0_is_named_r2():
    """The deliberately wrong variant: the oracle of before issue 11 (periods from 0)."""
    host = host_of(lo("a", phase=0))
    report = judge(host, PHASED, end=20 * MS, reports=ALL)
    assert report.verdict == "violations" and "R2" in report.counts


def test_the_header_gives_the_phases_a_seeded_host_leaves_open():
    host = host_of(lo("a"), phases="seeded")
    claimed = host_of(lo("a", phase=3 * MS), phases="seeded")
    report = judge(host, PHASED, end=20 * MS, claimed=claimed, reports=ALL)
    assert report.verdict == "conformant" and report.phase_source == "trace header"


@pytest.mark.rule("R2")
def test_a_trace_shifted_from_its_header_is_not_conformant():
    """The header claims 4 ms; the schedule keeps 3 ms: a deadline before the first period
    start and releases off the grid, R2."""
    host = host_of(lo("a"), phases="seeded")
    claimed = host_of(lo("a", phase=4 * MS), phases="seeded")
    report = judge(host, PHASED, end=20 * MS, claimed=claimed, reports=ALL)
    assert report.verdict == "violations" and report.violations[0].rule == "R2"
    assert "reports deadline 3ms; the rules give 4ms" in report.violations[0].text
    assert any("off its grid" in v.text for v in report.violations)


def test_before_its_phase_a_vcpu_is_background_work():
    """Before 3 ms the vCPU has no budget: a dispatch reporting one is R3, and an idle is R7."""
    host = host_of(lo("a", phase=3 * MS))
    wrong_budget = [PHASED[0], ev(0, "dispatch", "a/0", deadline=3 * MS, budget=2 * MS)]
    assert "R3" in judge(host, wrong_budget, end=MS, reports=ALL).counts
    idle = [PHASED[0], ev(0, "idle")]
    assert judge(host, idle, end=MS).violations[0].rule == "R7"


def test_an_unknown_phase_is_refused_in_one_line_naming_the_vms():
    host = host_of(lo("web"), lo("db"), phases="seeded")
    with pytest.raises(PhaseError) as caught:
        conform(host, iter([ev(0, "idle")]), path="trace.txt")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("trace.txt: field 'phase'")
    assert "none for web, db" in message
    assert 'phase = "3ms"' in message and 'phases = "synchronous"' in message


def test_a_synchronous_host_knows_its_phases():
    host = host_of(lo("web"), lo("db", phase=MS), phases="synchronous")
    assert host_phases(host) == {"web": 0, "db": MS}
    assert host_phases(attrs.evolve(host, options=SchedulerOptions(phases="seeded"))) == {
        "web": None, "db": MS}


def test_a_header_that_contradicts_a_declared_phase_is_refused():
    """Neither source is taken over the other: the trace is of another host."""
    host = host_of(lo("a", phase=3 * MS))
    claimed = host_of(lo("a", phase=4 * MS))
    with pytest.raises(PhaseError, match=r"a \(host file 3ms, trace 4ms\)"):
        judge(host, PHASED, end=20 * MS, claimed=claimed)
    synchronous = host_of(lo("a"), phases="synchronous")
    with pytest.raises(PhaseError, match="another host"):
        judge(synchronous, PHASED, end=20 * MS, claimed=claimed)


def test_only_admitted_vms_need_a_phase():
    big = VM("big", Criticality.LO, 10 * MS, 10 * MS)
    host = host_of(lo("a", phase=0), big, phases="seeded")
    phases, source = resolve_oracle_phases(host, {}, needed=frozenset({"a"}))
    assert phases == {"a": 0} and source == "host file"
    with pytest.raises(PhaseError, match="none for big"):
        resolve_oracle_phases(host, {})


@pytest.mark.parametrize("vms, field", [
    ("nope", "host.vms"),
    (["nope"], "host.vms"),
    ([{"name": "a", "phase": -1}], "host.vms.phase"),
    ([{"name": "a", "phase": 10 * MS}], "host.vms.phase"),
    ([{"name": "a", "phase": "3ms"}], "host.vms.phase"),
])
def test_a_malformed_header_phase_is_bad_input(vms, field):
    with pytest.raises(TraceError) as caught:
        trace_phases({"akita_trace": 1, "host": {"vms": vms}}, host_of(lo("a")))
    assert caught.value.field == field


# -- queue order: equal keys -----------------------------------------------------------------

#: a and b (host order), T = 10 ms, C = 2 ms, cpu-bound from their wakes, in phase.
#: b wakes at 0 and runs; a wakes at 1 ms with the same deadline (10 ms).
FIFO = [  # queue_order = "fifo": b was inserted first and keeps the pCPU; equals take turns
    ev(0, "wake", "b/0"), ev(0, "dispatch", "b/0"),
    ev(1 * MS, "wake", "a/0"),
    ev(2 * MS, "dispatch", "a/0"),   # b's budget ran out at 2 ms
    ev(4 * MS, "dispatch", "b/0"),   # a's at 4 ms: background, b inserted at 2 ms, a at 4 ms
]
HOST = [  # queue_order = "host": a comes first in host order and preempts b
    ev(0, "wake", "b/0"), ev(0, "dispatch", "b/0"),
    ev(1 * MS, "wake", "a/0"), ev(1 * MS, "dispatch", "a/0"),
    ev(3 * MS, "dispatch", "b/0"),   # a's budget ran out; b has 1 ms left
    ev(4 * MS, "dispatch", "a/0"),   # background: equal deadlines, a first in host order
]


@pytest.mark.rule("R4")
@pytest.mark.parametrize("order, good, bad, did", [
    ("fifo", FIFO, HOST, "ran a/0 (LO, deadline 10ms, inserted at 1ms) before b/0"),
    ("host", HOST, FIFO, "ran b/0 (LO, deadline 10ms) before a/0"),
])
def test_strict_ties_follow_the_host_s_queue_order(order, good, bad, did):
    """A tie broken against the queue order is R4's (its decision), named as such."""
    host = host_of(lo("a"), lo("b"), phases="synchronous", queue_order=order)
    assert judge(host, good, end=6 * MS, ties="strict").verdict == "conformant"
    wrong = judge(host, bad, end=6 * MS, ties="strict")
    assert wrong.verdict == "violations" and wrong.violations[0].rule == "R4"
    assert wrong.violations[0].t == 1 * MS
    assert f"broke a tie against the {order} queue order: {did}" in wrong.violations[0].text


@pytest.mark.parametrize("order", ["fifo", "host"])
def test_any_ties_accept_either_queue_order(order):
    host = host_of(lo("a"), lo("b"), phases="synchronous", queue_order=order)
    for events in (FIFO, HOST):
        report = judge(host, events, end=6 * MS)
        assert report.verdict == "conformant" and report.ambiguous > 0


def test_a_descheduled_vcpu_goes_behind_its_equals():
    """fifo (d): b, preempted at 1 ms by c's earlier deadline, is inserted again at 1 ms,
    after a (woken at 0.5 ms with b's key, which did not preempt b)."""
    host = host_of(lo("a"), lo("b"), lo("c", period=5 * MS, c=MS), phases="synchronous",
                   queue_order="fifo")
    events = [
        ev(0, "wake", "b/0"), ev(0, "dispatch", "b/0"),
        ev(MS // 2, "wake", "a/0"),                      # equal key: no preemption
        ev(MS, "wake", "c/0"), ev(MS, "dispatch", "c/0"),  # deadline 5 ms: preempts b
        ev(2 * MS, "dispatch", "a/0"),                   # c ran out: a (0.5 ms) before b (1 ms)
    ]
    assert judge(host, events, end=3 * MS, ties="strict").verdict == "conformant"
    wrong = events[:-1] + [ev(2 * MS, "dispatch", "b/0")]  # b kept its place, as under "host"
    report = judge(host, wrong, end=3 * MS, ties="strict")
    assert report.violations[0].rule == "R4" and report.violations[0].t == 2 * MS


# -- HI mode order and x ---------------------------------------------------------------------


def hi_mode_host(order: str) -> Host:
    """h is HI (C_opt 1 ms, C_pes 2 ms); l is LO; both T = 10 ms, from 0."""
    return Host(1, [VM("h", Criticality.HI, 10 * MS, MS, 2 * MS), lo("l", c=4 * MS)],
                options=SchedulerOptions(phases="synchronous", hi_mode_order=order))


#: h runs from 0, consumes C_opt at 1 ms (HI mode), and its budget at 2 ms.  In HI mode,
#: "hi-first" runs h (inactive HI, deadline 10 ms) before l (active LO, budget 4 ms).
HI_FIRST = [ev(0, "wake", "h/0"), ev(0, "wake", "l/0"), ev(0, "dispatch", "h/0"),
            ev(MS, "mode", mode="HI", vcpu="h/0")]
BUDGET_FIRST = HI_FIRST + [ev(2 * MS, "dispatch", "l/0")]


@pytest.mark.rule("R7")
@pytest.mark.parametrize("order, good, bad, rule", [
    ("hi-first", HI_FIRST, BUDGET_FIRST, "R7"),     # l ran while h, HI, was runnable
    ("budget-first", BUDGET_FIRST, HI_FIRST, "R3"),  # h ran on, past its budget, while l waited
])
def test_hi_mode_runs_its_tiers_in_the_host_s_order(order, good, bad, rule):
    host = hi_mode_host(order)
    x = virtual_deadline_factor(first_fit(host).pcpus[0].verdict, "eq4")
    assert x < 1  # h's LO-mode key, 10 ms x, is before l's: h runs first from 0
    reports = ("dispatch", "idle", "mode")
    assert judge(host, good, end=3 * MS, reports=reports).verdict == "conformant"
    wrong = judge(host, bad, end=3 * MS, reports=reports)
    assert wrong.violations[0].rule == rule and wrong.violations[0].t == 2 * MS


@pytest.mark.rule("R2")
@pytest.mark.parametrize("rule", ["eq4", "baruah"])
def test_the_virtual_deadline_follows_the_host_s_x_rule(rule):
    """U1 + U3 <= 1: Baruah's x is 1, Eq. (4)'s U2/(1-U1) = (1/10)/(1-4/10) = 1/6."""
    host = attrs.evolve(hi_mode_host("hi-first"),
                        options=SchedulerOptions(phases="synchronous", x_rule=rule))
    x = Fraction(1, 6) if rule == "eq4" else Fraction(1)
    oracle = Oracle(host)
    assert oracle.vcpus["h/0"].x == x
    other = "baruah" if rule == "eq4" else "eq4"
    key = str(10 * MS * (Fraction(1, 6) if other == "eq4" else 1))
    release = [ev(0, "release", "h/0", deadline=10 * MS, key=key, budget=2 * MS),
               ev(0, "idle")]
    assert judge(host, release, end=MS, reports=("dispatch", "idle", "release")).counts == {
        "R2": 1}


def lo_in_hi_host(order: str) -> Host:
    """h HI (C_opt 1 ms, C_pes 2 ms, T 10 ms); l1 LO (3 ms of 10 ms); l2 LO (1 ms of 5 ms)."""
    return Host(1, [VM("h", Criticality.HI, 10 * MS, MS, 2 * MS), lo("l1", c=3 * MS),
                    lo("l2", period=5 * MS, c=MS)],
                options=SchedulerOptions(phases="synchronous", hi_mode_order=order))


#: h runs first (virtual deadline 2 ms), asks at 1 ms (HI mode) and blocks at 1.5 ms, when l2
#: wakes: l1 (deadline 10 ms, inserted at 0) and l2 (deadline 5 ms, inserted at 1.5 ms) are
#: the active LO vCPUs of a pCPU in HI mode.
LO_IN_HI = [ev(0, "wake", "h/0"), ev(0, "wake", "l1/0"), ev(0, "dispatch", "h/0"),
            ev(MS, "mode", mode="HI", vcpu="h/0"),
            ev(3 * MS // 2, "block", "h/0"), ev(3 * MS // 2, "wake", "l2/0")]
BY_QUEUE = LO_IN_HI + [ev(3 * MS // 2, "dispatch", "l1/0")]
BY_DEADLINE = LO_IN_HI + [ev(3 * MS // 2, "dispatch", "l2/0")]


@pytest.mark.rule("R7")
def test_hi_first_runs_lo_vcpus_with_budget_in_queue_order_alone():
    """'In the high critical mode, Akita ignores low-criticality vCPUs': under "hi-first"
    their deadlines do not order them, their insertion does; under "budget-first" they do."""
    reports = ("dispatch", "idle", "mode")
    hi_first = lo_in_hi_host("hi-first")
    assert judge(hi_first, BY_QUEUE, end=2 * MS, reports=reports,
                 ties="strict").verdict == "conformant"
    wrong = judge(hi_first, BY_DEADLINE, end=2 * MS, reports=reports, ties="strict")
    assert wrong.violations[0].rule == "R4" and "fifo queue order" in wrong.violations[0].text
    loose = judge(hi_first, BY_DEADLINE, end=2 * MS, reports=reports)
    assert loose.verdict == "conformant" and loose.ambiguous == 1
    budget_first = lo_in_hi_host("budget-first")
    assert judge(budget_first, BY_DEADLINE, end=2 * MS, reports=reports,
                 ties="strict").verdict == "conformant"
    assert judge(budget_first, BY_QUEUE, end=2 * MS, reports=reports).violations[0].rule == "R7"


def tied_ask_host() -> Host:
    """h HI (C_opt 1 ms, C_pes 2 ms, T 10 ms) and l LO (4 ms of 5 ms), in phase: Eq. (4)
    gives x = (1/10)/(1 - 4/5) = 1/2, so h's virtual deadline 5 ms ties l's deadline."""
    return Host(1, [VM("h", Criticality.HI, 10 * MS, MS, 2 * MS), lo("l", period=5 * MS,
                                                                      c=4 * MS)],
                options=SchedulerOptions(phases="synchronous"))


#: h runs first (inserted with l at 0, first in host order), consumes C_opt exactly as it
#: blocks at 1 ms (no ask: not runnable), l runs; h wakes at 1.5 ms, tied with l at the head.
TIED_ASK = [ev(0, "wake", "h/0"), ev(0, "wake", "l/0"), ev(0, "dispatch", "h/0"),
            ev(MS, "block", "h/0"), ev(MS, "dispatch", "l/0"), ev(3 * MS // 2, "wake", "h/0")]
KEEP_L = TIED_ASK                                                 # l keeps the pCPU: no ask
PICK_H = TIED_ASK + [ev(3 * MS // 2, "mode", mode="HI", vcpu="h/0"),
                     ev(3 * MS // 2, "dispatch", "h/0")]          # h picked: it asks, HI mode
PICK_H_IN_LO = TIED_ASK + [ev(3 * MS // 2, "dispatch", "h/0")]  # h picked, no switch: wrong


@pytest.mark.rule("R5")
def test_r5_on_a_tied_pick_follows_what_was_picked():
    host = tied_ask_host()
    assert Oracle(host).vcpus["h/0"].x == Fraction(1, 2)
    reports = ("dispatch", "idle", "mode")
    for events in (KEEP_L, PICK_H):  # under --ties any, either tied head may be picked
        report = judge(host, events, end=2 * MS, reports=reports)
        assert report.verdict == "conformant", report.violations
    assert judge(host, PICK_H_IN_LO, end=2 * MS, reports=reports).violations[0].rule == "R5"
    # fifo's head is l (inserted first), which asks nothing: the switch is R5's violation (the
    # dispatch is judged in the mode claimed, where h is first)
    strict = judge(host, PICK_H, end=2 * MS, reports=reports, ties="strict")
    assert strict.counts == {"R5": 1} and "with no HI vCPU having consumed" in strict.violations[
        0].text
    assert judge(host, KEEP_L, end=2 * MS, reports=reports, ties="strict").verdict == "conformant"

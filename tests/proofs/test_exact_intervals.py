"""The interval re-check (:func:`akita.proofs.exact_certificate.check_intervals`) answers as
the member-by-member one (:func:`~akita.proofs.exact_certificate.check_certificate`) does.

* On the certificates the search gives, and on the same certificates made wrong -- a
  state dropped, or a temperature changed in a state at a period start -- the two
  re-checks accept and refuse alike (small pCPUs, Hypothesis).
* Its premise, that the tick is uniform over each family it steps, is checked member
  by member: every member of every cell steps to the lowest member's successor
  shifted by its extra work.
* Deliberately wrong certificates and a deliberately wrong step are refused: the
  initial states dropped, a warm vCPU's temperature lowered, and a step whose R5
  reads how much work is left rather than whether some is.
"""

from __future__ import annotations

import gc
import itertools
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import attrs
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from exact_pcpus import tick_pcpus

from akita.model import load_host
from akita.model.exact.abstraction import FIELDS, layout, members
from akita.model.exact.admission import ExactTest
from akita.model.exact.machine import Machine, machine
from akita.model.exact.search import SAFE, Limits, decide, explore
from akita.model.exact.tick import TickState, advance, arrive, ranks
from akita.model.exact.tick import step as tick_step
from akita.model.smt.pcpu import TickPCPU, TickVCPU
from akita.proofs import exact_certificate
from akita.proofs.exact_certificate import _cells, _Refused, _same, _starts, _tick, \
    check_certificate, check_intervals, shift

LIMITS = Limits(states=200_000, seconds=120)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_W = len(FIELDS)
_TEMP = FIELDS.index("temperature")


def small_pcpus() -> st.SearchStrategy[TickPCPU]:
    return tick_pcpus(max_vcpus=3, periods=(2, 3, 4, 6), variants=False, policies=("akita",))


def certificate(pcpu: TickPCPU) -> dict[bytes, int]:
    outcome = decide(pcpu, LIMITS)
    assume(outcome.status == SAFE)
    assert outcome.reached is not None
    return outcome.reached.states


def agree(pcpu: TickPCPU, states: Sequence[bytes]) -> bool:
    """Both re-checks' answers on *states*, asserted equal; the common answer."""
    members_answer = check_certificate(pcpu, states)
    intervals_answer = check_intervals(pcpu, states)
    assert members_answer.checked and intervals_answer.checked
    assert members_answer.accepted == intervals_answer.accepted, (
        members_answer.reason, intervals_answer.reason)
    return members_answer.accepted


@pytest.mark.rule("R5", "R9")
@settings(max_examples=60, deadline=None)
@given(small_pcpus())
def test_the_intervals_accept_what_the_members_accept(pcpu: TickPCPU) -> None:
    assert agree(pcpu, list(certificate(pcpu)))


def at_a_period_start(pcpu: TickPCPU, key: bytes) -> bool:
    lay = layout(machine(pcpu))
    return 0 in lay.field(lay.unpack(key), "pos")


@pytest.mark.rule("R5", "R9")
@settings(max_examples=60, deadline=None)
@given(small_pcpus(), st.data())
def test_a_dropped_state_is_judged_alike(pcpu: TickPCPU, data: st.DataObject) -> None:
    """Either both re-checks find the certificate still closed without the state (the
    others cover its members), or both refuse it."""
    keys = sorted(certificate(pcpu))
    drop = data.draw(st.integers(0, len(keys) - 1))
    agree(pcpu, keys[:drop] + keys[drop + 1:])


@pytest.mark.rule("R8", "R9")
@settings(max_examples=60, deadline=None)
@given(small_pcpus(), st.data())
def test_a_wrong_temperature_is_judged_alike(pcpu: TickPCPU, data: st.DataObject) -> None:
    """A state at a period start with a HI vCPU's temperature changed (both re-checks
    start from it, so both must judge it)."""
    m = machine(pcpu)
    lay = layout(m)
    keys = sorted(certificate(pcpu))
    starts = [k for k in keys if at_a_period_start(pcpu, k)]
    his = [i for i in range(m.n) if m.hi[i]]
    assume(starts and his and pcpu.initial_temperature > 0)
    key = data.draw(st.sampled_from(starts))
    i = data.draw(st.sampled_from(his))
    state = list(lay.unpack(key))
    old = state[2 + _W * i + _TEMP]
    new = data.draw(st.integers(0, pcpu.initial_temperature).filter(lambda t: t != old))
    state[2 + _W * i + _TEMP] = new
    wrong = [k for k in keys if k != key] + [lay.pack(state)]
    agree(pcpu, wrong)


@settings(max_examples=40, deadline=None)
@given(small_pcpus())
def test_the_tick_is_uniform_over_every_cell(pcpu: TickPCPU) -> None:
    """The premise of the interval re-check, member by member: within each cell of each
    certificate state, every member's tick is the lowest member's shifted."""
    m = machine(pcpu)
    lay = layout(m)
    zeros = (0,) * m.n
    for key in certificate(pcpu):
        state = lay.unpack(key)
        low = next(members(m, state))
        width = tuple(h - w for w, h in zip(lay.field(state, "work"), lay.field(state, "most")))
        for (cell_low, cell_width), after in _cells(m, (low, width), tick_step, zeros):
            for delta in itertools.product(*[range(w + 1) for w in cell_width]):
                moved, _, _ = tick_step(m, shift(m, cell_low, delta), zeros)
                assert _same(m, moved, shift(m, after, delta)), (cell_low, delta)


def exact_example() -> TickPCPU:
    """The pCPU of ``examples/exact.toml``, as the exact test scales it."""
    host = load_host(EXAMPLES / "exact.toml")
    test = ExactTest(host.options)
    vcpus = [v for vm in host.vms for v in vm.all_vcpus()]
    from akita.model.utilization import UtilizationSums
    from akita.model.edf_vd import edf_vd_test, virtual_deadline_factor

    sums = UtilizationSums.of(vcpus)
    return test.pcpu(vcpus, virtual_deadline_factor(edf_vd_test(sums), host.options.x_rule))


def test_the_example_is_accepted_and_its_wrong_certificates_refused() -> None:
    pcpu = exact_example()
    reached = explore(pcpu, LIMITS)
    assert reached.status == SAFE
    keys = list(reached.states)
    check = check_intervals(pcpu, keys)
    assert check.accepted, check.reason
    assert check.members < check_certificate(pcpu, keys).members * 10
    initial = set(reached.initial)
    without_initial = [k for k in keys if k not in initial]
    refused = check_intervals(pcpu, without_initial)
    assert not refused.accepted and "instant 0" in refused.reason
    assert not check_certificate(pcpu, without_initial).accepted


def test_a_lowered_temperature_is_refused() -> None:
    """Every state whose warm HI vCPU is made cooler, dropped for the cooler one: the
    certificate then lacks where the real, warmer, pCPU goes (R8, R9), and both
    re-checks refuse it."""
    pcpu = exact_example()
    m = machine(pcpu)
    lay = layout(m)
    keys = list(explore(pcpu, LIMITS).states)
    wrong, changed = [], 0
    for key in keys:
        state = list(lay.unpack(key))
        for i in range(m.n):
            t = 2 + _W * i + _TEMP
            if state[t] > 0:
                state[t] -= 1
                changed += 1
        wrong.append(lay.pack(state))
    assert changed
    assert not check_intervals(pcpu, wrong).accepted
    assert not check_certificate(pcpu, wrong).accepted


def test_a_step_that_is_not_uniform_in_work_is_refused() -> None:
    """A wrong step whose R5 fires on a crossing only with fewer than 3 ticks left (it
    reads the work's value, so a family's lowest member steps as the right step does and
    its top member does not): the interval re-check, which steps both ends of every
    family, refuses the certificate as not uniform; the member re-check refuses it too."""
    pcpu = TickPCPU((TickVCPU("hi/0", True, 12, 2, 8, 0, 0),
                     TickVCPU("lo/0", False, 6, 2, None, 1, 0)), Fraction(1, 2))
    reached = explore(pcpu, LIMITS)
    assert reached.status == SAFE
    keys = list(reached.states)
    assert check_intervals(pcpu, keys).accepted

    def wrong_step(m: Machine, s: TickState, demands: Sequence[int]) -> tuple[
            TickState, int, tuple[int, ...]]:
        after, ran, shorts = tick_step(m, s, demands)
        if ran >= 0 and m.hi[ran] and after.work[ran] >= 3 and s.consumed[ran] + 1 == m.c_opt[ran]:
            after = after._replace(hi_mode=s.hi_mode, temperature=s.temperature, asked=s.asked)
        return after, ran, shorts

    check = check_intervals(pcpu, keys, step=wrong_step)
    assert not check.accepted and "not uniform" in check.reason, check.reason
    assert not check_certificate(pcpu, keys, step=wrong_step).accepted


# --- the re-check's own shortcuts (decisions 360-361) ----------------------------------


def afresh(m: Machine, s: TickState, demands: Sequence[int]) -> tuple[
        TickState, int, tuple[int, ...]]:
    """The tick step under another name: the re-check then runs the tick afresh for each
    arrival and each member rather than reusing one run (``step is tick_step``)."""
    return tick_step(m, s, demands)


@settings(max_examples=40, deadline=None)
@given(small_pcpus())
def test_one_run_of_the_tick_lands_where_runs_afresh_do(pcpu: TickPCPU) -> None:
    """The start tick's reuse of a member's run (``_starts``) against the tick run afresh
    for every arrival: from every certificate state's family, stepped (``_tick``) to the
    tick before its next period start, the same families land, in the same order (or the
    same refusal)."""
    m = machine(pcpu)
    lay = layout(m)
    compared = 0
    for key in certificate(pcpu):
        state = lay.unpack(key)
        layer = [(next(members(m, state)),
                  tuple(h - w for w, h in zip(lay.field(state, "work"), lay.field(state, "most"))))]
        while layer and not any((p + 1) % T == 0 for p, T in zip(layer[0][0].pos, m.period)):
            layer = [after for family in layer for after in _tick(m, family, tick_step)]
        for family in layer:
            answers = []
            for step in (tick_step, afresh):
                try:
                    answers.append([repr(f) for f in _starts(m, family, step)])
                except _Refused as refused:
                    answers.append([str(refused)])
            assert answers[0] == answers[1]
            compared += 1
    assert compared


def test_a_start_tick_that_reuses_the_wrong_run_is_refused() -> None:
    """Negative control for the reuse: a start tick whose lowest member takes the top
    member's run of the tick (the reuse keyed wrongly) lands on states the certificate
    does not hold, and the re-check refuses where the right one accepts."""
    pcpu = exact_example()
    keys = list(explore(pcpu, LIMITS).states)
    assert check_intervals(pcpu, keys).accepted
    right = exact_certificate._into

    def crossed(m: Machine, s: TickState, step: object) -> object:
        into = right(m, s, tick_step)
        top = right(m, shift(m, s, tuple(m.full)), tick_step)
        return lambda demands: (top(demands)[0], into(demands)[1])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exact_certificate, "_into", crossed)
        assert not check_intervals(pcpu, keys).accepted


def test_a_tick_that_skips_a_lo_period_start_is_refused() -> None:
    """Negative control for the tick's shortcut where no period starts (the state is kept
    as it is): a wrong step that takes it also where only LO periods start, so a LO
    job's arrival, its budget's refill and its new debt are lost; the re-check refuses
    the certificate it accepts with the right step."""
    pcpu = TickPCPU((TickVCPU("hi/0", True, 12, 2, 8, 0, 0),
                     TickVCPU("lo/0", False, 6, 2, None, 1, 0)), Fraction(1, 2))
    keys = list(explore(pcpu, LIMITS).states)
    assert check_intervals(pcpu, keys).accepted

    def skips_lo(m: Machine, s: TickState, demands: Sequence[int]) -> tuple[
            TickState, int, tuple[int, ...]]:
        ran = advance(m, s)
        if all(p != 0 or not m.hi[i] for i, p in enumerate(ran.pos)):
            return ranked_only(m, ran), ran.last, ()
        state, shorts = arrive(m, ran, demands)
        return state, ran.last, shorts

    check = check_intervals(pcpu, keys, step=skips_lo)
    assert not check.accepted, check.reason


def ranked_only(m: Machine, ran: TickState) -> TickState:
    """*ran* with its insertion ranks normalised and no period start."""
    now = m.n + 2
    return ran._replace(ins=ranks(ran.ins, ran.work, now))


def test_the_collector_is_restored_as_it_was() -> None:
    """The re-check pauses the cyclic collector and gives it back as it found it, on
    and off, also when it refuses (the certificate without its initial states)."""
    pcpu = exact_example()
    reached = explore(pcpu, LIMITS)
    keys = list(reached.states)
    without_initial = [k for k in keys if k not in set(reached.initial)]
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            assert check_intervals(pcpu, keys).accepted
            assert gc.isenabled() == enabled
            assert not check_intervals(pcpu, without_initial).accepted
            assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()


# --- the re-check in parts (decision 359) ----------------------------------------------


def _answer(check: exact_certificate.CertificateCheck) -> tuple[object, ...]:
    """A re-check's answer but for its seconds."""
    return check.accepted, check.checked, check.states, check.members, check.reason


@settings(max_examples=40, deadline=None)
@given(small_pcpus(), st.integers(2, 4), st.data())
def test_in_parts_the_answer_is_the_one_in_one(pcpu: TickPCPU, parts: int,
                                              data: st.DataObject) -> None:
    """Dealt into parts (run here, one after the other), the re-check accepts and refuses
    what it does in one, on the search's certificate and with a state dropped; it steps
    at least the families it steps in one (a family two parts reach is stepped twice)."""
    keys = sorted(certificate(pcpu))
    drop = data.draw(st.integers(0, len(keys)))
    keys = keys[:drop] + keys[drop + 1:]
    whole = check_intervals(pcpu, keys)
    dealt = check_intervals(pcpu, keys, parts=parts, workers=0)
    assert (dealt.accepted, dealt.checked) == (whole.accepted, whole.checked), (
        whole.reason, dealt.reason)
    if whole.accepted:
        assert dealt.members >= whole.members and f"in {parts} parts" in dealt.reason


def test_the_parts_answer_alike_on_a_cluster_and_in_this_process() -> None:
    """The same answer, to the word and the count, on a local Dask cluster of two
    workers as in this process; and a certificate without its initial states, which only
    part 0 judges, is refused either way."""
    pcpu = exact_example()
    reached = explore(pcpu, LIMITS)
    keys = list(reached.states)
    here = check_intervals(pcpu, keys, parts=2, workers=0)
    there = check_intervals(pcpu, keys, parts=2, workers=2)
    assert here.accepted and _answer(here) == _answer(there)
    without_initial = [k for k in keys if k not in set(reached.initial)]
    refused = [check_intervals(pcpu, without_initial, parts=2, workers=w) for w in (0, 2)]
    assert not refused[0].accepted and "instant 0" in refused[0].reason
    assert _answer(refused[0]) == _answer(refused[1])


def test_a_join_that_takes_the_last_part_accepts_what_it_must_refuse() -> None:
    """Negative control for the join: parts that answer "refused" then "accepted" are
    refused as one, in the first refusing part's words; a join that read only the last
    part's answer would accept."""
    limits = exact_certificate.CheckLimits()
    refused = exact_certificate.CertificateCheck(False, True, 10, 4, 0.0, "a state ... is in no")
    accepted = exact_certificate.CertificateCheck(True, True, 10, 6, 0.0, "closed")
    joined = exact_certificate._joined([refused, accepted], 10, limits, 0.0)
    assert not joined.accepted and joined.checked and joined.reason == refused.reason
    assert joined.members == 10
    assert [refused, accepted][-1].accepted  # the wrong join's answer
    over = exact_certificate._joined([accepted, accepted], 10,
                                     attrs.evolve(limits, families=11), 0.0)
    assert not over.accepted and not over.checked and "limit reached" in over.reason


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 50), st.integers(1, 7))
def test_every_state_is_dealt_to_one_part(count: int, parts: int) -> None:
    keys = [bytes([k]) for k in range(count)]
    dealt = [exact_certificate._dealt(keys, k, parts) for k in range(parts)]
    assert [k for part in dealt for k in part] == keys

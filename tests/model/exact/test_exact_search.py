"""Cross-checks of the exact decision (model/exact/search.py) that can fail.

* A SAFE answer's certificate is re-checked by the independent checker
  (:mod:`akita.proofs.exact_certificate`; tick step, and Z3's encoding on tiny sets).
* The bounded Z3 check (:func:`akita.proofs.hi_guarantee.check_hi_guarantee`) over a
  horizon ``H`` proves the pCPU iff the exact search's earliest miss is later than
  ``H`` (or there is none), and refutes it iff it is at or before ``H``.
* A counterexample misses in the Z3 model and in the reference simulator
  (``save_replay`` + the simulator, as ``akita check --save`` replays).
* Every pCPU EDF-VD admits, the exact search calls SAFE; a SAFE pCPU never
  misses in the simulator under random phases and demands.
* Deliberately wrong rules -- HI jobs only at ``C_pes`` (the "largest demand is
  the worst" intuition), or synchronous phases only -- give wrong answers that the
  checks above refute.
"""

from __future__ import annotations

import tempfile

import attrs
import pytest
from hypothesis import HealthCheck, assume, find, given, settings
from hypothesis import strategies as st

from exact_pcpus import tick_pcpus, tight_pcpus
from strategies import MS

from akita.model import VM, Criticality, Host, SchedulerOptions, first_fit
from akita.model.exact.events import successors
from akita.model.exact.machine import machine
from akita.model.exact.search import SAFE, UNKNOWN, UNSAFE, Limits, decide, explore
from akita.model.smt.pcpu import TickPCPU, tick_pcpu
from akita.proofs.exact_certificate import check_certificate, check_intervals, z3_step
from akita.proofs.hi_guarantee import check_hi_guarantee
from akita.proofs.replay import reference_schedule, save_replay
from akita.proofs.verdict import PROVED, REFUTED

LIMITS = Limits(states=200_000, seconds=60)


def small_pcpus(**kwargs):
    return tick_pcpus(max_vcpus=3, periods=(2, 3, 4, 6), variants=False,
                      policies=("akita",), **kwargs).map(_maybe_every_phase)


def _maybe_every_phase(pcpu: TickPCPU) -> TickPCPU:
    """Half the draws with every phase open (the drawn phase of v0 decides)."""
    if pcpu.vcpus[0].phase is not None and pcpu.vcpus[0].phase % 2:
        return attrs.evolve(pcpu, vcpus=tuple(attrs.evolve(v, phase=None) for v in pcpu.vcpus))
    return pcpu


def horizon_of(pcpu: TickPCPU) -> int:
    return min(2 * pcpu.hyperperiod(), 24)


@settings(max_examples=40, deadline=None)
@given(small_pcpus())
def test_safe_certificates_are_rechecked(pcpu):
    outcome = decide(pcpu, LIMITS)
    assume(outcome.status == SAFE)
    check = check_certificate(pcpu, outcome.reached.states)
    assert check.accepted, check.reason
    check = check_intervals(pcpu, outcome.reached.states)
    assert check.accepted, check.reason


@settings(max_examples=4, deadline=None)
@given(tick_pcpus(max_vcpus=2, periods=(2, 3, 4), variants=False, policies=("akita",)))
def test_safe_certificates_are_rechecked_by_z3(pcpu):
    """The re-check with Z3's own encoding of the tick (slow: tiny pCPUs only)."""
    outcome = decide(pcpu, LIMITS)
    assume(outcome.status == SAFE and outcome.states <= 60)
    check = check_certificate(pcpu, outcome.reached.states, step=z3_step)
    assert check.accepted, check.reason
    check = check_intervals(pcpu, outcome.reached.states, step=z3_step)
    assert check.accepted, check.reason


def agrees_with_z3(pcpu: TickPCPU, outcome) -> bool:
    """Whether the bounded Z3 check over the horizon says what *outcome* implies."""
    horizon = horizon_of(pcpu)
    verdict = check_hi_guarantee(pcpu, horizon, timeout=120).verdict
    assume(verdict in (PROVED, REFUTED))
    if outcome.status == SAFE:
        return verdict == PROVED
    early = outcome.counterexample.instant <= horizon
    return verdict == (REFUTED if early else PROVED)


@settings(max_examples=25, deadline=None)
@given(small_pcpus())
def test_exact_agrees_with_the_bounded_z3_check(pcpu):
    outcome = decide(pcpu, LIMITS)
    assume(outcome.status != UNKNOWN)
    assert agrees_with_z3(pcpu, outcome)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(small_pcpus())
def test_exact_agrees_with_the_bounded_z3_check_long(pcpu):
    outcome = decide(pcpu, LIMITS)
    assume(outcome.status != UNKNOWN)
    assert agrees_with_z3(pcpu, outcome)


def replays_to_a_miss(pcpu: TickPCPU, example) -> bool:
    """The counterexample as ``akita check --save`` writes it, run by the reference."""
    with tempfile.TemporaryDirectory() as folder:
        host_file = save_replay(attrs.evolve(pcpu, test="exact"), example.demand, folder,
                                example.phases)
        _, misses = reference_schedule(host_file, pcpu, example.instant)
    return all(misses[pcpu.vcpus[i].name] >= 1 for i in example.missed)


def replayable(pcpu: TickPCPU) -> bool:
    """Whether the replay host's ``edf`` test admits the pCPU (U1 + U2 <= 1, U3 <= 1)."""
    from fractions import Fraction
    lo = sum(Fraction(v.c_opt, v.period) for v in pcpu.vcpus)
    hi = sum(Fraction(v.full, v.period) for v in pcpu.vcpus if v.hi)
    return lo <= 1 and hi <= 1


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(tight_pcpus())
def test_counterexamples_replay_in_the_reference_simulator(pcpu):
    assert replayable(pcpu)
    outcome = decide(pcpu, LIMITS)
    assume(outcome.status == UNSAFE)
    assert replays_to_a_miss(pcpu, outcome.counterexample)


@st.composite
def admitted_hosts(draw, test: str = "edf-vd"):
    """One pCPU's worth of 1-4 VMs with periods 2-12 ms, as first fit by *test* admits them."""
    vms = []
    for i in range(draw(st.integers(1, 4))):
        period = draw(st.sampled_from([2, 3, 4, 6, 8, 12]))
        hi = draw(st.booleans())
        c_opt = draw(st.integers(1, max(1, period // 2)))
        c_pes = draw(st.integers(c_opt, period)) if hi else None
        vms.append(VM(f"v{i}", Criticality.HI if hi else Criticality.LO, period * MS,
                      c_opt * MS, None if c_pes is None else c_pes * MS))
    options = SchedulerOptions(
        phases=draw(st.sampled_from(["synchronous", "seeded"])),
        queue_order=draw(st.sampled_from(["fifo", "host"])),
        hi_mode_order=draw(st.sampled_from(["capped", "hi-first", "budget-first"])),
        x_rule=draw(st.sampled_from(["eq4", "baruah"])),
        initial_temperature=draw(st.integers(1, 3)),
        lo_in_hi_mode=draw(st.booleans()),
    )
    host = Host(1, vms, test=test, options=options)
    placement = first_fit(host)
    assume(placement.pcpus[0].vcpus and any(v.vm.is_hi for v in placement.pcpus[0].vcpus))
    return host, placement


@settings(max_examples=40, deadline=None)
@given(admitted_hosts())
def test_every_pcpu_edf_vd_admits_the_exact_search_calls_safe(case):
    host, placement = case
    pcpu = tick_pcpu(host, placement, 0)
    outcome = decide(pcpu, LIMITS)
    assume(outcome.status != UNKNOWN)
    assert outcome.status == SAFE, outcome.reason


@settings(max_examples=15, deadline=None)
@given(admitted_hosts(test="exact"), st.randoms(use_true_random=False))
def test_safe_pcpus_never_miss_in_the_simulator(case, rng):
    host, placement = case
    pcpu = tick_pcpu(host, placement, 0)
    assume(placement.pcpus[0].verdict.schedulable)
    horizon = min(3 * pcpu.hyperperiod(), 72)
    phases = tuple(v.phase if v.phase is not None else rng.randrange(v.period)
                   for v in pcpu.vcpus)
    demand = {(i, k): rng.choice([0, rng.randint(1, v.full), v.full])
              for i, v in enumerate(pcpu.vcpus) for k in range(horizon // v.period + 1)}
    with tempfile.TemporaryDirectory() as folder:
        host_file = save_replay(attrs.evolve(pcpu, test="exact"), demand, folder, phases)
        _, misses = reference_schedule(host_file, pcpu, horizon)
    assert not any(misses.values()), (phases, demand)


# -- deliberately wrong rules ----------------------------------------------------------------


def only_largest_hi_jobs(m, state):
    """The wrong pruning "a HI job at C_pes is the worst case": a HI job just released is
    held as exactly ``C_pes`` instead of ``[1, C_pes]``."""
    for child, ticks, label in successors(m, state):
        if child:
            child = list(child)
            for i in label[2]:
                base = 2 + 7 * i
                if m.hi[i] and child[base + 1] == 1 and child[base + 2] == m.full[i]:
                    child[base + 1] = m.full[i]
            child = tuple(child)
        yield child, ticks, label


def test_the_largest_demand_pruning_is_refuted():
    """The wrong rule calls SAFE a pCPU that misses; the Z3 bounded check and the
    certificate re-check both refute it."""
    def wrong_safe(pcpu):
        right = decide(pcpu, LIMITS)
        return right.status == UNSAFE and explore(pcpu, LIMITS, only_largest_hi_jobs).status == SAFE

    pcpu = find(small_pcpus(), wrong_safe, settings=settings(max_examples=3000, database=None,
                                                             deadline=None))
    wrong = explore(pcpu, LIMITS, only_largest_hi_jobs)
    assert not check_certificate(pcpu, wrong.states).accepted
    assert not check_intervals(pcpu, wrong.states).accepted
    right = decide(pcpu, LIMITS)
    horizon = max(horizon_of(pcpu), right.counterexample.instant)
    assert check_hi_guarantee(pcpu, horizon, timeout=120).verdict == REFUTED


def test_synchronous_phases_only_is_refuted():
    """The wrong pruning "synchronous phases are the worst case" calls the staggered set
    safe; the every-phase Z3 check refutes it (docs/schedule-proofs.rst)."""
    from akita.proofs.pcpus import staggered, synchronous

    pcpu = staggered()
    assert explore(synchronous(pcpu), LIMITS).status == SAFE  # what the wrong rule says
    assert check_hi_guarantee(pcpu, 3 * pcpu.hyperperiod(), timeout=120).verdict == REFUTED
    assert decide(pcpu, LIMITS).status == UNSAFE


def test_the_counterexample_of_the_virtual_deadline_control_replays():
    """A known miss (virtual deadlines in HI mode on the two-HI set, refuted by Z3 too)."""
    from akita.proofs.pcpus import two_hi

    pcpu = two_hi("virtual")
    outcome = decide(pcpu, Limits(states=1_000_000, seconds=120))
    assert outcome.status == UNSAFE
    assert replays_to_a_miss(pcpu, outcome.counterexample)


@settings(max_examples=40, deadline=None)
@given(small_pcpus())
def test_subsumption_changes_no_answer(pcpu):
    """With and without subsumption: the same answer, the same earliest miss."""
    pruned, full = explore(pcpu, LIMITS), explore(pcpu, LIMITS, subsume=False)
    assume(UNKNOWN not in (pruned.status, full.status))
    assert pruned.status == full.status
    assert (pruned.miss or (None,))[0] == (full.miss or (None,))[0]
    assert len(pruned.states) <= len(full.states)


@settings(max_examples=30, deadline=None)
@given(small_pcpus(), st.randoms(use_true_random=False))
def test_an_answer_does_not_depend_on_names_or_host_numbering(pcpu, rng):
    """What the admission's cache (:func:`~akita.model.exact.admission.canonical`) assumes:
    renaming the VMs and renumbering the host, in the same relative order, changes no
    answer, no state count and no counterexample."""
    from akita.model.exact.admission import canonical

    offset = rng.randint(1, 50)
    names = {v.name.split("/")[0]: f"vm-{rng.randint(0, 10**6)}-{i}"
             for i, v in enumerate(pcpu.vcpus)}
    renamed = attrs.evolve(pcpu, vcpus=tuple(
        attrs.evolve(v, name=f"{names[v.name.split('/')[0]]}/{v.name.split('/')[1]}",
                     order=3 * v.order + offset) for v in pcpu.vcpus))
    assert canonical(renamed) == canonical(pcpu)
    a, b = decide(pcpu, LIMITS), decide(renamed, LIMITS)
    assert (a.status, a.states, a.transitions) == (b.status, b.states, b.transitions)
    if a.counterexample is not None and b.counterexample is not None:
        assert a.counterexample.schedule == b.counterexample.schedule

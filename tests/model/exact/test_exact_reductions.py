"""The exact search's reductions change no answer, and a wrong one is caught.

Each reduction of the search's state (:mod:`akita.model.exact.abstraction`, 6.: the
temperatures kept only as far as R9 reads them) is checked against the search without
it on small pCPUs: the same answer and the same earliest miss, and, without subsumption,
the same reachable states once their temperatures are set aside, each first reached at
the same instant (a merge that loses a behaviour changes a mode, a run or a miss
somewhere, and so changes this set).  Two deliberately wrong merges -- keep the vCPU
that cools *first*, or the *hottest* one -- are shown to change it.
"""

from __future__ import annotations

from typing import Callable, Sequence

import pytest
from hypothesis import assume, find, given, settings
from hypothesis import strategies as st

from exact_pcpus import tick_pcpus

from akita.model.exact import abstraction
from akita.model.exact.abstraction import FIELDS, settle
from akita.model.exact.machine import Machine, machine
from akita.model.exact.search import SAFE, UNKNOWN, Limits, Reached, explore
from akita.model.smt.pcpu import TickPCPU
from akita.proofs.exact_certificate import check_certificate

LIMITS = Limits(states=200_000, seconds=120)

#: The signature of :func:`settle` (a wrong merge takes its place).
Settle = Callable[[Machine, Sequence[int], Sequence[int], Sequence[int]],
                  tuple[tuple[int, ...], tuple[int, ...]]]


def small_pcpus() -> st.SearchStrategy[TickPCPU]:
    return tick_pcpus(max_vcpus=3, periods=(2, 3, 4, 6), variants=False, policies=("akita",))


@settings(max_examples=60, deadline=None)
@given(small_pcpus())
def test_merging_temperatures_changes_no_answer(pcpu: TickPCPU) -> None:
    """With and without the merge: the same answer, the same earliest miss, no more
    states; a SAFE certificate of either search is accepted by the re-check."""
    merged, full = explore(pcpu, LIMITS), explore(pcpu, LIMITS, reduce=False)
    assume(UNKNOWN not in (merged.status, full.status))
    assert merged.status == full.status
    assert (merged.miss or (None,))[0] == (full.miss or (None,))[0]
    assert len(merged.states) <= len(full.states)
    if merged.status == SAFE:
        assert check_certificate(pcpu, merged.states).accepted
        assert check_certificate(pcpu, full.states).accepted


@settings(max_examples=40, deadline=None)
@given(small_pcpus())
def test_the_representative_cools_when_the_state_does(pcpu: TickPCPU) -> None:
    """:func:`settle` keeps the latest cooling instant: on every reachable state the
    representative has the same ``D`` (module docstring of abstraction, 6.)."""
    m = machine(pcpu)

    def latest(pos: Sequence[int], temps: Sequence[int], asks: Sequence[int]) -> int:
        return max([T - p + (t + a - 1) * T for T, p, t, a in zip(m.period, pos, temps, asks)
                    if t > 0] + [0])

    full = explore(pcpu, LIMITS, reduce=False)
    lay = full.layout
    for key in full.visited:
        state = lay.unpack(key)
        pos, temps = lay.field(state, "pos"), lay.field(state, "temperature")
        asks = lay.field(state, "asked")
        kept_t, kept_a = settle(m, pos, temps, asks)
        assert latest(pos, kept_t, kept_a) == latest(pos, temps, asks)
        assert sum(1 for t in kept_t if t) <= 1


def _cools_first(m: Machine, pos: Sequence[int], temperature: Sequence[int],
                 asked: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A wrong merge: the vCPU that cools *first* stands for them all."""
    return _keep_one(m, temperature, asked, min(
        ((m.period[i] - pos[i] + (t + asked[i] - 1) * m.period[i], i)
         for i, t in enumerate(temperature) if t > 0), default=(0, -1))[1])


def _hottest(m: Machine, pos: Sequence[int], temperature: Sequence[int],
             asked: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A wrong merge: the hottest vCPU stands for them all (periods and positions ignored)."""
    return _keep_one(m, temperature, asked, max(
        ((t + asked[i], -i) for i, t in enumerate(temperature) if t > 0),
        default=(0, 1))[1] * -1)


def _keep_one(m: Machine, temperature: Sequence[int], asked: Sequence[int],
              keep: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if not m.merge_cooling:
        return tuple(temperature), tuple(asked)
    temps, asks = [0] * m.n, [0] * m.n
    if keep >= 0:
        temps[keep], asks[keep] = temperature[keep], asked[keep]
    return tuple(temps), tuple(asks)


def _shadow(reached: Reached) -> dict[tuple[int, ...], int]:
    """The states the search reached before its earliest miss, temperatures and asks set
    to 0, each with the instant it was first reached."""
    stop = reached.miss[0] if reached.miss else None
    out: dict[tuple[int, ...], int] = {}
    width = len(FIELDS)
    temp, ask = FIELDS.index("temperature"), FIELDS.index("asked")
    for key, at in reached.visited.items():
        if stop is not None and at >= stop:
            continue
        state = list(reached.layout.unpack(key))
        for i in range(reached.machine.n):
            state[2 + width * i + temp] = state[2 + width * i + ask] = 0
        shadow = tuple(state)
        out[shadow] = min(at, out.get(shadow, at))
    return out


def _same_behaviours(pcpu: TickPCPU) -> bool:
    """Whether the merged search (whatever :func:`settle` is now) reaches what the unmerged
    one does, up to temperatures, at the same instants (no subsumption in either)."""
    full = explore(pcpu, LIMITS, subsume=False, reduce=False)
    merged = explore(pcpu, LIMITS, subsume=False)
    if UNKNOWN in (full.status, merged.status):
        return True
    return full.status == merged.status and _shadow(full) == _shadow(merged)


@settings(max_examples=60, deadline=None)
@given(tick_pcpus(max_vcpus=3, periods=(2, 3, 4, 6, 8, 12), variants=False,
                  policies=("akita",)))
def test_merging_temperatures_keeps_every_behaviour(pcpu: TickPCPU) -> None:
    assert _same_behaviours(pcpu)


@pytest.mark.parametrize("wrong", [  # the second, slower to find, in the long tier
    pytest.param(_cools_first, id="cools-first"),
    pytest.param(_hottest, id="hottest", marks=pytest.mark.long)])
def test_a_wrong_merge_of_temperatures_is_caught(monkeypatch: pytest.MonkeyPatch,
                                                 wrong: Settle) -> None:
    """Each wrong merge loses or adds behaviours on some small pCPU (found by search)."""
    def caught(pcpu: TickPCPU) -> bool:
        with monkeypatch.context() as patch:
            patch.setattr(abstraction, "settle", wrong)
            return not _same_behaviours(pcpu)

    find(tick_pcpus(max_vcpus=3, periods=(2, 3, 4, 6, 8, 12), variants=False,
                    policies=("akita",)), caught,
         settings=settings(max_examples=3000, database=None, deadline=None))

"""The exact decision: explicit-state reachability to a fixpoint, earliest miss first.

:func:`decide` answers, for one pCPU (:class:`akita.model.smt.pcpu.TickPCPU`) with
every demand within the EDF-VD job model's caps (``C_pes`` for HI, ``C_opt``
for LO) and the phases the pCPU allows:

* ``SAFE``: no reachable state lets a HI job miss -- for all time, since the
  whole (finite, :mod:`.abstraction`) set of reachable states was built and
  is closed under the step; the set is the certificate
  (:mod:`akita.proofs.exact_certificate` re-checks it);
* ``UNSAFE``: a behaviour that misses, the earliest in time (the search is
  Dijkstra's over instants, so no behaviour misses sooner), as phases and
  demands (:mod:`.counterexample`), replayed on the tick step before it is
  reported;
* ``UNKNOWN``: a limit was reached (states or seconds) -- never an admission.

The initial configurations are every phase on the tick grid of every VM whose
phase the pCPU leaves open (the vCPUs of a VM share it, as in the simulator),
with the earliest phase 0 when none is fixed (*anchoring*,
:func:`akita.model.smt.pcpu._anchor`; docs/schedule-proofs.rst): a behaviour
whose earliest phase is ``m > 0`` is idle before ``m`` and is the anchored
one delayed by ``m``.  Nothing is lost for the fixpoint either: every idle
state in LO mode with any offsets of the periods is reached from an anchored
start by releasing nothing, so the reachable set is that of every phase.

Reduction: the temperatures are kept only as far as R9 reads them (the vCPU that
cools last, :func:`.abstraction.settle`, :mod:`.abstraction` 6.).  Pruning: only
subsumption (:mod:`.subsumption`): a state whose lazy jobs' work
intervals lie inside another's, reached no earlier, is dropped -- its behaviours
are among the other's.  No ordering of demands is assumed ("a larger HI job is
worse" is false here: ``tests/model/exact/test_exact_search.py`` shows a pCPU
whose only misses need a smaller one, and the checks that refute that rule).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

import attrs

from ..smt.pcpu import TickPCPU
from .abstraction import Layout, layout
from .collector import paused
from .events import MISS, Step, start_states, successors
from .limits import Limits
from .machine import Machine, machine
from .subsumption import Antichains

if TYPE_CHECKING:
    from .counterexample import Counterexample

__all__ = ["SAFE", "UNSAFE", "UNKNOWN", "Outcome", "Reached", "decide", "explore",
           "configurations", "shift_classes"]

SAFE, UNSAFE, UNKNOWN = "SAFE", "UNSAFE", "UNKNOWN"

#: The largest value a state field may take (they are packed in 16 bits).
_FIELD_MAX = 0xFFFF


@attrs.frozen
class Reached:
    """The search's result before it is read as a verdict (:func:`explore`).

    :param status: :data:`SAFE`, :data:`UNSAFE` or :data:`UNKNOWN`.
    :param states: packed states kept (none subsumed by another kept one), with the
        instant each was first reached: the certificate of ``SAFE``.
    :param parents: for each state, the state it was first reached from (``None``:
        an initial state), read back for the counterexample.
    :param visited: every state ever kept, with its instant (the path of a
        counterexample may pass through states dropped later as subsumed).
    :param initial: each initial state's phases.
    :param miss: ``(instant, parent state)`` of the earliest miss, for ``UNSAFE``.
    :param reason: why ``UNKNOWN``.
    """

    machine: Machine
    layout: Layout
    status: str
    states: dict[bytes, int]
    parents: dict[bytes, bytes | None]
    initial: dict[bytes, tuple[int, ...]]
    transitions: int
    seconds: float
    miss: tuple[int, bytes] | None = None
    reason: str | None = None
    visited: dict[bytes, int] = attrs.field(factory=dict, repr=False)


@attrs.frozen
class Outcome:
    """A decision and its evidence (:func:`decide`)."""

    status: str
    states: int
    transitions: int
    seconds: float
    reason: str
    reached: Reached | None = attrs.field(default=None, repr=False)
    #: For ``UNSAFE``: ``(phases, demands, miss instant)``, ticks (:mod:`.counterexample`).
    counterexample: Counterexample | None = None


def configurations(pcpu: TickPCPU) -> Iterator[tuple[int, ...]]:
    """Every phase vector the pCPU allows (one per vCPU, ticks): a fixed phase as it is;
    each VM with an open phase every tick of its period, shared by its vCPUs; the earliest
    phase 0 when no phase is fixed."""
    vms: dict[str, list[int]] = {}
    for i, v in enumerate(pcpu.vcpus):
        if v.phase is None:
            vms.setdefault(v.name.split("/")[0], []).append(i)
    groups = list(vms.values())
    fixed = [v.phase for v in pcpu.vcpus]
    anchored = all(p is None for p in fixed)
    for choice in itertools.product(*[range(pcpu.vcpus[g[0]].period) for g in groups]):
        if anchored and groups and 0 not in choice:
            continue
        phases = [0 if p is None else p for p in fixed]
        for group, phase in zip(groups, choice):
            for i in group:
                phases[i] = phase
        yield tuple(phases)


def shift_classes(pcpu: TickPCPU) -> list[list[tuple[int, ...]]]:
    """The phase vectors of :func:`configurations` grouped by *shift class*, in order of
    each class's key.

    Two phase vectors are in one class when one is the other moved by a common ``d``
    ticks (``ph_i + d mod T_i`` for every vCPU).  The positions of a behaviour at instant
    ``t`` are ``(t - ph_i) mod T_i``, so behaviours of two classes never share a position
    vector, and neither do their search states: the reachable set is the disjoint union
    of the classes' reachable sets, each found by :func:`explore` from its class's phase
    vectors alone (*phases*), with the same states, instants and earliest miss
    (``tests/model/exact/test_exact_classes.py``).  A class's key is its least vector
    among those with the vCPU of the longest period at phase 0 (every class has some)."""
    periods = [v.period for v in pcpu.vcpus]
    hyper = math.lcm(*periods)
    pivot = periods.index(max(periods))
    classes: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for phases in configurations(pcpu):
        first = (-phases[pivot]) % periods[pivot]
        key = min(tuple([(p + d) % T for p, T in zip(phases, periods)])
                  for d in range(first, hyper, periods[pivot]))
        classes.setdefault(key, []).append(phases)
    return [classes[key] for key in sorted(classes)]


def _configuration_count(pcpu: TickPCPU) -> int:
    """How many phase vectors :func:`configurations` yields (their positions differ, so
    each has its own initial state)."""
    periods = {v.name.split("/")[0]: v.period for v in pcpu.vcpus if v.phase is None}
    total = every = 1
    for period in periods.values():
        total *= period
        every *= period - 1
    anchored = periods and len(periods) == len({v.name.split("/")[0] for v in pcpu.vcpus})
    return total - every if anchored and all(v.phase is None for v in pcpu.vcpus) else total


def _check_fits(pcpu: TickPCPU) -> str | None:
    """Why *pcpu* cannot be searched (a field beyond 16 bits), or ``None``."""
    largest = max([v.period for v in pcpu.vcpus] + [v.full for v in pcpu.vcpus]
                  + [pcpu.initial_temperature, len(pcpu.vcpus) + 2])
    if largest > _FIELD_MAX:
        return f"a period or budget of {largest} ticks exceeds the search's {_FIELD_MAX}"
    return None


@paused()
def explore(pcpu: TickPCPU, limits: Limits = Limits(),
            step: Callable[[Machine, tuple[int, ...]], Iterator[Step]] = successors,
            subsume: bool = True, reduce: bool = True,
            phases: Sequence[tuple[int, ...]] | None = None) -> Reached:
    """Dijkstra's search over instants from every initial configuration to the fixpoint,
    or to the earliest miss, or to a limit, dropping subsumed states
    (:mod:`.subsumption`) unless *subsume* is false, and with the temperatures merged
    (:func:`.abstraction.settle`) unless *reduce* is false.  *step* is the successor
    function (a test passes a wrong one, to show the cross-checks catch it).  *phases*:
    only these configurations (whole :func:`shift_classes`, for their part of the
    answer); default every one.

    The queue is one bucket of states per instant (every step moves time on, so a
    bucket is complete before it is expanded: Dial's form of Dijkstra's algorithm), and
    a bucket is expanded in the order of its packed states -- the order a heap of
    ``(instant, state)`` pops, so the states, parents and counterexample are the same
    (decision 369).  The garbage collector is paused (:mod:`.collector`)."""
    began = time.perf_counter()
    m = machine(pcpu) if reduce else attrs.evolve(machine(pcpu), merge_cooling=False)
    lay = layout(m)
    states: dict[bytes, int] = {}
    parents: dict[bytes, bytes | None] = {}
    initial: dict[bytes, tuple[int, ...]] = {}
    dropped: set[bytes] = set()
    chains = Antichains()
    buckets: dict[int, list[bytes]] = {0: []}  # the states to expand, by instant
    instants = [0]  # a heap of the instants in *buckets*
    transitions = 0

    def result(status: str, miss: tuple[int, bytes] | None = None,
               reason: str | None = None) -> Reached:
        kept = {k: t for k, t in states.items() if k not in dropped} if dropped else states
        return Reached(m, lay, status, kept, parents, initial, transitions,
                       time.perf_counter() - began, miss, reason, states)

    def keep(child: tuple[int, ...], packed: bytes, at: int) -> bool:
        if not subsume:
            return True
        kept, gone = chains.keep(child, packed, at)
        dropped.update(gone)
        return kept

    too_big = _check_fits(pcpu)
    if too_big:
        return result(UNKNOWN, reason=too_big)
    count = _configuration_count(pcpu) if phases is None else len(phases)
    if count > limits.states:  # each configuration has an initial state of its own
        return result(UNKNOWN, reason=f"{count:,} phase configurations exceed the state "
                                      f"limit {limits.states:,}")
    for vector in configurations(pcpu) if phases is None else phases:
        for child, _ in start_states(m, vector):
            key = lay.pack(child)
            if key not in states and keep(child, key, 0):
                states[key], parents[key], initial[key] = 0, None, vector
                buckets[0].append(key)
        if len(states) > limits.states:
            return result(UNKNOWN, reason=f"state limit {limits.states:,} reached while "
                                           "enumerating the initial phases")
    best: tuple[int, bytes] | None = None
    pops = 0
    pack, unpack = lay.codec.pack, lay.codec.unpack
    while instants:
        t = heapq.heappop(instants)
        if best is not None and t >= best[0]:
            break
        for key in sorted(buckets.pop(t)):  # (instant, state) order, as one heap would pop
            pops += 1
            if states[key] != t or key in dropped:
                continue
            for child, ticks, _ in step(m, unpack(key)):
                transitions += 1
                at = t + ticks
                if child is MISS:
                    if best is None or at < best[0]:
                        best = (at, key)
                    continue
                packed = pack(*child)
                seen = states.get(packed)
                if (seen is None or at < seen) and keep(child, packed, at):
                    states[packed], parents[packed] = at, key
                    dropped.discard(packed)
                    later = buckets.get(at)
                    if later is None:
                        buckets[at] = [packed]
                        heapq.heappush(instants, at)
                    else:
                        later.append(packed)
            if pops & 0x3FF == 0 or len(states) > limits.states:
                if len(states) > limits.states:
                    return result(UNKNOWN, reason=f"state limit {limits.states:,} reached "
                                                  f"(instant {t} of the search)")
                if time.perf_counter() - began > limits.seconds:
                    return result(UNKNOWN, reason=f"wall-clock guard {limits.seconds:g} s reached "
                                                  f"with {len(states):,} states (instant {t})")
    if best is not None:
        return result(UNSAFE, miss=best)
    return result(SAFE)


def decide(pcpu: TickPCPU, limits: Limits = Limits(), reduce: bool = True) -> Outcome:
    """Decide *pcpu*'s HI guarantee exactly (module docstring); an ``UNSAFE`` answer
    carries its counterexample, replayed on the tick step (:mod:`.counterexample`).
    *reduce* false: without the reductions (:func:`explore`), for comparison."""
    from .counterexample import counterexample

    reached = explore(pcpu, limits, reduce=reduce)
    # no seconds: the same pCPU gives the same words (the Outcome carries them)
    summary = f"{len(reached.states):,} states, {reached.transitions:,} transitions"
    if reached.status == SAFE:
        return Outcome(SAFE, len(reached.states), reached.transitions, reached.seconds,
                       f"no reachable state lets a HI job miss ({summary}: the fixpoint)",
                       reached)
    if reached.status == UNKNOWN:
        return Outcome(UNKNOWN, len(reached.states), reached.transitions, reached.seconds,
                       f"{reached.reason} ({summary})", reached)
    example = counterexample(reached)
    return Outcome(UNSAFE, len(reached.states), reached.transitions, reached.seconds,
                   f"a HI job misses at tick {example.instant} ({summary})", reached, example)

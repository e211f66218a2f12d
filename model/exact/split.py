"""The search of a pCPU with open phases, split by shift class across workers.

Two phase vectors that differ by a common shift of every phase are one *shift class*
(:func:`.search.shift_classes`); behaviours of two classes never share a search
state, so the reachable set is the disjoint union of the classes' sets, each found by
:func:`.search.explore` from its class alone, with the same states, instants and
earliest miss (``tests/model/exact/test_exact_classes.py``, decision 368).

:func:`decide_split` deals the classes into :data:`PARTS` runs (the order of their
keys, cut into runs of nearly equal length), searches each on a worker
(:func:`akita.parallel.run_tasks`), and joins the answers in the parts' order, so that
the words depend on neither the workers nor which part ends first:

* a part ``UNKNOWN`` (it reached the state limit alone): ``UNKNOWN``;
* else a part ``UNSAFE``: ``UNSAFE`` at the least miss instant over the parts (the
  first part on a tie), with that part's counterexample -- the whole search's earliest
  miss, since every other part was searched to its end or to its own miss;
* else, every part ``SAFE``: ``UNKNOWN`` if their states together are beyond the limit
  (the whole search too would keep more: the parts share no state), else ``SAFE``, the
  certificate the union of the parts' states (what the whole search keeps).

Each part is given the whole state limit and the whole wall-clock guard.  The join is
deterministic, but a split answer is not always the whole search's word for word: where
the whole search stops at a miss before the state limit, a part with no miss may run
past the limit alone, and the split answers ``UNKNOWN`` (both reject).

Admission does not split (decision 370): at its 600,000 states the cluster's start
costs about what the split saves on two cores.  ``bench/exact.py --part classes`` runs
it on the every-phase pCPUs beyond that limit, where it halves the wall time.
"""

from __future__ import annotations

from typing import Sequence

import attrs

from akita.parallel import run_of, run_tasks

from ..smt.pcpu import TickPCPU
from .counterexample import Counterexample, counterexample
from .limits import Limits
from .search import SAFE, UNKNOWN, UNSAFE, explore, shift_classes

__all__ = ["PARTS", "Part", "decide_split", "runs", "search_part"]

#: The number of parts a split search is dealt into by default (the answer depends on
#: the parts, never on the workers that run them).
PARTS = 2


@attrs.frozen
class Part:
    """One part's answer, as it travels back from its worker: the status, the number of
    states kept, those states (with their instants) for ``SAFE`` only, the transitions,
    the seconds, the reason for ``UNKNOWN`` and, for ``UNSAFE``, the miss instant and
    the counterexample."""

    status: str
    kept: int
    states: dict[bytes, int]
    transitions: int
    seconds: float
    reason: str | None = None
    instant: int | None = None
    counterexample: Counterexample | None = None


def runs(pcpu: TickPCPU, parts: int = PARTS) -> list[list[tuple[int, ...]]]:
    """The phase vectors of *pcpu*'s shift classes dealt into *parts* runs of whole classes
    (in the order of the classes' keys, :func:`akita.parallel.run_of`)."""
    classes = shift_classes(pcpu)
    return [[v for c in run_of(classes, k, parts) for v in c] for k in range(parts)]


def search_part(task: tuple[TickPCPU, Sequence[tuple[int, ...]], Limits]) -> Part:
    """One part (a task for :func:`akita.parallel.run_tasks`): the search of these phase
    vectors, and for ``UNSAFE`` its counterexample, replayed in the worker."""
    pcpu, phases, limits = task
    reached = explore(pcpu, limits, phases=phases)
    if reached.status == UNSAFE:
        assert reached.miss is not None
        return Part(UNSAFE, len(reached.states), {}, reached.transitions, reached.seconds,
                    instant=reached.miss[0], counterexample=counterexample(reached))
    return Part(reached.status, len(reached.states),
                reached.states if reached.status == SAFE else {}, reached.transitions,
                reached.seconds, reached.reason)


def decide_split(pcpu: TickPCPU, limits: Limits, workers: int | None = None,
                 parts: int = PARTS) -> tuple[Part, list[Part]]:
    """Search *pcpu*'s shift classes in *parts* parts on *workers* processes (``0``: one
    after the other in this process) and join the answers (module docstring): the
    joined answer as a :class:`Part` (its states the union), and each part's."""
    answers: list[Part | None] = [None] * parts
    run_tasks(search_part, [(pcpu, run, limits) for run in runs(pcpu, parts)],
              answers.__setitem__, workers=workers, name="akita-search")
    done = [a for a in answers if a is not None]
    transitions = sum(a.transitions for a in done)
    seconds = max(a.seconds for a in done)
    kept = sum(a.kept for a in done)
    for k, answer in enumerate(done):
        if answer.status == UNKNOWN:
            return Part(UNKNOWN, kept, {}, transitions, seconds,
                        f"part {k + 1} of {parts}: {answer.reason}"), done
    misses = [(a.instant, k) for k, a in enumerate(done) if a.status == UNSAFE]
    if misses:
        least = done[min(misses)[1]]
        return Part(UNSAFE, kept, {}, transitions, seconds, instant=least.instant,
                    counterexample=least.counterexample), done
    if kept > limits.states:
        return Part(UNKNOWN, kept, {}, transitions, seconds,
                    f"state limit {limits.states:,} reached: {kept:,} states in "
                    f"{parts} parts"), done
    union: dict[bytes, int] = {}
    for answer in done:
        union.update(answer.states)
    assert all(a.status == SAFE for a in done)
    return Part(SAFE, kept, union, transitions, seconds), done

"""The earliest miss the search found, as phases and demands, replayed on the tick step.

The search (:mod:`.search`) keeps, for each state, the state it was first
reached from; the path from an initial state to the miss is read back by
re-expanding each state (:func:`.events.successors`) and picking the
successor that is the next state on the path, at the instant it was reached.
Its labels say which vCPU ran for how many ticks, whether its job ended, and
whose periods started.  Demands were revealed as served (:mod:`.abstraction`,
3.), so each job's demand is read off when its period ends: the work it was
served in the period plus the work it was certain to hold then, less what it
held before its job arrived.

The behaviour is then run on :func:`.tick.run` -- the Z3 model's step, not the
search's -- and must miss there at the same instant, or
:class:`CounterexampleError` is raised: a counterexample is reported only if
it replays.  The demands are within the caps and keep every LO vCPU's work at
its period start at most ``C_opt`` (:mod:`.abstraction`, 2.), so they are a
behaviour of the unrestricted model too, as :func:`akita.proofs.replay.save_replay`
writes it for ``akita simulate``.
"""

from __future__ import annotations

from typing import Sequence

import attrs

from .events import MISS, Label, successors
from .machine import NOBODY
from .search import Reached
from .tick import run

__all__ = ["Counterexample", "CounterexampleError", "counterexample", "path"]


class CounterexampleError(RuntimeError):
    """The search's path does not replay to a miss on the tick step (an internal error)."""


@attrs.frozen
class Counterexample:
    """A behaviour that misses: each vCPU's phase (ticks), ``demand[i, k]`` (ticks) of the
    job at vCPU ``i``'s period start ``k`` (counted as :attr:`akita.model.smt.pcpu.Unrolling.demand`),
    the instant of the miss, the HI vCPUs found short then, and the schedule (who ran
    in each tick; -1: idle)."""

    phases: tuple[int, ...]
    demand: dict[tuple[int, int], int]
    instant: int
    missed: tuple[int, ...]
    schedule: tuple[int, ...]


#: One step of a path: ``(instant it starts, ticks, label, state it starts from)``.
Hop = tuple[int, int, Label, tuple[int, ...]]


def path(reached: Reached) -> tuple[tuple[int, ...], list[Hop]]:
    """The phases and the steps from an initial state to the earliest miss."""
    assert reached.miss is not None
    lay, m = reached.layout, reached.machine
    instant, key = reached.miss
    chain = [key]
    parent = reached.parents[key]
    while parent is not None:
        chain.append(parent)
        parent = reached.parents[parent]
    chain.reverse()
    hops: list[Hop] = []
    times = reached.visited or reached.states
    for here, there in zip(chain, chain[1:] + [None]):
        t, state = times[here], lay.unpack(here)
        for child, ticks, label in successors(m, state):
            if there is None and child is MISS and t + ticks == instant:
                break
            if (there is not None and child is not MISS and lay.pack(child) == there
                    and t + ticks == times[there]):
                break
        else:
            raise CounterexampleError(f"no step from the state at instant {t} on the path")
        hops.append((t, ticks, label, state))
    return reached.initial[chain[0]], hops


def _demands(reached: Reached, hops: Sequence[Hop]) -> dict[tuple[int, int], int]:
    """Each job's demand, read off when its period ends (module docstring).

    At each period start of a vCPU the work it is certain to hold (0 if its job
    ended) is taken as its true leftover -- every value its interval allows is
    consistent with the path, and the arrival's interval starts there -- so the
    job of the period that ends had ``served + leftover - held before``.
    """
    m, lay = reached.machine, reached.layout
    n = m.n
    runs, before, period = [0] * n, [0] * n, [-1] * n
    first = hops[0][3]
    for i, (p, w) in enumerate(zip(lay.field(first, "pos"), lay.field(first, "work"))):
        if p == 0:
            period[i] = 0  # the period started at instant 0, holding nothing before
    demand: dict[tuple[int, int], int] = {}

    def close(i: int, left: int) -> None:
        if period[i] >= 0 and runs[i] + left - before[i] > 0:
            demand[i, period[i]] = runs[i] + left - before[i]

    for index, (t, ticks, (ran, ended, starts), state) in enumerate(hops):
        if ran != NOBODY:
            runs[ran] += ticks
        at = t + ticks
        work = list(lay.field(state, "work"))
        if ran != NOBODY:
            work[ran] = 0 if ended else max(work[ran] - ticks, 1)
        if index == len(hops) - 1:  # the miss: every job still open ends here
            for i in range(n):
                close(i, work[i])
            break
        for i in starts:
            close(i, work[i])
            before[i], runs[i], period[i] = work[i], 0, at // m.period[i]
    return demand


def counterexample(reached: Reached) -> Counterexample:
    """The earliest miss of *reached* as a behaviour, replayed (module docstring)."""
    phases, hops = path(reached)
    demand = _demands(reached, hops)
    m = reached.machine
    assert reached.miss is not None
    instant = reached.miss[0]
    schedule, shorts = run(m, phases, demand, instant)
    missed = tuple(sorted({i for i, k in shorts if m.hi[i] and (k + 1) * m.period[i]
                           + phases[i] == instant}))
    if not missed:
        raise CounterexampleError(
            f"the search's miss at tick {instant} does not replay on the tick step "
            f"(phases {phases}, demands {demand})")
    for i, k in shorts:
        if m.hi[i] and k >= 0 and (k + 1) * m.period[i] + phases[i] < instant:
            raise CounterexampleError(f"the replay misses earlier than the search's tick {instant}")
    for (i, _), d in demand.items():
        if not 1 <= d <= m.full[i]:
            raise CounterexampleError(f"demand {d} of vCPU {i} outside 1..{m.full[i]}")
    return Counterexample(phases, demand, instant, missed, tuple(schedule))

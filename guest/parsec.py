"""Parallel programs with the shapes of four PARSEC benchmarks.

Source of the shapes: C. Bienia, S. Kumar, J. P. Singh and K. Li, "The
PARSEC benchmark suite: characterization and architectural implications",
PACT 2008 -- Table 1 (each program's parallelization model and the
granularity of its parallelism) and Section 3 (each program's structure:
how its threads share work and synchronise).  The paper characterises
the programs; it does not give a time per operation.  The durations here
are therefore the model's, one per shape (decision 93), chosen from the
granularity the paper names (coarse, medium, fine) and never from a result:

``blackscholes`` -- *data-parallel, coarse* (also swaptions)
    the input is split evenly; each thread prices its share and the
    threads join at one barrier at the end.
``streamcluster`` -- *data-parallel, medium*, barrier-heavy
    rounds of work (about 1 ms per thread each, +-25%, seeded) that every
    thread finishes before the next round starts (a barrier per round).
``fluidanimate`` -- *data-parallel, fine*, lock-heavy
    frames of about 5 ms per thread; within a frame, cells of 100 us of
    work, +-25% (cells hold different numbers of particles), each followed
    by a 20 us update of a neighbour cell under its lock (one spin lock per
    thread's partition, the neighbour's chosen at random); a barrier ends
    each frame.
``dedup`` -- *pipeline, medium* (also ferret, x264)
    three parallel stages (chunking 100 us, compressing 400 us, writing
    200 us per item), each with a third of the threads, joined by bounded
    queues of twice a stage's threads; the items are dealt evenly to each
    stage's threads.

Every program needs the same total CPU time (``work``), so that the
programs' completion times compare.  The same seed gives the same program.
"""

from __future__ import annotations

import random
from typing import Callable

from akita.model.guest import PROGRAMS

from .program import Compute, Critical, Get, Op, Put, Wait

__all__ = ["Program", "build", "SHAPES"]

_US = 1_000

#: streamcluster: the work of one thread in one round, and its spread
ROUND = 1_000 * _US
#: fluidanimate: a frame per thread, a cell's work, its locked update
FRAME, CELL, UPDATE = 5_000 * _US, 100 * _US, 20 * _US
#: dedup: each stage's work per item
STAGES = (100 * _US, 400 * _US, 200 * _US)


class Program:
    """A program's threads (their operations) and what they share."""

    def __init__(self, ops: list[list[Op]], *, locks: int = 0, barriers: int = 0,
                 channels: tuple[int, ...] = ()) -> None:
        self.ops = ops
        #: the number of locks, barriers (each of all threads) and the queues' capacities
        self.locks = locks
        self.barriers = barriers
        self.channels = channels

    @property
    def work(self) -> int:
        """The CPU time all its threads need (ns)."""
        return sum(op.ns for ops in self.ops for op in ops if isinstance(op, (Compute, Critical)))


def _split(total: int, parts: int) -> list[int]:
    """*total* in *parts* integers that differ by at most one, larger first."""
    share, extra = divmod(total, parts)
    return [share + (1 if i < extra else 0) for i in range(parts)]


def _jitter(rng: random.Random, ns: int) -> int:
    """*ns* +-25%, uniform over the integers."""
    return rng.randint(ns - ns // 4, ns + ns // 4)


def blackscholes(threads: int, work: int, rng: random.Random) -> Program:
    """Even shares, one join."""
    return Program([[Compute(share), Wait(0)] for share in _split(work, threads)], barriers=1)


def streamcluster(threads: int, work: int, rng: random.Random) -> Program:
    """Rounds of medium-grained work, a barrier after each."""
    rounds = max(1, work // (threads * ROUND))
    ops: list[list[Op]] = [[] for _ in range(threads)]
    for _ in range(rounds):
        for thread in ops:
            thread += [Compute(_jitter(rng, ROUND)), Wait(0)]
    return Program(ops, barriers=1)


def fluidanimate(threads: int, work: int, rng: random.Random) -> Program:
    """Frames of fine-grained cells, each with a locked update of a neighbour."""
    # a frame's cells are those of an average frame; the seeded spread keeps the cells'
    # ends off any fixed grid (a host slice of 3 ms is 25 average cells)
    frames = max(1, work // (threads * FRAME))
    cells = FRAME // (CELL + UPDATE)
    ops: list[list[Op]] = [[] for _ in range(threads)]
    for _ in range(frames):
        for thread in ops:
            for _ in range(cells):
                thread += [Compute(_jitter(rng, CELL)), Critical(rng.randrange(threads), UPDATE)]
            thread.append(Wait(0))
    return Program(ops, locks=threads, barriers=1)


def dedup(threads: int, work: int, rng: random.Random) -> Program:
    """Three parallel stages joined by bounded queues."""
    per_stage = _split(threads, len(STAGES)) if threads >= len(STAGES) else [1] * len(STAGES)
    items = max(1, work // sum(STAGES))
    ops: list[list[Op]] = []
    for stage, (count, ns) in enumerate(zip(per_stage, STAGES)):
        for share in _split(items, count):
            one: list[Op] = []
            if stage > 0:
                one.append(Get(stage - 1))
            one.append(Compute(ns))
            if stage < len(STAGES) - 1:
                one.append(Put(stage))
            ops.append(one * share)
    capacities = tuple(2 * per_stage[stage + 1] for stage in range(len(STAGES) - 1))
    return Program(ops, channels=capacities)


#: program name -> its builder (threads, total work in ns, a seeded random source)
SHAPES: dict[str, Callable[[int, int, random.Random], Program]] = {
    "blackscholes": blackscholes,
    "streamcluster": streamcluster,
    "fluidanimate": fluidanimate,
    "dedup": dedup,
}
assert tuple(SHAPES) == PROGRAMS


def build(name: str, threads: int, work: int, seed: str) -> Program:
    """The program *name* for *threads* threads needing *work* ns in all, from *seed*."""
    return SHAPES[name](threads, work, random.Random(seed))

"""A sweep cut into batches, and what one batch computes.

A **batch** is a run of consecutive sets of one utilisation point: sets
``start .. start + count - 1`` of point ``U``.  It is the unit of work of
the cluster (one task each, so that scheduling costs little beside the
tests) and of the store (one file each, so that a rerun resumes).  A
:class:`Job` carries all a worker needs and nothing of the machine that
made it; :func:`run_job` is a pure function of it: each set is drawn from
its own generator (:func:`~akita.model.taskgen.set_random`), so a batch
gives the same counts on any worker, in any order, cut in any size.

**Acceptance.**  A set is *accepted* by a test when the test passes the
whole set on **one** pCPU (``test(UtilizationSums.of(vcpus)).schedulable``):
the uniprocessor acceptance ratio of the published curves, not a first-fit
placement on several pCPUs.  Under ``exact`` (:mod:`akita.model.exact`) a set whose
search reaches the job's state limit is ``UNKNOWN``: not accepted, and counted apart
(:attr:`BatchResult.unknown`), since "unknown" is never a pass.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import attrs

from akita.model import ADMISSION_TESTS, SchedulabilityVerdict, SchedulerOptions, \
    UtilizationSums
from akita.model.taskgen import TaskSetGenerator, set_random

__all__ = ["Batch", "Job", "BatchResult", "plan", "run_job", "NANO"]

#: ``U_LO`` is summed over sets as an integer number of ``1/NANO``: exact, and small.
NANO = 10**9


@attrs.frozen
class Batch:
    """Sets ``start .. start + count - 1`` of point *point* (utilisation *utilization*)."""

    point: int
    utilization: Fraction
    start: int
    count: int


@attrs.frozen
class Job:
    """One batch with what a worker needs to compute it."""

    batch: Batch
    seed: int
    tests: tuple[str, ...]
    generator: TaskSetGenerator
    #: States one exact search may keep (:attr:`~akita.sweep.spec.SweepSpec.exact_states`).
    exact_states: int = 100_000


@attrs.frozen
class BatchResult:
    """What a batch found.

    :param accepted: sets accepted, per test, in the order of the job's tests.
    :param u_lo: ``(sum, min, max)`` over the sets of ``round(U_LO * NANO)``,
        the LO-mode utilisation after rounding budgets to the grid.
    :param raised: budgets raised to one tick, over the batch.
    :param clamped: ``C_pes`` clamped to the period, over the batch.
    :param discarded: utilisation vectors discarded, over the batch.
    :param unknown: sets the exact test left ``UNKNOWN`` (its state limit), not accepted.
    """

    accepted: tuple[int, ...]
    u_lo: tuple[int, int, int]
    raised: int = 0
    clamped: int = 0
    discarded: int = 0
    unknown: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"accepted": list(self.accepted), "u_lo_nano": list(self.u_lo),
                "raised": self.raised, "clamped": self.clamped, "discarded": self.discarded,
                "unknown": self.unknown}

    @classmethod
    def from_json(cls, data: Any, tests: int) -> "BatchResult | None":
        """The result stored as *data*, or ``None`` if it is not one (of *tests* counts)."""
        try:
            accepted, u_lo = data["accepted"], data["u_lo_nano"]
            counts = [data["raised"], data["clamped"], data["discarded"], data["unknown"]]
        except (KeyError, TypeError):
            return None
        numbers = [*accepted, *u_lo, *counts] if isinstance(accepted, list) \
            and isinstance(u_lo, list) else None
        if numbers is None or len(accepted) != tests or len(u_lo) != 3 \
                or not all(type(n) is int and n >= 0 for n in numbers):
            return None
        return cls(tuple(accepted), (u_lo[0], u_lo[1], u_lo[2]), *counts)


def plan(utilizations: tuple[Fraction, ...], sets: int, batch: int) -> list[Batch]:
    """The batches of a sweep, point by point, each point's sets in order."""
    return [Batch(point, u, start, min(batch, sets - start))
            for point, u in enumerate(utilizations) for start in range(0, sets, batch)]


def _nano(value: Fraction) -> int:
    return (2 * value.numerator * NANO + value.denominator) // (2 * value.denominator)


def _test(name: str, exact_states: int) -> Callable[[UtilizationSums], SchedulabilityVerdict]:
    """The test *name* as a sweep runs it: ``exact`` with the default scheduler options, a
    state limit and no time limit (so the counts depend on the spec alone), and a new
    search per set (nothing kept from one set to the next)."""
    if name != "exact":
        return ADMISSION_TESTS[name]
    from akita.model.exact.admission import ExactTest
    from akita.model.exact.limits import Limits

    limits = Limits(states=exact_states, seconds=math.inf)
    return lambda sums: ExactTest(SchedulerOptions(), limits).decide(sums)


def _unknown(verdict: SchedulabilityVerdict) -> bool:
    return verdict.detail is not None and verdict.detail.get("answer") == "UNKNOWN"


def run_job(job: Job) -> BatchResult:
    """Draw the job's sets and count, per test, those it accepts on one pCPU."""
    batch = job.batch
    tests = [_test(name, job.exact_states) for name in job.tests]
    accepted = [0] * len(tests)
    total, low, high = 0, NANO * NANO, 0
    raised = clamped = discarded = unknown = 0
    for index in range(batch.start, batch.start + batch.count):
        drawn = job.generator.draw(set_random(job.seed, batch.utilization, index),
                                   batch.utilization)
        sums = UtilizationSums.of(drawn.vcpus)
        for position, test in enumerate(tests):
            verdict = test(sums)
            accepted[position] += verdict.schedulable
            unknown += _unknown(verdict)
        u_lo = _nano(sums.lo_mode)
        total, low, high = total + u_lo, min(low, u_lo), max(high, u_lo)
        raised, clamped = raised + drawn.raised, clamped + drawn.clamped
        discarded += drawn.discarded
    return BatchResult(tuple(accepted), (total, low, high), raised, clamped, discarded,
                       unknown)

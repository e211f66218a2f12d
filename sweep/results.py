"""The results of a sweep: per point, as JSON and as CSV.

The batches' counts are added up point by point in the spec's order, so
the documents below depend only on the spec: not on the workers, on the
order batches finished in, or on which of them came from the store.  The
JSON document (``akita sweep --json``)::

    {"points": [{"utilization": 0.5, "sets": 200,
                 "accepted": {"edf-vd": 200, "amc-rtb": 199},
                 "ratio": {...}, "ci95": {"edf-vd": [0.981, 1.0], ...},
                 "u_lo": {"mean": ..., "min": ..., "max": ...},
                 "budgets_raised": 0, "budgets_clamped": 0, "vectors_discarded": 0}],
     "seed": 1, "tests": [...], "generator": {...}, "acceptance": "...", "interval": "..."}

``utilization`` is the point's target ``U_LO``; ``u_lo`` is what the sets
have after their budgets were rounded to the grid
(:mod:`akita.model.taskgen`); ``ci95`` is the Wilson score interval
(:mod:`.wilson`).  Ratios and bounds are rounded to 6 decimals.  The CSV
has one row per point and test.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import attrs

from .batches import NANO, Batch, BatchResult
from .spec import SweepSpec, generator_json
from .wilson import wilson_interval

__all__ = ["PointResult", "SweepResult", "assemble", "ACCEPTANCE", "CSV_COLUMNS"]

#: What "accepted" means, as the JSON document states it.
ACCEPTANCE = "a set is accepted by a test when the test passes the whole set on one pCPU"
#: The interval, as the JSON document states it.
INTERVAL = "Wilson score interval, 95%, no continuity correction"
#: The CSV's header.
CSV_COLUMNS = ("utilization", "test", "sets", "accepted", "ratio", "ci95_low", "ci95_high",
               "u_lo_mean")


@attrs.frozen
class PointResult:
    """The counts of one utilisation point.

    :param accepted: sets accepted, per test name (in the spec's order).
    :param u_lo: ``(sum, min, max)`` of the sets' ``round(U_LO * NANO)``.
    """

    utilization: Fraction
    sets: int
    accepted: dict[str, int]
    u_lo: tuple[int, int, int]
    raised: int
    clamped: int
    discarded: int
    #: Sets the exact test left ``UNKNOWN`` (its state limit): not accepted.
    unknown: int = 0

    def ratio(self, test: str) -> float:
        """The share of sets *test* accepts."""
        return round(self.accepted[test] / self.sets, 6)

    def interval(self, test: str) -> tuple[float, float]:
        """The 95% Wilson interval of :meth:`ratio`."""
        low, high = wilson_interval(self.accepted[test], self.sets)
        return round(low, 6), round(high, 6)

    def u_lo_stats(self) -> dict[str, float]:
        """The mean, least and largest ``U_LO`` of the sets, after rounding."""
        total, low, high = self.u_lo
        return {"mean": round(total / (self.sets * NANO), 9), "min": low / NANO,
                "max": high / NANO}

    def as_json(self) -> dict[str, Any]:
        tests = list(self.accepted)
        return {"utilization": float(self.utilization), "sets": self.sets,
                "accepted": dict(self.accepted),
                "ratio": {t: self.ratio(t) for t in tests},
                "ci95": {t: list(self.interval(t)) for t in tests},
                "u_lo": self.u_lo_stats(), "budgets_raised": self.raised,
                "budgets_clamped": self.clamped, "vectors_discarded": self.discarded,
                **({"exact_unknown": self.unknown} if "exact" in tests else {})}


@attrs.frozen
class SweepResult:
    """A finished sweep.

    :param reused: batches read back from the store instead of computed.
    :param computed: batches computed by this run.
    """

    spec: SweepSpec
    points: tuple[PointResult, ...]
    reused: int = 0
    computed: int = 0

    def as_json(self) -> dict[str, Any]:
        """The JSON document; the same bytes for the same spec, however it was run."""
        spec = self.spec
        return {"points": [point.as_json() for point in self.points], "seed": spec.seed,
                "tests": list(spec.tests), "generator": generator_json(spec.generator),
                "acceptance": ACCEPTANCE, "interval": INTERVAL}

    def csv(self) -> str:
        """The CSV document: one row per point and test."""
        lines = [",".join(CSV_COLUMNS)]
        for point in self.points:
            mean = point.u_lo_stats()["mean"]
            for test in self.spec.tests:
                low, high = point.interval(test)
                lines.append(",".join(str(v) for v in (
                    float(point.utilization), test, point.sets, point.accepted[test],
                    point.ratio(test), low, high, mean)))
        return "\n".join(lines) + "\n"


def assemble(spec: SweepSpec, batches: Sequence[Batch], results: Sequence[BatchResult],
             *, reused: int = 0) -> SweepResult:
    """Add the batches' counts up per point (*results* in the order of *batches*)."""
    points = []
    for index, utilization in enumerate(spec.utilizations):
        mine = [r for b, r in zip(batches, results) if b.point == index]
        accepted = {t: sum(r.accepted[i] for r in mine) for i, t in enumerate(spec.tests)}
        u_lo = (sum(r.u_lo[0] for r in mine), min(r.u_lo[1] for r in mine),
                max(r.u_lo[2] for r in mine))
        points.append(PointResult(utilization, sum(b.count for b in batches if b.point == index),
                                  accepted, u_lo, sum(r.raised for r in mine),
                                  sum(r.clamped for r in mine), sum(r.discarded for r in mine),
                                  sum(r.unknown for r in mine)))
    return SweepResult(spec, tuple(points), reused=reused, computed=len(batches) - reused)

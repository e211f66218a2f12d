"""Exact percentiles of integer samples, by nearest rank.

The ``p``-th percentile of ``n`` samples sorted ascending is the sample of
rank ``ceil(p * n)`` (1-based), ``p`` an exact fraction: the smallest
sample at or below which at least a fraction ``p`` of the samples lie
(the nearest-rank definition, e.g. Hyndman and Fan's definition 1).  It is
always one of the samples, so an integer number of ns stays one, with no
interpolation and no float.  No sample gives ``None`` for every
percentile: no latency measured is not a latency of 0.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

__all__ = ["PERCENTILES", "nearest_rank", "summary"]

#: The percentiles reported, by their JSON names.
PERCENTILES: tuple[tuple[str, Fraction], ...] = (
    ("p50", Fraction(1, 2)), ("p90", Fraction(9, 10)), ("p99", Fraction(99, 100)),
    ("p999", Fraction(999, 1000)),
)


def nearest_rank(ordered: Sequence[int], p: Fraction) -> int:
    """The sample of rank ``ceil(p * n)`` of the ascending *ordered* (``0 < p <= 1``)."""
    if not ordered:
        raise ValueError("no sample")
    if not 0 < p <= 1:
        raise ValueError(f"a percentile in (0, 1], got {p}")
    rank = -(-(p.numerator * len(ordered)) // p.denominator)  # ceil without a float
    return ordered[rank - 1]


def summary(samples: Sequence[int]) -> dict[str, int | None]:
    """``p50``, ``p90``, ``p99``, ``p999`` and ``max`` of *samples* (each ``None`` if none),
    with their ``count``."""
    if not samples:
        return {name: None for name, _ in PERCENTILES} | {"max": None, "count": 0}
    ordered = sorted(samples)
    found: dict[str, int | None] = {name: nearest_rank(ordered, p) for name, p in PERCENTILES}
    return found | {"max": ordered[-1], "count": len(ordered)}

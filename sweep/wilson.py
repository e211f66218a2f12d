"""The Wilson score interval of a binomial proportion.

A point of a sweep accepts ``k`` of ``n`` sets; ``k/n`` estimates the
probability that a test accepts a set drawn at that point.  Its confidence
interval is Wilson's score interval (E. B. Wilson, "Probable inference,
the law of succession, and statistical inference", Journal of the American
Statistical Association 22(158), 209-212, 1927), without continuity
correction: with ``p = k/n`` and ``z`` the standard normal quantile,

    ``(p + z^2/(2n) -+ z sqrt(p(1 - p)/n + z^2/(4n^2))) / (1 + z^2/n)``.

Unlike the textbook (Wald) interval ``p -+ z sqrt(p(1-p)/n)`` it stays in
``[0, 1]`` and does not collapse to a point at ``k = 0`` or ``k = n``,
which is where most points of an acceptance curve are; Brown, Cai and
DasGupta ("Interval Estimation for a Binomial Proportion", Statistical
Science 16(2), 101-133, 2001) recommend it for that reason.  The bounds are
for display and plotting: they are the one place of a sweep that computes
in floating point, and only with ``+ - * /`` and ``sqrt``, which IEEE 754
rounds exactly, so they are the same on every machine.
"""

from __future__ import annotations

import math

__all__ = ["Z95", "wilson_interval"]

#: The standard normal quantile of 0.975: a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval ``(low, high)`` of *successes* out of *trials* (``>= 1``)."""
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"wilson_interval needs 0 <= successes <= trials, trials >= 1; "
                         f"got {successes} of {trials}")
    p = successes / trials
    z2 = z * z
    scale = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / scale
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / scale
    # at k = 0 the lower bound is 0 exactly, at k = n the upper one 1: rounding must not move them
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high

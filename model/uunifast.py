"""UUniFast: utilisation vectors uniform on the simplex, exactly.

Bini and Buttazzo, "Measuring the Performance of Schedulability Tests",
Real-Time Systems 30(1-2), 129-154, 2005 (the UUniFast algorithm): to split
a total utilisation ``U`` among ``n`` tasks so that the vector
``(u_1, ..., u_n)`` is uniformly distributed over
``{u_i >= 0, sum u_i = U}``, UUniFast draws

    ``sumU = U``; for ``i = 1 .. n-1``: ``next = sumU * r_i ** (1/(n-i))``,
    ``u_i = sumU - next``, ``sumU = next``; and ``u_n = sumU``,

with ``r_i`` uniform on ``(0, 1)``.  Here ``r ** (1/k)`` is drawn as the
largest of ``k`` uniforms, which has the same distribution
(:func:`~.exact_random.largest_uniform`), so every ``u_i`` is exact and the
vector sums to ``U`` exactly; no float and no root is taken.  The shares
are kept as integer numerators over one common denominator
(:func:`uunifast_scaled`), which costs no ``gcd``; the cost is ``n(n-1)/2``
draws of 64 bits (190 for 20 tasks), small beside the tests a sweep runs on
each set.

UUniFast-Discard (Davis and Burns, "Priority Assignment for Global Fixed
Priority Pre-emptive Scheduling in Multiprocessor Real-Time Systems", RTSS
2009) redraws a whole vector while some ``u_i`` breaks a per-task bound; it
is applied where the bound is known, on the budgets (:mod:`.taskgen`).
"""

from __future__ import annotations

import random
from fractions import Fraction

from .exact_random import BITS, largest_uniform

__all__ = ["uunifast", "uunifast_scaled"]


def uunifast_scaled(rng: random.Random, n: int, total: Fraction) -> tuple[list[int], int]:
    """*n* utilisations uniform on the simplex of sum *total*, as ``(numerators, D)``:
    share ``i`` is ``numerators[i] / D`` and the numerators sum to ``total * D``.

    With ``total = p/q``, ``D = q * 2**(BITS (n-1))``: after step ``i`` the
    remainder ``sumU`` is a numerator over ``q * 2**(BITS i)``, and each share
    is lifted to ``D`` by a shift.
    """
    if n < 1:
        raise ValueError(f"uunifast needs n >= 1, got {n}")
    total = Fraction(total)
    left = total.numerator  # sumU, over q * 2**(BITS * (i - 1)) before step i
    shares: list[int] = []
    for i in range(1, n):
        rest = left * largest_uniform(rng, n - i)  # over q * 2**(BITS * i)
        shares.append(((left << BITS) - rest) << (BITS * (n - 1 - i)))
        left = rest
    shares.append(left)
    return shares, total.denominator << (BITS * (n - 1))


def uunifast(rng: random.Random, n: int, total: Fraction) -> list[Fraction]:
    """*n* utilisations, uniform on the simplex of sum *total*, summing to it exactly."""
    shares, denominator = uunifast_scaled(rng, n, total)
    return [Fraction(share, denominator) for share in shares]

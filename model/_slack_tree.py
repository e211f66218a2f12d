"""A segment tree over pCPUs that lets first fit skip full pCPUs.

Each leaf holds a pCPU's two slacks, ``1 - (U1 + U2)`` (room in LO mode) and
``1 - U3`` (room in HI mode); each inner node holds the maximum of each over
its range.  Every admission test is no more permissive than
``U1 + U2 <= 1 and U3 <= 1`` (see :mod:`.admission_tests`), so a subtree
whose best slacks are below what a vCPU needs holds no pCPU that can take
it, and is skipped without running the test.  The search stays leftmost
first, so it finds exactly the pCPU plain first fit would find.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

_FULL = Fraction(-1)  # slack of the padding leaves: below any need


class SlackTree:
    """Maximum LO and HI slack over ranges of ``n`` pCPUs, all empty at first."""

    def __init__(self, n: int) -> None:
        size = 1
        while size < n:
            size *= 2
        self._n = n
        self._size = size
        one = Fraction(1)
        self._lo = [one] * size + [one if i < n else _FULL for i in range(size)]
        self._hi = list(self._lo)

    def set(self, index: int, lo_slack: Fraction, hi_slack: Fraction) -> None:
        """Record pCPU *index*'s slacks and refresh the maxima above it."""
        node = index + self._size
        self._lo[node] = lo_slack
        self._hi[node] = hi_slack
        node //= 2
        while node:
            left, right = 2 * node, 2 * node + 1
            self._lo[node] = max(self._lo[left], self._lo[right])
            self._hi[node] = max(self._hi[left], self._hi[right])
            node //= 2

    def first(self, lo_need: Fraction, hi_need: Fraction, accept: Callable[[int], bool]) -> int | None:
        """The lowest pCPU index with enough slack of both kinds that *accept* takes."""
        lo, hi, size = self._lo, self._hi, self._size
        stack = [1]
        while stack:
            node = stack.pop()
            if lo[node] < lo_need or hi[node] < hi_need:
                continue
            if node >= size:
                if accept(node - size):
                    return node - size
                continue
            stack.append(2 * node + 1)
            stack.append(2 * node)
        return None

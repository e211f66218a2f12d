"""A segment tree over pCPUs that lets first fit skip pCPUs that are too full.

Each leaf holds a pCPU's :class:`~.verdict.Capacity` as its admission test
states it: ``lo``, the largest LO utilization it still takes, and ``hi``, a
bound that the ``C_pes/T`` of any HI vCPU it takes must respect.  Each inner
node holds the maximum of each over its range.  A subtree whose best
capacities are below what a vCPU needs holds no pCPU that can take it, and
is skipped without running the test.  The search stays leftmost first, so it
finds exactly the pCPU that plain first fit would find.

Capacities are kept as ``(numerator, denominator)`` pairs with a positive
denominator and compared by cross-multiplication: exact, like
:class:`~fractions.Fraction`, at a fraction of its cost on this hot path.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

#: The capacity of the padding leaves, and the "need" that any real pCPU meets.
NO_ROOM = Fraction(-1)

_Pair = tuple[int, int]


def _pair(value: Fraction) -> _Pair:
    return (value.numerator, value.denominator)


def _below(a: _Pair, b: _Pair) -> bool:
    """``a < b`` for fractions written as pairs with positive denominators."""
    return a[0] * b[1] < b[0] * a[1]


class SlackTree:
    """Maximum LO and HI capacity over ranges of ``n`` pCPUs, all empty (``1``) at first."""

    def __init__(self, n: int) -> None:
        size = 1
        while size < n:
            size *= 2
        self._size = size
        one, none = (1, 1), _pair(NO_ROOM)
        self._lo: list[_Pair] = [one] * size + [one if i < n else none for i in range(size)]
        self._hi: list[_Pair] = list(self._lo)

    def set(self, index: int, lo: Fraction, hi: Fraction) -> None:
        """Record pCPU *index*'s capacities and refresh the maxima above it."""
        los, his = self._lo, self._hi
        node = index + self._size
        los[node] = _pair(lo)
        his[node] = _pair(hi)
        node //= 2
        while node:
            left, right = 2 * node, 2 * node + 1
            los[node] = los[right] if _below(los[left], los[right]) else los[left]
            his[node] = his[right] if _below(his[left], his[right]) else his[left]
            node //= 2

    def first(self, lo_need: Fraction, hi_need: Fraction, accept: Callable[[int], bool]) -> int | None:
        """The lowest pCPU index whose capacities meet both needs and that *accept* takes.

        Needs must be ``> NO_ROOM`` in at least one of the two, so that the
        padding leaves are never offered to *accept*.
        """
        lo, hi, size = self._lo, self._hi, self._size
        lo_n, lo_d = lo_need.numerator, lo_need.denominator
        hi_n, hi_d = hi_need.numerator, hi_need.denominator
        stack = [1]
        while stack:
            node = stack.pop()
            (ln, ld), (hn, hd) = lo[node], hi[node]
            if ln * lo_d < lo_n * ld or hn * hi_d < hi_n * hd:
                continue
            if node >= size:
                if accept(node - size):
                    return node - size
                continue
            stack.append(2 * node + 1)
            stack.append(2 * node)
        return None

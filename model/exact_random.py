"""Random variates drawn exactly from the bits of a :class:`random.Random`.

The task-set generator (:mod:`.taskgen`) must give the same sets on every
machine that runs a share of a sweep, so no variate here goes through a
float function of the C library (``exp``, ``log``, ``pow`` may differ in the
last bit between platforms, and a floor of such a value then differs by one
tick).  Every variate is built from :meth:`random.Random.getrandbits` -- the
Mersenne Twister's own output, the same on every platform and every CPython
since 3.2 -- with integer and :class:`~fractions.Fraction` arithmetic only:

* :func:`uniform_below` -- an integer uniform on ``[0, n)``, by rejection on
  ``bit_length(n)`` bits (as CPython's private ``_randbelow`` does, owned here
  so that the stream does not depend on a private function);
* :func:`bernoulli` -- ``True`` with an exact rational probability;
* :func:`largest_uniform` -- the largest of ``k`` uniforms on ``[0, 1)``,
  which has the distribution of ``r ** (1/k)`` for ``r`` uniform
  (``P(max <= x) = x**k = P(r <= x**k)``): the variate of UUniFast's
  recurrence (:mod:`.uunifast`), without a root;
* :func:`log_uniform_index` -- ``floor(X)`` for ``X`` log-uniform on
  ``[low, high + 1)``, the period draw of Emberson, Stafford and Davis,
  "Techniques For The Synthesis Of Multiprocessor Tasksets", WATERS 2010,
  pp. 6-11 (periods ``floor(exp(r) / T_g) * T_g`` with ``r`` uniform on
  ``[ln T_min, ln(T_max + T_g))``), here by rejection from a piecewise
  constant envelope, so that no logarithm is taken.

Uniforms on ``[0, 1)`` are multiples of ``2**-BITS``.
"""

from __future__ import annotations

import random
from fractions import Fraction

__all__ = ["BITS", "uniform_below", "bernoulli", "largest_uniform", "log_uniform_index"]

#: Bits of a uniform on ``[0, 1)``: its values are the multiples of ``2**-BITS``.
BITS = 64


def uniform_below(rng: random.Random, n: int) -> int:
    """An integer uniform on ``[0, n)``, ``n >= 1``."""
    if n < 1:
        raise ValueError(f"uniform_below needs n >= 1, got {n}")
    bits = n.bit_length()
    while True:
        value = rng.getrandbits(bits)
        if value < n:
            return value


def bernoulli(rng: random.Random, p: Fraction) -> bool:
    """``True`` with probability exactly *p*, ``0 <= p <= 1``."""
    return uniform_below(rng, p.denominator) < p.numerator


def largest_uniform(rng: random.Random, k: int) -> int:
    """The largest of *k* independent uniforms on ``[0, 1)``, as its numerator over
    ``2**BITS``; distributed as ``r ** (1/k)``."""
    return max(rng.getrandbits(BITS) for _ in range(k))


def log_uniform_index(rng: random.Random, low: int, high: int) -> int:
    """An integer ``k`` in ``[low, high]`` with ``P(k) = ln((k+1)/k) / ln((high+1)/low)``.

    That is ``floor(X)`` for ``X`` log-uniform (density ``1/x``) on
    ``[A, B) = [low, high + 1)``, ``1 <= low <= high``.  The envelope
    covers ``[A, B)`` with octaves ``[A 2^j, A 2^(j+1))`` (the last one cut
    at ``B``) and, on each, the constant density ``1/(A 2^j)``, which bounds
    ``1/x`` there from above: each whole octave has envelope mass 1, the
    last ``(B - L)/L`` with ``L`` its start.  An octave is chosen with
    probability proportional to its mass (one exact integer draw), ``x``
    uniformly within it, and ``x`` is kept with probability ``L/x >= 1/2``;
    what is kept has density proportional to ``1/x``.
    """
    if not 1 <= low <= high:
        raise ValueError(f"log_uniform_index needs 1 <= low <= high, got {low}, {high}")
    end = high + 1
    octaves = 0
    while low << (octaves + 1) < end:
        octaves += 1
    last = low << octaves  # the start of the last (possibly partial) octave
    while True:
        pick = uniform_below(rng, octaves * last + (end - last))
        start = low << (pick // last) if pick < octaves * last else last
        width = min(start << 1, end) - start
        offset = width * rng.getrandbits(BITS)  # x = start + offset / 2**BITS
        keep = rng.getrandbits(BITS)  # keep iff keep / 2**BITS < start / x
        if keep * ((start << BITS) + offset) < start << (2 * BITS):
            return start + (offset >> BITS)

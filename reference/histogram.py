"""A streaming, bounded-memory latency histogram with exact integer arithmetic.

:class:`LogHistogram` counts non-negative integer nanosecond values in
logarithmic buckets, in the manner of HdrHistogram, using integers only: no
float takes part in recording, merging or answering a percentile.

Buckets
-------

Let ``SIG`` be the number of significant bits kept (default 7).

* A value ``v < 2**SIG`` has a bucket of its own: it is kept exactly.
* A value ``v >= 2**SIG`` of bit length ``L`` (so ``L > SIG``) goes to the
  bucket of shift ``s = L - SIG`` and leading part ``m = v >> s``, with
  ``2**(SIG-1) <= m < 2**SIG``.  That bucket holds the values
  ``lo = m << s`` to ``hi = lo + 2**s - 1``.

The buckets are numbered in value order: bucket ``v`` for an exact value and
``(s << (SIG-1)) + m`` otherwise, so the numbers run on without a gap from
``2**SIG``.

Error bound
-----------

A percentile is answered with the *highest* value of the bucket that holds
the exact answer, clamped to the exact maximum (:meth:`LogHistogram.percentile`).
It never under-reports.  For a bucket ``[lo, hi]`` with ``lo >= 2**SIG``,
``(hi - lo + 1) / lo = 1 / m <= 2**-(SIG-1)``.  So if ``e`` is the exact
nearest-rank value and ``r`` the reported one:

* ``r == e`` when ``e < 2**SIG`` (in particular for every value below 128 by
  default);
* otherwise ``e <= r <= e + 2**s - 1`` and ``(r - e) * 2**(SIG-1) < e``,
  i.e. the relative error ``(r - e) / e`` is **strictly less than**
  ``2**-(SIG-1)`` (1/64, under 1.5625 %, for ``SIG = 7``).

Proof of the second case: ``r - e <= hi - lo = 2**s - 1 < 2**s`` and
``e >= lo = m * 2**s >= 2**(SIG-1) * 2**s``.

Memory
------

Counts are kept in a dict keyed by bucket number, holding only the buckets
that were hit.  Values are at most :data:`MAX_VALUE` (``2**64 - 1`` ns, over
584 years), so a histogram never holds more than
``2**SIG + (64 - SIG) * 2**(SIG-1)`` buckets (3,776 for ``SIG = 7``, below
``64 * 2**SIG``), whatever the number of values recorded, and a list of at
most 1,024 values :meth:`LogHistogram.add` took and has not bucketed yet
(they are bucketed together, which is cheaper per value than one by one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from fractions import Fraction

__all__ = ["LogHistogram", "MAX_VALUE", "DEFAULT_SIG"]

MAX_VALUE = 2**64 - 1
"""The largest value :meth:`LogHistogram.record` accepts, in ns."""

DEFAULT_SIG = 7
"""The default number of significant bits: exact below 128, error < 1/64 above."""

#: How many values :meth:`LogHistogram.add` holds before it buckets them (the memory
#: this costs is bounded by it, whatever the number of values).
_PENDING = 1024

#: An empty histogram's bounds: above and below every value it can record.
_NO_MIN, _NO_MAX = MAX_VALUE + 1, -1

_SUMMARY = (
    ("p50", Fraction(50)),
    ("p90", Fraction(90)),
    ("p99", Fraction(99)),
    ("p999", Fraction(999, 10)),
)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_quantile(q: Fraction | int | str) -> Fraction:
    """``q`` as an exact Fraction in ``[0, 100]``; floats are refused."""
    if isinstance(q, bool) or not isinstance(q, (Fraction, int, str)):
        raise TypeError(f"percentile must be a Fraction, an int or a decimal string, got {q!r}")
    try:
        exact = Fraction(q)
    except ValueError:
        raise ValueError(f"percentile must be a number in [0, 100], got {q!r}") from None
    if not 0 <= exact <= 100:
        raise ValueError(f"percentile must be in [0, 100], got {q!r}")
    return exact


class LogHistogram:
    """Counts of non-negative integer ns values in log buckets (module docstring).

    :param sig: significant bits ``SIG``, ``1 <= sig <= 32``; values below
        ``2**sig`` are exact and the relative error above is ``< 2**-(sig-1)``.

    ``count``, ``total``, ``min`` and ``max`` are exact.  An empty histogram
    has ``count == total == 0`` and ``min is max is None``.
    """

    __slots__ = ("_sig", "_counts", "_count", "_total", "_min", "_max", "_pending")

    def __init__(self, sig: int = DEFAULT_SIG) -> None:
        if not _is_int(sig) or not 1 <= sig <= 32:
            raise ValueError(f"sig must be an integer in [1, 32], got {sig!r}")
        self._sig = sig
        self._counts: dict[int, int] = {}
        self._count = 0
        self._total = 0
        # while empty: bounds every value passes, so recording needs no test for "empty"
        self._min = _NO_MIN
        self._max = _NO_MAX
        #: values :meth:`add` took and :meth:`_fold` has not bucketed yet (at most _PENDING)
        self._pending: list[int] = []

    # -- bucket arithmetic -------------------------------------------------

    def _index(self, value: int) -> int:
        """The number of the bucket holding ``value``."""
        shift = value.bit_length() - self._sig
        if shift <= 0:
            return value
        return (shift << (self._sig - 1)) + (value >> shift)

    def _highest(self, index: int) -> int:
        """The highest value of bucket ``index``."""
        if index < 1 << self._sig:
            return index
        shift = (index >> (self._sig - 1)) - 1
        lead = index - (shift << (self._sig - 1))
        return ((lead + 1) << shift) - 1

    # -- recording ---------------------------------------------------------

    def record(self, value: int, count: int = 1) -> None:
        """Record ``value`` (ns) ``count`` times.

        :raises TypeError: if ``value`` or ``count`` is not an int.
        :raises ValueError: unless ``0 <= value <=`` :data:`MAX_VALUE` and ``count >= 1``.
        """
        if not _is_int(value) or not _is_int(count):
            raise TypeError(f"value and count must be integers, got {value!r} and {count!r}")
        if not 0 <= value <= MAX_VALUE:
            raise ValueError(f"value must be in [0, 2**64 - 1] ns, got {value}")
        if count < 1:
            raise ValueError(f"count must be >= 1, got {count}")
        self._bucket(value, count)

    def add(self, value: int) -> None:
        """:meth:`record` of one value without the checks: the simulator's hot path.

        The caller guarantees an int with ``0 <= value <= MAX_VALUE``.  The
        value waits in a list of at most :data:`_PENDING` with the others
        taken since the last fold (:meth:`_fold`), which runs when the list
        is full and before anything is read: what a reader sees is exactly
        what :meth:`record` would have made.
        """
        pending = self._pending
        pending.append(value)
        if len(pending) == _PENDING:
            self._fold()

    def _fold(self) -> None:
        """Bucket the pending values: counted, summed and bounded in C (``Counter``, ``sum``,
        ``min``, ``max``), then each distinct value once -- a latency repeats a lot."""
        pending = self._pending
        if not pending:
            return
        self._count += len(pending)
        self._total += sum(pending)
        self._min = min(self._min, min(pending))
        self._max = max(self._max, max(pending))
        sig, counts = self._sig, self._counts
        for value, n in Counter(pending).items():
            shift = value.bit_length() - sig
            index = value if shift <= 0 else (shift << (sig - 1)) + (value >> shift)
            counts[index] = counts.get(index, 0) + n
        pending.clear()

    def _bucket(self, value: int, count: int) -> None:
        """Count *value* *count* times at once."""
        index = self._index(value)
        self._counts[index] = self._counts.get(index, 0) + count
        self._count += count
        self._total += value * count
        self._min = min(self._min, value)
        self._max = max(self._max, value)

    def merge(self, other: LogHistogram) -> None:
        """Add every value recorded in ``other`` to this histogram.

        The result equals a histogram that recorded the values of both.

        :raises ValueError: if the two histograms keep different ``sig``.
        """
        if not isinstance(other, LogHistogram):
            raise TypeError(f"can only merge a LogHistogram, got {other!r}")
        if other._sig != self._sig:
            raise ValueError(f"cannot merge sig={other._sig} into sig={self._sig}")
        self._fold()
        other._fold()
        if other._count == 0:
            return
        for index, n in other._counts.items():
            self._counts[index] = self._counts.get(index, 0) + n
        self._count += other._count
        self._total += other._total
        self._min = min(self._min, other._min)
        self._max = max(self._max, other._max)

    # -- exact aggregates --------------------------------------------------

    @property
    def sig(self) -> int:
        """The number of significant bits kept."""
        return self._sig

    @property
    def count(self) -> int:
        """How many values were recorded."""
        self._fold()
        return self._count

    @property
    def total(self) -> int:
        """The exact sum of the recorded values, in ns."""
        self._fold()
        return self._total

    @property
    def min(self) -> int | None:
        """The exact smallest recorded value; ``None`` when empty."""
        self._fold()
        return self._min if self._count else None

    @property
    def max(self) -> int | None:
        """The exact largest recorded value; ``None`` when empty."""
        self._fold()
        return self._max if self._count else None

    @property
    def bucket_count(self) -> int:
        """How many buckets hold a count (the memory in use)."""
        self._fold()
        return len(self._counts)

    @property
    def max_buckets(self) -> int:
        """The most buckets this histogram can ever hold: ``2**sig + (64 - sig) * 2**(sig-1)``."""
        return (1 << self._sig) + (64 - self._sig) * (1 << (self._sig - 1))

    # -- percentiles -------------------------------------------------------

    def rank(self, q: Fraction | int | str) -> int:
        """The nearest rank of percentile ``q``: ``ceil(q / 100 * count)``.

        :param q: in ``[0, 100]``, exactly: a Fraction, an int or a decimal
            string such as ``"99.9"``.  Floats are refused.
        """
        exact = _as_quantile(q)
        self._fold()
        return -(-(exact.numerator * self._count) // (exact.denominator * 100))

    def percentile(self, q: Fraction | int | str) -> int:
        """The nearest-rank ``q``-th percentile, never under-reported.

        The exact nearest-rank value is the smallest recorded ``v`` such that
        at least ``ceil(q / 100 * count)`` recorded values are ``<= v``; for
        ``q = 0`` it is :attr:`min`.  The answer is the highest value of the
        bucket that holds it, clamped to the exact :attr:`max`: so
        ``percentile(0) == min``, ``percentile(100) == max``, and the error
        bound of the module docstring holds.

        :param q: as for :meth:`rank`.
        :raises ValueError: if the histogram is empty or ``q`` is outside ``[0, 100]``.
        """
        return self._at_ranks([self.rank(q)])[0]

    def summary(self) -> dict[str, int]:
        """``{"p50", "p90", "p99", "p999", "max"}`` as ints, in ns.

        All five are 0 when the histogram is empty.
        """
        self._fold()
        if self._count == 0:
            return {name: 0 for name, _ in _SUMMARY} | {"max": 0}
        values = self._at_ranks([self.rank(q) for _, q in _SUMMARY])
        return {name: v for (name, _), v in zip(_SUMMARY, values)} | {"max": self._bounds()[1]}

    def _at_ranks(self, ranks: list[int]) -> list[int]:
        """The reported value at each rank (``0`` meaning :attr:`min`), in one pass."""
        low, high = self._bounds()
        cumulative = self._cumulative()
        answers: dict[int, int] = {}
        index, seen = next(cumulative)
        for rank in sorted(set(ranks)):
            while seen < rank:
                index, seen = next(cumulative)
            answers[rank] = low if rank == 0 else min(self._highest(index), high)
        return [answers[rank] for rank in ranks]

    def _bounds(self) -> tuple[int, int]:
        """``(min, max)``; :class:`ValueError` if the histogram is empty."""
        self._fold()
        if self._count == 0:
            raise ValueError("percentile of an empty histogram")
        return self._min, self._max

    def _cumulative(self) -> Iterator[tuple[int, int]]:
        """``(bucket, values in this and lower buckets)`` in value order."""
        self._fold()
        seen = 0
        for index in sorted(self._counts):
            seen += self._counts[index]
            yield index, seen

    # -- comparison --------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LogHistogram):
            return NotImplemented
        self._fold()
        other._fold()
        return (self._sig, self._counts, self._count, self._total, self._min, self._max) == (
            other._sig, other._counts, other._count, other._total, other._min, other._max
        )

    def __repr__(self) -> str:
        self._fold()
        return (
            f"LogHistogram(sig={self._sig}, count={self._count}, min={self.min}, "
            f"max={self.max}, buckets={len(self._counts)})"
        )

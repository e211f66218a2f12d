"""The verdict of a schedulability test on one pCPU.

A test never answers a bare boolean: it returns the sums it looked at, the
virtual-deadline factor ``x`` the scheduler is to use and the reason in
words, so that a rejection explains itself.  The reason is kept as a
template and written out only when read, because first fit asks many
verdicts and reads few reasons.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from .utilization import UtilizationSums

__all__ = ["SchedulabilityVerdict", "Capacity"]


@attrs.frozen
class SchedulabilityVerdict:
    """What an admission test concluded about one pCPU.

    :param test: the test's name (``"edf-vd"``, ``"edf"``).
    :param schedulable: whether the pCPU passes.
    :param sums: the ``(U1, U2, U3)`` it was given.
    :param x: the virtual-deadline factor (``1`` means plain EDF); ``None``
        when the test defines none for these sums (``U1 >= 1``), and always
        for the fixed-priority tests, which have no deadlines to scale.
    :param why: the deciding inequality, as a :meth:`str.format` template
        over ``u1``, ``u2``, ``u3`` (the sums), ``x`` and ``demand``
        (``x*U1 + U3``); read it written out as :attr:`reason`.
    :param detail: what a test that searches (``exact``) found, as JSON-ready
        values (its answer, states, seconds, ...); ``None`` for the formula tests.
        It takes no part in equality.
    """

    test: str
    schedulable: bool
    sums: UtilizationSums
    x: Fraction | None
    why: str
    detail: dict[str, object] | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def reason(self) -> str:
        """The deciding inequality, with its exact values."""
        u1, u2, u3 = self.sums.lo_lo, self.sums.hi_lo, self.sums.hi_hi
        demand = None if self.x is None else self.x * u1 + u3
        return self.why.format(u1=u1, u2=u2, u3=u3, x=self.x, demand=demand, lo_mode=u1 + u2)

    def __bool__(self) -> bool:  # pragma: no cover - guard against misuse
        raise TypeError("a verdict is not a bool: read .schedulable")


@attrs.frozen
class Capacity:
    """How much more load a pCPU can take, as a test sees it.

    :param lo: a LO vCPU of utilization ``u = C_opt/T`` fits iff ``u <= lo``
        (exact: the largest such ``u``).
    :param hi: a HI vCPU with ``C_pes/T = b`` fits *only if* ``b <= hi``
        (a necessary bound; the test itself decides).

    The first-fit picker uses these to skip pCPUs without testing them.
    """

    lo: Fraction
    hi: Fraction

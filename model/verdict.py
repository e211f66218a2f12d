"""The verdict of a schedulability test on one pCPU.

A test never answers a bare boolean (DESIGN.md, "Style"): it returns the
sums it looked at, the virtual-deadline factor ``x`` the scheduler is to use
and the reason in words, so that a rejection explains itself.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from .utilization import UtilizationSums

__all__ = ["SchedulabilityVerdict"]


@attrs.frozen
class SchedulabilityVerdict:
    """What an admission test concluded about one pCPU.

    :param test: the test's name (``"edf-vd"``, ``"edf"``).
    :param schedulable: whether the pCPU passes.
    :param sums: the ``(U1, U2, U3)`` it was given.
    :param x: the virtual-deadline factor (``1`` means plain EDF); ``None``
        when the test defines none for these sums (``U1 >= 1``).
    :param reason: the deciding inequality, with its exact values.
    """

    test: str
    schedulable: bool
    sums: UtilizationSums
    x: Fraction | None
    reason: str

    def __bool__(self) -> bool:  # pragma: no cover - guard against misuse
        raise TypeError("a verdict is not a bool: read .schedulable")

"""Durations: exact integer nanoseconds, written with a unit.

The model keeps every instant and every duration as an integer number of
nanoseconds, so that no rounding enters an admission decision or a
scheduling order.  Host files write them as a decimal
number followed by a unit (``"25ms"``, ``"250us"``, ``"1.5ms"``, ``"2s"``,
``"100ns"``).  Parsing is exact: the decimal is read as a
:class:`~fractions.Fraction`, scaled, and must land on a whole nanosecond.
A bare number is refused, because "100" could mean any unit.
"""

from __future__ import annotations

import re
from fractions import Fraction

from .errors import DurationError

__all__ = ["UNITS", "parse_duration", "format_duration"]

#: Nanoseconds per unit, largest first (the order :func:`format_duration` tries).
UNITS: dict[str, int] = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
_ALIASES = {"µs": "us", "μs": "us"}
_EXPECTED = "a duration such as '25ms': a decimal number with a unit (s, ms, us, ns)"
_SYNTAX = re.compile(r"\s*(?P<number>\d+(?:\.\d+)?|\.\d+)\s*(?P<unit>[a-zµμ]+)\s*")


def parse_duration(text: object, *, field: str = "duration", vm: str | None = None) -> int:
    """Return the exact number of nanoseconds written in *text*.

    >>> from akita.model import parse_duration
    >>> parse_duration("1.5ms")
    1500000

    ``parse_duration("100")`` raises: a bare number has no unit.

    :raises DurationError: if *text* is not a string, has no unit or an
        unknown one, is negative, or is not a whole number of nanoseconds.
    """
    if not isinstance(text, str):
        raise DurationError(field, text, _EXPECTED, vm=vm)
    match = _SYNTAX.fullmatch(text)
    if match is None:
        raise DurationError(field, text, _EXPECTED, vm=vm)
    unit = _ALIASES.get(match["unit"], match["unit"])
    if unit not in UNITS:
        raise DurationError(field, text, _EXPECTED, vm=vm)
    nanoseconds = Fraction(match["number"]) * UNITS[unit]
    if nanoseconds.denominator != 1:
        raise DurationError(field, text, "a whole number of nanoseconds", vm=vm)
    return int(nanoseconds)


def format_duration(nanoseconds: int) -> str:
    """Write *nanoseconds* with the largest unit that keeps it an integer.

    ``parse_duration(format_duration(n)) == n`` for every ``n >= 0``.

    >>> from akita.model import format_duration
    >>> format_duration(1_500_000)
    '1500us'
    """
    if isinstance(nanoseconds, bool) or not isinstance(nanoseconds, int) or nanoseconds < 0:
        raise DurationError("duration", nanoseconds, "a non-negative integer number of nanoseconds")
    for unit, scale in UNITS.items():
        if nanoseconds % scale == 0 and (nanoseconds or unit == "ns"):
            return f"{nanoseconds // scale}{unit}"
    raise AssertionError("unreachable: every integer is a whole number of ns")

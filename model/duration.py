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
from .limits import MAX_DURATION_NS, MAX_NUMBER_CHARS

__all__ = ["UNITS", "parse_duration", "format_duration"]

#: Nanoseconds per unit, largest first (the order :func:`format_duration` tries).
UNITS: dict[str, int] = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
_ALIASES = {"µs": "us", "μs": "us"}
_EXPECTED = "a duration such as '25ms': a decimal number with a unit (s, ms, us, ns)"
#: ASCII digits only: ``\\d`` would also take other scripts' digits ("١ms").
_SYNTAX = re.compile(r"\s*(?P<number>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*(?P<unit>[a-zµμ]+)\s*")


def parse_duration(text: object, *, field: str = "duration", vm: str | None = None) -> int:
    """Return the exact number of nanoseconds written in *text*.

    >>> from akita.model import parse_duration
    >>> parse_duration("1.5ms")
    1500000

    ``parse_duration("100")`` raises: a bare number has no unit.

    :raises DurationError: if *text* is not a string, has no unit or an
        unknown one, is negative, or is not a whole number of nanoseconds;
        or if it is longer than ``MAX_NUMBER_CHARS`` characters or longer
        than ``MAX_DURATION_NS`` (:mod:`~akita.model.limits`).
    """
    if not isinstance(text, str):
        raise DurationError(field, text, _EXPECTED, vm=vm)
    if len(text) > MAX_NUMBER_CHARS:
        raise DurationError(field, text, f"a duration of at most {MAX_NUMBER_CHARS} characters",
                            vm=vm)
    match = _SYNTAX.fullmatch(text)
    if match is None:
        raise DurationError(field, text, _EXPECTED, vm=vm)
    unit = _ALIASES.get(match["unit"], match["unit"])
    if unit not in UNITS:
        raise DurationError(field, text, _EXPECTED, vm=vm)
    nanoseconds = Fraction(match["number"]) * UNITS[unit]
    if nanoseconds.denominator != 1:
        raise DurationError(field, text, "a whole number of nanoseconds", vm=vm)
    if nanoseconds > MAX_DURATION_NS:
        raise DurationError(field, text, f"a duration of at most {format_duration(MAX_DURATION_NS)}",
                            vm=vm)
    return int(nanoseconds)


def format_duration(nanoseconds: int) -> str:
    """Write *nanoseconds* in the largest unit it reaches, with as many decimals as it needs.

    The form is exact -- units are powers of ten, so the decimal never
    rounds -- and reads as a person would write it: ``15_500_000`` ns is
    ``"15.5ms"``, not ``"15500us"``; zero is ``"0ns"``.
    ``parse_duration(format_duration(n)) == n`` for every ``n >= 0`` up to
    the ceiling of :func:`parse_duration`.

    >>> from akita.model import format_duration
    >>> format_duration(1_500_000)
    '1.5ms'
    >>> format_duration(8_000_001)
    '8.000001ms'
    """
    if isinstance(nanoseconds, bool) or not isinstance(nanoseconds, int) or nanoseconds < 0:
        raise DurationError("duration", nanoseconds, "a non-negative integer number of nanoseconds")
    for unit, scale in UNITS.items():
        if nanoseconds >= scale or unit == "ns":
            whole, rest = divmod(nanoseconds, scale)
            if rest == 0:
                return f"{whole}{unit}"
            decimals = f"{rest:0{len(str(scale)) - 1}d}".rstrip("0")
            return f"{whole}.{decimals}{unit}"
    raise AssertionError("unreachable: the loop ends at ns")

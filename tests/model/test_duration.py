"""Durations parse exactly to integer nanoseconds, and only with a unit."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.model import DurationError, format_duration, parse_duration
from akita.model.limits import MAX_DURATION_NS


@pytest.mark.parametrize(
    "text, ns",
    [
        ("25ms", 25_000_000),
        ("250us", 250_000),
        ("250µs", 250_000),
        ("1.5ms", 1_500_000),
        ("2s", 2_000_000_000),
        ("100ns", 100),
        ("0.000000001s", 1),
        (".5ms", 500_000),
        ("0ms", 0),
    ],
)
def test_parses_exactly(text, ns):
    assert parse_duration(text) == ns


@pytest.mark.parametrize(
    "text", ["100", "25", "1.5", "ms", "25 min", "-5ms", "1e3ms", "0.5ns", "1.0000000001s", "", " "]
)
def test_refuses(text):
    with pytest.raises(DurationError) as error:
        parse_duration(text, field="period", vm="web")
    assert error.value.field == "period"
    assert error.value.vm == "web"
    assert error.value.value == text


def test_bare_number_message_names_the_units():
    with pytest.raises(DurationError, match=r"unit \(s, ms, us, ns\)"):
        parse_duration("100")


@pytest.mark.parametrize("value", [100, 2.5, None, True])
def test_refuses_non_strings(value):
    with pytest.raises(DurationError):
        parse_duration(value)


@given(st.integers(0, MAX_DURATION_NS))
def test_format_parse_round_trip(ns):
    assert parse_duration(format_duration(ns)) == ns


@given(st.integers(0, MAX_DURATION_NS))
def test_format_is_the_most_readable_exact_form(ns):
    """Issue 13, finding 7: the largest unit the value reaches, no trailing zeros."""
    text = format_duration(ns)
    number = text.rstrip("nums")
    unit = text[len(number):]
    assert ns == 0 or int(number.split(".")[0]) >= 1  # no "0.5ms": that is 500us
    assert ns < 1000 or unit != "ns" or ns % 1000  # no "15500ns": that would be 15.5us
    assert not number.endswith("0") or "." not in number  # "1.5ms", never "1.50ms"


def test_format_picks_largest_reached_unit():
    assert format_duration(2_000_000_000) == "2s"
    assert format_duration(1_500_000) == "1.5ms"
    assert format_duration(15_500_000) == "15.5ms"  # issue 13 printed "15500us"
    assert format_duration(8_000_001) == "8.000001ms"
    assert format_duration(250_000) == "250us"
    assert format_duration(7) == "7ns"
    assert format_duration(0) == "0ns"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1e400ms", "a duration such as"),
        ("1" * 5000 + "ms", "at most 40 characters"),  # issue 13: crashed in Fraction
        ("\u0661ms", "a duration such as"),  # an Arabic-Indic digit was read as 1
        ("9223372037s", "a duration of at most 9223372036.854775807s"),
    ],
)
def test_refuses_unbounded_numbers(text, expected):
    """Issue 13, finding 10: a duration is bounded before it is computed."""
    with pytest.raises(DurationError, match=expected):
        parse_duration(text, field="period")

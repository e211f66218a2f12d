"""Durations parse exactly to integer nanoseconds, and only with a unit."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.model import DurationError, format_duration, parse_duration


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


@given(st.integers(0, 10**15))
def test_format_parse_round_trip(ns):
    assert parse_duration(format_duration(ns)) == ns


def test_format_picks_largest_exact_unit():
    assert format_duration(2_000_000_000) == "2s"
    assert format_duration(1_500_000) == "1500us"
    assert format_duration(7) == "7ns"
    assert format_duration(0) == "0ns"

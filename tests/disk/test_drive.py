"""The seek curve matches its formula and the spec sheet's figures."""

import math
import random

import attrs
import pytest
from hypothesis import given, strategies as st

from akita.disk.drive import WD_CAVIAR_BLACK_1TB as WD
from akita.model import ModelError

MS = 1_000_000


def test_the_curve_passes_through_the_sheets_three_figures():
    assert WD.seek_ns(0) == 0
    assert WD.seek_ns(1) == 600_000            # track to track, 0.6 ms
    assert WD.seek_ns(WD.cylinders // 3) == 8_900_000  # average, 8.9 ms
    assert WD.seek_ns(WD.cylinders - 1) == 21_000_000  # full stroke, 21.0 ms
    assert WD.revolution_ns == 8_333_333 and WD.revolution_ns // 2 // 1000 == 4166  # 4.2 ms


@given(st.integers(2, WD.cylinders // 3))
def test_short_seeks_follow_a_plus_b_sqrt_d(d):
    third = WD.cylinders // 3
    b = (8.9 - 0.6) * MS / (math.sqrt(third) - 1)
    assert abs(WD.seek_ns(d) - (0.6 * MS + b * (math.sqrt(d) - 1))) <= 2_000


@given(st.integers(WD.cylinders // 3, WD.cylinders - 1))
def test_long_seeks_are_linear(d):
    third, last = WD.cylinders // 3, WD.cylinders - 1
    expected = 8.9 * MS + (21.0 - 8.9) * MS * (d - third) / (last - third)
    assert abs(WD.seek_ns(d) - expected) <= 1


def test_the_curve_rises_with_distance():
    ds = [1, 2, 10, 1000, WD.cylinders // 3, WD.cylinders // 3 + 1, WD.cylinders - 1]
    assert [WD.seek_ns(d) for d in ds] == sorted(WD.seek_ns(d) for d in ds)


def test_the_mean_over_random_pairs_is_near_the_sheets_average():
    rng = random.Random(7)
    mean = sum(WD.seek_ns(abs(rng.randrange(WD.cylinders) - rng.randrange(WD.cylinders)))
               for _ in range(20_000)) / 20_000
    assert abs(mean - 8.9 * MS) <= 0.05 * 8.9 * MS  # measured: 9.04 ms


def test_transfer_and_rotation():
    assert WD.transfer_ns(32) == 32 * 512 * 10**9 // 106_000_000
    for at in (0, 123_456, 9_999_999):
        assert 0 <= WD.rotation_ns(5000, at) < WD.revolution_ns
    assert WD.service_ns(100, 100, 32, 5) == (0, 0, WD.transfer_ns(32))


def test_an_impossible_drive_is_refused_naming_the_field():
    with pytest.raises(ModelError, match="drive.average_seek_ns"):
        attrs.evolve(WD, average_seek_ns=30 * MS)
    with pytest.raises(ModelError, match="drive.rpm"):
        attrs.evolve(WD, rpm=0)

"""The verdict on a measured context-switch cost (decision 330)."""

import pytest

from akita.model.measured_cost import STORED_NS, judge_switch_cost


def test_a_positive_net_within_its_spread_is_a_cost():
    verdict = judge_switch_cost({"median": 792.3, "min": 671.9, "max": 808.0})
    assert verdict.cost_ns == 792 and verdict.measured
    assert verdict.why.startswith("measured: net median 792.3 ns [671.9, 808]")


@pytest.mark.parametrize("net, says", [
    ({"median": -414.0, "min": -1690.4, "max": 3970.0}, "the median is not positive"),
    ({"median": 0.0, "min": 0.0, "max": 0.0}, "the median is not positive"),
    ({"median": 0.49, "min": 0.4, "max": 0.5}, "the median is not positive"),
    ({"median": 100.0, "min": 50.0, "max": 150.1}, "the spread 100.1 ns exceeds the median"),
])
def test_noise_is_refused_with_its_figures(net, says):
    verdict = judge_switch_cost(net)
    assert verdict.cost_ns is None and not verdict.measured
    assert verdict.why.startswith("refused: ") and says in verdict.why
    assert verdict.as_json() == {"cost_ns": None, "measured": False, "why": verdict.why}


def test_the_edge_a_spread_equal_to_the_median_is_accepted():
    assert judge_switch_cost({"median": 100.0, "min": 50.0, "max": 150.0}).cost_ns == 100
    assert judge_switch_cost({"median": 0.5, "min": 0.5, "max": 0.5}).cost_ns is None  # 0 ns


def test_a_verdict_is_not_a_bool():
    with pytest.raises(TypeError):
        bool(judge_switch_cost({"median": 1.0, "min": 1.0, "max": 1.0}))


def test_the_stored_figure_is_the_documented_one():
    from repo import ROOT

    assert f"{STORED_NS:,} ns" in (ROOT / "docs" / "decisions.rst").read_text()

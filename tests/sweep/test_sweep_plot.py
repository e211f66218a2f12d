"""The sweep plot keeps the mixed-criticality tests apart from the plain uniprocessor tests."""

import matplotlib.pyplot as plt
import pytest

from akita.sweep import loads_spec, run_sweep
from akita.sweep.plot import MC_TESTS, plot_sweep

SPEC = """
[sweep]
seed = 3
sets = 10
utilizations = [0.4, 0.85]
tests = {tests}
[sweep.generator]
kind = "uunifast"
vcpus = 6
periods = ["1ms", "100ms"]
granularity = "10us"
criticality_factor = 2
p_hi = 0.5
"""


@pytest.fixture
def caught(monkeypatch):
    figures = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: (figures.append(fig), close(fig)))
    return figures


def _labels(ax):
    return [line.get_label() for line in ax.get_lines()]


def test_mc_and_plain_tests_are_on_two_panels(tmp_path, caught):
    result = run_sweep(loads_spec(SPEC.format(tests='["edf-vd", "edf", "amc-rtb", "rm-rta"]')),
                       workers=0)
    plot_sweep(result, tmp_path, "s")
    mc, plain = caught[-1].axes
    assert _labels(mc) == ["edf-vd", "amc-rtb"] and set(_labels(mc)) <= MC_TESTS
    assert _labels(plain) == ["edf", "rm-rta"]
    assert "mixed-criticality" in mc.get_title() and "no guarantee" in plain.get_title()


def test_a_sweep_of_mc_tests_only_has_one_panel(tmp_path, caught):
    result = run_sweep(loads_spec(SPEC.format(tests='["edf-vd", "amc-rtb"]')), workers=0)
    plot_sweep(result, tmp_path, "s")
    (ax,) = caught[-1].axes
    assert _labels(ax) == ["edf-vd", "amc-rtb"] and "vCPUs" in ax.get_title()

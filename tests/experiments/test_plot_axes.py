"""The experiments' linear axes start at 0 where their values allow a linear axis."""

import math
from fractions import Fraction

import matplotlib.pyplot as plt
import pytest

from akita.experiments import fig7, fig8


@pytest.fixture
def caught(monkeypatch):
    """The figures the experiments' ``save`` closes."""
    figures = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: (figures.append(fig), close(fig)))
    return figures


def test_fig7_shares_run_from_0_to_100_percent(tmp_path, caught):
    series = {"hi": [Fraction(1, 4)] * 4 + [Fraction(1, 2)] * 4,
              "lookbusy1": [Fraction(1, 4)] * 4 + [Fraction(1, 6)] * 4}
    fig7._plot(series, 4 * fig7.WINDOW, tmp_path)
    ax = caught[-1].axes[0]
    assert ax.get_yscale() == "linear" and ax.get_ylim() == (0.0, 100.0)


def test_fig8_tail_is_linear_from_0(tmp_path, caught):
    tail = {p: {n: {"p999": 700_000 + 100_000 * k * i} for k, n in enumerate(fig8.COUNTS)}
            for i, p in enumerate(fig8.POLICIES)}
    idle = {p: {n: 0 for n in fig8.COUNTS} for p in fig8.POLICIES}
    fig8._plot(tail, idle, tmp_path)
    left = caught[-1].axes[0]
    assert left.get_yscale() == "linear" and left.get_ylim()[0] == 0.0
    assert left.get_ylim()[1] >= 0.7 + 0.1 * 5 * 2  # the largest tail, in ms, is shown


def test_a_quick_run_is_marked_on_its_figure_and_a_full_one_is_not(tmp_path):
    from akita.plotting import QUICK_MARK, figure, save

    for mark, folder in (("QUICK RUN (--quick)", "quick"), (None, "full")):
        token = QUICK_MARK.set(mark)
        try:
            fig, ax = figure()
            ax.plot([0, 1], [0, 1])
            ax.set_title("t")
            save(fig, tmp_path / folder, "p")
        finally:
            QUICK_MARK.reset(token)
    assert 'id="quick-mark"' in (tmp_path / "quick" / "p.svg").read_text()
    assert 'id="quick-mark"' not in (tmp_path / "full" / "p.svg").read_text()


def test_reproduce_quick_marks_its_plots(tmp_path):
    from akita.cli import run

    assert run(["reproduce", "fig7", "--quick", "--out", str(tmp_path)]) == 0
    assert 'id="quick-mark"' in (tmp_path / "fig7-shares.svg").read_text()


def test_pregather_ticks_are_plain_numbers_and_labels_do_not_overlap(tmp_path, caught):
    import json

    from akita.experiments import pregather
    from repo import DOCS

    runs = json.loads((DOCS / "experiments" / "pregather.json").read_text())["data"]["runs"]
    pregather._plot(runs, tmp_path)
    fig = caught[-1]
    left = fig.axes[0]
    formatter = left.yaxis.get_major_formatter()
    assert formatter(20.0, 0) == "20" and formatter(2.0, 0) == "2"  # not 2x10^1, 2x10^0
    fig.canvas.draw()
    for ax in fig.axes[:2]:
        # Labels are parallel strips: unrotated, each must be narrower than the tick spacing;
        # rotated by theta, the strips' distance (spacing x sin theta) must exceed their height.
        ticks = [ax.transData.transform((x, 0))[0] for x in ax.get_xticks()]
        spacing = min(b - a for a, b in zip(ticks, ticks[1:]))
        for label in ax.get_xticklabels():
            theta = math.radians(label.get_rotation())
            height = label.get_fontsize() * fig.dpi / 72
            if theta == 0:
                assert label.get_window_extent().width < spacing, label.get_text()
            else:
                assert spacing * math.sin(theta) > height, label.get_text()

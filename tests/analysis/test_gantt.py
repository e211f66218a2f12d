"""Schedule pictures (analysis/gantt.py): Fig. 5's host shows its mode switch and the LO lanes.

Checked two ways that can fail: the PNG's pixels in the mode band before and after the
switch and in the LO vCPUs' lanes where they run, and the SVG's named groups.
"""

import io
import xml.etree.ElementTree as ET

import pytest
from matplotlib.colors import to_rgb
from matplotlib.image import imread

from akita.analysis import analyze_file
from akita.analysis.gantt import MODE_COLOURS, GanttRecorder, Mark, render, save
from akita.model import load_host
from akita.reference.run import simulate
from repo import EXAMPLES

SWITCH = 53_547_278  # Fig. 5, seed 1: pCPU 0 enters HI mode here (the trace's mode event)
LO_VCPUS = ("lookbusy1/0", "lookbusy2/0", "lookbusy3/0")


def _picture(path, start=0, end=200 * 10**6, marks=()):
    recorder = GanttRecorder(start, end)
    found = analyze_file(path, recorder=recorder)
    figure = render(recorder, marks=marks, modes_recorded=found.modes is not None)
    return recorder, figure


def _pixel(figure, t_ns, y):
    """The RGB of the PNG's pixel at time *t_ns* and height *y* (data units) of the chart."""
    out = io.BytesIO()
    save(figure, out)
    out.seek(0)
    image = imread(out, format="png")
    x_px, y_px = figure.axes[0].transData.transform((t_ns / 1e6, y))
    return tuple(float(v) for v in image[int(image.shape[0] - y_px), int(x_px)][:3])


def _close(a, b, tol=0.06):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def test_the_trace_switches_where_the_test_looks(fig5_run):
    path, _ = fig5_run
    text = path.read_text()
    assert f'"t":{SWITCH},"cpu":0,"event":"mode","mode":"HI"' in text


def test_the_mode_band_turns_hi_at_the_switch(fig5_run):
    path, _ = fig5_run
    _, figure = _picture(path)
    band = figure.axes[0].band_y[0] + 0.3
    lo, hi = to_rgb(MODE_COLOURS["LO"]), to_rgb(MODE_COLOURS["HI"])
    assert _close(_pixel(figure, SWITCH - 5 * 10**6, band), lo)
    assert _close(_pixel(figure, SWITCH + 5 * 10**6, band), hi)
    later = [_pixel(figure, t * 10**6, band) for t in range(60, 200, 7)]  # 20 points
    assert sum(_close(p, hi) for p in later) >= 18  # HI to the end (a marker may cover a point)


def test_each_lo_vcpu_has_a_lane_coloured_where_it_runs(fig5_run):
    path, _ = fig5_run
    recorder, figure = _picture(path, 80 * 10**6, 120 * 10**6)  # all three run in it
    lanes = figure.axes[0].lane_y
    white = (1.0, 1.0, 1.0)
    to_px = figure.axes[0].transData.transform
    ns_per_px = 10**6 / (to_px((1.0, 0))[0] - to_px((0.0, 0))[0])
    for vcpu in LO_VCPUS:
        assert (0, vcpu) in lanes
        start, end = max(((s, e) for c, s, e, o in recorder.segments if o == vcpu),
                         key=lambda span: span[1] - span[0])
        assert end - start > 3 * ns_per_px  # a bar three pixels wide or more
        inside = _pixel(figure, (start + end) // 2, lanes[(0, vcpu)] + 0.4)
        assert not _close(inside, white) and not _close(inside, (0.99, 0.93, 0.92), 0.03)


def test_a_policy_without_modes_has_no_hi_band(tmp_path):
    """Negative control: plain EDF never enters HI mode: the band stays LO after the instant."""
    path = tmp_path / "edf.jsonl"
    simulate(load_host(EXAMPLES / "fig5.toml"), "edf", duration=200 * 10**6, seed=1,
             trace_path=str(path))
    _, figure = _picture(path)
    band = figure.axes[0].band_y[0] + 0.3
    assert not _close(_pixel(figure, SWITCH + 5 * 10**6, band), to_rgb(MODE_COLOURS["HI"]))


def _ids(svg_bytes):
    root = ET.fromstring(svg_bytes)
    return {element.get("id") for element in root.iter() if element.get("id")}


def test_the_svg_names_lanes_bands_releases_and_marks(fig5_run, tmp_path):
    path, _ = fig5_run
    _, figure = _picture(path, marks=[Mark(60 * 10**6, 0, "R4")])
    out = tmp_path / "fig5.svg"
    save(figure, str(out))
    ids = _ids(out.read_bytes())
    for vcpu in LO_VCPUS + ("memcached/0",):
        assert f"lane-cpu0-{vcpu}" in ids
    assert {"mode-cpu0-LO", "mode-cpu0-HI", "mark-cpu0-R4"} <= ids
    assert any(i.startswith("release-cpu0-") for i in ids)


def test_a_window_before_the_switch_has_no_hi_band(fig5_run, tmp_path):
    path, _ = fig5_run
    _, figure = _picture(path, 0, SWITCH - 10**6)
    out = tmp_path / "early.svg"
    save(figure, str(out))
    ids = _ids(out.read_bytes())
    assert "mode-cpu0-LO" in ids and "mode-cpu0-HI" not in ids


def test_the_same_trace_gives_the_same_bytes(fig5_run, tmp_path):
    path, _ = fig5_run
    for suffix in ("svg", "png"):
        outs = []
        for k in range(2):
            _, figure = _picture(path, 40 * 10**6, 80 * 10**6)
            out = tmp_path / f"same{k}.{suffix}"
            save(figure, str(out))
            outs.append(out.read_bytes())
        assert outs[0] == outs[1], suffix


def test_an_empty_window_is_refused():
    with pytest.raises(ValueError):
        GanttRecorder(10, 10)

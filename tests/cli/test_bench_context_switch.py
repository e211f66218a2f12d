"""``bench/context_switch.py``: the arithmetic, the host-file line and copy, bad input.

The figures it measures depend on the machine, so nothing here asserts one;
the runs are a few hundred round trips, only to check the shape of what
comes out and that a copy of a host is written whole or not at all.
"""

import importlib.util
import json

import pytest

from akita.model import load_host
from repo import EXAMPLES, ROOT


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("context_switch",
                                                  ROOT / "bench" / "context_switch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_round_trip_is_two_switches(bench):
    assert bench.per_switch(4_000, 1_000) == 2.0
    with pytest.raises(ValueError):
        bench.per_switch(1, 0)


def test_the_spread_is_median_least_and_greatest(bench):
    assert bench.spread([3.0, 1.0, 2.0, 10.0]) == {"median": 2.5, "min": 1.0, "max": 10.0}
    with pytest.raises(ValueError):
        bench.spread([])


def test_the_line_is_whole_nanoseconds_and_a_negative_is_refused_not_clamped(bench):
    assert bench.cost_line(2459.9) == 'context_switch_cost = "2460ns"'
    with pytest.raises(ValueError):
        bench.cost_line(-3.0)


def test_a_copy_of_a_host_carries_the_cost_and_nothing_else_changes(bench, tmp_path):
    import attrs

    from akita.model import loads_host

    host = load_host(EXAMPLES / "fig5.toml")
    copy = loads_host(bench.with_cost(host, 2460))
    assert copy.options.context_switch_cost == 2460
    assert attrs.evolve(copy, options=host.options) == host


def test_the_json_has_raw_baseline_and_net_pinned_and_not(bench, capsys):
    assert bench.main(["--round-trips", "200", "--repeats", "1", "--json"]) in (0, 3)
    doc = json.loads(capsys.readouterr().out)
    assert doc["machine"]["cpus"] >= 1 and doc["round_trips"] == 200
    for setting in ("pinned", "unpinned"):
        figures = doc[setting]
        assert set(figures) == {"raw_ns", "baseline_ns", "net_ns"}
        assert figures["raw_ns"]["median"] > 0 and figures["baseline_ns"]["median"] > 0
        net = figures["raw_ns"]["median"] - figures["baseline_ns"]["median"]
        # one repeat: raw - baseline, each rounded to 0.1 ns
        assert figures["net_ns"]["median"] == pytest.approx(net, abs=0.1 + 1e-6)
    # one repeat has no spread: its cost is the net, if positive, else none (decision 330)
    median = doc["pinned"]["net_ns"]["median"]
    assert doc["context_switch_cost_ns"] == (round(median) if round(median) >= 1 else None)
    assert doc["verdict"]["measured"] == (doc["context_switch_cost_ns"] is not None)


def _fake(net):
    """A measurement that gives *net* as the pinned net figures (ns per switch)."""
    def measure(round_trips, repeats, cpu):
        one = {"median": 1000.0, "min": 900.0, "max": 1100.0}
        return {"pinned": {"raw_ns": one, "baseline_ns": one, "net_ns": net},
                "unpinned": {"raw_ns": one, "baseline_ns": one, "net_ns": net}}
    return measure


#: The record's refused measurement (pinned, load about 14), and the one before it.
NOISE = {"median": -414.0, "min": -1690.4, "max": 3970.0}
GOOD = {"median": 792.3, "min": 671.9, "max": 808.0}


def test_the_text_ends_with_the_line_to_paste(bench, capsys, monkeypatch):
    monkeypatch.setattr(bench, "measure", _fake(GOOD))
    assert bench.main(["--round-trips", "100", "--repeats", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == 'context_switch_cost = "792ns"'


def test_host_and_out_write_a_copy_with_the_measured_cost(bench, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "measure", _fake(GOOD))
    out = tmp_path / "measured.toml"
    argv = ["--round-trips", "100", "--repeats", "1", "--json", "--host",
            str(EXAMPLES / "fig5.toml"), "--out", str(out)]
    assert bench.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["context_switch_cost_ns"] == 792 and doc["verdict"]["measured"] is True
    assert load_host(out).options.context_switch_cost == 792
    assert [p.name for p in tmp_path.iterdir()] == ["measured.toml"]  # no temporary left


@pytest.mark.parametrize("net, says", [
    (NOISE, "the median is not positive"),
    ({"median": -76.4, "min": -427.4, "max": -22.7}, "the median is not positive"),
    ({"median": 0.4, "min": 0.1, "max": 0.6}, "the median is not positive"),
    # the record before it: 395 ns at load about 16, its repeats 116-519 ns apart
    ({"median": 395.1, "min": 116.2, "max": 518.7}, "the spread 402.5 ns exceeds the median"),
    ({"median": 300.0, "min": 10.0, "max": 700.0}, "the spread 690 ns exceeds the median"),
])
def test_a_noisy_measurement_is_refused_not_clamped_to_0(bench, capsys, tmp_path, monkeypatch,
                                                           net, says):
    monkeypatch.setattr(bench, "measure", _fake(net))
    out = tmp_path / "measured.toml"
    status = bench.main(["--json", "--host", str(EXAMPLES / "fig5.toml"), "--out", str(out)])
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert status == 3 and doc["context_switch_cost_ns"] is None
    assert doc["verdict"]["measured"] is False and says in doc["verdict"]["why"]
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert captured.err.count("\n") == 1 and "not written" in captured.err


def test_a_refused_measurement_ends_the_text_with_why(bench, capsys, monkeypatch):
    monkeypatch.setattr(bench, "measure", _fake(NOISE))
    assert bench.main([]) == 3
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("no context_switch_cost: refused: net median -414 ns")


@pytest.mark.parametrize("argv, says", [
    (["--host", "nope.toml", "--out", "x.toml"], "field 'file'"),
    (["--host", str(EXAMPLES / "fig5.toml")], "--host and --out go together"),
    (["--host", str(EXAMPLES / "fig5.toml"), "--out", "/proc/nope/x.toml"], "--out"),
    (["--repeats", "0"], "--repeats"),
    (["--cpu", "4096"], "--cpu 4096"),
    (["--round-trips", "many"], "--round-trips"),
])
def test_bad_input_is_one_line_and_status_2_before_anything_is_measured(bench, capsys, argv,
                                                                        says, monkeypatch):
    monkeypatch.setattr(bench, "measure", lambda *a: pytest.fail("measured"))
    with pytest.raises(SystemExit) as stop:
        bench.main(argv)
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert err.count("\n") == 1 and says in err and "Traceback" not in err


def test_a_host_that_is_not_valid_is_refused_with_its_field(bench, capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[host]\npcpus = 0\n")
    with pytest.raises(SystemExit) as stop:
        bench.main(["--host", str(bad), "--out", str(tmp_path / "x.toml")])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "pcpus" in err
    assert not (tmp_path / "x.toml").exists()

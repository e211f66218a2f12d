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


def test_the_line_is_whole_nanoseconds_never_negative(bench):
    assert bench.cost_line(2459.9) == 'context_switch_cost = "2460ns"'
    assert bench.cost_line(-3.0) == 'context_switch_cost = "0ns"'


def test_a_copy_of_a_host_carries_the_cost_and_nothing_else_changes(bench, tmp_path):
    import attrs

    from akita.model import loads_host

    host = load_host(EXAMPLES / "fig5.toml")
    copy = loads_host(bench.with_cost(host, 2460))
    assert copy.options.context_switch_cost == 2460
    assert attrs.evolve(copy, options=host.options) == host


def test_the_json_has_raw_baseline_and_net_pinned_and_not(bench, capsys):
    assert bench.main(["--round-trips", "200", "--repeats", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["machine"]["cpus"] >= 1 and doc["round_trips"] == 200
    for setting in ("pinned", "unpinned"):
        figures = doc[setting]
        assert set(figures) == {"raw_ns", "baseline_ns", "net_ns"}
        assert figures["raw_ns"]["median"] > 0 and figures["baseline_ns"]["median"] > 0
        net = figures["raw_ns"]["median"] - figures["baseline_ns"]["median"]
        # one repeat: raw - baseline, each rounded to 0.1 ns
        assert figures["net_ns"]["median"] == pytest.approx(net, abs=0.1 + 1e-6)
    assert doc["context_switch_cost_ns"] == max(0, round(doc["pinned"]["net_ns"]["median"]))


def test_the_text_ends_with_the_line_to_paste(bench, capsys):
    assert bench.main(["--round-trips", "100", "--repeats", "1"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith('context_switch_cost = "') and last.endswith('ns"')


def test_host_and_out_write_a_copy_with_the_measured_cost(bench, capsys, tmp_path):
    out = tmp_path / "measured.toml"
    argv = ["--round-trips", "100", "--repeats", "1", "--json", "--host",
            str(EXAMPLES / "fig5.toml"), "--out", str(out)]
    assert bench.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert load_host(out).options.context_switch_cost == doc["context_switch_cost_ns"]
    assert [p.name for p in tmp_path.iterdir()] == ["measured.toml"]  # no temporary left


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

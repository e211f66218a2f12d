"""``akita analyze`` and the ``--gantt`` option of simulate, conform and analyze, end to end."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import xml.etree.ElementTree as ET

import pytest

from akita.cli import run
from cli_run import run_cli
from repo import EXAMPLES, ROOT

DATA = ROOT / "tests" / "data"
FIG5 = EXAMPLES / "fig5.toml"


@pytest.fixture(scope="module")
def fig5_trace(tmp_path_factory):
    """Fig. 5's host for 200 ms (seed 1), its trace and simulate's JSON."""
    trace = tmp_path_factory.mktemp("cli-analyze") / "fig5.jsonl"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert run(["simulate", str(FIG5), "--duration", "200ms", "--trace", str(trace),
                    "--json"]) == 0
    return trace, json.loads(buffer.getvalue())


def test_json_shares_equal_simulate_json(capsys, fig5_trace):
    trace, doc = fig5_trace
    status, out, err = run_cli(capsys, "analyze", trace, "--json", "--window", "50ms")
    assert status == 0 and err == ""
    found = json.loads(out)
    for vm, figures in doc["vms"].items():
        assert found["vms"][vm]["cpu_ns"] == figures["cpu_ns"]
        assert found["vms"][vm]["share"] == figures["cpu_share"]
    assert found["modes"]["0"]["lo_to_hi"] == 1
    assert all(len(sums) == 4 for sums in found["windows"].values())


def test_the_table_names_tasks_cpus_and_budgets(capsys, fig5_trace):
    trace, _ = fig5_trace
    status, out, _ = run_cli(capsys, "analyze", trace)
    assert status == 0
    for text in ("Tasks, busiest first", "memcached/0", "lookbusy3/0", "CPUs",
                 "Budget used per whole period", "HI mode"):
        assert text in out


def test_csv_rows_and_plot(capsys, fig5_trace, tmp_path):
    trace, doc = fig5_trace
    table, plot = tmp_path / "a.csv", tmp_path / "a.png"
    status, _, err = run_cli(capsys, "analyze", trace, FIG5, "--csv", table, "--plot", plot)
    assert status == 0, err
    rows = list(csv.reader(table.open()))
    assert rows[0] == ["section", "name", "metric", "value"]
    got = {(r[0], r[1], r[2]): r[3] for r in rows[1:]}
    assert got[("vm", "memcached", "cpu_ns")] == str(doc["vms"]["memcached"]["cpu_ns"])
    assert ("budget", "memcached/0", "over_c_pes") in got
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_kernel_capture_with_its_host(capsys):
    status, out, err = run_cli(capsys, "analyze", DATA / "sched_deadline" / "fit.txt",
                               DATA / "sched_deadline" / "fit.toml", "--json")
    assert status == 0, err
    found = json.loads(out)
    assert found["format"] == "ftrace" and found["modes"] is None
    assert {"dl_a/0", "dl_b/0", "dl_c/0"} <= set(found["tasks"])
    assert found["budgets"]["dl_c/0"]["over_c_opt"] == 0  # fit.txt: every job within runtime


def test_a_xentrace_capture(capsys):
    status, out, err = run_cli(capsys, "analyze", DATA / "xentrace-credit2-excerpt.bin.gz",
                               "--cpu-hz", "2400000000", "--json")
    assert status == 0, err
    assert json.loads(out)["format"] == "xentrace"


@pytest.mark.parametrize("args, field", [
    (["missing.jsonl"], "TRACE"),
    (["{trace}", "--window", "0ms"], "--window"),
    (["{trace}", "--gantt", "x.pdf"], "--gantt"),
    (["{trace}", "--from", "1ms"], "--from/--to"),
    (["{trace}", "--gantt", "{tmp}/g.svg", "--from", "5ms", "--to", "5ms"], "--to"),
    (["{xen}"], "--cpu-hz"),
])
def test_bad_input_is_one_line_and_status_2(capsys, fig5_trace, tmp_path, args, field):
    trace, _ = fig5_trace
    xen = DATA / "xentrace-credit2-excerpt.bin.gz"
    filled = [a.format(trace=trace, tmp=tmp_path, xen=xen) for a in args]
    status, out, err = run_cli(capsys, "analyze", *filled)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and field in err and "Traceback" not in err


def _ids(path):
    return {e.get("id") for e in ET.parse(path).getroot().iter() if e.get("id")}


def test_simulate_draws_a_gantt_without_keeping_a_trace(capsys, tmp_path):
    picture = tmp_path / "sim.svg"
    before = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    status, _, err = run_cli(capsys, "simulate", FIG5, "--duration", "100ms", "--json",
                             "--gantt", picture, "--from", "40ms", "--to", "70ms")
    assert status == 0, err
    ids = _ids(picture)
    assert {"mode-cpu0-LO", "mode-cpu0-HI", "lane-cpu0-lookbusy1/0"} <= ids
    after = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    assert not {name for name in after - before if name.startswith("akita-gantt-")}


def test_conform_marks_its_violations(capsys, fig5_trace, tmp_path):
    """Fig. 5's akita trace judged by plain EDF's rules: violations, drawn as marks."""
    trace, _ = fig5_trace
    picture = tmp_path / "conform.svg"
    status, _, err = run_cli(capsys, "conform", "--policy", "edf", FIG5, trace, "--max", "300",
                             "--gantt", picture, "--from", "40ms", "--to", "70ms")
    assert status == 1, err
    assert any(i.startswith("mark-cpu0-R") for i in _ids(picture))
    clean = tmp_path / "clean.svg"
    status, _, _ = run_cli(capsys, "conform", FIG5, trace, "--gantt", clean)
    assert status == 0
    assert not any(i.startswith("mark-") for i in _ids(clean))


def test_conform_gantt_refuses_stdin(capsys, tmp_path):
    status, _, err = run_cli(capsys, "conform", FIG5, "-", "--gantt", tmp_path / "g.svg")
    assert status == 2 and "--gantt" in err and "stdin" in err


def test_analyze_gantt_of_a_kernel_capture(capsys, tmp_path):
    picture = tmp_path / "dl.png"
    status, _, err = run_cli(capsys, "analyze", DATA / "sched_deadline" / "overrun.txt",
                             DATA / "sched_deadline" / "overrun.toml", "--gantt", picture,
                             "--to", "100ms")
    assert status == 0, err
    assert picture.read_bytes()[:4] == b"\x89PNG"


def test_a_text_trace_on_stdin(capsys, monkeypatch):
    data = (DATA / "sched_text" / "vcpus.kernel.txt").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    status, out, err = run_cli(capsys, "analyze", "-", "--json")
    assert status == 0, err
    found = json.loads(out)
    assert found["trace"] == "<stdin>" and found["format"] == "ftrace" and found["events"] == 105

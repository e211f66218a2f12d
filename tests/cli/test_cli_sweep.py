"""``akita sweep``: bad specs in one line, the JSON, the files, resuming, and the same bytes
from one worker and from two on a real dask.distributed cluster."""

import json

import pytest

from cli_run import run_cli, spec_file
from akita.model import ADMISSION_TESTS
from repo import EXAMPLES

GOOD = """
[sweep]
seed = 1
sets = 20
utilizations = [0.5, 0.75, 0.9]
tests = ["edf-vd", "amc-rtb"]
batch = 5
[sweep.generator]
kind = "uunifast"
vcpus = 10
periods = ["10ms", "1000ms"]
period_distribution = "log-uniform"
granularity = "100us"
criticality_factor = 2
p_hi = 0.5
"""


def _spec(tmp_path, text=GOOD, name="spec.toml"):
    return spec_file(tmp_path, text, name)


def _sweep(capsys, *args):
    return run_cli(capsys, "sweep", *args)


BAD = {
    "no sweep table": ("[sweeps]\nseed = 1\n", "field 'sweeps'"),
    "unknown key": (GOOD.replace("seed = 1", "sed = 1"), "field 'sweep.sed'"),
    "no seed": (GOOD.replace("seed = 1\n", ""), "field 'sweep.seed'"),
    "zero sets": (GOOD.replace("sets = 20", "sets = 0"), "field 'sweep.sets'"),
    "too many sets": (GOOD.replace("sets = 20", "sets = 1000000").replace(
        "[0.5, 0.75, 0.9]", "{ start = 0.05, stop = 1, step = 0.05 }"), "at most 10000000 sets"),
    "too many batches": (GOOD.replace("sets = 20", "sets = 50000").replace("batch = 5",
                                                                          "batch = 1"),
                         "field 'sweep.batch'"),
    "no utilization": (GOOD.replace("[0.5, 0.75, 0.9]", "[]"), "field 'sweep.utilizations'"),
    "utilization above 1": (GOOD.replace("0.9]", "1.5]"), "in (0, 1]"),
    "decreasing": (GOOD.replace("[0.5, 0.75, 0.9]", "[0.75, 0.5]"), "increasing utilizations"),
    "huge range": (GOOD.replace("[0.5, 0.75, 0.9]", "{ start = 0.0001, stop = 1, step = 0.0001 }"),
                   "at most 1000 points"),
    "unknown test": (GOOD.replace('"amc-rtb"]', '"amc"]'), "field 'sweep.tests'"),
    "twice": (GOOD.replace('"amc-rtb"]', '"edf-vd"]'), "each test once"),
    "bad kind": (GOOD.replace('kind = "uunifast"', 'kind = "randfixedsum"'),
                 "field 'sweep.generator.kind'"),
    "no generator": (GOOD[:GOOD.index("[sweep.generator]")], "field 'sweep.generator'"),
    "one period": (GOOD.replace('["10ms", "1000ms"]', '["10ms"]'), "sweep.generator.periods"),
    "periods reversed": (GOOD.replace('["10ms", "1000ms"]', '["1000ms", "10ms"]'),
                         "shortest <= longest"),
    "off the grid": (GOOD.replace('["10ms", "1000ms"]', '["10.05ms", "1000ms"]'),
                     "whole multiple of the granularity"),
    "bare number": (GOOD.replace('"100us"', '"100"'), "sweep.generator.granularity"),
    "no vcpus": (GOOD.replace("vcpus = 10", "vcpus = 0"), "sweep.generator.vcpus"),
    "too many vcpus": (GOOD.replace("vcpus = 10", "vcpus = 100000"), "from 1 to 256"),
    "factor below 1": (GOOD.replace("criticality_factor = 2", "criticality_factor = 0.5"),
                       "sweep.generator.criticality_factor"),
    "p_hi above 1": (GOOD.replace("p_hi = 0.5", "p_hi = 2"), "sweep.generator.p_hi"),
    "distribution": (GOOD.replace('"log-uniform"', '"normal"'), "period_distribution"),
    "discard cannot": (GOOD.replace('kind = "uunifast"', 'kind = "uunifast-discard"').replace(
        "vcpus = 10", "vcpus = 1"), "always has some C_pes > T"),
    "toml": (GOOD + "[sweep\n", "valid TOML"),
    "negative seed": (GOOD.replace("seed = 1", "seed = -1"), "field 'sweep.seed'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_spec_is_one_line_naming_file_and_key(tmp_path, capsys, case):
    text, expected = BAD[case]
    path = _spec(tmp_path, text)
    status, out, err = _sweep(capsys, path, "--workers", "0", "--out", tmp_path / "out")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"akita: error: {path}: "), err
    assert expected in err
    assert not (tmp_path / "out" / "spec.json").exists()


def test_an_unknown_test_is_one_line_naming_the_tests_there_are(tmp_path, capsys):
    path = _spec(tmp_path, GOOD.replace('"amc-rtb"]', '"later"]'))
    status, out, err = _sweep(capsys, path, "--workers", "0", "--out", tmp_path / "out")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"one of {', '.join(ADMISSION_TESTS)}" in err


def test_a_missing_spec_is_one_line(tmp_path, capsys):
    status, _, err = _sweep(capsys, tmp_path / "none.toml", "--workers", "0")
    assert status == 2 and err.count("\n") == 1 and "a readable file" in err


def test_workers_and_scheduler_exclude_each_other(tmp_path, capsys):
    status, _, err = _sweep(capsys, _spec(tmp_path), "--workers", "2", "--scheduler",
                            "tcp://127.0.0.1:1")
    assert status == 2 and err.count("\n") == 1 and "exclude each other" in err


def test_a_malformed_scheduler_address_is_one_line(tmp_path, capsys):
    status, _, err = _sweep(capsys, _spec(tmp_path), "--scheduler", "localhost", "--out",
                            tmp_path / "out")
    assert status == 2 and err.count("\n") == 1 and "field '--scheduler'" in err


def test_json_shape_files_and_table(tmp_path, capsys):
    out = tmp_path / "out"
    status, stdout, err = _sweep(capsys, _spec(tmp_path), "--workers", "0", "--out", out, "--json")
    assert status == 0
    document = json.loads(stdout)
    assert [p["utilization"] for p in document["points"]] == [0.5, 0.75, 0.9]
    for point in document["points"]:
        assert point["sets"] == 20 and set(point["accepted"]) == {"edf-vd", "amc-rtb"}
        assert all(isinstance(v, int) and 0 <= v <= 20 for v in point["accepted"].values())
    assert json.loads((out / "spec.json").read_text()) == document
    assert {p.name for p in out.iterdir()} == {"spec.json", "spec.csv", "spec.svg", "spec.png",
                                               "spec-batches"}
    assert "12 batches computed, 0 reused" in err
    status, table, _ = _sweep(capsys, _spec(tmp_path), "--workers", "0", "--out", out, "--no-plot")
    assert status == 0 and "amc-rtb" in table and "0.75" in table


def test_a_rerun_after_losing_batches_prints_the_same_bytes(tmp_path, capsys):
    out, spec = tmp_path / "out", _spec(tmp_path)
    first = _sweep(capsys, spec, "--workers", "0", "--out", out, "--json", "--no-plot")[1]
    csv = (out / "spec.csv").read_bytes()
    batches = sorted((out / "spec-batches").glob("*/*.json"))
    for path in batches[::3]:
        path.unlink()
    status, again, err = _sweep(capsys, spec, "--workers", "0", "--out", out, "--json", "--no-plot")
    assert status == 0 and again == first and (out / "spec.csv").read_bytes() == csv
    assert f"{len(batches[::3])} batches computed, {len(batches) - len(batches[::3])} reused" in err


def test_one_worker_and_two_give_the_same_bytes_on_a_real_cluster(tmp_path, capsys):
    """Each run starts a dask.distributed LocalCluster (scheduler + worker processes)."""
    pytest.importorskip("distributed")
    spec = _spec(tmp_path)
    runs = {}
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        status, stdout, _ = _sweep(capsys, spec, "--workers", workers, "--out", out, "--json")
        assert status == 0
        runs[workers] = (stdout, (out / "spec.csv").read_bytes(), (out / "spec.svg").read_bytes())
    serial = _sweep(capsys, spec, "--workers", "0", "--out", tmp_path / "w0", "--json",
                    "--no-plot")[1]
    assert runs["1"] == runs["2"]
    assert runs["1"][0] == serial


def test_the_shipped_example_runs(tmp_path, capsys):
    status, stdout, _ = _sweep(capsys, EXAMPLES / "sweep.toml", "--workers", "0", "--out",
                               tmp_path, "--json", "--no-plot")
    assert status == 0 and len(json.loads(stdout)["points"]) == 10

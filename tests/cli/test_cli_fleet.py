"""``akita fleet``: bad specs in one line with status 2, the JSON, the files, and the same
bytes from the serial run and from a local cluster of two worker processes."""

import json

import pytest

from cli_run import run_cli, spec_file
from repo import ROOT

SMALL = (ROOT / "tests" / "fleet" / "small.toml").read_text(encoding="utf-8")


def _spec(tmp_path, text=SMALL, name="small.toml"):
    return spec_file(tmp_path, text, name)


def _fleet(capsys, *args):
    return run_cli(capsys, "fleet", *args)


BAD = {
    "unknown key": (SMALL.replace("seed = 3", "sed = 3"), "field 'fleet.sed'"),
    "rate above one per tick": (SMALL.replace('rate = "1/15"', "rate = 2"),
                                "field 'fleet.arrivals.rate'"),
    "unknown type": (SMALL.replace('type = "Type6"', 'type = "Type9"'),
                     "field 'fleet.mix.types[1].type'"),
    "not TOML": ("[fleet\n", "field 'toml'"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_spec_is_one_line_and_status_2(case, tmp_path, capsys):
    text, expected = BAD[case]
    path = _spec(tmp_path, text)
    status, out, err = _fleet(capsys, path, "--workers", "0", "--out", tmp_path / "out")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"akita: error: {path}") and expected in err
    assert "Traceback" not in err


def test_a_missing_file_is_one_line(tmp_path, capsys):
    status, _, err = _fleet(capsys, tmp_path / "nope.toml", "--workers", "0")
    assert status == 2 and err.count("\n") == 1 and "nope.toml" in err


def test_workers_and_scheduler_exclude_each_other(tmp_path, capsys):
    status, _, err = _fleet(capsys, _spec(tmp_path), "--workers", "1", "--scheduler",
                            "tcp://127.0.0.1:1")
    assert status == 2 and "exclude each other" in err and err.count("\n") == 1


def test_a_bad_scheduler_address_is_one_line(tmp_path, capsys):
    status, _, err = _fleet(capsys, _spec(tmp_path), "--scheduler", "localhost",
                            "--out", tmp_path / "out", "--no-plot")
    assert status == 2 and "--scheduler" in err and err.count("\n") == 1


def test_json_and_files(tmp_path, capsys):
    out = tmp_path / "out"
    status, stdout, err = _fleet(capsys, _spec(tmp_path), "--workers", "0", "--out", out,
                                 "--json")
    assert status == 0
    document = json.loads(stdout)
    assert document == json.loads((out / "small.json").read_text())
    first, spread = (document["placements"][name] for name in ("first-fit", "spread"))
    for summary in (first, spread):
        assert summary["admitted"] + summary["rejected"] == summary["offered"]
        assert len(summary["samples"]) == 2 and summary["sampled"]["hi_misses"] >= 0
    csv = (out / "small.csv").read_text().splitlines()
    assert csv[0] == "placement,time_ns,pcpus_in_use,hosts_in_use,vms,rejected"
    assert {row.split(",")[0] for row in csv[1:]} == {"first-fit", "spread"}
    for name in ("small.svg", "small.png"):
        assert (out / name).stat().st_size > 1000
    assert "small.csv, small.json, small.svg, small.png" in err


def test_the_table_names_both_placements(tmp_path, capsys):
    status, stdout, _ = _fleet(capsys, _spec(tmp_path), "--workers", "0", "--out",
                               tmp_path / "out", "--no-plot")
    assert status == 0
    assert "first-fit" in stdout and "spread" in stdout and "Sampled hosts" in stdout
    assert not (tmp_path / "out" / "small.svg").exists()


def test_two_local_workers_give_the_serial_bytes(tmp_path, capsys):
    spec = _spec(tmp_path)
    assert _fleet(capsys, spec, "--workers", "0", "--out", tmp_path / "a")[0] == 0
    assert _fleet(capsys, spec, "--workers", "2", "--out", tmp_path / "b")[0] == 0
    for name in ("small.json", "small.csv", "small.svg"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()

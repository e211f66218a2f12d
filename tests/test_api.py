"""The public API: what each command does is one import away (``akita.__all__``)."""

import subprocess
import sys

import pytest

import akita
from repo import ROOT

FIG5 = ROOT / "examples" / "fig5.toml"


def test_every_name_in_all_resolves():
    for name in akita.__all__:
        assert getattr(akita, name) is not None
    with pytest.raises(AttributeError):
        akita.no_such_function  # noqa: B018


def test_import_akita_loads_neither_z3_nor_matplotlib():
    code = "import sys, akita; print(sorted({'z3', 'matplotlib'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_script_does_what_the_commands_do(tmp_path):
    host = akita.load_host(FIG5)
    assert akita.first_fit(host).admitted
    trace = tmp_path / "fig5.jsonl"
    result = akita.simulate(host, "akita", duration=200_000_000, trace_path=str(trace))
    assert isinstance(result, akita.Result)
    assert result.as_json()["vms"]["memcached"]["hi_misses"] == 0
    report = akita.conform_file(host, trace)
    assert isinstance(report, akita.ConformanceReport) and report.verdict == "conformant"
    assert report.decisions > 0
    answers = akita.check_host(host)
    assert [a.verdict.verdict for a in answers] == ["proved"]


def test_conform_file_finds_a_broken_trace(tmp_path):
    host = akita.load_host(FIG5)
    trace = tmp_path / "fig5.jsonl"
    akita.simulate(host, "akita", duration=100_000_000, trace_path=str(trace))
    lines = trace.read_text().splitlines(keepends=True)
    dispatch = next(i for i, line in enumerate(lines) if '"dispatch"' in line and "lookbusy" in line)
    lines[dispatch] = lines[dispatch].replace("lookbusy1/0", "lookbusy3/0").replace(
        "lookbusy2/0", "lookbusy3/0")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(lines))
    assert akita.conform_file(host, broken).verdict != "conformant"

"""``--hi-mode-order`` on simulate and verify, verify's exit status 5, and the budget account
in simulate, verify and conform (R3, R7; docs/guarantees.rst)."""

from __future__ import annotations

import json

import pytest

from cli_run import run_cli, spec_file

PAIR = """[host]
pcpus = 1
{extra}
[[vm]]
name = "hi"
type = "Type1"

[[vm]]
name = "lo"
type = "Type2"
"""


def pair_file(tmp_path, extra: str = "", name: str = "pair.toml"):
    return spec_file(tmp_path, PAIR.format(extra=extra), name)


@pytest.mark.rule("R3", "R7")
def test_verify_is_green_under_capped_and_exits_5_under_hi_first(capsys, tmp_path):
    host = pair_file(tmp_path)
    status, out, _ = run_cli(capsys, "verify", host, "--duration", "1s")
    assert status == 0
    assert 'Simulated 1s under hi_mode_order = "capped": 0 HI misses, promises kept.' in \
        " ".join(out.split())
    status, out, _ = run_cli(capsys, "verify", host, "--duration", "1s",
                             "--hi-mode-order", "hi-first")
    text = " ".join(out.split())
    assert status == 5
    assert "HI guarantee: proved on every pCPU with a HI vCPU." in text  # all green before
    assert "promises BROKEN for 1 VM" in text
    assert "Promise broken: lo (LO): got 0.00% of the pCPU (C_opt/T = 25.00%)" in text


@pytest.mark.rule("R3", "R7")
def test_verify_json_names_the_reading_and_the_broken_promise(capsys, tmp_path):
    host = pair_file(tmp_path, 'hi_mode_order = "hi-first"')
    status, out, _ = run_cli(capsys, "verify", host, "--duration", "500ms", "--json")
    doc = json.loads(out)
    assert status == doc["status"] == 5
    assert doc["check"]["pcpus"][0]["verdict"] == "proved"
    assert doc["promises"]["verdict"] == "broken"
    assert doc["promises"]["hi_mode_order"] == "hi-first"
    assert doc["simulation"]["vms"]["lo"]["cpu_ns"] == 0
    assert any("held in HI mode by hi/0" in line for line in doc["overruns"])


@pytest.mark.rule("R3", "R7")
def test_simulate_reports_the_budgets_under_each_reading(capsys, tmp_path):
    host = pair_file(tmp_path)
    shares = {}
    for order in ("capped", "hi-first", "budget-first"):
        status, out, _ = run_cli(capsys, "simulate", host, "--duration", "1s", "--json",
                                 "--hi-mode-order", order)
        doc = json.loads(out)
        assert status == 0 and doc["hi_mode_order"] == order
        shares[order] = (doc["vms"]["hi"]["cpu_ns"], doc["vms"]["lo"]["cpu_ns"])
        assert doc["vms"]["hi"]["budget"]["overrun_periods"] == 10
    ms = 1_000_000
    assert shares == {"capped": (250 * ms, 750 * ms), "hi-first": (1000 * ms, 0),
                      "budget-first": (750 * ms, 250 * ms)}
    status, out, _ = run_cli(capsys, "simulate", host, "--duration", "1s")
    text = " ".join(out.split())
    assert "Promises to the VMs: kept." in text
    assert "hi (HI) used its whole C_pes and still held work in 10 of 10 periods" in text


@pytest.mark.rule("R3")
def test_a_bad_reading_is_one_line_and_status_2(capsys, tmp_path):
    status, out, err = run_cli(capsys, "simulate", pair_file(tmp_path), "--hi-mode-order",
                               "lo-first")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--hi-mode-order" in err


@pytest.mark.rule("R3", "R7")
def test_conform_names_an_overrun_r3_and_keeps_the_simulators_account(capsys, tmp_path):
    """A trace of the earlier reading judged on a host of the default one: every period the
    HI vCPU past C_pes runs while the rules run the LO vCPU (R3, budget isolation); on a
    host that selects that reading the same trace conforms, and either way the oracle's
    account of the trace is the simulator's."""
    trace = tmp_path / "hi-first.jsonl"
    status, out, _ = run_cli(capsys, "simulate", pair_file(tmp_path), "--duration", "1s",
                             "--hi-mode-order", "hi-first", "--trace", trace, "--json")
    simulated = json.loads(out)["vms"]
    status, out, _ = run_cli(capsys, "conform", pair_file(tmp_path), trace, "--json")
    report = json.loads(out)
    assert status == 1 and report["counts"] == {"R3": 10}
    assert "past its C_pes (budget isolation) while lo/0 held work" in \
        report["violations"][0]["text"]
    status, out, _ = run_cli(capsys, "conform",
                             pair_file(tmp_path, 'hi_mode_order = "hi-first"', "hf.toml"),
                             trace, "--json")
    report = json.loads(out)
    assert status == 0 and report["verdict"] == "conformant"
    seen = report["budgets"]["vcpus"]
    for vm in ("hi", "lo"):
        for key in ("overrun_periods", "past_budget_ns", "ahead_of_budget_ns",
                    "kept_from_budget_ns"):
            assert seen[f"{vm}/0"][key] == simulated[vm]["budget"][key], (vm, key)
    assert report["budgets"]["held_in_hi_by"] == {"0": ["hi/0"]}
    status, out, _ = run_cli(capsys, "conform",
                             pair_file(tmp_path, 'hi_mode_order = "hi-first"', "hf.toml"), trace)
    assert "Overrun: lo/0 held work and budget while a vCPU past its budget ran, for 750ms." \
        in " ".join(out.split())

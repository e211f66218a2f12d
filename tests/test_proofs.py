"""The schedule obligations reach their expected verdicts; counterexamples replay."""

import json
import tempfile

import pytest

from akita.cli import run
from akita.proofs import hi_guarantee, mode_obligations
from akita.proofs.hi_guarantee import carry_over, check_hi_guarantee, two_hi
from akita.proofs.obligation import discharge
from akita.proofs.replay import reference_schedule

SCHEDULE_OBLIGATIONS = hi_guarantee.OBLIGATIONS + mode_obligations.OBLIGATIONS


@pytest.mark.parametrize("obligation", SCHEDULE_OBLIGATIONS, ids=lambda o: o.name)
def test_obligation_reaches_its_expected_verdict(obligation):
    outcome = discharge(obligation)
    assert outcome.verdict.verdict == obligation.expected, outcome.verdict.reason
    if obligation.expected == "refuted":
        example = outcome.verdict.counterexample
        assert example["jobs"] and example["schedule"]
        assert any(job["vcpu"].endswith("/0") for job in example["jobs"])


def test_every_proved_claim_has_a_negative_control():
    proved = [o for o in SCHEDULE_OBLIGATIONS if o.expected == "proved"]
    refuted = [o for o in SCHEDULE_OBLIGATIONS if o.expected == "refuted"]
    assert len(refuted) >= len(proved) - 4  # the HI guarantee shares its controls
    assert all(o.statement for o in SCHEDULE_OBLIGATIONS)


@pytest.mark.parametrize("pcpu, policy", [
    (carry_over(test="edf"), "akita"),   # no virtual deadlines
    (carry_over(policy="edf"), "edf"),   # the edf policy
    (two_hi("virtual"), "akita"),        # virtual deadlines in HI mode
])
def test_counterexamples_replay_to_the_same_miss(pcpu, policy):
    horizon = 3 * pcpu.hyperperiod()
    with tempfile.TemporaryDirectory() as folder:
        verdict = check_hi_guarantee(pcpu, horizon, 60, save_to=folder)
        assert verdict.verdict == "refuted"
        example = verdict.counterexample
        _, misses = reference_schedule(example["replay"], pcpu, horizon, policy)
    missed = {m["vcpu"] for m in example["misses"]}
    assert missed and all(misses[name] >= 1 for name in missed)


def check(capsys, *args):
    status = run(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


CARRY = """[host]
pcpus = 1
[[vm]]
name = "lo"
criticality = "LO"
period = "2ms"
c_opt = "1ms"
[[vm]]
name = "hi"
criticality = "HI"
period = "4ms"
c_opt = "200us"
c_pes = "3500us"
"""


def test_check_cli_proves_under_akita_and_refutes_under_edf(capsys, tmp_path):
    host = tmp_path / "carry.toml"
    host.write_text(CARRY)
    status, out, _ = check(capsys, host, "--json")
    doc = json.loads(out)
    assert status == 0 and [p["verdict"] for p in doc["pcpus"]] == ["proved"]
    assert set(doc["pcpus"][0]) >= {"index", "verdict", "scope", "seconds", "counterexample"}
    status, out, _ = check(capsys, host, "--policy", "edf", "--save", tmp_path / "cex")
    assert status == 1 and "refuted" in out and "replay: akita simulate" in out
    status, out, _ = check(capsys, host, "--policy", "edf", "--save", tmp_path / "cex", "--json")
    example = json.loads(out)["pcpus"][0]["counterexample"]
    assert status == 1 and example["misses"][0]["vcpu"] == "hi/0"
    status = run(["simulate", example["replay"], "--policy", "edf", "--json",
                  "--duration", f"{example['horizon_ns'] + 1}ns"])
    sim = json.loads(capsys.readouterr().out)
    assert status == 0 and sim["vms"]["hi-0"]["hi_misses"] >= 1


def test_check_cli_unknown_and_bad_input(capsys, tmp_path):
    host = tmp_path / "carry.toml"
    host.write_text(CARRY)
    status, out, _ = check(capsys, host, "--max-ticks", "10", "--json")
    assert status == 3 and json.loads(out)["pcpus"][0]["verdict"] == "unknown"
    status, out, err = check(capsys, host, "--policy", "credit")
    assert status == 2 and out == "" and "--policy" in err


def test_verify_default_host_reports_all_three_parts(capsys):
    status = run(["verify", "--duration", "200ms", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0 and doc["status"] == 0
    assert set(doc) == {"admission", "check", "simulation", "status"}
    assert doc["admission"]["admitted"] is True
    assert [p["verdict"] for p in doc["check"]["pcpus"]] == ["proved"]
    assert doc["simulation"]["vms"]["memcached"]["hi_misses"] == 0


def test_verify_reports_a_rejection_with_status_1(capsys):
    from pathlib import Path

    status = run(["verify", str(Path(__file__).parent.parent / "examples" / "mixed.toml"),
                  "--duration", "100ms"])
    out = capsys.readouterr().out
    assert status == 1 and "Rejected VMs" in out and "HI guarantee" in out

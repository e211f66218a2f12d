"""The schedule obligations reach their expected verdicts; counterexamples replay."""

import json
import tempfile

import pytest

from akita.cli import run
from akita.model.smt.resources import resource_limit
from akita.proofs import manifest
from akita.proofs.hi_guarantee import check_hi_guarantee
from akita.proofs.obligation import Obligation
from akita.proofs.pcpus import carry_over, staggered, two_hi
from akita.proofs.replay import reference_schedule
from repo import EXAMPLES



def test_every_safety_obligation_has_a_declared_negative_control():
    obligations = manifest.load()
    assert manifest.uncontrolled(obligations) == []
    for o in obligations:  # a control names what it controls; a safety obligation does not
        assert bool(o.controls) == (o.expected == "refuted"), o.name
    assert all(o.statement for o in obligations)


def test_the_control_check_can_fail():
    def holds(timeout):
        """A claim."""

    safety = Obligation("safety", holds, "nothing", rules=("R1",))
    control = Obligation("control", holds, "nothing", "refuted", rules=("R1",),
                         controls=("safety",))
    assert manifest.uncontrolled([safety]) == ["safety"]
    assert manifest.uncontrolled([safety, control]) == []


@pytest.mark.parametrize("pcpu, policy, hyperperiods", [  # as the controls check them
    # no virtual deadlines: 7 s, long tier (the edf policy's replay below stays fast)
    pytest.param(carry_over(test="edf"), "akita", 3, marks=pytest.mark.long),
    (carry_over(policy="edf"), "edf", 3),   # the edf policy
    # virtual deadlines in HI mode: 20-60 s of Z3 (its 60 s ran out at load 10), long tier
    pytest.param(two_hi("virtual"), "akita", 1, marks=pytest.mark.long),
    (staggered(), "akita", 3),              # out of phase only
])
def test_counterexamples_replay_to_the_same_miss(pcpu, policy, hyperperiods):
    horizon = hyperperiods * pcpu.hyperperiod()
    # A budget of Z3's resource count decides, not the clock (decision 120): on a loaded
    # machine a 60 s limit answered unknown here; the hour is a guard only.
    with tempfile.TemporaryDirectory() as folder, resource_limit(1_000_000_000):
        verdict = check_hi_guarantee(pcpu, horizon, 3600, save_to=folder)
        assert verdict.verdict == "refuted"
        example = verdict.counterexample
        _, misses = reference_schedule(example["replay"], pcpu, horizon, policy)
    missed = {m["vcpu"] for m in example["misses"]}
    assert missed and all(misses[name] >= 1 for name in missed)
    assert set(example["phases"]) == {v.name for v in pcpu.vcpus}


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


STAGGERED = """[host]
pcpus = 1
test = "edf"
phases = "seeded"
[[vm]]
name = "hi"
criticality = "HI"
period = "4ms"
c_opt = "1ms"
c_pes = "3ms"
[[vm]]
name = "lo"
criticality = "LO"
period = "4ms"
c_opt = "3ms"
"""


def test_check_cli_reports_and_saves_the_phases_of_a_counterexample(capsys, tmp_path):
    host = tmp_path / "staggered.toml"
    host.write_text(STAGGERED)
    status, out, _ = check(capsys, host, "--save", tmp_path / "cex")
    assert status == 1 and "phases: hi/0" in out and "every phase" in out
    status, out, _ = check(capsys, host, "--save", tmp_path / "cex", "--json")
    example = json.loads(out)["pcpus"][0]["counterexample"]
    assert status == 1 and set(example["phases"]) == {"hi/0", "lo/0"}
    saved = (tmp_path / "cex" / "pcpu0" / "host.toml").read_text()
    for name, ns in example["phases"].items():  # each VM of the replay declares its phase
        assert f'name = "{name.replace("/", "-")}"' in saved
    assert saved.count("phase = ") == 2
    status = run(["simulate", example["replay"], "--json",
                  "--duration", f"{example['horizon_ns'] + 1}ns"])
    sim = json.loads(capsys.readouterr().out)
    assert status == 0 and sim["vms"]["hi-0"]["hi_misses"] >= 1
    status, _, _ = check(capsys, host.parent / "cex" / "pcpu0" / "host.toml")
    assert status == 1  # the saved phases are fixed: the same miss
    host.write_text(STAGGERED.replace('phases = "seeded"', 'phases = "synchronous"'))
    status, out, _ = check(capsys, host)
    assert status == 0 and "synchronous phases" in out


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
    assert set(doc) == {"admission", "check", "simulation", "promises", "overruns", "status"}
    assert doc["promises"] == {"verdict": "kept", "hi_mode_order": "capped", "broken": []}
    assert doc["admission"]["admitted"] is True
    assert [p["verdict"] for p in doc["check"]["pcpus"]] == ["proved"]
    assert doc["simulation"]["vms"]["memcached"]["hi_misses"] == 0


def test_verify_reports_a_rejection_with_status_1(capsys):

    status = run(["verify", str(EXAMPLES / "mixed.toml"),
                  "--duration", "100ms"])
    out = capsys.readouterr().out
    assert status == 1 and "Rejected VMs" in out and "HI guarantee" in out

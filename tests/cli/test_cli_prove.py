"""``akita prove``: the JSON document, the table, --list, exit statuses, one-line errors."""

import json
import subprocess
import sys

import pytest

from akita.cli import run
from akita.proofs import manifest
from akita.proofs.obligation import Obligation
from akita.proofs.verdict import ProofVerdict

KEYS = {"name", "rules", "scope", "expected", "verdict", "seconds", "counterexample", "reason",
        "rlimit", "rlimit_used"}


def prove(capsys, *args):
    status = run(["prove", *args])
    out, err = capsys.readouterr()
    return status, out, err


def _proved(timeout):
    """A claim that holds (fake, for the CLI tests)."""
    return ProofVerdict.proved("fine")


def _refuted(timeout):
    """A claim that fails (fake, for the CLI tests)."""
    return ProofVerdict.refuted({"vm0": {"c_opt": "3ms"}}, "found one")


def _unknown(timeout):
    """A claim the solver gives up on (fake, for the CLI tests)."""
    return ProofVerdict.unknown("timeout")


def _crashes(timeout):
    """A check with a bug (fake, for the CLI tests)."""
    raise RuntimeError("boom")


FAKES = {
    "holds": Obligation("holds", _proved, "nothing"),
    "control": Obligation("control", _refuted, "nothing", expected="refuted"),
    "wrong": Obligation("wrong", _refuted, "nothing"),
    "gives_up": Obligation("gives_up", _unknown, "nothing"),
    "gives_up_control": Obligation("gives_up_control", _unknown, "nothing", expected="refuted"),
    "crashes": Obligation("crashes", _crashes, "nothing"),
}


@pytest.fixture
def fake_manifest(monkeypatch):
    def use(*names):
        monkeypatch.setattr(manifest, "load", lambda: tuple(FAKES[n] for n in names))

    return use


def test_json_has_the_documented_shape_on_real_obligations(capsys):
    status, out, err = prove(
        capsys, "--json", "utilization_corollary", "negative_control_corollary_4_5"
    )
    assert status == 0 and err == ""
    doc = json.loads(out)
    assert list(doc) == ["obligations"]
    first, second = doc["obligations"]
    assert set(first) == KEYS and set(second) == KEYS
    assert (first["name"], first["expected"], first["verdict"]) == (
        "utilization_corollary",
        "proved",
        "proved",
    )
    assert first["counterexample"] is None and isinstance(first["seconds"], float)
    assert (second["expected"], second["verdict"]) == ("refuted", "refuted")
    assert second["counterexample"]["vcpus"] and second["counterexample"]["reference"].startswith(
        "not schedulable"
    )


def test_all_expected_verdicts_exit_0(capsys, fake_manifest):
    fake_manifest("holds", "control")
    status, out, _ = prove(capsys, "--json")
    assert status == 0
    assert [o["verdict"] for o in json.loads(out)["obligations"]] == ["proved", "refuted"]


def test_an_unexpected_verdict_exits_1_and_keeps_its_counterexample(capsys, fake_manifest):
    fake_manifest("holds", "wrong")
    status, out, _ = prove(capsys, "--json")
    assert status == 1
    wrong = json.loads(out)["obligations"][1]
    assert wrong["verdict"] == "refuted" and wrong["counterexample"] == {"vm0": {"c_opt": "3ms"}}
    assert wrong["reason"] == "found one"


@pytest.mark.parametrize("name", ["gives_up", "gives_up_control"])
def test_unknown_is_never_a_pass(capsys, fake_manifest, name):
    fake_manifest("holds", name)
    status, out, _ = prove(capsys, "--json")
    assert status == 3
    assert json.loads(out)["obligations"][1]["verdict"] == "unknown"


def test_a_crashing_check_is_unknown_and_the_run_goes_on(capsys, fake_manifest):
    fake_manifest("crashes", "holds")
    status, out, _ = prove(capsys, "--json")
    first, second = json.loads(out)["obligations"]
    assert status == 3
    assert first["verdict"] == "unknown" and "RuntimeError: boom" in first["reason"]
    assert second["verdict"] == "proved"


def test_names_select_obligations_in_the_order_given(capsys, fake_manifest):
    fake_manifest("holds", "control", "wrong")
    status, out, _ = prove(capsys, "--json", "control", "holds", "control")
    assert status == 0
    assert [o["name"] for o in json.loads(out)["obligations"]] == ["control", "holds"]


def test_unknown_name_is_one_line_on_stderr_and_exit_2(capsys, fake_manifest):
    fake_manifest("holds")
    status, out, err = prove(capsys, "holds", "nosuch")
    assert status == 2 and out == ""
    assert (
        err.count("\n") == 1
        and "'NAME'" in err
        and "'nosuch'" in err
        and "akita prove --list" in err
    )


def test_table_for_people(capsys, fake_manifest):
    fake_manifest("holds", "control", "wrong")
    status, out, err = prove(capsys)
    assert status == 1 and err == ""  # no progress bar: stderr is not a terminal
    for word in (
        "obligation",
        "scope",
        "expected",
        "verdict",
        "seconds",
        "holds",
        "control",
        "wrong",
    ):
        assert word in out
    assert "proved (pass)" in out and "refuted (FAIL)" in out
    assert "found one" in out and '"c_opt": "3ms"' in out  # details of the failure
    assert "2 of 3 obligations reached their expected verdict." in out


def test_table_details_for_named_obligations(capsys, fake_manifest):
    fake_manifest("holds", "control")
    status, out, _ = prove(capsys, "control")
    assert status == 0 and '"c_opt": "3ms"' in out and "1 of 1 obligations" in out


def test_list_prints_names_scopes_and_statements(capsys):
    status, out, _ = prove(capsys, "--list")
    assert status == 0
    for name in (
        "edf_vd_z3_agrees_with_reference",
        "first_fit_vs_optimum",
        "negative_control_no_guard",
    ):
        assert name in out
    assert "scope: all real U1, U2, U3 >= 0" in out and "Baruah et al." in out


def test_list_json(capsys, fake_manifest):
    fake_manifest("holds", "control")
    status, out, _ = prove(capsys, "--list", "--json")
    assert status == 0
    assert json.loads(out) == {
        "obligations": [
            {
                "name": "holds",
                "rules": [],
                "scope": "nothing",
                "expected": "proved",
                "timeout": 60.0,
                "rlimit": 0,
                "statement": "A claim that holds (fake, for the CLI tests).",
            },
            {
                "name": "control",
                "rules": [],
                "scope": "nothing",
                "expected": "refuted",
                "timeout": 60.0,
                "rlimit": 0,
                "statement": "A claim that fails (fake, for the CLI tests).",
            },
        ]
    }


def test_the_manifest_holds_every_obligation_of_these_modules_once():
    from akita.proofs import edf_vd_bounds, edf_vd_formula, packing_obligations

    names = [o.name for o in manifest.load()]
    assert len(names) == len(set(names))
    for module in (edf_vd_formula, edf_vd_bounds, packing_obligations):
        assert {o.name for o in module.OBLIGATIONS} <= set(names)


def test_progress_bar_only_on_a_terminal(capsys, fake_manifest, monkeypatch):
    import sys

    fake_manifest("holds", "control")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status, out, _ = prove(capsys, "--json")
    assert status == 0 and len(json.loads(out)["obligations"]) == 2  # stdout stays pure JSON


# -- deterministic limits: a budget of Z3's resource count decides, the clock only guards --


@pytest.mark.parametrize("name", ["hi_guarantee_fig5", "edf_vd_test_is_monotone",
                                  "negative_control_x_never_grows"])
def test_a_tiny_resource_budget_answers_unknown_never_a_pass(capsys, name):
    """A budget too small to decide gives ``unknown`` with the budget named, and the
    exit status for unknown (3) -- for a safety obligation and for a negative control."""
    status, out, _ = prove(capsys, "--json", "--rlimit", "50", name)
    [outcome] = json.loads(out)["obligations"]
    assert status == 3
    assert outcome["verdict"] == "unknown" and outcome["rlimit"] == 50
    assert outcome["reason"] is not None and "resource limit reached" in outcome["reason"]
    assert "wall-clock" not in outcome["reason"]


def test_the_same_command_spends_the_same_count_and_gives_the_same_verdict():
    """What an obligation spends is a count, not a time: the same command, run twice,
    spends the same however long each run took.  (Within one process the count of a
    second run differs a little -- Z3 keeps state between queries -- hence processes.)"""
    command = [sys.executable, "-c", "from akita.cli import main; main()", "prove", "--json",
               "--rlimit", "0", "first_fit_placements_are_valid", "edf_vd_test_is_monotone"]
    runs = [json.loads(subprocess.run(command, capture_output=True, text=True, timeout=600,
                                      check=True).stdout)["obligations"] for _ in range(2)]
    assert [(o["verdict"], o["rlimit_used"]) for o in runs[0]] == \
        [(o["verdict"], o["rlimit_used"]) for o in runs[1]]
    assert all(o["verdict"] == "proved" and o["rlimit_used"] > 0 for o in runs[0])


def test_each_calibrated_budget_belongs_to_an_obligation_and_is_taken():
    from akita.proofs.rlimits import RLIMITS

    by_name = {o.name: o for o in manifest.load()}
    assert set(RLIMITS) <= set(by_name) and RLIMITS
    assert all(by_name[name].rlimit == budget > 0 for name, budget in RLIMITS.items())


def test_every_obligation_has_a_calibrated_budget():
    from akita.proofs.rlimits import RLIMITS

    assert {o.name for o in manifest.load()} == set(RLIMITS)


def test_the_guard_is_reported_as_the_guard_never_as_a_verdict(capsys):
    status, out, _ = prove(capsys, "--json", "--rlimit", "0", "--guard", "0.001",
                           "hi_guarantee_fig5")
    [outcome] = json.loads(out)["obligations"]
    assert status == 3 and outcome["verdict"] == "unknown"
    assert outcome["reason"].startswith("wall-clock guard 0.001 s reached")

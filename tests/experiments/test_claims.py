"""The catalogue of the sources' claims (experiments/claims.py), its rules, and the generated
table docs/experiments/claims.rst (decisions 140-142)."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction

import pytest

from akita.experiments import EXPERIMENTS
from akita.experiments.claims import CLAIMS, SOURCES, SourceClaim, judge
from akita.experiments.claims_table import main, render, totals
from akita.experiments.verdict import BOUND, FACTOR_2, POINTS_3, Band, Reading, Rule, Verdict
from repo import DOCS

RESULTS = DOCS / "experiments"


def _doc(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text())


def test_the_shipped_table_is_the_one_the_catalogue_and_the_result_files_give():
    assert (RESULTS / "claims.rst").read_text() == render(RESULTS), (
        "run: python -m akita.experiments.claims_table docs/experiments")


def test_the_catalogue_holds_72_claims_of_all_five_sources_each_once():
    assert len(CLAIMS) == 72 and len({c.id for c in CLAIMS}) == 72
    assert {c.source for c in CLAIMS} == set(SOURCES)
    assert all(c.id.startswith(c.source + "-") for c in CLAIMS)


def test_every_measured_claim_names_a_real_experiment_and_a_claim_of_it():
    for claim in CLAIMS:
        if claim.experiment is None:
            continue
        assert claim.experiment in EXPERIMENTS, claim.id
        if claim.index is not None:
            assert claim.index < len(_doc(claim.experiment)["claims"]), claim.id


def test_a_claim_that_fails_says_why_and_a_claim_with_a_figure_has_a_band():
    for claim in CLAIMS:
        verdict, _ = judge(claim, _doc(claim.experiment) if claim.experiment else None)
        if verdict in (Verdict.NOT_REPRODUCED, Verdict.DIRECTION_ONLY, Verdict.NOT_ATTEMPTED):
            own = (_doc(claim.experiment)["claims"][claim.index]["why"]
                   if claim.experiment and claim.index is not None else "")
            assert claim.mechanism or own, claim.id
        if claim.figure is not None:  # a number of the source: a band, or the source's bound
            assert claim.rule.band is not None or claim.rule.reason == BOUND, claim.id


def test_the_totals_name_every_verdict_and_add_up():
    count = totals(RESULTS)
    assert set(count) == set(Verdict) and sum(count.values()) == 72
    assert count[Verdict.NOT_ATTEMPTED] == sum(c.experiment is None for c in CLAIMS)


def test_only_the_thread_s_claims_are_fitted():
    fitted = {c.id for c in CLAIMS if c.fitted}
    assert fitted and all(c.experiment and c.experiment.startswith("thread-")
                          for c in CLAIMS if c.fitted)
    # the ping round trips are not among the inputs of the per-packet cost
    assert not any(c.fitted for c in CLAIMS if c.id.endswith("-ping"))


def test_a_verdict_is_not_a_boolean():
    with pytest.raises(TypeError):
        bool(Verdict.DIRECTION_ONLY)
    with pytest.raises(TypeError):
        if Verdict.REPRODUCED:
            pass


RULE = Rule("within a factor of 2", FACTOR_2)


@pytest.mark.parametrize("reading, verdict", [
    (Reading("x", True, Fraction(2)), Verdict.REPRODUCED),
    (Reading("x", True, Fraction(201, 100)), Verdict.DIRECTION_ONLY),
    (Reading("x", False, Fraction(1)), Verdict.NOT_REPRODUCED),
    (Reading("x", None, Fraction(1)), Verdict.REPRODUCED),
    (Reading("x", None, Fraction(3)), Verdict.NOT_REPRODUCED),
])
def test_the_direction_comes_first_then_the_size(reading, verdict):
    assert RULE.judge(reading) is verdict


def test_a_one_sided_rule_judges_the_direction_alone_and_refuses_a_reading_without_one():
    rule = Rule("holds", None)
    assert rule.judge(Reading("x", True)) is Verdict.REPRODUCED
    assert rule.judge(Reading("x", False)) is Verdict.NOT_REPRODUCED
    with pytest.raises(ValueError):
        rule.judge(Reading("x", None))
    with pytest.raises(ValueError):
        RULE.judge(Reading("x", True))  # a band and no size


def test_an_open_end_excludes_its_bound():
    under = Band(None, Fraction(1, 10), high_open=True)
    assert Fraction(99, 1000) in under and Fraction(1, 10) not in under
    assert Fraction(3) in POINTS_3 and Fraction(301, 100) not in POINTS_3


def test_the_loosened_fig5_rule_would_have_called_a_growth_of_40_percent_intact():
    """A deliberately wrong variant: the 1.5x rule decision 141 undid."""
    claim = next(c for c in CLAIMS if c.id == "000-fig5-akita")
    doc = _doc("fig5")
    grown = json.loads(json.dumps(doc))
    alone = grown["data"]["rtt_ns"]["akita"]["alone"]["p999"]
    grown["data"]["rtt_ns"]["akita"]["crowded"]["p999"] = alone * 14 // 10
    assert judge(claim, grown)[0] is Verdict.NOT_REPRODUCED
    assert Fraction(4, 10) in Band(None, Fraction(1, 2))  # what the loosened rule accepted


def test_a_size_a_thousand_times_the_source_s_is_not_reproduced_by_size():
    claim = next(c for c in CLAIMS if c.id == "000-fig5-credit")
    verdict, reading = judge(claim, _doc("fig5"))
    assert reading is not None and reading.size is not None
    assert verdict is (Verdict.REPRODUCED if reading.size <= 2 else Verdict.DIRECTION_ONLY)


def test_a_claim_not_attempted_must_say_why():
    with pytest.raises(ValueError):
        SourceClaim("000-x", "000", "q", None, RULE)
    with pytest.raises(ValueError):
        SourceClaim("009-x", "009", "q", None, RULE, mechanism="why")


def test_the_script_refuses_a_folder_without_the_result_files(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no result file" in err[0]
    assert main([]) == 2


def test_every_result_file_records_how_it_was_made(tmp_path, monkeypatch):
    from akita.cli import run
    from akita.experiments import experiment

    assert run(["reproduce", "thread-ex3", "--quick", "--switch-cost", "1us",
                "--out", str(tmp_path / "a")]) == 0
    record = json.loads((tmp_path / "a" / "thread-ex3.json").read_text())["run"]
    assert record["mode"] == "quick" and record["switch_cost_ns"] == 1000 and record["seed"] == 1
    assert record["commit"] == experiment.source_commit() != ""

    monkeypatch.setattr(experiment, "__file__", str(tmp_path / "experiment.py"))
    assert experiment.source_commit() == "unknown"  # a copy outside any checkout
    monkeypatch.undo()

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(subprocess, "run", no_git)
    assert experiment.source_commit() == "unknown"
    assert run(["reproduce", "thread-ex3", "--quick", "--out", str(tmp_path / "b")]) == 0
    record = json.loads((tmp_path / "b" / "thread-ex3.json").read_text())["run"]
    assert record == {"mode": "quick", "switch_cost_ns": 2460, "seed": 1, "commit": "unknown"}


def test_the_shipped_thread_results_say_quick_or_full():
    for ex in ("ex3", "ex5", "ex7", "ex8"):
        assert _doc(f"thread-{ex}")["run"]["mode"] == "full"
        quick = json.loads((RESULTS / "quick" / f"thread-{ex}.json").read_text())
        assert quick["run"]["mode"] == "quick"

"""``akita reproduce``: every experiment runs, writes its files, and its claims come out as documented.

The experiments run here with ``--quick`` (shorter spans); the figures in
the docs come from full runs (``akita reproduce all --out docs/experiments``).
A claim the model reproduces must keep holding; a claim it does not
reproduce (each with its reason in the docs) must keep not holding, so that
a change to a policy that alters either shows up here.
"""

from __future__ import annotations

import json

import pytest

from akita.cli import run
from akita.experiments import EXPERIMENTS

#: experiment -> the verdict of each of its claims, in order.
EXPECTED = {
    "fig4": ["qualitative only", "qualitative only"],
    "fig5": ["reproduced", "reproduced", "reproduced", "not reproduced"],
    "fig6": ["qualitative only", "qualitative only", "reproduced"],
    "fig7": ["reproduced", "reproduced", "reproduced", "not reproduced"],
    "fig8": ["reproduced"] * 5,
    "thread-ex3": ["not reproduced", "reproduced"],
    "thread-ex5": ["reproduced"],
    "thread-ex7": ["not reproduced", "not reproduced"],
    "thread-ex8": ["not reproduced", "not reproduced"],
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    return out, run(["reproduce", "all", "--quick", "--out", str(out), "--json"])


def test_every_experiment_is_listed():
    assert set(EXPECTED) == set(EXPERIMENTS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_claims_come_out_as_documented(results, name):
    out, status = results
    assert status == 0
    doc = json.loads((out / f"{name}.json").read_text())
    assert [c["verdict"] for c in doc["claims"]] == EXPECTED[name], doc["claims"]
    for claim in doc["claims"]:
        assert claim["verdict"] != "not reproduced" or claim["why"], claim
    for suffix in (".md", ".rst"):
        assert (out / f"{name}{suffix}").read_text().strip()
    assert doc["plots"] and all((out / plot).stat().st_size > 0 for plot in doc["plots"])


def test_runs_are_byte_for_byte_repeatable(tmp_path):
    for folder in ("a", "b"):
        assert run(["reproduce", "fig7", "--quick", "--out", str(tmp_path / folder)]) == 0
    for path in (tmp_path / "a").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name


def test_an_unknown_experiment_is_bad_input(capsys):
    assert run(["reproduce", "fig99"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "field 'NAME'" in err and "fig4" in err

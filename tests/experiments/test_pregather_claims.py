"""Pregather's rows of the claims table: our figure after decisions 300-304 beside the one
the published run showed before them."""

import json
from pathlib import Path

import pytest

from akita.experiments.claims import CLAIMS, judge

DOCS = Path(__file__).resolve().parents[2] / "docs" / "experiments"


@pytest.fixture(scope="module")
def doc():
    return json.loads((DOCS / "pregather.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.experiment == "pregather"],
                         ids=lambda c: c.id)
def test_each_pregather_claim_shows_ours_before_and_after(claim, doc):
    _, reading = judge(claim, doc)
    assert reading is not None
    now, _, before = reading.ours.partition(" (before: ")
    assert now and before.endswith(")")


def test_the_isolating_runs_are_in_the_published_result(doc):
    variants = doc["data"]["variants"]
    assert set(variants) == {"no-cache", "fixed-think", "sync-16k", "sync-16k-drawn",
                             "no-deadline"}
    assert set(variants["sync-16k"]) == set(doc["data"]["runs"])

"""The recorded proof run shown in the docs matches the manifest, and every verdict is the expected one."""

from __future__ import annotations

import json

from akita.proofs.manifest import load
from repo import DOCS

RUN = DOCS / "proof-run.json"


def test_the_recording_covers_exactly_the_manifest():
    recorded = [o["name"] for o in json.loads(RUN.read_text())["obligations"]]
    assert recorded == [o.name for o in load()]


def test_every_recorded_verdict_is_the_expected_one_and_rules_match():
    manifest = {o.name: o for o in load()}
    for entry in json.loads(RUN.read_text())["obligations"]:
        assert entry["verdict"] == entry["expected"] == manifest[entry["name"]].expected, entry
        assert tuple(entry["rules"]) == manifest[entry["name"]].rules
        assert entry["verdict"] != "unknown"

"""Sphinx extension: the proof manifest, with the last recorded run's verdicts and times.

On ``builder-inited`` it joins the live manifest (:func:`akita.proofs.manifest.load`:
names, rules, scopes, expected verdicts, timeouts, each as its module of
``proofs/`` declares it) with ``proof-run.json``,
the output of ``akita prove --json`` recorded in the docs folder, and writes
``_generated/proof-manifest.rst``.  ``tests/proofs/test_proof_run.py`` fails when
the recording no longer matches the manifest or a verdict is not the
expected one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generated import list_table, on_build, write_if_changed

from akita.proofs.manifest import load


def write_table(docs: Path) -> Path:
    """Write ``_generated/proof-manifest.rst`` under *docs*; return its path."""
    run = {o["name"]: o for o in json.loads((docs / "proof-run.json").read_text())["obligations"]}
    rows = []
    for o in load():
        last = run.get(o.name)
        rules = ", ".join(f":ref:`{r} <rule-{r}>`" for r in o.rules)
        rows.append([f"``{o.name}``", rules, o.scope, o.expected,
                     last["verdict"] if last else "not run",
                     f"{last['seconds']:.2f}" if last else "--"])
    lines = list_table("The manifest and the last recorded run", (22, 10, 38, 10, 10, 10),
                       ("Obligation", "Rules", "Scope", "Expected", "Last verdict", "Seconds"),
                       rows)
    total = sum(o["seconds"] for o in run.values())
    lines += ["", f"{len(run)} obligations recorded, {total:.0f} s in all."]
    return write_if_changed(docs / "_generated" / "proof-manifest.rst", "\n".join(lines) + "\n")


def setup(app: Any) -> dict[str, Any]:
    return on_build(app, write_table)

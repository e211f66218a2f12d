"""Sphinx extension: the proof manifest, with the last recorded run's verdicts and times.

On ``builder-inited`` it joins the live manifest (:func:`akita.proofs.manifest.load`:
names, rules, scopes, expected verdicts, timeouts) with ``proof-run.json``,
the output of ``akita prove --json`` recorded in the docs folder, and writes
``_generated/proof-manifest.rst``.  ``tests/test_proof_run.py`` fails when
the recording no longer matches the manifest or a verdict is not the
expected one.
"""

from __future__ import annotations

import json
from pathlib import Path

from generated import write_if_changed

from akita.proofs.manifest import load


def write_table(docs: Path) -> Path:
    run = {o["name"]: o for o in json.loads((docs / "proof-run.json").read_text())["obligations"]}
    lines = [".. list-table:: The manifest and the last recorded run",
             "   :header-rows: 1", "   :widths: 22 10 38 10 10 10", "",
             "   * - Obligation", "     - Rules", "     - Scope", "     - Expected",
             "     - Last verdict", "     - Seconds"]
    for o in load():
        last = run.get(o.name)
        rules = ", ".join(f":ref:`{r} <rule-{r}>`" for r in o.rules)
        lines += [f"   * - ``{o.name}``", f"     - {rules}", f"     - {o.scope}",
                  f"     - {o.expected}", f"     - {last['verdict'] if last else 'not run'}",
                  f"     - {last['seconds']:.2f}" if last else "     - --"]
    total = sum(o["seconds"] for o in run.values())
    lines += ["", f"{len(run)} obligations recorded, {total:.0f} s in all."]
    return write_if_changed(docs / "_generated" / "proof-manifest.rst", "\n".join(lines) + "\n")


def _generate(app) -> None:
    write_table(Path(app.srcdir))


def setup(app):
    app.connect("builder-inited", _generate)
    return {"parallel_read_safe": True, "version": "1"}

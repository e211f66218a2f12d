"""Sphinx extension: write the traceability table from the code at build time.

On ``builder-inited`` it calls :func:`akita.traceability.trace_rules` on the
repository's ``tests/`` folder and writes ``_generated/traceability.rst``,
which ``traceability.rst`` includes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generated import list_table, on_build, write_if_changed

from akita.traceability import COLUMNS, gaps, trace_rules


def _cell(items: tuple[str, ...], empty: str = "--") -> str:
    return " ".join(f"``{item}``" for item in items) if items else empty


def write_table(docs: Path) -> Path:
    """Write ``_generated/traceability.rst`` under *docs*; return its path."""
    traces = trace_rules(docs.parent / "tests")
    lines = list_table(
        "Rules, and where each is implemented (one column per independent implementation), "
        "proved and tested",
        (6, 12, 12, 12, 12, 12, 10, 12, 12),
        ("Rule", *(heading for _, heading, _ in COLUMNS), "Proof obligations", "Tests"),
        ([f":ref:`{t.rule} <rule-{t.rule}>`",
          *(_cell(getattr(t, field)) for field, _, _ in COLUMNS),
          _cell(t.obligations), _cell(t.tests)] for t in traces))
    missing = gaps(traces)
    lines += ["", "Gaps: " + ("; ".join(missing) if missing else "none.") + "", "",
              "Every file that refers to each rule (code, obligations, tests, pages): what a "
              "change of the rule must read.", ""]
    for t in traces:
        lines += [f":ref:`{t.rule} <rule-{t.rule}>`", f"   {_cell(t.files)}", ""]
    return write_if_changed(docs / "_generated" / "traceability.rst", "\n".join(lines) + "\n")


def setup(app: Any) -> dict[str, Any]:
    return on_build(app, write_table)

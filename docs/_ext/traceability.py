"""Sphinx extension: write the traceability table from the code at build time.

On ``builder-inited`` it calls :func:`akita.traceability.trace_rules` on the
repository's ``tests/`` folder and writes ``_generated/traceability.rst``,
which ``traceability.rst`` includes.
"""

from __future__ import annotations

from pathlib import Path

from generated import write_if_changed

from akita.traceability import gaps, trace_rules


def _cell(items, empty="--"):
    return " ".join(f"``{item}``" for item in items) if items else empty


def write_table(docs: Path) -> Path:
    traces = trace_rules(docs.parent / "tests")
    lines = [".. list-table:: Rules, and where each is implemented, encoded, proved and tested",
             "   :header-rows: 1", "   :widths: 8 22 14 20 26 10", "",
             "   * - Rule", "     - Reference code", "     - Z3 encoding",
             "     - Proof obligations", "     - Tests", "     - ``akita conform``"]
    for t in traces:
        lines += [f"   * - :ref:`{t.rule} <rule-{t.rule}>`", f"     - {_cell(t.implementation)}",
                  f"     - {_cell(t.encoding)}", f"     - {_cell(t.obligations)}",
                  f"     - {_cell(t.tests)}", f"     - {'checked' if t.oracle else '--'}"]
    missing = gaps(traces)
    lines += ["", "Gaps: " + ("; ".join(missing) if missing else "none.") + ""]
    return write_if_changed(docs / "_generated" / "traceability.rst", "\n".join(lines) + "\n")


def _generate(app) -> None:
    write_table(Path(app.srcdir))


def setup(app):
    app.connect("builder-inited", _generate)
    return {"parallel_read_safe": True, "version": "1"}

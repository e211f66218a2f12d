"""Sphinx extension: the table of trace formats, read from the registry.

On ``builder-inited`` it writes ``_generated/trace-formats.rst`` from
:data:`akita.trace.formats.FORMATS` (one row per registered format), so the
pages that list the formats (:doc:`/conform`, :doc:`/analyze`) list what
the code reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generated import list_table, on_build, write_if_changed

from akita.trace.formats import FORMATS


def write_table(docs: Path) -> Path:
    """Write ``_generated/trace-formats.rst`` under *docs*; return its path."""
    rows = []
    for fmt in FORMATS.values():
        told = "its first bytes" if fmt.binary else f"its first line: {fmt.first}"
        rows.append([f"``{fmt.name}``", fmt.title, "yes" if fmt.kernel else "no", told,
                     f"{fmt.unit}s", f"``{fmt.recording}``" if fmt.recording else "--"])
    lines = list_table("The trace formats (``--format``; ``auto`` tells them apart)",
                       (10, 26, 8, 26, 8, 22),
                       ("Format", "What it is", "Kernel", "Told apart by", "Counts",
                        "How to record it"), rows)
    return write_if_changed(docs / "_generated" / "trace-formats.rst", "\n".join(lines) + "\n")


def setup(app: Any) -> dict[str, Any]:
    return on_build(app, write_table)

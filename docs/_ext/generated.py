"""Writing a page or a figure into ``docs/_generated/`` from a build-time extension.

Every project extension writes its output here, and only when it changed, so
that an unchanged file keeps its time stamp and Sphinx does not rebuild the
pages that include it.  The write is atomic: two builds may run at once
(e.g. ``html`` and ``doctest``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

__all__ = ["write_if_changed", "list_table", "on_build"]


def write_if_changed(target: Path, data: str | bytes) -> Path:
    """Write *data* (text as UTF-8) to *target*, atomically, unless it already holds it."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if target.exists() and target.read_bytes() == raw:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(raw)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def list_table(title: str, widths: Sequence[int], header: Sequence[str],
               rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of an RST ``list-table`` with one header row."""
    lines = [f".. list-table:: {title}", "   :header-rows: 1",
             "   :widths: " + " ".join(map(str, widths)), ""]
    for row in [header, *rows]:
        lines += [f"   * - {row[0]}", *(f"     - {cell}" for cell in row[1:])]
    return lines


def on_build(app: Any, generate: Callable[[Path], Path]) -> dict[str, Any]:
    """Register *generate* (given the docs folder) to run when a build starts."""
    app.connect("builder-inited", lambda app: generate(Path(app.srcdir)))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

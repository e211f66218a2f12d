"""The quick-start page's command outputs are what the commands print.

Each ``.. code-block:: console`` of ``docs/quickstart.rst`` that shows output
under its ``$ akita ...`` line is rerun, in order, in a folder where
``examples/`` is the repository's (so that ``fig5.jsonl`` written by the
simulate block is the trace the conform block reads), and its output is
compared line by line (trailing spaces aside).  ``python
tests/docs/test_quickstart.py`` rewrites the blocks from fresh runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "quickstart.rst"
_BLOCK = re.compile(r"(\.\. code-block:: console\n\n)((?:   .*\n|\n(?=   ))+)")


def blocks(text: str) -> list[tuple[str, list[str], re.Match[str]]]:
    """Each console block with a command: (command, output lines, match)."""
    found = []
    for match in _BLOCK.finditer(text):
        lines = [line[3:] for line in match.group(2).rstrip("\n").split("\n")]
        if lines and lines[0].startswith("$ akita"):
            found.append((lines[0][2:], lines[1:], match))
    return found


def run(command: str, folder: Path) -> list[str]:
    """*command*'s stdout, as a user piping it sees it, lines stripped on the right."""
    args = command.split()[1:]
    done = subprocess.run([sys.executable, "-c", "from akita.cli import main; main()", *args],
                          cwd=folder, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "COLUMNS": "100"})
    assert done.returncode in (0, 1), (command, done.stderr)
    return [line.rstrip() for line in done.stdout.rstrip("\n").split("\n")]


def _folder(tmp: Path) -> Path:
    (tmp / "examples").symlink_to(ROOT / "examples")
    return tmp


def test_every_shown_output_is_what_the_command_prints(tmp_path):
    folder = _folder(tmp_path)
    shown = [(command, output) for command, output, _ in blocks(PAGE.read_text())]
    assert any(output for _, output in shown), "no block shows an output"
    for command, output in shown:
        if not output:
            continue
        assert [line.rstrip() for line in output] == run(command, folder), command


def test_the_blocks_are_found():
    commands = [command for command, _, _ in blocks(PAGE.read_text())]
    assert commands[:2] == ["akita admit examples/fig5.toml",
                            "akita simulate examples/fig5.toml --duration 1s --trace fig5.jsonl"]


def rewrite() -> None:
    """Rewrite each block that shows an output with what the command prints now."""
    import tempfile

    text = PAGE.read_text()
    with tempfile.TemporaryDirectory() as scratch:
        folder = _folder(Path(scratch))
        pieces, end = [], 0
        for command, output, match in blocks(text):
            if not output:
                continue
            fresh = run(command, folder)
            body = "".join(f"   {line}".rstrip() + "\n" for line in [f"$ {command}", *fresh])
            pieces += [text[end:match.start(2)], body]
            end = match.end(2)
        pieces.append(text[end:])
    PAGE.write_text("".join(pieces))


if __name__ == "__main__":
    rewrite()

"""Where things are in the repository, for tests at any depth of ``tests/``."""

from pathlib import Path

#: The repository's root folder.
ROOT = Path(__file__).resolve().parent.parent
#: The shipped host files.
EXAMPLES = ROOT / "examples"
#: The specification's sources.
DOCS = ROOT / "docs"

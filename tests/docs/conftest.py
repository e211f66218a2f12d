"""The specification's HTML, built once per test session for every test that reads it."""

from pathlib import Path
from typing import NamedTuple

import pytest
from sphinx.cmd.build import build_main

from repo import DOCS


class HtmlBuild(NamedTuple):
    """One ``html`` build of ``docs/``: Sphinx's exit status (warnings are errors) and the output folder."""

    status: int
    out: Path


@pytest.fixture(scope="session")
def html_docs(tmp_path_factory: pytest.TempPathFactory) -> HtmlBuild:
    """``sphinx-build -W --keep-going -b html docs OUT``, once: every page is written even
    when a warning makes the status non-zero."""
    out = tmp_path_factory.mktemp("docs") / "html"
    status = build_main(["-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)])
    return HtmlBuild(status, out)

"""The specification builds without a warning (broken references fail here),
and its examples run and print what the pages say."""

import os
import re

import pytest
from sphinx.cmd.build import build_main

from repo import DOCS

# The whole specification built twice (html and doctest): the long tier.
pytestmark = pytest.mark.long


def test_docs_build_warning_free(html_docs):
    assert html_docs.status == 0  # the session's one html build (tests/docs/conftest.py)


def test_docs_examples_run(tmp_path):
    """The ``doctest`` builder runs every example of the pages and of the docstrings autodoc pulls in."""
    out = tmp_path / "doctest"
    cwd = os.getcwd()
    status = build_main(["-W", "--keep-going", "-q", "-b", "doctest", str(DOCS), str(out)])
    assert os.getcwd() == cwd  # the examples run from the repository root, then step back
    report = (out / "output.txt").read_text(encoding="utf-8")
    assert status == 0, report
    summary = report[report.index("Doctest summary"):]
    assert int(re.search(r"(\d+) tests?\n", summary)[1]) > 0, summary
    assert re.search(r"\b0 failures in tests\b", summary), summary
    for page in ("quickstart", "simulator", "trace-format"):  # pages with executed examples
        assert f"Document: {page}\n" in report, page

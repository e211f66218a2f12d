"""The specification builds without a warning (broken references fail here)."""

from pathlib import Path

from sphinx.cmd.build import build_main

DOCS = Path(__file__).parent.parent / "docs"


def test_docs_build_warning_free(tmp_path):
    status = build_main(["-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(tmp_path / "html")])
    assert status == 0

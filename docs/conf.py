"""Sphinx configuration for the akita-sched specification."""

import sys
from importlib.metadata import version as _version
from pathlib import Path

# Project extensions that generate pages from the code at build time.
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "akita-sched"
author = "the akita-sched authors"
copyright = "the akita-sched authors"
release = _version("akita-sched")
version = ".".join(release.split(".")[:2])

extensions = ["sphinx.ext.autodoc"]  # project extensions are appended below, one per line
extensions.append("traceability")
extensions.append("proof_manifest")
extensions.append("sphinx.ext.doctest")  # examples run by the doctest builder
extensions.append("cli_reference")  # docs/_generated/cli-reference.rst from akita.cli
extensions.append("state_graphs")  # docs/_generated/state-graphs/ from akita.model.transitions
extensions.append("trace_formats")  # docs/_generated/trace-formats.rst from akita.trace.formats

# Document members in the order the source defines them.
autodoc_member_order = "bysource"
# Class docstrings only: the attrs-generated ``__init__`` carries no text.
autoclass_content = "class"

# docs/experiments/ holds what `akita reproduce all --out docs/experiments` writes;
# its .rst tables are included by experiments.rst, not pages of their own.
exclude_patterns = ["_build", "_generated", "experiments"]
# furo: a maintained theme whose layout follows the window and puts each wide
# table in a box of its own that scrolls (see docs/decisions.rst).
html_theme = "furo"
html_static_path = ["_static"]
html_css_files = ["tables.css"]
html_title = f"akita-sched {release}"

# The doctest builder runs the examples from the repository root, so that they
# can name files as ``examples/fig5.toml`` wherever the build was started.
doctest_global_setup = f"""
import os
_akita_cwd = os.getcwd()
os.chdir({str(Path(__file__).resolve().parent.parent)!r})
"""
doctest_global_cleanup = "os.chdir(_akita_cwd)"

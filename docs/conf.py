"""Sphinx configuration for the akita-sched specification."""

from importlib.metadata import version as _version

project = "akita-sched"
author = "the akita-sched authors"
copyright = "the akita-sched authors"
release = _version("akita-sched")
version = ".".join(release.split(".")[:2])

extensions = ["sphinx.ext.autodoc"]

# Document members in the order the source defines them.
autodoc_member_order = "bysource"
# Class docstrings only: the attrs-generated ``__init__`` carries no text.
autoclass_content = "class"

# docs/experiments/ holds what `akita reproduce all --out docs/experiments` writes;
# its .rst tables are included by experiments.rst, not pages of their own.
exclude_patterns = ["_build", "_generated", "experiments"]
html_theme = "alabaster"

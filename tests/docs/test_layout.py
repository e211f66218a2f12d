"""The README's layout table and the specification's name every folder there is."""

import re
import subprocess

from repo import DOCS, ROOT


def _folders(*under: str) -> set[str]:
    """The folders directly below *under* that hold tracked files (hidden ones aside)."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    depth = len(under)
    return {parts[depth] for parts in (f.split("/") for f in files)
            if tuple(parts[:depth]) == under and len(parts) > depth + 1
            and not parts[depth].startswith((".", "_"))}


def test_readme_layout_lists_every_top_level_folder():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Layout"):]
    listed = set(re.findall(r"^\| `([^`]+)/` \|", table, flags=re.M))
    assert listed == _folders() - {"src"} | {"src/akita"}


def test_test_folders_mirror_the_packages_and_are_named():
    folders = _folders("tests")
    assert {"model", "reference", "proofs", "oracle", "cli"} <= folders
    readme = (ROOT / "README.md").read_text()
    index = (DOCS / "index.rst").read_text()
    for folder in folders:
        assert f"tests/{folder}" in readme and f"tests/{folder}" in index, folder

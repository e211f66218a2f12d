"""Lists and counts in the pages that would drift from the code: checked against it.

Where a page shows a command's error line for a file it also shows, the
line is run again here and must be the one printed.
"""

import re

import pytest

from akita.cli import run
from akita.model import ADMISSION_TESTS
from akita.reference.policies import POLICIES
from repo import DOCS, ROOT

CLI = (DOCS / "cli.rst").read_text(encoding="utf-8")
_CASE = re.compile(
    r"\(?``(?P<path>/tmp/[a-z]+\.toml)``\)?[^\n]*:\n\n\.\. code-block:: toml\n\n(?P<toml>(?:   .*\n|\n)+?)"
    r"\.\. code-block:: console\n\n   \$ akita admit (?P=path)[^\n]*\n   (?P<line>akita: error: [^\n]+)\n")


def test_every_policy_is_named_where_simulate_is_documented():
    section = CLI[CLI.index("``akita simulate``\n"):CLI.index("``akita verify``")]
    for name in POLICIES:
        assert f"``{name}``" in section, name


def test_every_admission_test_is_named_in_the_json_keys():
    row = CLI[CLI.index("``test``            The admission test"):]
    row = row[:row.index("``phases``")]  # the next key
    assert set(re.findall(r'``"([a-z-]+)"``', row)) == set(ADMISSION_TESTS)


def test_the_readme_counts_its_folders():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    words = {"ten": 10, "eleven": 11, "nine": 9, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
             "sixteen": 16, "seventeen": 17}
    said = re.search(r"The repository has (\w+) top-level folders", index)[1]
    table = (ROOT / "README.md").read_text()
    listed = re.findall(r"^\| `[^`]+/` \|", table[table.index("## Layout"):], flags=re.M)
    assert words[said] == len(listed)


CASES = list(_CASE.finditer(CLI))


def test_the_error_examples_are_found():
    assert {m["path"] for m in CASES} >= {"/tmp/bad.toml", "/tmp/typo.toml"}


@pytest.mark.parametrize("case", CASES, ids=lambda m: m["path"])
def test_each_documented_error_line_is_what_admit_prints(case, tmp_path, capsys):
    host = tmp_path / "host.toml"
    host.write_text("\n".join(line[3:] for line in case["toml"].splitlines()) + "\n")
    assert run(["admit", str(host)]) == 2
    printed = capsys.readouterr().err.strip().replace(str(host), case["path"])
    assert printed == case["line"]

"""docs/host-file.rst names the shipped examples, the admission tests and the ceilings the
code has (issue 13, finding 9: it said "three host files" and only two tests)."""

import re

from akita.model import ADMISSION_TESTS, limits
from repo import DOCS, HOST_EXAMPLES

PAGE = (DOCS / "host-file.rst").read_text(encoding="utf-8")
_WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
          10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen", 14: "fourteen",
          15: "fifteen", 16: "sixteen"}


def _section(start: str, end: str) -> str:
    return PAGE[PAGE.index(start):PAGE.index(end, PAGE.index(start))]


def test_the_examples_named_are_the_folders():
    shipped = sorted(path.name for path in HOST_EXAMPLES)
    section = PAGE[PAGE.index("The ``examples/`` folder"):]
    named = sorted(set(re.findall(r"``examples/([\w.-]+\.toml)``", section)))
    assert named == shipped
    count = len(shipped)
    assert f"holds {_WORDS.get(count, count)} host files" in section


def test_the_tests_named_for_host_test_are_the_admission_tests():
    row = _section("``test``    no", "=====")
    assert set(re.findall(r'``"([a-z-]+)"``', row)) == set(ADMISSION_TESTS)


def test_the_ceilings_table_is_the_codes():
    table = _section("Ceilings\n", "Trace files\n")
    for figure in (limits.MAX_FILE_BYTES, limits.MAX_LINE_CHARS, limits.MAX_NESTING,
                   limits.MAX_STRING_CHARS, limits.MAX_PCPUS, limits.MAX_VMS,
                   limits.MAX_VCPUS_PER_VM, limits.MAX_TOTAL_VCPUS, limits.MAX_NUMBER_CHARS):
        assert re.search(rf"\b{figure}\b", table), figure
    assert limits.MAX_INTEGER == limits.MAX_DURATION_NS == 2**63 - 1
    assert "``2**63 - 1``" in table

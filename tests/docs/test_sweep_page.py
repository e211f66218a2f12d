"""docs/sweep.rst says what the code and the committed sweep files say: the keys, the
error line, and the RTSS 2011 numbers (docs/sweeps/ from examples/sweep-rtss2011.toml)."""

import json
import re

import pytest

from akita.cli import run
from akita.sweep import load_spec
from akita.sweep.spec import _GENERATOR_KEYS, _SWEEP_KEYS
from repo import DOCS, EXAMPLES

PAGE = (DOCS / "sweep.rst").read_text(encoding="utf-8")
RTSS = json.loads((DOCS / "sweeps" / "sweep-rtss2011.json").read_text(encoding="utf-8"))


def test_every_key_of_the_sweep_file_is_in_the_table():
    table = PAGE[PAGE.index("Key                                 Meaning"):]
    table = table[:table.index("\n\n")]
    for key in _SWEEP_KEYS:
        if key != "generator":
            assert f"``sweep.{key}``" in table, key
    for key in _GENERATOR_KEYS:
        assert f"``sweep.generator.{key}``" in table or f"``...{key}``" in table, key


def test_the_documented_error_line_is_what_sweep_prints(tmp_path, capsys):
    block = PAGE[PAGE.index("   $ akita sweep bad.toml\n"):]
    line = block.splitlines()[1].strip()
    spec = (EXAMPLES / "sweep.toml").read_text().replace('"10ms"', '"10.05ms"')
    (tmp_path / "bad.toml").write_text(spec)
    assert run(["sweep", str(tmp_path / "bad.toml"), "--workers", "0"]) == 2
    assert capsys.readouterr().err.strip().replace(str(tmp_path / "bad.toml"), "bad.toml") == line


def test_the_committed_files_come_from_the_shipped_spec():
    spec = load_spec(EXAMPLES / "sweep-rtss2011.toml")
    assert RTSS["seed"] == spec.seed and RTSS["tests"] == list(spec.tests)
    assert [p["utilization"] for p in RTSS["points"]] == [float(u) for u in spec.utilizations]
    assert all(p["sets"] == spec.sets for p in RTSS["points"])
    assert RTSS["generator"]["vcpus"] == 20 and RTSS["generator"]["periods_ns"] == [10**7, 10**9]
    for name in ("sweep-rtss2011.svg", "sweep-rtss2011.png", "sweep-rtss2011.csv"):
        assert (DOCS / "sweeps" / name).is_file()


def test_the_table_of_the_page_is_the_json():
    table = PAGE[PAGE.index(".. list-table::"):PAGE.index("**What we could check")]
    rows = re.findall(r"   \* - ([\d.]+)\n     - (\d+)\n     - (\d+)\n     - (\d+)\n     - (\d+)",
                      table)
    header = re.findall(r"     - ([a-z-]+)\n", table[:table.index("   * - 0.5")])
    by_u = {p["utilization"]: p["accepted"] for p in RTSS["points"]}
    assert len(rows) == 10 and header == ["edf-vd", "amc-rtb", "edf", "rm-rta"]
    for u, *counts in rows:
        assert [by_u[float(u)][test] for test in header] == [int(c) for c in counts], u


@pytest.mark.slow
def test_the_committed_files_are_what_the_spec_gives_now(tmp_path):
    """The whole RTSS 2011 sweep again, in this process (some 20 s): the same bytes."""
    assert run(["sweep", str(EXAMPLES / "sweep-rtss2011.toml"), "--workers", "0", "--out",
                str(tmp_path)]) == 0
    for name in ("sweep-rtss2011.json", "sweep-rtss2011.csv", "sweep-rtss2011.svg"):
        assert (tmp_path / name).read_bytes() == (DOCS / "sweeps" / name).read_bytes(), name

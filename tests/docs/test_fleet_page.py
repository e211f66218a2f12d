"""docs/fleet.rst says what the code and the committed fleet files say: the keys, the
error line, and the measured numbers (docs/fleets/ from examples/fleet.toml)."""

import json
import re

import pytest

from akita.cli import run
from akita.fleet import load_spec
from akita.fleet.spec import (_ARRIVAL_KEYS, _FLEET_KEYS, _LIFETIME_KEYS, _MIX_KEYS,
                              _SAMPLE_KEYS, _TYPE_KEYS)
from repo import DOCS, EXAMPLES

PAGE = (DOCS / "fleet.rst").read_text(encoding="utf-8")
FLEET = json.loads((DOCS / "fleets" / "fleet.json").read_text(encoding="utf-8"))


def test_every_key_of_the_fleet_file_is_in_the_table():
    table = PAGE[PAGE.index("Key                                Meaning"):]
    table = table[:table.index("\n\n")]
    tables = {"arrivals": _ARRIVAL_KEYS, "lifetimes": _LIFETIME_KEYS, "mix": _MIX_KEYS,
              "sample": _SAMPLE_KEYS}
    for key in _FLEET_KEYS:
        if key not in tables:
            assert f"``fleet.{key}``" in table, key
    for name, keys in tables.items():
        for key in keys:
            assert f"``fleet.{name}.{key}``" in table, key
    for key in _TYPE_KEYS:
        assert f"``...{key}``" in table, key


def test_the_documented_error_line_is_what_fleet_prints(tmp_path, capsys):
    block = PAGE[PAGE.index("   $ akita fleet bad.toml\n"):]
    line = block.splitlines()[1].strip()
    spec = (EXAMPLES / "fleet.toml").read_text().replace('rate = "1/60"', "rate = 2")
    (tmp_path / "bad.toml").write_text(spec)
    assert run(["fleet", str(tmp_path / "bad.toml"), "--workers", "0"]) == 2
    assert capsys.readouterr().err.strip().replace(str(tmp_path / "bad.toml"), "bad.toml") == line


def test_the_committed_files_come_from_the_shipped_spec():
    spec = load_spec(EXAMPLES / "fleet.toml")
    assert FLEET["spec"] == spec.as_json()
    for name in ("fleet.svg", "fleet.png", "fleet.csv"):
        assert (DOCS / "fleets" / name).is_file()


def test_the_table_of_the_page_is_the_json():
    table = PAGE[PAGE.index(".. list-table::"):PAGE.index("**Cores.**")]
    rows = re.findall(r"   \* - (first-fit|spread)\n" + r"     - ([^\n]+)\n" * 8, table)
    assert [row[0] for row in rows] == ["first-fit", "spread"]
    for name, rejected, peak, mean, hosts, misses, share, p99, p999 in rows:
        s = FLEET["placements"][name]
        assert rejected == f"{s['rejected']} ({s['rejected_hi']})"
        assert (int(peak), mean, hosts) == (s["peak_pcpus"], s["mean_pcpus"], s["mean_hosts"])
        sampled = s["sampled"]
        assert (int(misses), share) == (sampled["hi_misses"], sampled["lo_share"])
        assert p99 == f"{sampled['hi_p99_ns'] / 1e6:.3f} ms"
        assert p999 == f"{sampled['hi_p999_ns'] / 1e6:.3f} ms"


@pytest.mark.slow
def test_the_committed_files_are_what_the_spec_gives_now(tmp_path):
    """The whole example again, in this process (some 10 s): the same bytes."""
    assert run(["fleet", str(EXAMPLES / "fleet.toml"), "--workers", "0", "--out",
                str(tmp_path)]) == 0
    for name in ("fleet.json", "fleet.csv", "fleet.svg"):
        assert (tmp_path / name).read_bytes() == (DOCS / "fleets" / name).read_bytes(), name

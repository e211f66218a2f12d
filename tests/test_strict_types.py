"""mypy's strict checks (decision 270): ``pyproject.toml`` sets ``strict = true`` for the
whole ``akita`` namespace and no per-module table turns one of ``--strict``'s checks off
again, so ``.ci/run``'s ``mypy -p akita`` enforces them on every package."""

from __future__ import annotations

import tomllib

import pytest

from repo import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
MYPY = PYPROJECT["tool"]["mypy"]


def _strict_checks() -> list[str]:
    """The per-module options ``mypy --strict`` turns on in the installed mypy."""
    main = pytest.importorskip("mypy.main")
    if not hasattr(main, "define_options"):
        pytest.skip("this mypy does not list its --strict flags (mypy.main.define_options)")
    _, _, assignments = main.define_options()
    names = []
    for name, _ in assignments:
        names.append("no_implicit_reexport" if name == "implicit_reexport" else name)
    return names


def test_strict_is_global():
    assert MYPY.get("strict") is True


def _loosens(table: dict[str, object], check: str) -> bool:
    """Whether an override *table* turns the strict *check* off for its modules."""
    if check == "no_implicit_reexport":
        return table.get("implicit_reexport") is True or table.get(check) is False
    return table.get(check) is False


def test_no_override_turns_a_strict_check_off():
    checks = _strict_checks()
    assert "disallow_untyped_defs" in checks
    loosened = [(table["module"], check) for table in MYPY.get("overrides", [])
                for check in checks if _loosens(table, check)]
    assert loosened == []


def test_a_loosening_table_is_found():
    """The check above can fail: the table the strict work once kept for cli/conform."""
    table = {"module": ["akita.cli.conform"], "disallow_any_generics": False}
    assert _loosens(table, "disallow_any_generics")
    assert _loosens({"implicit_reexport": True}, "no_implicit_reexport")

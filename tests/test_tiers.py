"""The fast tier (``pytest``) still tests every rule and every package; the long tier
(``pytest -m long``) holds what it leaves out, and the default run leaves out only that."""

from __future__ import annotations

import shlex
import tomllib

from _pytest.mark.expression import Expression

from akita.model.rules import rule_ids
from repo import ROOT
from tiers import LONG_MARKS, all_tests, fast_tests, read_tests

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PYTEST = PYPROJECT["tool"]["pytest"]["ini_options"]


def test_the_fast_tier_tests_every_rule():
    tested = {rule for rules in fast_tests(ROOT / "tests").values() for rule in rules}
    assert sorted(set(rule_ids()) - tested, key=rule_ids().index) == []


def test_the_fast_tier_tests_every_package():
    """Each package installed as ``akita.NAME`` has a fast test in ``tests/NAME``; the
    public API and the command line (``akita`` itself) in ``tests/test_api.py`` and
    ``tests/cli``."""
    folders = {name.split(".")[1] for name in PYPROJECT["tool"]["setuptools"]["package-dir"]
               if name.count(".") == 1} - {"examples"}
    fast = fast_tests(ROOT / "tests")
    for folder in sorted(folders) + ["cli"]:
        assert any(test.startswith(f"tests/{folder}/") for test in fast), folder
    assert any(test.startswith("tests/test_api.py::") for test in fast)


def test_the_default_run_leaves_out_exactly_the_long_and_slow_marks():
    args = shlex.split(PYTEST["addopts"])
    last = max(i for i, arg in enumerate(args) if arg == "-m")  # the one pytest obeys
    expression = Expression.compile(args[last + 1])
    assert expression.evaluate(lambda mark: False)
    assert expression.evaluate(lambda mark: mark == "rule")
    for mark in LONG_MARKS:
        assert not expression.evaluate(lambda name: name == mark), mark
    declared = {line.split(":")[0].split("(")[0] for line in PYTEST["markers"]}
    assert set(LONG_MARKS) <= declared


def test_the_long_tier_is_not_empty():
    assert any(not fast for _, fast in all_tests(ROOT / "tests").values())


SOURCE = '''
import pytest
pytestmark = pytest.mark.rule("R1")

def test_fast():
    pass

@pytest.mark.long
@pytest.mark.rule("R2")
def test_long():
    pass

@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_one_param_slow(n):
    pass

def helper():
    pass
'''


def test_the_reading_can_fail():
    tests = read_tests(SOURCE, "tests/x/test_x.py")
    assert tests == {
        "tests/x/test_x.py::test_fast": ({"R1"}, True),
        "tests/x/test_x.py::test_long": ({"R1", "R2"}, False),
        "tests/x/test_x.py::test_one_param_slow": ({"R1"}, False),
    }
    marked_long = SOURCE.replace('pytestmark = pytest.mark.rule("R1")',
                                 'pytestmark = [pytest.mark.rule("R1"), pytest.mark.long]')
    assert not any(fast for _, fast in read_tests(marked_long, "t.py").values())

"""The two tiers of the test suite, read from the tests' source without running them.

``pytest`` alone runs the fast tier: every test but those marked ``long`` (the
long tier, ``pytest -m long``) or ``slow`` (the long cross-check, ``pytest -m
slow``), as ``addopts`` in ``pyproject.toml`` says.  The fast tier must still
test every rule and every package; :func:`fast_tests` says which tests it
holds, reading marks as :mod:`akita.traceability` reads the rule marks (from
the decorators and the module's ``pytestmark``), so that the check agrees
with the traceability table.

The reading errs on the side of the long tier: a test whose decorators, or
whose module's ``pytestmark``, name ``long`` or ``slow`` anywhere (also in
one ``pytest.param(..., marks=...)`` of a parametrisation) counts as long.
"""

from __future__ import annotations

import ast
from pathlib import Path

#: The marks that take a test out of the fast tier.
LONG_MARKS = ("long", "slow")


def _mark_calls(node: ast.AST) -> list[tuple[str, list[str]]]:
    """(mark name, constant string arguments) of each ``pytest.mark.NAME`` in *node*."""
    found: list[tuple[str, list[str]]] = []
    for sub in ast.walk(node):
        target = sub.func if isinstance(sub, ast.Call) else sub
        if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute)
                and target.value.attr == "mark"):
            args = sub.args if isinstance(sub, ast.Call) else []
            found.append((target.attr, [str(a.value) for a in args
                                        if isinstance(a, ast.Constant)]))
    return found


def _module_marks(tree: ast.Module) -> list[tuple[str, list[str]]]:
    return [mark for node in tree.body if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
            for mark in _mark_calls(node)]


def read_tests(source: str, where: str) -> dict[str, tuple[set[str], bool]]:
    """Test id -> (the rules it is marked with, whether it is in the fast tier), for the
    test functions at the top level of one test module's *source*."""
    tree = ast.parse(source)
    module = _module_marks(tree)
    tests: dict[str, tuple[set[str], bool]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith(
                ("test_", "Test")):
            marks = module + [m for d in node.decorator_list for m in _mark_calls(d)]
            rules = {rule for name, args in marks if name == "rule" for rule in args}
            fast = not any(name in LONG_MARKS for name, _ in marks)
            tests[f"{where}::{node.name}"] = (rules, fast)
    return tests


def all_tests(tests: Path) -> dict[str, tuple[set[str], bool]]:
    """:func:`read_tests` over every ``test_*.py`` below the folder *tests*."""
    found: dict[str, tuple[set[str], bool]] = {}
    for path in sorted(tests.rglob("test_*.py")):
        found.update(read_tests(path.read_text(encoding="utf-8"),
                                path.relative_to(tests.parent).as_posix()))
    return found


def fast_tests(tests: Path) -> dict[str, set[str]]:
    """Test id -> its rules, for the tests of the fast tier."""
    return {test: rules for test, (rules, fast) in all_tests(tests).items() if fast}

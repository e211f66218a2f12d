"""Traceability: for each rule, where it is implemented, encoded, proved and tested.

Read from the code, never typed by hand:

* **implementation**, **Z3 encoding** and **oracle**: each module of
  ``akita.model``, ``akita.reference``, ``akita.trace`` and ``akita.oracle`` may declare
  ``__rules__ = {"R4": ("AkitaPolicy.pick", ...)}``; names are resolved, so a
  renamed function breaks the table (and ``tests/docs/test_traceability.py``).
  Modules under ``akita.model.smt`` are the Z3 encodings, modules of
  ``akita.oracle`` say where ``akita conform`` checks the rule;
* **proof obligations**: ``Obligation.rules``, from the manifest
  (:mod:`akita.proofs.manifest`);
* **tests**: test functions and modules of ``tests/`` marked
  ``@pytest.mark.rule("R4", ...)`` (or ``pytestmark = ...``), read from the
  source without running it.

The oracle's declarations must agree with the rules it names in its
findings (:data:`akita.oracle.RULE_TITLES`): a rule it names but checks
nowhere, or checks but never names, is reported by :func:`unresolved`.

:func:`gaps` says which rule lacks an implementation, an obligation or a
test; the specification's build shows the table (:doc:`/traceability`).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import attrs

from akita.model.rules import RULES, rule_ids

__all__ = ["RuleTrace", "trace_rules", "gaps", "unresolved", "PACKAGES"]

#: The packages whose modules may declare ``__rules__``.
PACKAGES = ("akita.model", "akita.reference", "akita.trace", "akita.oracle")

#: Declarations in these packages fill the Z3 encoding and the oracle columns.
_ENCODING, _ORACLE = "akita.model.smt", "akita.oracle"


@attrs.frozen
class RuleTrace:
    """Everything that refers to one rule."""

    rule: str
    title: str
    section: str
    implementation: tuple[str, ...]
    encoding: tuple[str, ...]
    obligations: tuple[str, ...]
    tests: tuple[str, ...]
    oracle: tuple[str, ...]


def _modules() -> Iterator[ModuleType]:
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            yield importlib.import_module(info.name)


def _declarations() -> list[tuple[str, str, str]]:
    """(rule, module, name) for every ``__rules__`` entry."""
    found: list[tuple[str, str, str]] = []
    for module in _modules():
        for rule, names in getattr(module, "__rules__", {}).items():
            found += [(rule, module.__name__, name) for name in names]
    return found


def unresolved() -> list[str]:
    """Declared names that do not exist, rule ids that are not rules, and oracle disagreements.

    The oracle disagrees with itself when :data:`akita.oracle.RULE_TITLES`
    names a rule that no ``__rules__`` of ``akita.oracle`` checks, or the
    converse.
    """
    known, bad = set(rule_ids()), []
    for rule, module_name, name in _declarations():
        target = importlib.import_module(module_name)
        try:
            for part in name.split("."):
                target = getattr(target, part)
        except AttributeError:
            bad.append(f"{module_name}.{name}")
        if rule not in known:
            bad.append(f"{module_name}: unknown rule {rule}")
    return bad + _oracle_disagreements()


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _oracle_disagreements() -> list[str]:
    """Rules the oracle names in findings but checks nowhere, and the converse."""
    from akita.oracle import RULE_TITLES

    checked = {rule for rule, module, _ in _declarations() if _in(module, _ORACLE)}
    return ([f"{_ORACLE}: names {rule} but declares no check of it"
             for rule in sorted(set(RULE_TITLES) - checked)]
            + [f"{_ORACLE}: checks {rule} but RULE_TITLES does not name it"
               for rule in sorted(checked - set(RULE_TITLES))])


def _marks(node: ast.AST) -> list[str]:
    """Rule ids of ``pytest.mark.rule(...)`` calls in *node* (a decorator or an assignment)."""
    rules: list[str] = []
    for call in ast.walk(node):
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "rule" and isinstance(call.func.value, ast.Attribute)
                and call.func.value.attr == "mark"):
            rules += [str(a.value) for a in call.args if isinstance(a, ast.Constant)]
    return rules


def marked_tests(tests: Path) -> dict[str, list[str]]:
    """rule -> test node ids (``tests/model/test_x.py::test_y``; a module id for a module
    mark), from every ``test_*.py`` below *tests*."""
    found: dict[str, list[str]] = {}
    for path in sorted(tests.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            where = path.relative_to(tests.parent).as_posix()
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
                rules = _marks(node)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                rules = [r for d in node.decorator_list for r in _marks(d)]
                where += f"::{node.name}"
            else:
                continue
            for rule in rules:
                found.setdefault(rule, []).append(where)
    return found


def trace_rules(tests: Path) -> list[RuleTrace]:
    """The traceability table, one row per rule, reading the tests from folder *tests*."""
    from akita.proofs.manifest import load

    implementation: dict[str, list[str]] = {}
    encoding: dict[str, list[str]] = {}
    oracle: dict[str, list[str]] = {}
    for rule, module, name in _declarations():
        column = (encoding if _in(module, _ENCODING) else oracle if _in(module, _ORACLE)
                  else implementation)
        column.setdefault(rule, []).append(f"{module}.{name}")
    obligations: dict[str, list[str]] = {}
    for obligation in load():
        for rule in obligation.rules:
            obligations.setdefault(rule, []).append(obligation.name)
    tested = marked_tests(tests)
    return [RuleTrace(r.id, r.title, r.section, tuple(implementation.get(r.id, ())),
                      tuple(encoding.get(r.id, ())), tuple(obligations.get(r.id, ())),
                      tuple(tested.get(r.id, ())), tuple(oracle.get(r.id, ()))) for r in RULES]


def gaps(traces: list[RuleTrace]) -> list[str]:
    """What each rule lacks of an implementation, a proof obligation and a test."""
    missing = []
    for t in traces:
        for what, items in (("implementation", t.implementation),
                            ("proof obligation", t.obligations), ("test", t.tests)):
            if not items:
                missing.append(f"{t.rule} has no {what}")
    return missing

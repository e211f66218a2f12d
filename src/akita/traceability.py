"""Traceability: for each rule, where it is implemented, encoded, proved and tested.

Read from the code, never typed by hand:

* **implementations**: each module of ``akita.model``, ``akita.reference``,
  ``akita.trace``, ``akita.oracle`` and ``akita.linux`` may declare
  ``__rules__ = {"R4": ("AkitaPolicy.pick", ...)}``; names are resolved, so a
  renamed function breaks the table (and ``tests/docs/test_traceability.py``).
  A declaration lands in the column of the independent implementation its
  module belongs to (:data:`COLUMNS`): the model's own Python (admission,
  placement, the transition tables), the simulator (``akita.reference``),
  the Z3 encodings (``akita.model.smt``), the exact search
  (``akita.model.exact``), the oracle (``akita conform``, with the
  ``akita-linux`` rule set) and the Linux controller (``akita linux``);
* **proof obligations**: ``Obligation.rules``, from the manifest
  (:mod:`akita.proofs.manifest`);
* **tests**: test functions and modules of ``tests/`` marked
  ``@pytest.mark.rule("R4", ...)`` (or ``pytestmark = ...``), read from the
  source without running it;
* **pages**: the pages of the specification that name the rule.

Every module that implements a rule declares it: :func:`undeclared` names
the modules that name a rule id in their code (outside ``__rules__``), or
that :data:`RULE_BEARING` lists, and declare no ``__rules__``; a registry
that names rules without implementing one is exempt by name, with its
reason (:data:`REGISTRIES`).

The oracle's declarations must agree with the rules it names in its
findings (:data:`akita.oracle.RULE_TITLES`): a rule it names but checks
nowhere, or checks but never names, is reported by :func:`unresolved`.

:func:`gaps` says which rule lacks an implementation, an obligation or a
test; the specification's build shows the table (:doc:`/traceability`) and,
per rule, every file that refers to it (``RuleTrace.files``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import attrs

from akita.model.rules import RULES, Rule, rule_ids

__all__ = ["RuleTrace", "trace_rules", "gaps", "unresolved", "undeclared", "names_rules",
           "PACKAGES", "COLUMNS", "RULE_BEARING", "REGISTRIES"]

#: The packages whose modules may declare ``__rules__``.
PACKAGES = ("akita.model", "akita.reference", "akita.trace", "akita.oracle", "akita.linux")

#: The independent implementations, each a column of the table: the
#: :class:`RuleTrace` field, its heading, and the packages it reads (the first
#: that holds a module wins, so the Z3 encodings and the exact search are
#: taken out of the model before it).
COLUMNS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("encoding", "Z3 encoding", ("akita.model.smt",)),
    ("exact", "Exact search", ("akita.model.exact",)),
    ("implementation", "Model", ("akita.model",)),
    ("simulator", "Simulator", ("akita.reference",)),
    ("oracle", "Oracle (``akita conform``)", ("akita.oracle", "akita.trace")),
    ("linux", "Linux controller (``akita linux``)", ("akita.linux",)),
)

#: Declarations in this package fill the oracle column, checked against ``RULE_TITLES``.
_ORACLE = "akita.oracle"

#: Modules that implement rules without naming a rule id in their code -- the
#: exact search evaluates the rules on concrete values, the simulator's mutants
#: take their rules from the catalogue of wrong variants: each must declare
#: ``__rules__`` all the same.
RULE_BEARING = (
    "akita.reference.mutants",
    "akita.model.exact.abstraction",
    "akita.model.exact.admission",
    "akita.model.exact.events",
    "akita.model.exact.machine",
    "akita.model.exact.tick",
)

#: Modules that name rule ids in their code but implement none, and why.
REGISTRIES = {
    "akita.model.rules": "the rules themselves: ids, titles, sections",
    "akita.model.variants": "the catalogue of wrong variants: the rule each breaks, "
                            "implemented by the simulator's mutants, the Z3 variants and the "
                            "Linux controller's variants",
    "akita.oracle.violation": "the rules the oracle's findings may name, checked against "
                              "the oracle's __rules__ (unresolved)",
}

_RULE_ID = re.compile(r"R(1[0-4]|[1-9])")


@attrs.frozen
class RuleTrace:
    """Everything that refers to one rule, one field per independent implementation
    (:data:`COLUMNS`), the proof obligations, the tests, and the pages that name it."""

    rule: str
    title: str
    section: str
    implementation: tuple[str, ...]
    encoding: tuple[str, ...]
    obligations: tuple[str, ...]
    tests: tuple[str, ...]
    oracle: tuple[str, ...]
    simulator: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()
    linux: tuple[str, ...] = ()
    #: every file that refers to the rule, repository paths: the modules of the
    #: implementations, the registries that name it (:data:`REGISTRIES`), the modules
    #: of the obligations, the test files and the pages.
    files: tuple[str, ...] = ()


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


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of *tree* (its module, classes and functions)."""
    found = set()
    for node in ast.walk(tree):
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and node.body and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant)):
            found.add(id(node.body[0].value))
    return found


def _declaration(node: ast.stmt) -> bool:
    targets = (node.targets if isinstance(node, ast.Assign)
               else [node.target] if isinstance(node, ast.AnnAssign) else [])
    return any(isinstance(t, ast.Name) and t.id == "__rules__" for t in targets)


def names_rules(source: str) -> tuple[str, ...]:
    """The rule ids that the code of a module's *source* names as strings (``"R8"``),
    outside its docstrings and its ``__rules__``: the rules it assigns something to."""
    tree = ast.parse(source)
    tree.body = [node for node in tree.body if not _declaration(node)]
    docs = _docstrings(tree)
    return tuple(sorted({node.value for node in ast.walk(tree)
                         if isinstance(node, ast.Constant) and isinstance(node.value, str)
                         and id(node) not in docs and _RULE_ID.fullmatch(node.value)},
                        key=lambda rule: int(rule[1:])))


def undeclared() -> list[str]:
    """The modules that implement a rule and declare no ``__rules__`` (or an empty one),
    with the reason they count as implementing one.

    A module implements a rule if its code names a rule id (:func:`names_rules`)
    or :data:`RULE_BEARING` lists it; :data:`REGISTRIES` are exempt.
    """
    missing = []
    for module in _modules():
        name = module.__name__
        if getattr(module, "__rules__", None) or name in REGISTRIES:
            continue  # an empty __rules__ declares nothing
        named = names_rules(inspect.getsource(module))
        if named:
            missing.append(f"{name} names {', '.join(named)} in its code but declares "
                           "no __rules__")
        elif name in RULE_BEARING:
            missing.append(f"{name} implements rules (RULE_BEARING) but declares no __rules__")
    return missing


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


def _column(module: str) -> str:
    """The :class:`RuleTrace` field of the implementation *module* belongs to."""
    return next(field for field, _, packages in COLUMNS
                if any(_in(module, package) for package in packages))


def _file(module: str, root: Path) -> str:
    """The repository path of *module* under *root*: where it was imported from when that
    lies under *root* (an editable install), else where ``pyproject.toml``'s
    ``package-dir`` puts its source (an installed copy); its name if neither finds it."""
    path = Path(inspect.getfile(importlib.import_module(module))).resolve()
    if path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return _source(module, root) or module


def _source(module: str, root: Path) -> str | None:
    """The file under *root* that ``package-dir`` maps *module* to, if it exists."""
    try:
        table = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    dirs: dict[str, str] = table.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    parts = module.split(".")
    for cut in range(len(parts), 0, -1):
        folder: str | None = dirs.get(".".join(parts[:cut]))
        if folder is None:
            continue
        base = (root / folder).joinpath(*parts[cut:])
        for candidate in (base / "__init__.py", base.with_suffix(".py")):
            if candidate.is_file():
                return candidate.relative_to(root).as_posix()
        return None
    return None


def _pages(root: Path) -> dict[str, list[str]]:
    """rule -> the specification's pages (``docs/**/*.rst``, not generated) that name it."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "docs").rglob("*.rst")):
        if "_generated" in path.parts:
            continue
        named = set(re.findall(r"\b(R(?:1[0-4]|[1-9]))\b", path.read_text(encoding="utf-8")))
        for rule in named:
            found.setdefault(rule, []).append(path.relative_to(root).as_posix())
    return found


def trace_rules(tests: Path) -> list[RuleTrace]:
    """The traceability table, one row per rule, reading the tests from folder *tests*
    (and the pages from ``docs/`` beside it)."""
    from akita.proofs.manifest import load

    root = tests.resolve().parent
    columns: dict[str, dict[str, list[str]]] = {field: {} for field, _, _ in COLUMNS}
    files: dict[str, set[str]] = {}
    for rule, module, name in _declarations():
        columns[_column(module)].setdefault(rule, []).append(f"{module}.{name}")
        files.setdefault(rule, set()).add(_file(module, root))
    for module in REGISTRIES:  # the rule's title, its wrong variants, the oracle's names
        for rule in names_rules(inspect.getsource(importlib.import_module(module))):
            files.setdefault(rule, set()).add(_file(module, root))
    obligations: dict[str, list[str]] = {}
    for obligation in load():
        for rule in obligation.rules:
            obligations.setdefault(rule, []).append(obligation.name)
            files.setdefault(rule, set()).add(_file(obligation.check.__module__, root))
    tested = marked_tests(tests)
    for rule, ids in [*tested.items(), *_pages(root).items()]:
        files.setdefault(rule, set()).update(i.split("::")[0] for i in ids)
    return [_row(r, columns, tuple(obligations.get(r.id, ())), tuple(tested.get(r.id, ())),
                 tuple(sorted(files.get(r.id, ())))) for r in RULES]


def _row(rule: Rule, columns: dict[str, dict[str, list[str]]], obligations: tuple[str, ...],
         tests: tuple[str, ...], files: tuple[str, ...]) -> RuleTrace:
    def column(field: str) -> tuple[str, ...]:
        return tuple(columns[field].get(rule.id, ()))

    return RuleTrace(rule.id, rule.title, rule.section, column("implementation"),
                     column("encoding"), obligations, tests, column("oracle"),
                     simulator=column("simulator"), exact=column("exact"),
                     linux=column("linux"), files=files)


def gaps(traces: list[RuleTrace]) -> list[str]:
    """What each rule lacks of an implementation (in the model or the simulator), a proof
    obligation and a test."""
    missing = []
    for t in traces:
        for what, items in (("implementation", t.implementation + t.simulator),
                            ("proof obligation", t.obligations), ("test", t.tests)):
            if not items:
                missing.append(f"{t.rule} has no {what}")
    return missing

"""Every rule is implemented, proved and tested, and the table says where (docs/traceability.rst)."""

from __future__ import annotations

import importlib
import re

import attrs
import pytest

from akita.model.rules import RULES, rule_ids
from akita.traceability import (gaps, marked_tests, names_rules, trace_rules, undeclared,
                                unresolved)
from repo import ROOT



def test_every_rule_has_an_implementation_an_obligation_and_a_test():
    assert gaps(trace_rules(ROOT / "tests")) == []


def test_every_declared_name_exists_and_every_rule_id_is_a_rule():
    assert unresolved() == []
    assert set(marked_tests(ROOT / "tests")) <= set(rule_ids())


def test_the_gap_check_can_fail():
    trace = trace_rules(ROOT / "tests")[0]
    assert gaps([attrs.evolve(trace, tests=())]) == [f"{trace.rule} has no test"]
    assert gaps([attrs.evolve(trace, implementation=(), obligations=())]) == [
        f"{trace.rule} has no implementation", f"{trace.rule} has no proof obligation"]


def test_every_rule_has_its_anchor_in_the_rules_page():
    text = (ROOT / "docs" / "rules.rst").read_text()
    anchors = re.findall(r"^\.\. _rule-(R\d+):$", text, re.M)
    assert anchors == [rule.id for rule in RULES]


def test_the_rules_page_covers_each_rule_once_with_its_section():
    text = (ROOT / "docs" / "rules.rst").read_text()
    for rule in RULES:
        body = text.split(f".. _rule-{rule.id}:")[1].split(".. _rule-")[0]
        assert "*Paper*: Section" in body, rule.id


def test_every_module_that_implements_a_rule_declares_it():
    assert undeclared() == []


@pytest.mark.parametrize("module, why", [
    ("akita.oracle.findings", "names R3, R4, R5, R7, R8, R9, R10 in its code"),
    ("akita.reference.mutants", "implements rules (RULE_BEARING)"),
    ("akita.model.transitions", "names R2, R3, R4, R5, R6, R7, R8, R9, R10 in its code"),
    ("akita.model.exact.tick", "implements rules (RULE_BEARING)"),
])
def test_a_module_stripped_of_its_rules_is_found(monkeypatch, module, why):
    stripped = importlib.import_module(module)
    monkeypatch.delattr(stripped, "__rules__")
    assert undeclared() == [f"{module} {why} but declares no __rules__"]


def test_an_empty_declaration_declares_nothing(monkeypatch):
    monkeypatch.setattr(importlib.import_module("akita.oracle.findings"), "__rules__", {})
    assert undeclared() == ["akita.oracle.findings names R3, R4, R5, R7, R8, R9, R10 in its "
                            "code but declares no __rules__"]


def test_a_rule_named_in_code_counts_and_one_in_prose_or_the_declaration_does_not():
    source = ('"""R8: cooling."""\n__rules__ = {"R9": ("f",)}\n'
              'def f():\n    """R5."""\n    return "R8", "R15", "R"\n')
    assert names_rules(source) == ("R8",)


def test_each_rule_lists_every_file_that_refers_to_it():
    r8 = next(t for t in trace_rules(ROOT / "tests") if t.rule == "R8")
    for path in ("reference/policies/akita.py", "reference/mutants.py", "model/smt/pcpu.py",
                 "model/exact/tick.py", "model/transitions.py", "oracle/shadow.py",
                 "oracle/findings.py", "linux/controller.py", "proofs/mode_obligations.py",
                 "model/rules.py", "model/variants.py", "oracle/violation.py", "docs/rules.rst"):
        assert path in r8.files
    assert all((ROOT / path).is_file() for path in r8.files)

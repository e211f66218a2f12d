"""Every rule is implemented, proved and tested, and the table says where (docs/traceability.rst)."""

from __future__ import annotations

import re

import attrs

from akita.model.rules import RULES, rule_ids
from akita.traceability import gaps, marked_tests, trace_rules, unresolved
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

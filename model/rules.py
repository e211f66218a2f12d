"""The rules of the Akita policy, R1-R14, as this project reads them.

Each rule has an id, a title, and the section of the Akita paper (Asyabi et
al., "Akita: A CPU scheduler for virtualized Clouds") it comes from.  The
rules themselves -- words, formulas, and the decisions taken where the
paper is silent -- are the specification's page :doc:`/rules`, under the
label ``rule-R1`` ... ``rule-R14``.  This table is what the rest of the
project refers to: the traceability table (:doc:`/traceability`) lists, for
each rule, the code that implements it (a module's ``__rules__``), its Z3
encoding, the proof obligations that check it (``Obligation.rules``) and
the tests marked ``@pytest.mark.rule``; a test fails when a rule lacks an
implementation, an obligation or a test.
"""

from __future__ import annotations

import attrs

__all__ = ["Rule", "RULES", "RULE_SETS", "rule_ids"]


#: The rule sets a trace can be checked against, in one place (``akita conform --policy``,
#: a host file's ``[conform] policy``, :data:`akita.oracle.oracle.POLICIES`): Akita's rules,
#: plain EDF over the same servers, and Akita's as ``akita linux`` carries them out
#: (:mod:`akita.oracle.linux_rules`).
RULE_SETS: tuple[str, ...] = ("akita", "edf", "akita-linux")


@attrs.frozen
class Rule:
    """One rule: ``id`` (``"R4"``), ``title``, and the paper's ``section``."""

    id: str
    title: str
    section: str


RULES: tuple[Rule, ...] = (
    Rule("R1", "VMs and vCPUs: criticality, period, optimistic and pessimistic budgets",
         "3.1"),
    Rule("R2", "Periodic servers: budget, deadline and virtual deadline at each period start",
         "3.2, 3.4"),
    Rule("R3", "Budgets drop as a vCPU runs; at 0 it is inactive until its next period, and "
               "runs only when no vCPU with budget can (by default a HI one past C_pes only when "
               "no LO one can)",
         "2.2, 3.2"),
    Rule("R4", "LO mode: earliest (virtual) deadline first among active runnable vCPUs", "3.4"),
    Rule("R5", "LO -> HI when a running HI vCPU consumes C_opt and is still runnable", "3.3"),
    Rule("R6", "HI mode: HI vCPUs by earliest actual deadline", "3.3, 3.4"),
    Rule("R7", "Work conservation: inactive runnable vCPUs run when no active one is runnable",
         "3.4"),
    Rule("R8", "Temperature: cools by one per period without a pessimistic ask", "3.3"),
    Rule("R9", "HI -> LO when no HI vCPU of the pCPU is warm", "3.3"),
    Rule("R10", "Decision points: period start, block, exhaustion, C_opt reached, wake",
         "3.4"),
    Rule("R11", "Admission: the exact EDF-VD test per pCPU", "3.4"),
    Rule("R12", "Placement: first fit, all or nothing per VM; no migration of HI vCPUs", "3.6"),
    Rule("R13", "Every pCPU starts in LO mode", "3.3"),
    Rule("R14", "IO quality: a vCPU is placed only where its CAL bound meets its IOQ",
         "1, 2.1, 3.6"),
)


def rule_ids() -> tuple[str, ...]:
    """``("R1", ..., "R14")``."""
    return tuple(rule.id for rule in RULES)

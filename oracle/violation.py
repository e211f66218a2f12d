"""A violation: one decision of an implementation that the rules do not allow.

The oracle (:mod:`akita.oracle.oracle`) reports what it finds in domain words: which rule
(``R2`` ... ``R12``, as numbered in :doc:`/decisions`), when, on which pCPU,
what the rules allowed there and what the implementation did, and a window
of the trace around it.
"""

from __future__ import annotations

from typing import Any

import attrs

from akita.model.rules import RULES

__all__ = ["Violation", "RULE_TITLES"]

#: The rules the oracle's findings may name: those of a pCPU's schedule, its admission and
#: its placement (R1 is the model of a VM, R13 the start in LO mode, R14 IO quality).
NAMED_RULES = ("R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12")

#: What each rule the oracle names is about: its title, as :data:`akita.model.rules.RULES`
#: gives it.
RULE_TITLES = {rule.id: rule.title for rule in RULES if rule.id in NAMED_RULES}


@attrs.frozen
class Violation:
    """One decision the rules do not allow.

    :param rule: the rule broken, e.g. ``"R4"``.
    :param t: when the disallowed state began, in ns.
    :param cpu: the pCPU.
    :param allowed: what the rules allowed (vCPU names, ``"idle"``, a mode,
        a value).
    :param did: what the implementation did.
    :param text: the whole finding in one sentence.
    :param window: the trace events leading up to and including it, as read
        (its own instant's, never later ones).
    :param line: the trace line of the last of them (the decision's, for a
        violation about a decision), if known.
    """

    rule: str
    t: int
    cpu: int
    allowed: tuple[str, ...]
    did: str
    text: str
    window: tuple[dict[str, Any], ...] = ()
    line: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "t": self.t, "cpu": self.cpu, "line": self.line,
                "allowed": list(self.allowed), "did": self.did, "text": self.text,
                "window": list(self.window)}

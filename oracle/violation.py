"""A violation: one decision of an implementation that the rules do not allow.

The oracle (:mod:`akita.oracle.oracle`) reports what it finds in domain words: which rule
(``R2`` ... ``R12``, as numbered in :doc:`/decisions`), when, on which pCPU,
what the rules allowed there and what the implementation did, and a window
of the trace around it.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["Violation", "RULE_TITLES"]

#: What each rule the oracle checks is about, in a few words.
RULE_TITLES = {
    "R2": "period start: budget, deadline and virtual deadline",
    "R3": ("budget: an active vCPU runs at most its budget; under hi_mode_order = "
           "\"capped\", a HI vCPU past it never runs while a LO vCPU holds work"),
    "R4": "LO mode: earliest (virtual) deadline first",
    "R5": "LO -> HI when a running HI vCPU consumes C_opt, and only then",
    "R6": "HI mode: HI vCPUs first, earliest deadline first",
    "R7": "work conservation: no idling while a vCPU is runnable",
    "R8": "temperature cools by one per period without a pessimistic ask",
    "R9": "HI -> LO when no HI vCPU is warm, and only then",
    "R10": "the pCPU decides again at every decision point",
    "R11": "admission: each pCPU's set passes the host's test",
    "R12": "placement: each vCPU on the pCPU first fit gives it, and no migration",
}


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

"""Proof obligations: a claim, its scope, its expected verdict, and its check.

Each obligation is stated once, as a function whose docstring reads like a
theorem and cites its source; the manifest (:mod:`.manifest`) gives it a
name, a scope in words, a timeout and the verdict it must reach.  A *negative
control* is an obligation about a deliberately wrong variant, expected
``refuted``: a check that cannot fail proves nothing.
"""

from __future__ import annotations

import time
from typing import Callable

import attrs

from .verdict import PROVED, REFUTED, VERDICTS, ProofVerdict

__all__ = ["Obligation", "Outcome", "discharge"]


@attrs.frozen
class Obligation:
    """One entry of the manifest.

    :param name: unique, as ``akita prove NAME`` takes it.
    :param check: ``(timeout_seconds) -> ProofVerdict``; its docstring is the claim.
    :param scope: what the check covers, in words (vCPUs, periods, horizon, releases).
    :param expected: the verdict it must reach (``"proved"``, or ``"refuted"``
        for a negative control).
    :param timeout: seconds the solver may spend.
    :param rules: the rules (``"R5"``, ...) the obligation checks; the
        manifest fills it in from each module's ``RULES``.
    """

    name: str
    check: Callable[[float], ProofVerdict]
    scope: str
    expected: str = attrs.field(default=PROVED, validator=attrs.validators.in_((PROVED, REFUTED)))
    timeout: float = 60.0
    rules: tuple[str, ...] = ()

    @property
    def statement(self) -> str:
        """The claim, as the check's docstring states it."""
        return " ".join((self.check.__doc__ or "").split())


@attrs.frozen
class Outcome:
    """An obligation's verdict and how long it took."""

    obligation: Obligation
    verdict: ProofVerdict
    seconds: float

    @property
    def passed(self) -> bool:
        """The verdict is the expected one (``unknown`` never passes)."""
        return self.verdict.verdict == self.obligation.expected

    def as_json(self) -> dict:
        return {
            "name": self.obligation.name,
            "rules": list(self.obligation.rules),
            "scope": self.obligation.scope,
            "expected": self.obligation.expected,
            "verdict": self.verdict.verdict,
            "seconds": round(self.seconds, 3),
            "counterexample": self.verdict.counterexample,
            "reason": self.verdict.reason,
        }


def discharge(obligation: Obligation) -> Outcome:
    """Run *obligation*'s check within its timeout."""
    start = time.perf_counter()
    verdict = obligation.check(obligation.timeout)
    if verdict.verdict not in VERDICTS:  # pragma: no cover - ProofVerdict validates
        raise ValueError(verdict)
    return Outcome(obligation, verdict, time.perf_counter() - start)

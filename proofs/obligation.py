"""Proof obligations: a claim, its scope, its expected verdict, and its check.

Each claim is stated once, as a function whose docstring reads like a
theorem and cites its source, and declared once, as an :class:`Obligation`
in its module's ``OBLIGATIONS``: a name, the rules it checks, a scope in
words, the verdict it must reach and a timeout.  A *negative control* is an
obligation about a deliberately wrong variant, expected ``refuted``: a check
that cannot fail proves nothing.  Its declaration names the safety
obligations (expected ``proved``) whose check it shows can fail
(``controls``); :func:`akita.proofs.manifest.uncontrolled` lists the safety
obligations that no control names.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import attrs

from .verdict import PROVED, REFUTED, VERDICTS, ProofVerdict

__all__ = ["Check", "Declarations", "Obligation", "Outcome", "discharge"]

#: ``check(timeout_seconds) -> ProofVerdict``; its docstring is the claim.
Check = Callable[[float], ProofVerdict]


@attrs.frozen
class Obligation:
    """One entry of the manifest.

    :param name: unique, as ``akita prove NAME`` takes it.
    :param check: ``(timeout_seconds) -> ProofVerdict``; its docstring is the claim.
    :param scope: what the check covers, in words (vCPUs, periods, horizon, releases).
    :param expected: the verdict it must reach (``"proved"``, or ``"refuted"``
        for a negative control).
    :param timeout: seconds the solver may spend.
    :param rules: the rules (``"R5"``, ...) the obligation checks.
    :param controls: for a negative control, the safety obligations whose
        check it shows can fail; empty for a safety obligation.
    """

    name: str
    check: Check
    scope: str
    expected: str = attrs.field(default=PROVED, validator=attrs.validators.in_((PROVED, REFUTED)))
    timeout: float = 60.0
    rules: tuple[str, ...] = ()
    controls: tuple[str, ...] = ()

    @property
    def statement(self) -> str:
        """The claim, as the check's docstring states it."""
        return " ".join((self.check.__doc__ or "").split())


class Declarations:
    """The obligations one module declares, in the order it declares them.

    Each is declared once, where its check is stated::

        declare = Declarations()

        @declare(scope="all real U1, U2, U3 >= 0", rules=("R11",), timeout=30)
        def check_utilization_corollary(timeout: float) -> ProofVerdict: ...

        @declare(scope=..., rules=("R11",), timeout=30,
                 controls=("utilization_corollary",))
        def check_negative_control_corollary_4_5(timeout: float) -> ProofVerdict: ...

        OBLIGATIONS = declare.obligations

    The name defaults to the check's name without a ``check_`` prefix.  An
    obligation that names what it ``controls`` is a negative control and is
    expected ``refuted``; any other is a safety obligation, expected
    ``proved``.
    """

    def __init__(self) -> None:
        self.obligations: list[Obligation] = []

    def add(self, name: str, check: Check, scope: str, *, rules: tuple[str, ...],
            timeout: float, controls: tuple[str, ...] = ()) -> Obligation:
        """Declare the obligation *name* (see the class)."""
        obligation = Obligation(name, check, scope, REFUTED if controls else PROVED, timeout,
                                rules, controls)
        self.obligations.append(obligation)
        return obligation

    def __call__(self, *, scope: str, rules: tuple[str, ...], timeout: float,
                 controls: tuple[str, ...] = (),
                 name: str | None = None) -> Callable[[Check], Check]:
        """A decorator that declares its check (see the class); the check is unchanged."""

        def declared(check: Check) -> Check:
            self.add(name or check.__name__.removeprefix("check_"), check, scope, rules=rules,
                     timeout=timeout, controls=controls)
            return check

        return declared


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

    def as_json(self) -> dict[str, Any]:
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
    if verdict.verdict not in VERDICTS:  # "nothing to prove" is no obligation's verdict
        raise ValueError(f"an obligation answered {verdict.verdict!r}, not a verdict")
    return Outcome(obligation, verdict, time.perf_counter() - start)

"""Proof obligations: a claim, its scope, its expected verdict, and its check.

Each claim is stated once, as a function whose docstring reads like a
theorem and cites its source, and declared once, as an :class:`Obligation`
in its module's ``OBLIGATIONS``: a name, the rules it checks, a scope in
words, the verdict it must reach, a budget of Z3's resource count (its
``rlimit``, deterministic: :mod:`akita.model.smt.resources`; calibrated in
:mod:`.rlimits`) and a time in seconds from which its wall-clock guard is
set (:data:`GUARD_FACTOR` times it: a guard against a check that runs away,
never what decides a verdict on a loaded machine).  A *negative control* is an
obligation about a deliberately wrong variant, expected ``refuted``: a check
that cannot fail proves nothing.  Its declaration names the safety
obligations (expected ``proved``) whose check it shows can fail
(``controls``); :func:`akita.proofs.manifest.uncontrolled` lists the safety
obligations that no control names.

An obligation is discharged alone (:func:`discharge_alone`): in a fresh
interpreter that has run no other solver work, so that what it spends of its
budget, and hence its verdict, is the same whatever ran before it in the
caller's process (Z3's state carries over between the queries of one
process: decisions 352 and 353).  :func:`discharge` is the same work in the
caller's process, what that fresh interpreter runs.
"""

from __future__ import annotations

import multiprocessing
import pickle
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable

import attrs

from akita.model.smt.resources import resource_limit

from .rlimits import RLIMITS
from .verdict import PROVED, REFUTED, VERDICTS, ProofVerdict

__all__ = ["Check", "Declarations", "Obligation", "Outcome", "discharge", "discharge_alone",
           "GUARD_FACTOR"]

#: An obligation's wall-clock guard is this many times its declared seconds: wide enough
#: that a machine loaded by other work does not reach it where a quiet one decides.
GUARD_FACTOR = 10

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
    :param timeout: seconds it needs with margin on a quiet machine; its wall-clock
        guard is :data:`GUARD_FACTOR` times as long.
    :param rlimit: its budget of Z3's resource count (0: none), from :mod:`.rlimits`.
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
    rlimit: int = 0

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
                                rules, controls, RLIMITS.get(name, 0))
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
    """An obligation's verdict, how long it took, and the resource count it was given
    (*rlimit*, 0: no limit) and spent (*rlimit_used*)."""

    obligation: Obligation
    verdict: ProofVerdict
    seconds: float
    rlimit: int = 0
    rlimit_used: int = 0

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
            "rlimit": self.rlimit,
            "rlimit_used": self.rlimit_used,
            "counterexample": self.verdict.counterexample,
            "reason": self.verdict.reason,
        }


def discharge(obligation: Obligation, *, rlimit: int | None = None,
              guard: float | None = None) -> Outcome:
    """Run *obligation*'s check within its resource budget (*rlimit* units of Z3's
    resource count, by default the obligation's own; 0: none) and its wall-clock guard
    (*guard* seconds, by default :data:`GUARD_FACTOR` times its declared seconds)."""
    start = time.perf_counter()
    budget = obligation.rlimit if rlimit is None else rlimit
    with resource_limit(budget) as spent:
        verdict = obligation.check(GUARD_FACTOR * obligation.timeout if guard is None else guard)
    if verdict.verdict not in VERDICTS:  # "nothing to prove" is no obligation's verdict
        raise ValueError(f"an obligation answered {verdict.verdict!r}, not a verdict")
    return Outcome(obligation, verdict, time.perf_counter() - start, budget,
                   0 if spent is None else spent.used)


def discharge_alone(obligation: Obligation, *, rlimit: int | None = None,
                    guard: float | None = None) -> Outcome:
    """:func:`discharge` *obligation* in a fresh interpreter (``spawn``, never a fork of
    this process), one that has run no other solver work, and return its outcome.

    Its resource count starts from the same state whatever this process ran before, so its
    spend and its verdict are those of the obligation alone (decision 353).  What the check
    raises is raised here; ``seconds`` is the check's own time, without the interpreter's
    start.  The obligation goes to that interpreter whole where it can be pickled, and
    otherwise (a check made by a factory, as the schedule obligations' are) by its name,
    which the interpreter looks up in the manifest.
    """
    sent: Obligation | str = obligation
    try:
        pickle.dumps(obligation)
    except (pickle.PicklingError, AttributeError, TypeError):
        sent = obligation.name
    with ProcessPoolExecutor(max_workers=1, mp_context=_FRESH) as fresh:
        verdict, seconds, budget, used = fresh.submit(_discharge_sent, sent, rlimit,
                                                      guard).result()
    return Outcome(obligation, verdict, seconds, budget, used)


def _discharge_sent(sent: Obligation | str, rlimit: int | None,
                    guard: float | None) -> tuple[ProofVerdict, float, int, int]:
    """In the fresh interpreter: :func:`discharge` the obligation sent, or the manifest's
    obligation of that name; its outcome without the obligation (whose check may not
    pickle)."""
    if isinstance(sent, str):
        from .manifest import load

        sent = next(o for o in load() if o.name == sent)
    outcome = discharge(sent, rlimit=rlimit, guard=guard)
    return outcome.verdict, outcome.seconds, outcome.rlimit, outcome.rlimit_used


#: How :func:`discharge_alone` starts its interpreter: a new one, sharing nothing.
_FRESH = multiprocessing.get_context("spawn")

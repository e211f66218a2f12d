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

import pickle
import subprocess
import sys
import time
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
    """:func:`discharge` *obligation* in a fresh interpreter and return its outcome.

    The interpreter is a new one (``python -c``, never a fork of this process, nor a
    ``multiprocessing`` child, which would import this process's main module): it imports
    the manifest (:func:`akita.proofs.manifest.load`), as every such interpreter does
    whatever its caller, and discharges the obligation, so its spend and its verdict are
    those of the obligation alone, not of what ran before it here (decision 353).  The
    obligation goes to it by name, and whole (pickled, with this process's ``sys.path``)
    where it can be: the manifest's schedule obligations cannot be (their checks are made
    by factories) and are taken from the manifest there; an obligation that is not the
    manifest's (a test's) must be.  What the check raises is raised here; ``seconds`` is
    the check's own time, without the interpreter's start.

    :raises RuntimeError: if the interpreter fails without an answer.
    """
    try:
        whole: bytes | None = pickle.dumps(obligation)
    except (pickle.PicklingError, AttributeError, TypeError):
        whole = None
    request = pickle.dumps((list(sys.path), obligation.name, whole, rlimit, guard))
    done = subprocess.run([sys.executable, "-c", _ALONE], input=request, stdout=subprocess.PIPE,
                          check=False)
    if done.returncode != 0 or not done.stdout:
        raise RuntimeError(f"the interpreter discharging {obligation.name} exited with status "
                           f"{done.returncode} without an answer (its stderr is above)")
    answer = pickle.loads(done.stdout)
    if isinstance(answer, BaseException):
        raise answer
    verdict, seconds, budget, used = answer
    return Outcome(obligation, verdict, seconds, budget, used)


#: What the fresh interpreter of :func:`discharge_alone` runs.
_ALONE = "from akita.proofs.obligation import _alone; _alone()"


def _alone() -> None:
    """In the fresh interpreter: read the request on stdin, import the manifest, discharge
    the obligation, and write its outcome without the obligation (or what the check raised)
    on stdout, pickled; the check's own output goes to stderr."""
    from .manifest import load

    answer_to = sys.stdout.buffer
    sys.stdout = sys.stderr
    path, name, whole, rlimit, guard = pickle.loads(sys.stdin.buffer.read())
    sys.path[:] = path
    obligations = load()  # every interpreter starts from the same state: the manifest's
    answer: object
    try:
        obligation = pickle.loads(whole) if whole is not None else next(
            o for o in obligations if o.name == name)
        outcome = discharge(obligation, rlimit=rlimit, guard=guard)
        answer = (outcome.verdict, outcome.seconds, outcome.rlimit, outcome.rlimit_used)
    except Exception as error:  # noqa: BLE001 - raised again in the caller
        answer = error
    try:
        data = pickle.dumps(answer)
    except Exception:  # noqa: BLE001 - an exception that does not pickle
        data = pickle.dumps(RuntimeError(f"{type(answer).__name__}: {answer}"))
    answer_to.write(data)
    answer_to.flush()

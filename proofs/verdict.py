"""The verdict of a proof obligation: proved, refuted with an example, or unknown.

A check never answers a bare boolean.  ``unknown`` -- a solver timeout or an
incomplete theory -- carries the solver's reason and is never a pass.

A fourth answer, ``nothing to prove`` (:data:`NOTHING`), is for a check
whose claim binds nothing -- the HI guarantee of a pCPU without a HI vCPU
(``akita check``).  It is not a proof and is never counted as one; no
obligation of the manifest may answer it (:data:`VERDICTS`).
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["ProofVerdict", "PROVED", "REFUTED", "UNKNOWN", "NOTHING", "VERDICTS", "ANSWERS"]

PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"
NOTHING = "nothing to prove"
#: The verdicts of a proof obligation.
VERDICTS = (PROVED, REFUTED, UNKNOWN)
#: Every answer a check may give: the verdicts, and :data:`NOTHING`.
ANSWERS = (*VERDICTS, NOTHING)


@attrs.frozen
class ProofVerdict:
    """What a check concluded.

    :param verdict: ``"proved"``, ``"refuted"``, ``"unknown"`` or ``"nothing to prove"``.
    :param counterexample: for ``refuted``, the behaviour that breaks the
        claim, in domain words (a JSON-able dict).
    :param reason: for ``unknown``, why the solver gave up; otherwise a short
        note (e.g. what was checked).
    """

    verdict: str = attrs.field(validator=attrs.validators.in_(ANSWERS))
    counterexample: dict[str, Any] | None = None
    reason: str | None = None

    @classmethod
    def proved(cls, reason: str | None = None) -> "ProofVerdict":
        return cls(PROVED, None, reason)

    @classmethod
    def refuted(cls, counterexample: dict[str, Any], reason: str | None = None) -> "ProofVerdict":
        return cls(REFUTED, counterexample, reason)

    @classmethod
    def unknown(cls, reason: str) -> "ProofVerdict":
        return cls(UNKNOWN, None, reason)

    @classmethod
    def nothing(cls, reason: str) -> "ProofVerdict":
        """The claim binds nothing here (*reason* says why): not a proof."""
        return cls(NOTHING, None, reason)

    def __bool__(self) -> bool:  # pragma: no cover - guard against misuse
        raise TypeError("a verdict is not a bool: read .verdict")

"""The verdict of a proof obligation: proved, refuted with an example, or unknown.

A check never answers a bare boolean.  ``unknown`` -- a solver timeout or an
incomplete theory -- carries the solver's reason and is never a pass.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["ProofVerdict", "PROVED", "REFUTED", "UNKNOWN", "VERDICTS"]

PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"
VERDICTS = (PROVED, REFUTED, UNKNOWN)


@attrs.frozen
class ProofVerdict:
    """What a check concluded.

    :param verdict: ``"proved"``, ``"refuted"`` or ``"unknown"``.
    :param counterexample: for ``refuted``, the behaviour that breaks the
        claim, in domain words (a JSON-able dict).
    :param reason: for ``unknown``, why the solver gave up; otherwise a short
        note (e.g. what was checked).
    """

    verdict: str = attrs.field(validator=attrs.validators.in_(VERDICTS))
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

    def __bool__(self) -> bool:  # pragma: no cover - guard against misuse
        raise TypeError("a verdict is not a bool: read .verdict")

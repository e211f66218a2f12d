"""The manifest: every proof obligation, its scope, expected verdict and timeout.

Obligations are stated by the modules listed in :data:`MODULES`, each of
which exports ``OBLIGATIONS`` and ``RULES`` (obligation name -> the rules
it checks); the manifest gathers them in that order, with their rules.  An
obligation without rules is an error: the traceability table
(:doc:`/traceability`) must know what each one is for.
``akita prove`` runs them all, or those named.
"""

from __future__ import annotations

import importlib

import attrs

from .obligation import Obligation

__all__ = ["MODULES", "load"]

#: Modules of ``akita.proofs`` that state obligations, in the order they run.
MODULES = (
    "edf_vd_obligations",
    "packing_obligations",
    "hi_guarantee",
    "mode_obligations",
)


def load() -> tuple[Obligation, ...]:
    """Every obligation, in manifest order (names are unique)."""
    obligations: list[Obligation] = []
    for name in MODULES:
        module = importlib.import_module(f"akita.proofs.{name}")
        for obligation in module.OBLIGATIONS:
            rules = module.RULES.get(obligation.name)
            if not rules:
                raise ValueError(f"obligation {obligation.name} of {name} names no rule")
            obligations.append(attrs.evolve(obligation, rules=tuple(rules)))
    names = [o.name for o in obligations]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"obligation names must be unique, got {duplicates}")
    return tuple(obligations)


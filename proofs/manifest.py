"""The manifest: every proof obligation, its scope, expected verdict and timeout.

Obligations are stated by the modules listed in :data:`MODULES`, each of
which exports ``OBLIGATIONS``; the manifest gathers them in that order.
``akita prove`` runs them all, or those named.
"""

from __future__ import annotations

import importlib

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
    for module in MODULES:
        obligations.extend(importlib.import_module(f"akita.proofs.{module}").OBLIGATIONS)
    names = [o.name for o in obligations]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"obligation names must be unique, got {duplicates}")
    return tuple(obligations)


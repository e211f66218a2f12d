"""The obligation modules, in manifest order; each exports ``OBLIGATIONS``."""

from __future__ import annotations

import importlib

__all__ = ["MODULES", "OBLIGATIONS"]

#: Modules of ``akita.proofs`` that state obligations, in the order they run.
MODULES = (
    "edf_vd_obligations",
    "packing_obligations",
    "hi_guarantee",
    "mode_obligations",
)

OBLIGATIONS = []
for _name in MODULES:
    try:
        _module = importlib.import_module(f"akita.proofs.{_name}")
    except ModuleNotFoundError as error:  # a module not written yet
        if error.name != f"akita.proofs.{_name}":
            raise
        continue
    OBLIGATIONS.extend(_module.OBLIGATIONS)

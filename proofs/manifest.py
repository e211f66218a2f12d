"""The manifest: every proof obligation, its scope, expected verdict and timeout.

Obligations are declared by the modules listed in :data:`MODULES`, one
concern each; each exports ``OBLIGATIONS``, every entry declared once where
its check is stated (:class:`~.obligation.Declarations`: name, rules, scope,
expected verdict, timeout, and for a negative control the safety
obligations it controls).  The manifest gathers them in that order.  An
obligation without rules is an error (the traceability table,
:doc:`/traceability`, must know what each one is for), and so is a control
of an obligation that is not a safety obligation of the manifest;
:func:`uncontrolled` names the safety obligations that no control names.
``akita prove`` runs them all, or those named.
"""

from __future__ import annotations

import importlib
from typing import Iterable

from .obligation import Obligation
from .verdict import PROVED

__all__ = ["MODULES", "load", "uncontrolled"]

#: Modules of ``akita.proofs`` that declare obligations, in the order they run.
MODULES = (
    "edf_vd_formula",
    "edf_vd_bounds",
    "packing_obligations",
    "hi_guarantee",
    "mode_obligations",
    "cal_bound",
    "budget_isolation",
    "overhead_obligations",
)


def load() -> tuple[Obligation, ...]:
    """Every obligation, in manifest order (names are unique).

    :raises ValueError: for an obligation that names no rule, a name used
        twice, or a control of anything but a safety obligation.
    """
    obligations: list[Obligation] = []
    for name in MODULES:
        module = importlib.import_module(f"akita.proofs.{name}")
        for obligation in module.OBLIGATIONS:
            if not obligation.rules:
                raise ValueError(f"obligation {obligation.name} of {name} names no rule")
            obligations.append(obligation)
    names = [o.name for o in obligations]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"obligation names must be unique, got {duplicates}")
    safety = {o.name for o in obligations if o.expected == PROVED}
    for obligation in obligations:
        strays = sorted(set(obligation.controls) - safety)
        if strays:
            raise ValueError(
                f"obligation {obligation.name} controls {strays}, not safety obligations")
    return tuple(obligations)


def uncontrolled(obligations: Iterable[Obligation]) -> list[str]:
    """The safety obligations (expected ``proved``) that no negative control names."""
    obligations = list(obligations)
    controlled = {name for o in obligations for name in o.controls}
    return [o.name for o in obligations if o.expected == PROVED and o.name not in controlled]

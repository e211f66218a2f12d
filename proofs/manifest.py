"""The manifest: every proof obligation, its scope, expected verdict and timeout.

Obligations are registered by the modules that state them; this module
gathers them in a fixed order.  ``akita prove`` runs them all (or those named).
"""

from __future__ import annotations

from .obligation import Obligation

__all__ = ["MANIFEST", "obligation_named"]


def _gather() -> tuple[Obligation, ...]:
    from . import registry

    return tuple(registry.OBLIGATIONS)


def obligation_named(name: str) -> Obligation:
    for obligation in MANIFEST:
        if obligation.name == name:
            return obligation
    raise KeyError(name)


MANIFEST: tuple[Obligation, ...] = ()


def load() -> tuple[Obligation, ...]:
    """The manifest, importing the obligation modules on first use."""
    global MANIFEST
    if not MANIFEST:
        MANIFEST = _gather()
    return MANIFEST

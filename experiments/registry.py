"""The experiments by name, in the order ``akita reproduce all`` runs them."""

from __future__ import annotations

from akita.model import ModelError

from .experiment import Experiment
from .fig7 import Fig7

__all__ = ["EXPERIMENTS", "experiment_named"]

#: name -> experiment.
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (Fig7(),)}


def experiment_named(name: str) -> Experiment:
    """The experiment called *name*."""
    if name not in EXPERIMENTS:
        raise ModelError("NAME", name, f"one of {', '.join(EXPERIMENTS)} or all")
    return EXPERIMENTS[name]

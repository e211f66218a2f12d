"""The experiments by name, in the order ``akita reproduce all`` runs them."""

from __future__ import annotations

from akita.model import ModelError

from .experiment import Experiment
from .fig4 import Fig4
from .fig5 import Fig5
from .fig6 import Fig6
from .fig7 import Fig7
from .fig8 import Fig8
from .thread import THREAD_EXPERIMENTS

__all__ = ["EXPERIMENTS", "experiment_named"]

#: name -> experiment.
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (Fig4(), Fig5(), Fig6(), Fig7(), Fig8(), *THREAD_EXPERIMENTS)}


def experiment_named(name: str) -> Experiment:
    """The experiment called *name*."""
    if name not in EXPERIMENTS:
        raise ModelError("NAME", name, f"one of {', '.join(EXPERIMENTS)} or all")
    return EXPERIMENTS[name]

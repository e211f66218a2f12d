"""The experiments by name, in the order ``akita reproduce all`` runs them."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from akita.model import ModelError
from akita.plotting import QUICK_MARK

from .experiment import Experiment, Outcome, RunRecord, source_commit
from .fig1 import Fig1
from .fig4 import Fig4
from .fig5 import Fig5
from .fig6 import Fig6
from .fig7 import Fig7
from .fig8 import Fig8
from .flexcore import FlexCore
from .pregather import Pregather
from .switch_cost import SWITCH_COST, SwitchCost, switch_cost as current_switch_cost
from .thread import THREAD_EXPERIMENTS

__all__ = ["EXPERIMENTS", "experiment_named", "reproduce"]

#: name -> experiment.
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (Fig1(), Fig4(), Fig5(), Fig6(), Fig7(), Fig8(), *THREAD_EXPERIMENTS,
                                                  FlexCore(), Pregather(), SwitchCost())}


def experiment_named(name: str) -> Experiment:
    """The experiment called *name*."""
    if name not in EXPERIMENTS:
        raise ModelError("NAME", name, f"one of {', '.join(EXPERIMENTS)} or all")
    return EXPERIMENTS[name]


def reproduce(name: str, out: str | Path, *, quick: bool = False,
              on_start: Callable[[Experiment], None] | None = None,
              switch_cost: int | None = None) -> list[Outcome]:
    """Run experiment *name* (or ``"all"``), write each one's files into *out*, return the outcomes.

    What ``akita reproduce`` does, for a script: each outcome carries its table,
    its claims beside the source's figures, and its verdicts.  *on_start* is
    called with each experiment before it runs (the command line prints it).
    *switch_cost*: ns a context switch costs in these runs (by default the
    measured :data:`~.switch_cost.MEASURED_NS`).  Each result file records
    how it was made (:class:`~.experiment.RunRecord`): quick or full, the
    switch cost, the seed and the commit.
    """
    chosen = list(EXPERIMENTS.values()) if name == "all" else [experiment_named(name)]
    folder = Path(out)
    outcomes = []
    token = None if switch_cost is None else SWITCH_COST.set(switch_cost)
    commit = source_commit()
    try:
        for experiment in chosen:
            if on_start is not None:
                on_start(experiment)
            mark = QUICK_MARK.set("QUICK RUN (--quick)" if quick else None)
            try:
                outcome = experiment.run(folder, quick=quick)
            finally:
                QUICK_MARK.reset(mark)
            outcome.run = RunRecord(quick, current_switch_cost(), experiment.seed, commit)
            outcome.write(folder)
            outcomes.append(outcome)
    finally:
        if token is not None:
            SWITCH_COST.reset(token)
    return outcomes

"""The source documents' experiments, rerun on the reference simulator.

``akita reproduce NAME`` runs one (:data:`EXPERIMENTS`); each writes a
table, plots and the JSON of its metrics, and states each claim of its
source with the source's figure beside ours (:mod:`.experiment`).
"""

from .experiment import Claim, Experiment, Outcome
from .registry import EXPERIMENTS, experiment_named, reproduce

__all__ = ["EXPERIMENTS", "experiment_named", "reproduce", "Experiment", "Outcome", "Claim"]

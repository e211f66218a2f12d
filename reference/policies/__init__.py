"""The scheduling policies the reference simulator runs, by name."""

from .akita import AkitaPolicy
from .edf import EDFPolicy

__all__ = ["POLICIES", "AkitaPolicy", "EDFPolicy"]

#: ``--policy`` name -> policy class.
POLICIES = {"akita": AkitaPolicy, "edf": EDFPolicy}

"""The scheduling policies the reference simulator runs, by name."""

from ..policy import Policy
from .akita import AkitaPolicy
from .amc import AMCPolicy
from .bcredit import BcreditPolicy
from .cfs import CFSPolicy
from .credit import CreditPolicy
from .edf import EDFPolicy
from .edf_vd import EDFVDPolicy
from .rm import RMPolicy
from .rtds import RTDSPolicy

__all__ = ["POLICIES", "AkitaPolicy", "EDFPolicy", "CFSPolicy", "RTDSPolicy",
           "CreditPolicy", "BcreditPolicy",
           "RMPolicy", "AMCPolicy", "EDFVDPolicy"]

#: ``--policy`` name -> policy class.
POLICIES: dict[str, type[Policy]] = {
    "akita": AkitaPolicy, "edf": EDFPolicy, "cfs": CFSPolicy, "rtds": RTDSPolicy,
    "credit": CreditPolicy, "bcredit": BcreditPolicy,
    "rm": RMPolicy, "amc": AMCPolicy, "edf-vd": EDFVDPolicy,
}

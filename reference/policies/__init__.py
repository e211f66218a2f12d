"""The scheduling policies the reference simulator runs, by name."""

from ..policy import Policy
from .akita import AkitaPolicy
from .amc import AMCPolicy
from .bcredit import BcreditPolicy
from .cfs import CFSPolicy
from .credit import CreditPolicy
from .credit2 import Credit2Policy
from .credit33 import Bcredit33Policy, Credit33Policy
from .edf import EDFPolicy
from .edf_vd import EDFVDPolicy
from .eevdf import EEVDFPolicy
from .rm import RMPolicy
from .rtds import RTDSPolicy

__all__ = ["POLICIES", "AkitaPolicy", "EDFPolicy", "CFSPolicy", "RTDSPolicy",
           "CreditPolicy", "BcreditPolicy", "Credit33Policy", "Bcredit33Policy",
           "RMPolicy", "AMCPolicy", "EDFVDPolicy", "EEVDFPolicy", "Credit2Policy"]

#: ``--policy`` name -> policy class.
POLICIES: dict[str, type[Policy]] = {
    "akita": AkitaPolicy, "edf": EDFPolicy, "cfs": CFSPolicy, "rtds": RTDSPolicy,
    "credit": CreditPolicy, "bcredit": BcreditPolicy,
    "credit-3.3": Credit33Policy, "bcredit-3.3": Bcredit33Policy,
    "rm": RMPolicy, "amc": AMCPolicy, "edf-vd": EDFVDPolicy, "eevdf": EEVDFPolicy,
    "credit2": Credit2Policy,
}

"""``edf-vd``: classic EDF-VD, which abandons LO work in HI mode.

Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela, van der Ster and
Stougie, "The Preemptive Uniprocessor Scheduling of Mixed-Criticality
Implicit-Deadline Sporadic Task Systems", ECRTS 2012: the AMC-like
behaviour that the Akita paper contrasts with its own (Akita keeps serving
LO vCPUs in HI mode).  It is the modal server policy
(:mod:`akita.reference.policies.modal`) with its defaults and virtual
deadlines:

* **LO mode** (R2, R4): a HI vCPU released at ``s`` has the virtual
  deadline ``s + x T``, ``x`` from its pCPU's EDF-VD verdict by the host's
  ``x_rule`` (the paper's Eq. (4) by default; exact); a LO
  vCPU's key is its deadline.
* **LO -> HI** (R5): a HI vCPU consumed ``C_opt`` and is still runnable.
  LO work is **dropped** at the switch: the LO vCPUs' remaining budgets go
  to 0 (traced as ``exhaust``), and LO periods starting in HI mode get no
  budget.
* **HI mode**: only HI vCPUs run, by actual deadline; LO vCPUs never run,
  not even as background (``lo_in_hi_mode`` and ``hi_mode_deadline`` of the
  host are ignored: they are fixed to false and ``"actual"``).
* **HI -> LO**: no temperatures (R8, R9 do not apply).  The pCPU returns at
  the first instant in HI mode at which no HI vCPU is both runnable and
  holds budget -- an idle instant of the HI work the test accounts for, as
  for ``amc`` (:mod:`akita.reference.policies.amc`, where the choice is argued).

``akita`` (:mod:`akita.reference.policies.akita`) is this policy with LO
work kept in HI mode and temperatures.  Placement is first fit with ``"edf-vd"``, whatever the
host's test names.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar

from akita.model.edf_vd import virtual_deadline_factor

from ..runqueue import Key
from .modal import ModalServerPolicy
from .server import ServerState, exact

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["EDFVDPolicy"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("EDFVDPolicy.setup_cpus", "EDFVDPolicy.key_of"),
}


class EDFVDPolicy(ModalServerPolicy):
    """EDF-VD with LO work dropped in HI mode and return at an idle instant of HI work."""

    name = "edf-vd"
    admission_test: ClassVar[str | None] = "edf-vd"

    #: ``x`` of each pCPU, from its EDF-VD verdict by the host's ``x_rule``
    #: (:func:`~akita.model.edf_vd.virtual_deadline_factor`; 1 where the verdict has none).
    x: list[Fraction]

    def setup_cpus(self, sim: Simulator) -> None:
        super().setup_cpus(sim)
        rule = sim.host.options.x_rule
        self.x = [virtual_deadline_factor(load.verdict, rule) for load in sim.placement.pcpus]

    def key_of(self, state: ServerState, release: int) -> Key:
        """LO-mode key: the virtual deadline of a HI vCPU, the deadline of a LO one."""
        period = state.vm.period
        if state.is_hi:
            return exact(release + self.x[state.cpu] * period)
        return release + period

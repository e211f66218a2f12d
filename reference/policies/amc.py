"""``amc``: Adaptive Mixed Criticality, fixed priorities, per pCPU.

Baruah, Burns and Davis, "Response-Time Analysis for Mixed Criticality
Systems", RTSS 2011 (AMC, analysed by AMC-rtb, :mod:`akita.model.amc`).
Every vCPU is a periodic server (:mod:`.server`): a LO vCPU's budget is
``C_opt``, a HI vCPU's ``C_pes``.  Priorities are fixed per pCPU, by
Audsley's assignment for AMC-rtb (rate monotonic whenever that passes);
the trace's ``key`` is the priority rank (0 highest).

* Every pCPU starts in LO mode.
* **LO mode**: the active runnable vCPU of highest priority runs, with its
  remaining budget as the slice -- but a HI vCPU runs at most ``C_opt`` per
  period in LO mode.
* **LO -> HI**: when a HI vCPU has consumed ``C_opt`` in its period and is
  still runnable (checked when it reaches ``C_opt``, and when it is picked
  having consumed it), the pCPU switches to HI mode.  LO work is
  **dropped**: the LO vCPUs' remaining budgets go to 0 (traced as
  ``exhaust``), and LO periods starting in HI mode get no budget.
* **HI mode**: the active runnable HI vCPU of highest priority runs, up to
  its ``C_pes``.  LO vCPUs do not run at all, not even as background.
* **HI -> LO**: at the first instant in HI mode at which no HI vCPU is both
  runnable and holds budget -- an idle instant of the HI work the analysis
  accounts for.  LO vCPUs get budget again at their next period start.
* **Background** (work conservation, as ``edf``): with no eligible active
  vCPU, the inactive runnable vCPU of highest priority runs uncharged -- any
  vCPU in LO mode (which, by the rule above, is where that happens).

The mode machinery is :mod:`akita.reference.policies.modal`'s, with its
defaults (this is where they come from); the policy adds the fixed
priorities (:mod:`.fixed_priority`).  The return rule is AMC's "idle
instant" read for servers: the processor is never idle while a cpu-bound
vCPU exists, but once every HI vCPU's budgeted demand is served and no LO
budget is left (dropped at the switch), no work the analysis counts is
pending, so LO mode restarts from a clean state.
Placement is first fit with ``"amc-rtb"``, whatever the host's test names.
"""

from __future__ import annotations

from akita.model import VCPU, amc_priorities, rm_order

from ..runqueue import Key
from .fixed_priority import FixedPriorityPolicy
from .modal import ModalServerPolicy
from .server import ServerState

__all__ = ["AMCPolicy"]


class AMCPolicy(FixedPriorityPolicy, ModalServerPolicy):
    """AMC: fixed priorities, LO work dropped in HI mode."""

    name = "amc"
    admission_test = "amc-rtb"

    def priority_order(self, vcpus: tuple[VCPU, ...]) -> tuple[VCPU, ...]:
        """Audsley's assignment for AMC-rtb; rate monotonic on a pCPU it did not admit."""
        order = amc_priorities(vcpus)
        return rm_order(vcpus) if order is None else order

    def hi_key(self, state: ServerState) -> Key:
        """The rank, in HI mode as in LO mode."""
        return state.sched.key

    def background_key(self, state: ServerState) -> Key:
        """The rank, for background work too."""
        return state.sched.key

"""``akita``: the Akita policy (rules R2-R10, R13) on each pCPU.

Source: Asyabi et al., "Akita: A CPU scheduler for virtualized Clouds",
Sections 3.3-3.5.  Akita is EDF-VD (:mod:`akita.reference.policies.edf_vd`)
that keeps serving LO vCPUs in HI mode and leaves HI mode by temperatures;
the mode machinery is :mod:`akita.reference.policies.modal`'s.  Every vCPU
is a periodic server (:mod:`.server`); a LO vCPU's budget is ``C_opt``, a HI
vCPU's ``C_pes``, in either mode.

* **R13** Every pCPU starts in LO mode.
* **R2** Periods start at the VM's phase, then every ``T``.  At a HI
  vCPU's period start ``s`` its virtual deadline is ``s + x T``, with ``x``
  from the EDF-VD verdict of its pCPU by ``x_rule`` (Eq. (4) by default;
  exact).
* **R4** LO mode: the active runnable vCPU with the earliest key runs --
  the virtual deadline of a HI vCPU, the deadline of a LO one -- with its
  remaining budget as the slice.
* **R5** LO -> HI: when a running HI vCPU has consumed ``C_opt`` in its
  period and is still runnable, the pCPU switches to HI mode at once and
  the vCPU's temperature is set to ``initial_temperature``.  (In HI mode the
  same event re-heats the vCPU.)  A HI vCPU found at the head of the LO
  queue having already consumed ``C_opt`` (it blocked exactly there and
  woke) triggers the switch when it is picked.
* **R6** HI mode: the active runnable HI vCPU with the earliest *actual*
  deadline runs (``hi_mode_deadline = "virtual"`` keeps the virtual ones).
* **R3, R7** Budgets and work conservation: with no eligible active vCPU,
  LO mode runs an inactive runnable vCPU by deadline; HI mode (if
  ``lo_in_hi_mode``) runs the active runnable LO vCPUs in queue order, then
  the inactive runnable LO ones by deadline, then the inactive runnable HI
  ones by deadline (``hi_mode_order = "capped"``, the default: a HI vCPU
  past ``C_pes`` only when no LO vCPU can run; ``"hi-first"``: the inactive
  HI vCPUs first; ``"budget-first"``: the active LO vCPUs by deadline, then
  every inactive vCPU by deadline).  Background time is not charged to
  budgets.
* **R8** At a HI vCPU's period start, a positive temperature drops by one
  if the vCPU did not ask for its pessimistic budget in the period just
  ended.
* **R9** HI -> LO: evaluated right after each HI vCPU's period start (the
  only instants a temperature falls): when no HI vCPU of the pCPU has a
  positive temperature.
* **R10** The pCPU decides again at a period start, a block, a budget
  exhaustion, a HI vCPU reaching ``C_opt``, and -- if ``wake_preempts`` -- a
  wake.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..runqueue import Key
from .edf_vd import EDFVDPolicy
from .modal import ModeCPU
from .server import ServerState

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["AkitaPolicy"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
#: The rest of R2 and R4-R7, R10, R13 are the bases' (edf_vd.py, modal.py).
__rules__ = {
    "R2": ("AkitaPolicy.budget_of",),
    "R5": ("AkitaPolicy.ask_pessimistic",),
    "R6": ("AkitaPolicy.hi_key",),
    "R7": ("AkitaPolicy.setup_cpus",),
    "R8": ("AkitaPolicy.on_release",),
    "R9": ("AkitaPolicy.on_release", "AkitaPolicy.returns_to_lo"),
}


class AkitaPolicy(EDFVDPolicy):
    """Akita: EDF-VD with LO/HI modes and temperatures, per pCPU, LO work kept in HI mode."""

    name = "akita"
    admission_test = None  # the host's own test

    def setup_cpus(self, sim: Simulator) -> None:
        super().setup_cpus(sim)
        options = sim.host.options
        self.initial_temperature = options.initial_temperature
        self.virtual_in_hi = options.virtual_in_hi
        self.lo_in_hi_mode = options.lo_in_hi_mode

    # -- server parameters (R2, R6) --------------------------------------------------

    def budget_of(self, state: ServerState) -> int:
        """``C_pes`` for a HI vCPU, ``C_opt`` for a LO one, in either mode."""
        return state.vm.c_max

    def hi_key(self, state: ServerState) -> Key:
        """The actual deadline, or the virtual one if ``hi_mode_deadline = "virtual"`` (R6)."""
        server = state.sched
        return server.key if self.virtual_in_hi else server.deadline

    # -- modes and temperatures (R5, R8, R9) --------------------------------------------

    def ask_pessimistic(self, state: ServerState, t: int) -> None:
        """R5: the vCPU is heated to ``initial_temperature``, then the pCPU switches."""
        server = state.sched
        server.asked = True
        if server.temperature != self.initial_temperature:
            server.temperature = self.initial_temperature
            self.sim.emit(t, state.cpu, "temperature", vcpu=state.name,
                          temperature=server.temperature)
        super().ask_pessimistic(state, t)

    def on_switch(self, c: int, hi: bool, t: int) -> None:
        """LO work is kept in HI mode: nothing is dropped."""

    def returns_to_lo(self, cpu: ModeCPU) -> bool:
        """Never when the pCPU decides: only at a HI vCPU's period start (R9,
        :meth:`on_release`)."""
        return False

    def on_release(self, state: ServerState, t: int) -> None:
        if not state.is_hi:
            return
        server = state.sched
        if server.temperature > 0 and not server.asked:  # R8
            server.temperature -= 1
            self.sim.emit(t, state.cpu, "temperature", vcpu=state.name,
                          temperature=server.temperature)
        server.asked = False
        if self.cpus[state.cpu].hi and all(  # R9
            peer.sched.temperature == 0 for peer in self.sim.on_cpu[state.cpu] if peer.is_hi
        ):
            self.switch(state.cpu, False, t)

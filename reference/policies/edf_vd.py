"""``edf-vd``: classic EDF-VD, which abandons LO work in HI mode.

Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela, van der Ster and
Stougie, "The Preemptive Uniprocessor Scheduling of Mixed-Criticality
Implicit-Deadline Sporadic Task Systems", ECRTS 2012: the AMC-like
behaviour that the Akita paper contrasts with its own (Akita keeps serving
LO vCPUs in HI mode).  It is ``akita`` (:mod:`.akita`) with these changes:

* **LO mode** as ``akita`` (R2, R4): a HI vCPU released at ``s`` has the
  virtual deadline ``s + x T``, ``x`` from its pCPU's EDF-VD verdict.
* **LO -> HI** as ``akita`` (R5): a HI vCPU consumed ``C_opt`` and is still
  runnable.  LO work is **dropped** at the switch: the LO vCPUs' remaining
  budgets go to 0 (traced as ``exhaust``), and LO periods starting in HI
  mode get no budget.
* **HI mode**: only HI vCPUs run, by actual deadline; LO vCPUs never run,
  not even as background (``lo_in_hi_mode`` and ``hi_mode_deadline`` of the
  host are ignored: they are fixed to false and ``"actual"``).
* **HI -> LO**: no temperatures (R8, R9 do not apply).  The pCPU returns at
  the first instant in HI mode at which no HI vCPU is both runnable and
  holds budget -- an idle instant of the HI work the test accounts for, as
  for ``amc`` (:mod:`akita.reference.policies.amc`, where the choice is argued).

Placement is first fit with ``"edf-vd"``, whatever the host's test names.
"""

from __future__ import annotations

from .akita import AkitaPolicy
from .amc import drop_lo_budgets
from .rm import place_with

__all__ = ["EDFVDPolicy"]


class EDFVDPolicy(AkitaPolicy):
    """EDF-VD with LO work dropped in HI mode and return at an idle instant of HI work."""

    name = "edf-vd"
    test = "edf-vd"

    def place(self, host):
        return place_with(host, self.test)

    def setup_cpus(self, sim) -> None:
        super().setup_cpus(sim)
        self.lo_in_hi_mode = False
        self.virtual_in_hi = False

    def budget_of(self, state) -> int:
        if not state.is_hi and self.cpus[state.cpu].hi:
            return 0  # no LO work is released in HI mode
        return super().budget_of(state)

    def _switch(self, cpu: int, hi: bool, t: int, trigger=None) -> None:
        super()._switch(cpu, hi, t, trigger)
        if hi:
            drop_lo_budgets(self, cpu, t)

    def _ask_pessimistic(self, state, t: int) -> None:
        if not self.cpus[state.cpu].hi:
            self._switch(state.cpu, True, t, trigger=state)

    def on_release(self, state, t: int) -> None:
        """No temperatures: the return to LO mode is decided in :meth:`pick`."""

    def pick(self, c: int, t: int):
        cpu = self.cpus[c]
        if cpu.hi and cpu.hi_mode.peek() is None:
            self._switch(c, False, t)  # an idle instant of HI work
        return super().pick(c, t)

"""The budget account: whether each workload keeps its declaration, and whether budgets hold.

A vCPU of a periodic-server policy (:mod:`.policies.server`) declares a
budget per period -- ``C_pes`` for a HI vCPU, ``C_opt`` for a LO one under
``akita``.  The Akita paper, Section 3.2: "these budgets are strictly enforced
by the scheduler"; when a vCPU's budget runs out "the vCPU is deactivated,
meaning that the scheduler ignores the vCPU if there exist other vCPUs with
positive budgets"; Section 2.2: a HI vCPU's share lies in ``[C_opt/T,
C_pes/T]``, a LO vCPU's in ``[0, C_opt/T]``.  The account keeps, per VM:

* ``periods``: the period starts of its vCPUs;
* ``overrun_periods``: periods in which a vCPU used its whole budget and still
  held work -- its demand exceeded its declaration;
* ``past_budget_ns`` and ``max_past_budget_ns``: the CPU its vCPUs got past
  their budgets (work conservation, R7), in all and at most in one period;
* ``ahead_of_budget_ns``: of that, the time during which another vCPU of the
  pCPU held work and budget, or -- for a HI vCPU -- a LO vCPU held work (a
  breach of budget isolation, :mod:`akita.proofs.budget_isolation`; it is 0
  under ``hi_mode_order = "capped"``);
* ``kept_from_budget_ns``: the time its vCPUs held work and budget while a
  vCPU past its budget ran: what it was promised and did not get.

And per pCPU, the HI-mode time of the episodes in which a HI vCPU overran its
``C_pes`` (it holds the pCPU in HI mode: R5 re-heats it every period) and
those vCPUs' names.  The account only observes: no decision reads it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BudgetAccount"]


class BudgetAccount:
    """One VM's budget account (all its vCPUs)."""

    __slots__ = ("periods", "overrun_periods", "past_budget_ns", "max_past_budget_ns",
                 "ahead_of_budget_ns", "kept_from_budget_ns")

    def __init__(self) -> None:
        self.periods = 0
        self.overrun_periods = 0
        self.past_budget_ns = 0
        self.max_past_budget_ns = 0
        self.ahead_of_budget_ns = 0
        self.kept_from_budget_ns = 0

    def past_budget(self, ran: int, in_period: int, ahead: bool) -> None:
        """A vCPU ran *ran* ns past its budget, *in_period* ns in its period so far; *ahead*:
        while another vCPU held budget (or, for a HI vCPU, a LO vCPU held work)."""
        self.past_budget_ns += ran
        self.max_past_budget_ns = max(self.max_past_budget_ns, in_period)
        if ahead:
            self.ahead_of_budget_ns += ran

    def as_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

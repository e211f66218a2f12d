"""Budgets in a trace: isolation named as R3, and each workload's overruns, as the oracle saw them.

The Akita paper, Section 3.2: budgets "are strictly enforced by the scheduler"; a
vCPU whose budget ran out is ignored "if there exist other vCPUs with positive
budgets"; Section 2.2: a HI vCPU's share lies in ``[C_opt/T, C_pes/T]``.  Under
``hi_mode_order = "capped"`` (the default, :doc:`/rules` R3 and R7) a HI vCPU
past ``C_pes`` runs only when no LO vCPU holds work.  Two things here:

* :func:`isolation` renames a dispatch finding as **R3 (budget isolation)**
  when, under ``"capped"``, the implementation runs a HI vCPU past its budget
  while the rules run a LO vCPU: the violation is the overrun's, not an order's.
* :class:`BudgetAudit` keeps, from the oracle's own account of budgets
  (:class:`~.shadow.ShadowVCPU`), each vCPU's CPU, the periods in which it used
  its whole budget and still held work (its demand exceeded its declaration),
  the CPU it got past its budget and, of that, the time it ran ahead of another
  vCPU's budget (or, HI, of a LO vCPU with work), and the time each vCPU held
  work and budget while one past its budget ran; per pCPU, the HI vCPUs that
  overran ``C_pes`` in HI mode.  ``akita conform`` reports them beside the
  verdict (the same account as ``akita simulate``'s, :mod:`akita.reference.budgets`).
"""

from __future__ import annotations

from typing import Any

from .findings import Finding, ns
from .shadow import ShadowCPU, ShadowVCPU

__all__ = ["BudgetAudit", "isolation"]

#: Where the oracle checks budget isolation (read by the traceability table).
__rules__ = {"R3": ("isolation", "BudgetAudit.charged", "BudgetAudit.close")}


def isolation(finding: Finding, cpu: ShadowCPU, options: list[ShadowVCPU],
              capped: bool) -> Finding:
    """*finding* named R3 when it is an overrun under ``"capped"``: the pCPU runs a HI vCPU
    past its budget while the rules run a LO vCPU; otherwise *finding* as it is."""
    running = cpu.running
    if (not capped or running is None or not running.hi or running.budget > 0
            or not options or any(v.hi for v in options)):
        return finding
    want = " or ".join(v.name for v in options)
    mode = "HI" if cpu.claimed_hi else "LO"
    return Finding(finding.since, "R3", finding.allowed, finding.did,
                   f"pCPU {cpu.index} in {mode} mode ran {running.name} past its C_pes "
                   f"(budget isolation) while {want} held work at {ns(finding.since)}")


class _Account:
    __slots__ = ("cpu", "ran_ns", "overrun_periods", "past_budget_ns", "ahead_of_budget_ns",
                 "kept_from_budget_ns")

    def __init__(self, cpu: int) -> None:
        self.cpu = cpu
        self.ran_ns = 0
        self.overrun_periods = 0
        self.past_budget_ns = 0
        self.ahead_of_budget_ns = 0
        self.kept_from_budget_ns = 0


class BudgetAudit:
    """Each vCPU's budget account, kept as the oracle charges the running vCPU."""

    def __init__(self) -> None:
        self._vcpus: dict[str, _Account] = {}
        self._held: dict[int, set[str]] = {}

    def _of(self, v: ShadowVCPU) -> _Account:
        account = self._vcpus.get(v.name)
        if account is None:
            account = self._vcpus[v.name] = _Account(v.cpu)
        return account

    def charged(self, cpu: ShadowCPU, running: ShadowVCPU, had: int, ran: int,
                still_runnable: bool, left: int | None = None) -> None:
        """*running* ran *ran* ns on *cpu* with *had* ns of budget before, *left* after
        (default: its budget now, R3)."""
        account = self._of(running)
        account.ran_ns += ran
        left = running.budget if left is None else left
        if had > 0 and left == 0 and still_runnable:
            account.overrun_periods += 1
            if running.hi and cpu.rules_hi:
                self._held.setdefault(cpu.index, set()).add(running.name)
        past = ran - max(had, 0)
        if past <= 0:
            return
        account.past_budget_ns += past
        ahead = False
        for other in cpu.vcpus:
            if other is running or not other.runnable:
                continue
            if other.budget > 0:
                ahead = True
                self._of(other).kept_from_budget_ns += past
            elif running.hi and not other.hi:
                ahead = True
        if ahead:
            account.ahead_of_budget_ns += past

    def close(self, cpus: list[ShadowCPU], end: int) -> None:
        """The end of the span at *end*: what each pCPU ran since the oracle last charged it
        (the oracle charges at rule points; the span's last stretch is counted here)."""
        for cpu in cpus:
            running = cpu.running
            if running is None or not running.runnable or end <= cpu.synced:
                continue
            ran, had = end - cpu.synced, running.budget
            self.charged(cpu, running, had, ran, True, max(had - ran, 0) if had > 0 else had)

    def as_json(self) -> dict[str, Any]:
        """The accounts by vCPU name (those the trace ran or kept), and the pCPUs held in HI
        mode by a HI vCPU past ``C_pes``."""
        return {
            "vcpus": {name: {slot: getattr(a, slot) for slot in _Account.__slots__}
                      for name, a in sorted(self._vcpus.items())},
            "held_in_hi_by": {str(c): sorted(names) for c, names in sorted(self._held.items())},
        }

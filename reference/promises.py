"""Whether a simulation kept what admission promised each VM, in domain words.

Admission promises (``docs/guarantees.rst``): a HI vCPU is served
``min(C_pes, the work it holds)`` in each period (the HI-miss account,
:mod:`.misses`); and -- budgets being enforced, Section 3.2 of the Akita
paper: a vCPU past its budget is ignored "if there exist other vCPUs with
positive budgets" -- no vCPU that holds work and budget waits while a vCPU past
its budget runs (the budget account, :mod:`akita.reference.budgets`).  A run that breaks
either is ``broken``, naming each VM, what it got and what it was kept from;
one that breaks neither is ``kept``; a run of a policy without budgets (or of
no VM) has ``nothing to check``.

Separately, :func:`overruns` names the VMs whose demand exceeded their
declared budget -- a workload that breaks its declaration, which admission
does not cover -- and the pCPUs held in HI mode by such a HI VM.
"""

from __future__ import annotations

from typing import Any, Mapping

import attrs

from akita.model import Host

__all__ = ["PromiseVerdict", "KEPT", "BROKEN", "NOTHING", "promises", "overruns"]

KEPT, BROKEN, NOTHING = "kept", "broken", "nothing to check"


@attrs.frozen
class PromiseVerdict:
    """``kept``, ``broken`` or ``nothing to check``, with one sentence per broken promise."""

    verdict: str
    reading: str | None
    broken: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        raise TypeError("a PromiseVerdict is not a boolean: read .verdict")

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "hi_mode_order": self.reading,
                "broken": list(self.broken)}


def _pct(ns: int, duration: int) -> str:
    return f"{ns / duration:.2%}" if duration else "-"


def promises(doc: Mapping[str, Any], host: Host) -> PromiseVerdict:
    """Judge a simulation's JSON (:meth:`akita.reference.simulator.Result.as_json`) of *host*."""
    duration = doc["duration_ns"]
    reading = doc.get("hi_mode_order")
    vms = {vm.name: vm for vm in host.vms}
    broken: list[str] = []
    checked = False
    for name, m in doc["vms"].items():
        account = m.get("budget")
        if account is None:
            continue
        checked = True
        vm = vms[name]
        if m["hi_misses"]:
            broken.append(f"{name} (HI): {m['hi_misses']} periods served less than "
                          f"min(C_pes, its work)")
        kept = account["kept_from_budget_ns"]
        if kept:
            share = f"C_{'pes' if vm.is_hi else 'opt'}/T = {vm.c_max / vm.period:.2%}"
            broken.append(f"{name} ({'HI' if vm.is_hi else 'LO'}): got {m['cpu_share']:.2%} "
                          f"of the pCPU ({share}); it held work and budget while a vCPU past "
                          f"its budget ran for {_pct(kept, duration)} of the run")
    if not checked:
        return PromiseVerdict(NOTHING, reading)
    return PromiseVerdict(BROKEN if broken else KEPT, reading, tuple(broken))


def overruns(doc: Mapping[str, Any], host: Host) -> list[str]:
    """One sentence per VM whose demand exceeded its declared budget in some period (how
    often, and the CPU it got past its budget), and per pCPU held in HI mode by a HI VM past
    ``C_pes``, with the LO VMs' shares."""
    duration = doc["duration_ns"]
    vms = {vm.name: vm for vm in host.vms}
    lines = []
    for name, m in doc["vms"].items():
        account = m.get("budget")
        if not account or not account["overrun_periods"]:
            continue
        vm = vms[name]
        budget = "C_pes" if vm.is_hi else "C_opt"
        lines.append(
            f"{name} ({'HI' if vm.is_hi else 'LO'}) used its whole {budget} and still held work "
            f"in {account['overrun_periods']} of {account['periods']} periods; it got "
            f"{_pct(account['past_budget_ns'], duration)} of the run past its budget (at most "
            f"{account['max_past_budget_ns'] / 1e6:.3f} ms in a period)")
    lo = ", ".join(f"{name} {m['cpu_share']:.2%}" for name, m in doc["vms"].items()
                   if name in vms and not vms[name].is_hi)
    for c in doc["pcpus"]:
        if c.get("held_in_hi_by"):
            lines.append(
                f"pCPU {c['index']} was held in HI mode by {', '.join(c['held_in_hi_by'])} past "
                f"C_pes for {_pct(c['hi_time_overrun_ns'], duration)} of the run"
                + (f"; LO VMs' shares: {lo}" if lo else ""))
    return lines

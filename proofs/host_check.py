"""The HI guarantee of every pCPU of a host, as ``akita check`` decides it.

The host is placed by first fit (R12); each pCPU is scaled to ticks (the gcd
of its vCPUs' times) and its HI guarantee checked over every behaviour in a
horizon of whole hyperperiods (:mod:`.hi_guarantee`).  A pCPU whose horizon
exceeds ``max_ticks`` is answered ``unknown`` with that reason, never
guessed.
"""

from __future__ import annotations

import time
from pathlib import Path

import attrs

from akita.model import Host, Placement, first_fit
from akita.model.smt.pcpu import tick_pcpu

from .hi_guarantee import check_hi_guarantee
from .schedule_check import scope_of
from .verdict import PROVED, REFUTED, UNKNOWN, ProofVerdict

__all__ = ["PCPUCheck", "check_host", "status_of"]


@attrs.frozen
class PCPUCheck:
    """One pCPU's answer."""

    index: int
    scope: str
    verdict: ProofVerdict
    seconds: float

    def as_json(self) -> dict:
        return {"index": self.index, "verdict": self.verdict.verdict, "scope": self.scope,
                "seconds": round(self.seconds, 3), "counterexample": self.verdict.counterexample,
                "reason": self.verdict.reason}


def check_host(
    host: Host,
    policy: str = "akita",
    *,
    hyperperiods: int = 2,
    timeout: float = 60.0,
    max_ticks: int = 480,
    save_to: str | Path | None = None,
    placement: Placement | None = None,
) -> list[PCPUCheck]:
    """Check the HI guarantee on every pCPU of *host* that holds vCPUs."""
    placement = placement if placement is not None else first_fit(host)
    answers = []
    for load in placement.pcpus:
        if not load.vcpus:
            continue
        start = time.perf_counter()
        pcpu = tick_pcpu(host, placement, load.index, policy)
        horizon = hyperperiods * pcpu.hyperperiod()
        scope = scope_of(pcpu, horizon)
        if horizon > max_ticks:
            verdict = ProofVerdict.unknown(
                f"the horizon is {horizon} ticks of {pcpu.tick} ns, beyond the limit of "
                f"{max_ticks} (raise --max-ticks, or choose periods with a smaller hyperperiod)")
        else:
            where = None if save_to is None else Path(save_to) / f"pcpu{load.index}"
            verdict = check_hi_guarantee(pcpu, horizon, timeout, save_to=where)
        answers.append(PCPUCheck(load.index, scope, verdict, time.perf_counter() - start))
    return answers


def status_of(answers: list[PCPUCheck]) -> int:
    """Exit status: 0 all proved, 1 any refuted, 3 any unknown (and none refuted)."""
    verdicts = {a.verdict.verdict for a in answers}
    if REFUTED in verdicts:
        return 1
    if UNKNOWN in verdicts:
        return 3
    assert verdicts <= {PROVED}
    return 0

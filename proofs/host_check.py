"""The HI guarantee of every pCPU of a host, as ``akita check`` decides it.

The host is placed by first fit (R12); each pCPU is scaled to ticks (the gcd
of its vCPUs' times and declared phases) and its HI guarantee checked over
every behaviour in a horizon of whole hyperperiods (:mod:`.hi_guarantee`),
for the phases the host can have: a VM's declared phase, 0 under ``phases =
"synchronous"``, and every phase on the tick grid under ``"seeded"``
(:func:`akita.model.smt.pcpu.tick_pcpu`; seeded phases are drawn on whole
microseconds, so a tick coarser than 1 us covers only those on its grid).  A pCPU whose horizon
exceeds ``max_ticks`` is answered ``unknown`` with that reason, never
guessed.

Limits (:mod:`akita.proofs.limits`): ``rlimit`` is each pCPU's budget of Z3's
resource count (:mod:`akita.model.smt.resources`), the limit that decides:
deterministic, so the same host gets the same verdicts on a quiet or a
loaded machine; ``timeout`` is a wall-clock guard over the whole host (all
its pCPUs, building the encodings included), an outer bound only; and
``memory_mb`` is Z3's memory ceiling while it runs.  A limit reached answers
``unknown`` with the limit and where.

Nothing is passed over in silence.  A pCPU without a HI vCPU answers
``nothing to prove`` -- the guarantee binds no job there -- which is not a
proof; a VM that first fit rejected is in no pCPU's check, and
:func:`rejected_vms` names it so that the report can say so.  The exit
status (:func:`status_of`) counts both.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable, Sequence

import attrs

from akita.model import Host, ParameterError, Placement, first_fit
from akita.model.smt.pcpu import tick_pcpu

from .hi_guarantee import check_hi_guarantee
from akita.model.smt.resources import resource_limit

from .limits import DEFAULT_MEMORY_MB, Deadline, memory_ceiling
from .schedule_check import scope_of
from .verdict import NOTHING, PROVED, REFUTED, UNKNOWN, ProofVerdict

__all__ = [
    "PCPUCheck",
    "HostProgress",
    "check_host",
    "check_limits",
    "rejected_vms",
    "status_of",
    "EXIT_NOTHING",
    "DEFAULT_RLIMIT",
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "MAX_HYPERPERIODS",
    "MAX_MEMORY_MB",
]

#: ``progress(pcpu, stage, done, total)``: what the check of pCPU *pcpu* is doing
#: (:data:`akita.proofs.limits.Progress`), e.g. for a progress bar.
HostProgress = Callable[[int, str, int, int], None]

#: Each pCPU's default budget of Z3's resource count: about a minute of this machine's
#: quiet work (the Fig. 5 pCPU, 2 hyperperiods, spends 19.3 million in 13 s).
DEFAULT_RLIMIT = 100_000_000

#: The default wall-clock guard over a whole host's check, in seconds.
DEFAULT_TIMEOUT = 600.0

#: Exit status when no pCPU holds a HI vCPU (and nothing was refuted, unknown or rejected).
EXIT_NOTHING = 4
#: The largest ``timeout`` in seconds (Z3 counts its time limit in 32-bit milliseconds).
MAX_TIMEOUT = 1_000_000.0
#: The largest number of hyperperiods in a horizon.
MAX_HYPERPERIODS = 1000
#: The largest memory ceiling in megabytes (Z3's ``memory_max_size`` is 32-bit).
MAX_MEMORY_MB = 4_000_000


@attrs.frozen
class PCPUCheck:
    """One pCPU's answer."""

    index: int
    scope: str
    verdict: ProofVerdict
    seconds: float

    def as_json(self) -> dict[str, object]:
        return {"index": self.index, "verdict": self.verdict.verdict, "scope": self.scope,
                "seconds": round(self.seconds, 3), "counterexample": self.verdict.counterexample,
                "reason": self.verdict.reason}


def check_limits(*, timeout: float, max_ticks: int, hyperperiods: int,
                 memory_mb: int | None) -> None:
    """Raise :class:`~akita.model.ParameterError`, naming the parameter, for a limit out of
    range.

    ``timeout`` a finite number of seconds in ``(0, MAX_TIMEOUT]``;
    ``max_ticks >= 1``; ``hyperperiods`` in ``1..MAX_HYPERPERIODS``;
    ``memory_mb`` in ``1..MAX_MEMORY_MB`` (or ``None``: Z3's own, unlimited).
    """
    if not (math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT):
        shown = int(timeout) if float(timeout).is_integer() else timeout  # "got 0", as typed
        raise ParameterError("timeout", shown,
                             f"a number of seconds > 0 and at most {MAX_TIMEOUT:,.0f}")
    if max_ticks < 1:
        raise ParameterError("max_ticks", max_ticks, "an integer >= 1")
    if not 1 <= hyperperiods <= MAX_HYPERPERIODS:
        raise ParameterError("hyperperiods", hyperperiods,
                             f"an integer >= 1 and at most {MAX_HYPERPERIODS}")
    if memory_mb is not None and not 1 <= memory_mb <= MAX_MEMORY_MB:
        raise ParameterError("memory_mb", memory_mb,
                             f"a number of megabytes >= 1 and at most {MAX_MEMORY_MB:,}")


def check_host(
    host: Host,
    policy: str = "akita",
    *,
    hyperperiods: int = 2,
    timeout: float = DEFAULT_TIMEOUT,
    rlimit: int = DEFAULT_RLIMIT,
    max_ticks: int = 480,
    save_to: str | Path | None = None,
    placement: Placement | None = None,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
    progress: HostProgress | None = None,
) -> list[PCPUCheck]:
    """Check the HI guarantee on every pCPU of *host* that holds vCPUs.

    Each pCPU's check may spend *rlimit* units of Z3's resource count (0: no
    limit); the whole host's check, *timeout* seconds, building included (a
    wall-clock guard: a pCPU reached after it answers ``unknown`` at once); Z3's
    memory is capped at *memory_mb* megabytes (``None``: no cap).

    :raises ParameterError: for a limit out of range (:func:`check_limits`).
    """
    check_limits(timeout=timeout, max_ticks=max_ticks, hyperperiods=hyperperiods,
                 memory_mb=memory_mb)
    placement = placement if placement is not None else first_fit(host)
    guard = Deadline(timeout)
    answers = []
    for load in placement.pcpus:
        if not load.vcpus:
            continue
        report = None if progress is None else _reporter(progress, load.index)
        deadline = guard.sharing(report)
        start = time.perf_counter()
        pcpu = tick_pcpu(host, placement, load.index, policy)
        horizon = hyperperiods * pcpu.hyperperiod()
        scope = scope_of(pcpu, horizon)
        if not any(v.hi for v in pcpu.vcpus):
            verdict = ProofVerdict.nothing(
                "nothing to prove: no HI vCPU on this pCPU, so the HI guarantee binds no job")
        elif deadline.passed():
            verdict = ProofVerdict.unknown(
                f"wall-clock guard {timeout:g} s for the whole host reached before this "
                f"pCPU's check began")
        elif horizon > max_ticks:
            verdict = ProofVerdict.unknown(
                f"the horizon is {horizon} ticks of {pcpu.tick} ns, beyond the limit of "
                f"{max_ticks} (raise --max-ticks, or choose periods with a smaller hyperperiod)")
        else:
            where = None if save_to is None else Path(save_to) / f"pcpu{load.index}"
            with memory_ceiling(memory_mb), resource_limit(rlimit):
                verdict = check_hi_guarantee(pcpu, horizon, timeout, save_to=where,
                                             deadline=deadline)
        answers.append(PCPUCheck(load.index, scope, verdict, time.perf_counter() - start))
    return answers


def _reporter(progress: HostProgress, index: int) -> Callable[[str, int, int], None]:
    def report(stage: str, done: int, total: int) -> None:
        progress(index, stage, done, total)

    return report


def rejected_vms(placement: Placement) -> list[tuple[str, str]]:
    """The VMs first fit rejected, as ``(name, reason)``: they are in no pCPU's check."""
    return [(vm.vm.name, vm.reason or "rejected") for vm in placement.vms if not vm.admitted]


def status_of(answers: Sequence[PCPUCheck], rejected: Sequence[object] = ()) -> int:
    """Exit status: 1 any pCPU refuted or any VM *rejected*; else 3 any pCPU unknown;
    else 0 if some pCPU is proved; else :data:`EXIT_NOTHING` (4): nothing was proved
    because no pCPU holds a HI vCPU (or none holds a vCPU)."""
    verdicts = {a.verdict.verdict for a in answers}
    if REFUTED in verdicts or rejected:
        return 1
    if UNKNOWN in verdicts:
        return 3
    assert verdicts <= {PROVED, NOTHING}
    return 0 if PROVED in verdicts else EXIT_NOTHING

"""Checking a property of one pCPU's schedule over all behaviours in scope.

The pCPU is unrolled (:func:`akita.model.smt.pcpu.unroll`); a *violation*
formula is added; Z3 looks for a behaviour that satisfies it.  None (unsat)
means the property holds for every behaviour in scope; one (sat) is a
counterexample, read back in domain words and, on request, saved as a host
file plus workload traces that ``akita simulate`` replays.

A claim about one pCPU's schedule is declared with :func:`on_pcpu`, which
binds it to the pCPU and the horizon it is checked on; the scope the
manifest shows is written from the same two.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable, Sequence

import z3

from akita.model import format_duration
from akita.model.smt.named import solve
from akita.model.smt.pcpu import TickPCPU, Unrolling, unroll

from .limits import Deadline, LimitReached, explain_unknown, within
from .obligation import Declarations
from .replay import behaviour_of, phases_of, save_replay, schedule_of
from .verdict import ProofVerdict

__all__ = ["ScheduleClaim", "check_schedule", "describe", "on_pcpu", "phases_text", "scope_of"]

#: ``claim(pcpu, horizon, timeout) -> ProofVerdict``: a claim about one pCPU's schedule;
#: its docstring is the statement.
ScheduleClaim = Callable[[TickPCPU, int, float], ProofVerdict]


def phases_text(pcpu: TickPCPU) -> str:
    """The phases a check covers, in words: every phase, or the fixed ones."""
    fixed = [v.phase for v in pcpu.vcpus]
    if all(p is None for p in fixed):
        return "every phase of every VM (on the tick grid)"
    if all(p == 0 for p in fixed):
        return "synchronous phases (all 0)"
    return "phases " + ", ".join(
        f"{v.name} {'any' if v.phase is None else format_duration(v.phase * pcpu.tick)}"
        for v in pcpu.vcpus)


def scope_of(pcpu: TickPCPU, horizon: int) -> str:
    """The scope of a schedule check, in words."""
    names = ", ".join(v.name for v in pcpu.vcpus)
    count = f"{len(pcpu.vcpus)} vCPU" + ("" if len(pcpu.vcpus) == 1 else "s")
    ticks = f"{horizon} tick" + ("" if horizon == 1 else "s")
    return (f"{count} ({names}), {ticks} of {format_duration(pcpu.tick)} from an idle start "
            f"in LO mode, {phases_text(pcpu)}, a job of any demand up to its cap or none at "
            f"each period start")


def on_pcpu(declare: Declarations, pcpu: TickPCPU, horizon: int, *, rules: tuple[str, ...],
            timeout: float,
            controls: tuple[str, ...] = ()) -> Callable[[ScheduleClaim], ScheduleClaim]:
    """A decorator that declares a schedule claim (named as the function) in *declare*,
    checked on *pcpu* over *horizon* ticks, with the scope :func:`scope_of` them."""

    def declared(claim: ScheduleClaim) -> ScheduleClaim:
        @functools.wraps(claim)
        def check(seconds: float) -> ProofVerdict:
            return claim(pcpu, horizon, seconds)

        declare.add(claim.__name__, check, scope_of(pcpu, horizon), rules=rules,
                    timeout=timeout, controls=controls)
        return claim

    return declared


def check_schedule(
    pcpu: TickPCPU,
    horizon: int,
    violation: Callable[[Unrolling], z3.BoolRef],
    *,
    timeout: float,
    what: str,
    caps: Sequence[int] | None = None,
    save_to: str | Path | None = None,
    deadline: Deadline | None = None,
    anchored: bool = False,
) -> ProofVerdict:
    """Whether some behaviour of *pcpu* within *horizon* ticks satisfies *violation*.

    *timeout* bounds the whole check, building the encoding included: the
    unrolling stops once it has passed, and Z3 gets only the seconds left
    (:mod:`akita.proofs.limits`).  A *deadline* set earlier (e.g. when a host check
    started on this pCPU) takes the place of *timeout*.  A limit reached
    answers ``unknown`` with the limit and where it was reached.  *anchored*
    (:func:`akita.model.smt.pcpu.unroll`) is for a violation that a shift in
    time preserves.
    """
    deadline = deadline if deadline is not None else Deadline(timeout)
    try:
        unrolling = unroll(pcpu, horizon, caps=caps, anchored=anchored, watch=deadline.watch)
        unrolling.constraints.add(f"violation: {what}", violation(unrolling))
        if deadline.passed():
            return ProofVerdict.unknown(
                f"wall-clock guard {deadline.seconds:g} s reached after building the encoding "
                f"of {horizon} ticks, before solving")
        deadline.solving()
        return within(deadline, lambda: _search(unrolling, what, deadline, save_to))
    except LimitReached as limit:
        return ProofVerdict.unknown(str(limit))
    except z3.Z3Exception as error:  # e.g. the memory ceiling, reached while building
        return ProofVerdict.unknown(explain_unknown(error, deadline, "building the encoding"))


def _search(unrolling: Unrolling, what: str, deadline: Deadline,
            save_to: str | Path | None) -> ProofVerdict:
    """Z3's search for a violation, within what is left of *deadline*, read back as a
    verdict (run in a child process by :func:`.limits.within`)."""
    try:
        answer = solve(unrolling.constraints, timeout=deadline.left())
    except z3.Z3Exception as error:  # the memory ceiling, reached while solving
        return ProofVerdict.unknown(explain_unknown(error, deadline))
    if answer.status == "unsat":
        return ProofVerdict.proved(f"no behaviour in scope where {what}")
    if answer.status == "unknown":
        return ProofVerdict.unknown(explain_unknown(answer.reason, deadline))
    example = describe(unrolling, answer.model, what)
    if save_to is not None:
        example["replay"] = str(save_replay(unrolling.pcpu, behaviour_of(unrolling, answer.model),
                                            save_to, phases_of(unrolling, answer.model)))
    return ProofVerdict.refuted(example, example["text"])


def describe(unrolling: Unrolling, model: z3.ModelRef, what: str) -> dict[str, Any]:
    """A counterexample in domain words: the phases, the jobs, the misses, the schedule."""
    pcpu = unrolling.pcpu
    tick = pcpu.tick
    vcpus = pcpu.vcpus
    phases = phases_of(unrolling, model)
    behaviour = behaviour_of(unrolling, model)

    def start(i: int, k: int) -> int:
        return (phases[i] + k * vcpus[i].period) * tick

    jobs: list[dict[str, Any]] = [
        {"vcpu": vcpus[i].name, "period": k, "release_ns": start(i, k), "demand_ns": demand * tick}
        for (i, k), demand in sorted(behaviour.items(), key=lambda e: (start(*e[0]), e[0][0]))
        if demand > 0
    ]
    misses: list[dict[str, Any]] = [
        {"vcpu": vcpus[i].name, "period": k, "deadline_ns": start(i, k + 1)}
        for (i, k), short in sorted(unrolling.misses.items())
        if z3.is_true(model.eval(short, model_completion=True))
    ]
    runs: list[list[Any]] = []
    for t, name in enumerate(schedule_of(unrolling, model)):
        if runs and runs[-1][2] == name:
            runs[-1][1] = (t + 1) * tick
        else:
            runs.append([t * tick, (t + 1) * tick, name])
    phase_text = ", ".join(f"{v.name} {format_duration(phases[i] * tick)}"
                           for i, v in enumerate(vcpus))
    job_text = "; ".join(
        f"{j['vcpu']} {format_duration(j['demand_ns'])} at {format_duration(j['release_ns'])}"
        for j in jobs) or "none"
    miss_text = "; ".join(
        f"{m['vcpu']} is served less than it is owed in period {m['period']} "
        f"(deadline {format_duration(m['deadline_ns'])})" for m in misses)
    text = f"{what}: {miss_text or 'see schedule'}; phases: {phase_text}; jobs: {job_text}"
    return {"text": text, "tick_ns": tick, "horizon_ns": unrolling.horizon * tick,
            "phases": {v.name: phases[i] * tick for i, v in enumerate(vcpus)},
            "jobs": jobs, "misses": misses,
            "schedule": [{"from_ns": a, "to_ns": b, "vcpu": name} for a, b, name in runs]}

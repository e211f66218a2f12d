"""Findings: a disallowed state of a pCPU, in domain words, before it becomes a violation.

The oracle (:mod:`akita.oracle.oracle`) opens a :class:`Finding` when a
pCPU's running vCPU, mode or a reported temperature is not what the rules
allow; a finding still open after the tolerance is reported as a
:class:`~akita.oracle.violation.Violation`.  The functions here name the
rule and say what happened: an idle pCPU is R7, a blocked vCPU kept is R10,
a budget overrun is R3 (before R10, so that an overrun at a decision point
is named for the budget), a tie broken against the host's ``queue_order``
is R4 in whichever tier (the queue order of equal keys is R4's decision,
:doc:`/rules`), a decision point passed without a decision is R10, and
otherwise the rule that chose what was allowed (R4, R6 or R7).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from akita.model import format_duration

from .shadow import ShadowCPU, ShadowVCPU

__all__ = ["Finding", "ns", "mode_finding", "temperature_finding", "dispatch_finding"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R3": ("dispatch_finding",),
    "R4": ("dispatch_finding",),
    "R5": ("mode_finding", "temperature_finding"),
    "R6": ("dispatch_finding",),
    "R7": ("dispatch_finding",),
    "R8": ("temperature_finding",),
    "R9": ("mode_finding",),
    "R10": ("dispatch_finding",),
}


def ns(value: int | Fraction) -> str:
    """A time for people: ``"2ms"``, or an exact ``"300000000/13ns"``."""
    if isinstance(value, int) or value.denominator == 1:
        return format_duration(int(value))
    return f"{value}ns"


class Finding:
    """A disallowed state since *since*: the rule, what was allowed, what was done.

    While it stays open the disallowed state may change -- a pCPU idles while
    a vCPU is runnable (R7), then runs the wrong one (R4) -- and each change
    starts a new *part* (:meth:`turn`).  It is reported as its longest part
    (:meth:`longest`): the deviation that lasted longest in its window, from
    when that part began, not whatever its first instant showed.
    """

    __slots__ = ("since", "rule", "allowed", "did", "text", "reported", "evidence", "_part",
                 "_best", "_best_ns")

    def __init__(self, since: int, rule: str, allowed: tuple[str, ...], did: str, text: str):
        self.since, self.rule, self.allowed, self.did, self.text = since, rule, allowed, did, text
        self.reported = False
        #: the trace that led up to it, its last line and that line's position
        #: (set by the oracle when it opens the finding).
        self.evidence: tuple[tuple[dict[str, Any], ...], int | None, int] = ((), None, 0)
        self._part: Finding = self  # the deviation now
        self._best: Finding = self  # the longest part that has ended, and how long it lasted
        self._best_ns = -1

    def turn(self, now: Finding) -> bool:
        """The disallowed state is *now* from ``now.since`` on; whether it is a new part
        (another rule, another vCPU run, or other vCPUs allowed)."""
        part = self._part
        if (now.rule, now.did, now.allowed) == (part.rule, part.did, part.allowed):
            return False
        self._end(now.since)
        self._part = now
        return True

    def longest(self, t: int) -> Finding:
        """The part that lasted longest up to *t* (the earliest of equals)."""
        self._end(t)
        return self._best

    def _end(self, t: int) -> None:
        part = self._part
        if t - part.since > self._best_ns:
            self._best, self._best_ns = part, t - part.since


def mode_finding(cpu: ShadowCPU, t: int) -> Finding:
    """The claimed mode is not the one the rules require (R5 or R9)."""
    want, did = ("HI", "LO") if cpu.rules_hi else ("LO", "HI")
    if cpu.claimed_changed >= cpu.rules_changed:
        if cpu.claimed_hi:
            rule, text = "R5", "switched to HI mode with no HI vCPU having consumed C_opt"
        else:
            warm = ", ".join(f"{v.name} at {v.temperature}" for v in cpu.vcpus
                             if v.hi and v.temperature > 0)
            rule, text = "R9", f"returned to LO mode while HI vCPUs are warm ({warm})"
    elif cpu.rules_hi:
        rule, text = "R5", "stayed in LO mode after a running HI vCPU consumed C_opt"
    else:
        rule, text = "R9", "stayed in HI mode after every HI vCPU cooled to 0"
    return Finding(t, rule, (want,), did, f"pCPU {cpu.index} {text} at {ns(t)}")


def temperature_finding(v: ShadowVCPU, t: int, initial: int) -> Finding:
    """A reported temperature is not the rules' (R5 when it should have been set, else R8)."""
    rule = "R5" if v.temperature == initial and v.asked else "R8"
    return Finding(t, rule, (str(v.temperature),), str(v.claimed_temperature),
                   f"{v.name} has temperature {v.claimed_temperature} at {ns(t)}; "
                   f"the rules give {v.temperature}")


def dispatch_finding(cpu: ShadowCPU, t: int, options: list[ShadowVCPU], rule: str,
                     dispatched: bool, was_allowed: bool, tie: str | None = None) -> Finding:
    """The pCPU runs what the rules do not allow (*options*, chosen by *rule*).

    *tie*: the host's ``queue_order`` when the running vCPU's key equals the
    allowed one's in the same tier -- only the tie-break was broken.
    """
    running = cpu.running
    mode = "HI" if cpu.claimed_hi else "LO"
    names = tuple(v.name for v in options) or ("idle",)
    did = running.name if running is not None else "idle"
    want = " or ".join(f"{v.name} ({why(cpu, v)})" for v in options) or "idle"
    if running is None:
        rule, text = "R7", f"idled while {want} was runnable"
    elif not running.runnable:
        rule, text = "R10", f"kept {running.name} after it blocked; the rules run {want}"
    elif cpu.ran_out is running and options and options[0].budget > 0:
        rule, text = "R3", f"ran {running.name} past its budget while {want} waited"
    elif tie is not None:
        want = " or ".join(f"{v.name} ({why(cpu, v, tie)})" for v in options)
        rule, text = "R4", (f"broke a tie against the {tie} queue order: ran {running.name} "
                            f"({why(cpu, running, tie)}) before {want}")
    elif not dispatched and was_allowed:
        rule, text = "R10", (f"did not decide again: kept {running.name} "
                             f"({why(cpu, running)}) while the rules run {want}")
    else:
        text = f"ran {running.name} ({why(cpu, running)}); the rules run {want}"
    return Finding(t, rule, names, did, f"pCPU {cpu.index} in {mode} mode {text} at {ns(t)}")


def why(cpu: ShadowCPU, v: ShadowVCPU, tie: str | None = None) -> str:
    """What a vCPU was ordered by, for people (with its place among equals, for a tie)."""
    if v.budget <= 0:
        text = f"inactive, deadline {ns(v.deadline)}"
    elif cpu.claimed_hi or not v.hi:
        text = f"{'HI' if v.hi else 'LO'}, deadline {ns(v.deadline)}"
    else:
        text = f"HI, virtual deadline {ns(v.key)}"
    if tie == "fifo":
        return f"{text}, inserted at {ns(v.ins)}"
    return text

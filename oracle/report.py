"""Running the oracle over a whole trace, and what it concluded.

:func:`conform` feeds every event of a trace to an :class:`~akita.oracle.oracle.Oracle`
and returns a :class:`ConformanceReport`: a verdict, never a boolean --
``"conformant"``, ``"violations"`` or ``"nothing to check"`` -- with the
counts behind it (decisions judged, vCPUs seen of those declared, the span)
and the first violations in domain words, in the order they began.

A trace in which the oracle judged no decision (no ``dispatch`` or
``idle``) is *nothing to check*, never conformant: there was nothing it
could have found wrong.  An event the oracle cannot read raises
:class:`~.errors.TraceError` located at its line.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

import attrs
from akita.model import Host, format_duration
from akita.reference.trace import TraceError

from .oracle import DECISIONS, Oracle
from .violation import Violation

__all__ = ["ConformanceReport", "conform", "CONFORMANT", "VIOLATIONS", "NOTHING"]

CONFORMANT, VIOLATIONS, NOTHING = "conformant", "violations", "nothing to check"


@attrs.frozen
class ConformanceReport:
    """What the oracle found in one trace."""

    verdict: str
    events: int
    decisions: int
    ambiguous: int
    checks: int
    end: int
    tolerance: int
    ties: str
    reports: tuple[str, ...]
    counts: dict[str, int]
    violations: tuple[Violation, ...]
    policy: str = "akita"
    #: the time of the first event (``None``: no event).
    start: int | None = None
    #: the vCPUs the trace names, and the vCPUs the host declares.
    vcpus_seen: int = 0
    vcpus_declared: int = 0
    #: every admitted VM's phase (ns) the periods were judged on, and its source
    #: (:data:`~.phases.PHASE_SOURCES`).
    phases: dict[str, int] = attrs.Factory(dict)
    phase_source: str = "host file"

    @property
    def total(self) -> int:
        """How many violations were found (more than :attr:`violations` may keep)."""
        return sum(self.counts.values())

    def unchecked(self) -> list[str]:
        """What this trace did not let the oracle judge."""
        missing = []
        if "mode" not in self.reports:
            missing.append("mode switches (taken to be where the rules put them)")
        if "temperature" not in self.reports:
            missing.append("temperatures")
        if "release" not in self.reports:
            missing.append("the period starts the implementation reports")
        return missing

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict, "policy": self.policy, "events": self.events,
            "decisions": self.decisions,
            "ambiguous": self.ambiguous, "checks": self.checks,
            "start_ns": self.start, "end_ns": self.end,
            "vcpus_seen": self.vcpus_seen, "vcpus_declared": self.vcpus_declared,
            "tolerance_ns": self.tolerance, "ties": self.ties, "reports": list(self.reports),
            "phases_ns": dict(self.phases), "phases_from": self.phase_source,
            "violations_total": self.total,
            "counts": {rule: self.counts[rule] for rule in sorted(self.counts, key=_rule_order)},
            "violations": [v.as_json() for v in self.violations],
            "unchecked": self.unchecked(),
        }

    def checked(self) -> str:
        """What was checked, for people: decisions judged, vCPUs seen, the span."""
        span = ("no event" if self.start is None else
                f"t = {format_duration(self.start)} to {format_duration(self.end)}")
        return (f"{_count(self.decisions, 'decision')} judged "
                f"({_count(self.events, 'event')}, {span}); "
                f"{self.vcpus_seen} of {_count(self.vcpus_declared, 'vCPU')} seen")

    def summary(self) -> str:
        """One line for people."""
        if self.verdict == NOTHING:
            return f"nothing to check: {self.checked()}"
        if self.verdict == CONFORMANT:
            return (f"conformant: {self.checked()}; "
                    f"{_count(self.ambiguous, 'tie')} accepted")
        counts = ", ".join(f"{rule} x{self.counts[rule]}"
                           for rule in sorted(self.counts, key=_rule_order))
        return f"{_count(self.total, 'violation')} ({counts}): {self.checked()}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _rule_order(rule: str) -> int:
    return int(rule[1:])


def conform(host: Host, events: Iterable[dict[str, Any]], *, end: int | None = None,
            tolerance: int = 0, ties: str = "any", reports: Iterable[str] = DECISIONS,
            keep: int = 10, window: int = 8, path: str = "<trace>",
            progress: Callable[[int], None] | None = None,
            policy: str = "akita", phases: Mapping[str, int] | None = None) -> ConformanceReport:
    """Check every event of a trace of *host*; events may carry their ``line``.

    :param end: the end of the traced span (a JSONL header's
        ``duration_ns``); obligations still open then are judged at it.
    :param progress: called with the number of events read, every 65,536.
    :param phases: the phases the trace claims (a JSONL header's,
        :func:`~akita.oracle.phases.trace_phases`), merged with the host's declarations.
    :raises PhaseError: before any event is read, when a VM's phase is
        unknown or claimed other than declared (:mod:`akita.oracle.phases`).
    """
    try:
        oracle = Oracle(host, tolerance=tolerance, ties=ties, reports=reports, keep=keep,
                        window=window, policy=policy, phases=phases)
    except TraceError as error:
        raise error.located(path=path) from None
    count = 0
    for event in events:
        try:
            oracle.feed(event)
        except TraceError as error:
            line = event.get("line") if isinstance(event, dict) else None
            raise error.located(path=path if line is None else f"{path}:{line}") from None
        count += 1
        if progress is not None and count % 65536 == 0:
            progress(count)
    try:
        oracle.close(end)
    except TraceError as error:
        raise error.located(path=path) from None
    verdict = VIOLATIONS if oracle.counts else CONFORMANT if oracle.decisions else NOTHING
    return ConformanceReport(
        verdict=verdict, events=oracle.events,
        decisions=oracle.decisions, ambiguous=oracle.ambiguous, checks=oracle.checks,
        end=oracle.end, tolerance=tolerance, ties=ties, reports=tuple(sorted(oracle.reports)),
        counts=dict(oracle.counts), violations=tuple(oracle.violations), policy=policy,
        start=oracle.start, vcpus_seen=len(oracle.seen),
        vcpus_declared=len(oracle.vcpus) + len(oracle.rejected),
        phases=dict(oracle.phases), phase_source=oracle.phase_source)


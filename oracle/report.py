"""Running the oracle over a whole trace, and what it concluded.

:func:`conform` feeds every event of a trace to an :class:`~akita.oracle.oracle.Oracle`
and returns a :class:`ConformanceReport`: a verdict, never a boolean --
``"conformant"``, ``"violations"``, ``"unconfirmed"`` or ``"nothing to
check"`` -- with the counts behind it (decisions judged, vCPUs seen of those
declared, the span) and the first violations in domain words, in the order
they began.

A trace in which the oracle judged no decision (no ``dispatch`` or
``idle``) is *nothing to check*, never conformant: there was nothing it
could have found wrong.  A trace with no violation shown but findings
withheld because holes in it explain them (lost events,
:mod:`akita.oracle.oracle`) is *unconfirmed*, never conformant either: what
was withheld may have been a real violation, and the trace cannot say.  An
event the oracle cannot read raises :class:`~.errors.TraceError` located at
its line.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Callable, Iterable, Mapping, TextIO

import attrs
from akita.model import Host, format_duration
from akita.trace.jsonl import TraceError
from akita.trace.timeline import Timeline

from .options import ConformOptions
from .oracle import Oracle
from .placement import look_ahead, trace_placement
from .violation import Violation

__all__ = ["ConformanceReport", "conform", "CONFORMANT", "VIOLATIONS", "UNCONFIRMED", "NOTHING"]

CONFORMANT, VIOLATIONS, NOTHING = "conformant", "violations", "nothing to check"
UNCONFIRMED = "unconfirmed"


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
    #: the violation of each rule that began first, by rule.
    first_of_each_rule: dict[str, Violation] = attrs.Factory(dict)
    #: where each vCPU's pCPU came from (:mod:`akita.oracle.placement`).
    placement: str = "first-fit"
    #: where the tolerance came from: ``"given"`` or a default (:mod:`.tolerance`).
    tolerance_source: str = "given"
    #: deviations the tolerance accepted, by rule: ``(count, largest in ns)``.
    tolerated: dict[str, tuple[int, int]] = attrs.Factory(dict)
    #: the VMs of the host that declare an IO quality (R14, :mod:`akita.model.ioq`).
    ioq_vms: tuple[str, ...] = ()
    #: holes in the trace's records (``lost`` events, :mod:`akita.trace.kernel`), the first of them
    #: with their instants, and the violations they explain, withheld, by rule.
    lost: int = 0
    lost_at: tuple[dict[str, Any], ...] = ()
    #: of the holes, those whose CPU's last written switch went to idle (a switch out of
    #: idle not written: :doc:`/linux`, "Idle exits").
    lost_after_idle: int = 0
    withheld: dict[str, int] = attrs.Factory(dict)
    #: the capture's own lost-events records, and the records they say were lost
    #: (known counts summed).
    capture_lost_marks: int = 0
    capture_lost_records: int = 0
    #: records the capture's buffer overwrote before its first (its own counters).
    capture_overwritten: int = 0
    #: each vCPU's budget account as the oracle kept it (:mod:`akita.oracle.budgets`).
    budgets: dict[str, Any] = attrs.Factory(dict)

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
        if self.placement == "trace":
            missing.append("placement by first fit (R12: each vCPU's pCPU was taken from "
                           "the trace; migrations are still checked)")
        if self.ioq_vms:
            missing.append("IO quality (R14) of " + ", ".join(self.ioq_vms) + ": a CPU access "
                           "latency starts at a request's arrival, which a scheduler trace "
                           "does not carry; the placement that holds each IOQ is checked "
                           "as R12" + (" only under first-fit placement"
                                       if self.placement == "trace" else ""))
        return missing

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict, "policy": self.policy, "events": self.events,
            "decisions": self.decisions,
            "ambiguous": self.ambiguous, "checks": self.checks,
            "start_ns": self.start, "end_ns": self.end,
            "vcpus_seen": self.vcpus_seen, "vcpus_declared": self.vcpus_declared,
            "placement": self.placement,
            "tolerance_ns": self.tolerance, "tolerance_from": self.tolerance_source,
            "within_tolerance": {rule: {"count": n, "max_ns": most} for rule, (n, most)
                                 in sorted(self.tolerated.items(), key=lambda i: _rule_order(i[0]))},
            "ties": self.ties, "reports": list(self.reports),
            "phases_ns": dict(self.phases), "phases_from": self.phase_source,
            "violations_total": self.total,
            "counts": {rule: self.counts[rule] for rule in sorted(self.counts, key=_rule_order)},
            "violations": [v.as_json() for v in self.violations],
            "first_of_each_rule": {rule: self.first_of_each_rule[rule].as_json()
                                   for rule in sorted(self.first_of_each_rule, key=_rule_order)},
            "lost_events": {
                "count": self.lost, "after_idle": self.lost_after_idle,
                "instants": [dict(item) for item in self.lost_at],
                "withheld": {rule: self.withheld[rule]
                             for rule in sorted(self.withheld, key=_rule_order)},
                "capture_marks": self.capture_lost_marks,
                "capture_records_lost": self.capture_lost_records,
                "capture_overwritten": self.capture_overwritten,
            },
            "unchecked": self.unchecked(),
            "budgets": self.budgets,
        }

    def overruns(self) -> list[str]:
        """One sentence per vCPU whose demand exceeded its budget in some period, and per
        pCPU held in HI mode by a HI vCPU past ``C_pes``, for people."""
        lines = []
        span = self.end - (self.start or 0)
        vcpus = self.budgets.get("vcpus", {})
        for name, a in vcpus.items():
            if a["overrun_periods"]:
                share = f"{a['past_budget_ns'] / span:.2%}" if span > 0 else "-"
                lines.append(f"{name} used its whole budget and still held work in "
                             f"{a['overrun_periods']} periods; it ran {share} of the span past "
                             f"its budget, {format_duration(a['ahead_of_budget_ns'])} of it ahead "
                             "of another vCPU's budget")
            if a["kept_from_budget_ns"]:
                lines.append(f"{name} held work and budget while a vCPU past its budget ran, "
                             f"for {format_duration(a['kept_from_budget_ns'])}")
        for cpu, names in self.budgets.get("held_in_hi_by", {}).items():
            shares = ", ".join(f"{n} {a['ran_ns'] / span:.2%}" for n, a in vcpus.items()
                               if n not in names and str(a["cpu"]) == cpu) if span > 0 else ""
            lines.append(f"pCPU {cpu} was held in HI mode by {', '.join(names)} past C_pes"
                         + (f"; the other vCPUs' shares of the span there: {shares}" if shares else ""))
        return lines

    def checked(self) -> str:
        """What was checked, for people: decisions judged, vCPUs seen, the span."""
        span = ("no event" if self.start is None else
                f"t = {format_duration(self.start)} to {format_duration(self.end)}")
        return (f"{_count(self.decisions, 'decision')} judged "
                f"({_count(self.events, 'event')}, {span}); "
                f"{self.vcpus_seen} of {_count(self.vcpus_declared, 'vCPU')} seen")

    def tolerance_text(self) -> str:
        """The tolerance and what it accepted, for people."""
        text = f"tolerance {format_duration(self.tolerance)} ({self.tolerance_source})"
        if not self.tolerated:
            return text + ", nothing within it"
        parts = ", ".join(f"{rule} x{n} (up to {format_duration(most)})" for rule, (n, most)
                          in sorted(self.tolerated.items(), key=lambda i: _rule_order(i[0])))
        return f"{text}; within it: {parts}"

    def lost_text(self) -> str:
        """The holes in the trace and what they withheld, for people ("" if none)."""
        over = (f"the capture's buffer overwrote {self.capture_overwritten} records before "
                "its first" if self.capture_overwritten else "")
        if not self.lost and not self.capture_lost_marks:
            return over
        if over:
            over = f"; {over}"
        text = f"{_count(self.lost, 'lost event')} (switches not written"
        if self.lost_after_idle:
            text += f", {self.lost_after_idle} of them out of idle"
        if self.capture_lost_marks:
            text += (f"; the capture says {self.capture_lost_records or 'some'} records were "
                     f"lost at {_count(self.capture_lost_marks, 'place')}")
        shown = ", ".join(f"{format_duration(item['t'])} on pCPU {item['cpu']}"
                          for item in self.lost_at[:5])
        if shown:
            text += f"; at {shown}" + (" ..." if self.lost > 5 else "")
        withheld = ", ".join(f"{rule} x{self.withheld[rule]}"
                             for rule in sorted(self.withheld, key=_rule_order))
        return text + f"); findings withheld: {withheld or 'none'}{over}"

    def summary(self) -> str:
        """One line for people."""
        lost = self.lost_text()
        lost = f"; {lost}" if lost else ""
        if self.verdict == NOTHING:
            return f"nothing to check: {self.checked()}{lost}"
        if self.verdict == CONFORMANT:
            return (f"conformant: {self.checked()}; "
                    f"{_count(self.ambiguous, 'tie')} accepted; {self.tolerance_text()}{lost}")
        if self.verdict == UNCONFIRMED:
            return (f"unconfirmed: no violation shown, but holes in the trace withheld "
                    f"{_count(sum(self.withheld.values()), 'finding')}: {self.checked()}; "
                    f"{self.tolerance_text()}{lost}")
        counts = ", ".join(f"{rule} x{self.counts[rule]}"
                           for rule in sorted(self.counts, key=_rule_order))
        return (f"{_count(self.total, 'violation')} ({counts}): {self.checked()}; "
                f"{self.tolerance_text()}{lost}")


def _verdict(oracle: Oracle) -> str:
    """Violations shown; else withheld findings; else decisions judged; else nothing."""
    if oracle.counts:
        return VIOLATIONS
    if not oracle.decisions:
        return NOTHING
    return UNCONFIRMED if any(oracle.withheld.values()) else CONFORMANT


#: The most violations a timeline marks.
TIMELINE_MARKS = 10_000


class _Marks:
    """The timeline of a conformance check, if one is asked for: events and violations."""

    def __init__(self, out: TextIO | None, pcpus: int, path: str) -> None:
        self._timeline = None if out is None else Timeline(out, pcpus, partial=True)
        self._path = path
        self._marked = 0
        self._unmarked = 0

    def draw(self, event: dict[str, Any]) -> None:
        if self._timeline is not None:
            line = event.get("line")
            self._timeline.draw(event, self._path if line is None else f"{self._path}:{line}",
                                event["t"])

    def add(self, violations: Iterable[Violation]) -> None:
        if self._timeline is None:
            return
        for v in violations:
            if self._marked >= TIMELINE_MARKS:
                self._unmarked += 1
                continue
            self._marked += 1
            self._timeline.mark(f"{v.rule} violation", v.cpu, v.t, "violation",
                                {"rule": v.rule, "finding": v.text, "allowed": list(v.allowed),
                                 "did": v.did, "line": v.line})

    def end(self, t: int) -> None:
        if self._timeline is not None:
            self._timeline.end(t, {"violations_marked": self._marked,
                                   "violations_not_marked": self._unmarked})


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _rule_order(rule: str) -> int:
    return int(rule[1:])


def conform(host: Host, events: Iterable[dict[str, Any]],
            options: ConformOptions | None = None, *, path: str = "<trace>",
            progress: Callable[[int], None] | None = None,
            phases: Mapping[str, int] | None = None, tolerance_source: str = "given",
            tick_ns: int | None = None, timeline: TextIO | None = None, unit: str = "line",
            resync: bool = False, **keywords: Any) -> ConformanceReport:
    """Check every event of a trace of *host*; events may carry their ``line``.

    :param options: what is checked (:class:`~.options.ConformOptions`; or the
        keywords that make them).  Of its fields this uses ``end`` (the end of
        the traced span, a JSONL header's ``duration_ns``: obligations still
        open then are judged at it), ``placement`` (``"first-fit"`` judges R12
        against first fit; ``"trace"`` takes each vCPU's pCPU from its first
        event, :mod:`akita.oracle.placement`) and what the
        :class:`~.oracle.Oracle` uses; the trace's format and reader options
        are :func:`~.files.conform_stream`'s.
    :param progress: called with the number of events read, every 65,536.
    :param phases: the phases the trace claims (a JSONL header's,
        :func:`~akita.oracle.phases.trace_phases`), merged with the host's declarations.
    :param timeline: if given, the trace is written to it as a Perfetto timeline
        (:class:`akita.trace.timeline.Timeline`) with every violation marked
        at the instant it began on its pCPU's track (the first
        :data:`TIMELINE_MARKS`; the rest are counted in ``otherData``).
    :param unit: what an event's ``line`` counts: ``"line"`` (a text trace's
        line, errors located ``FILE:LINE``) or ``"event"`` (a binary trace's
        event ordinal, errors located ``FILE (event N)``).
    :param resync: hold violations until confirmed and withhold those that ``lost``
        events explain (kernel traces; :class:`~.oracle.Oracle`).
    :raises PhaseError: before any event is read, when a VM's phase is
        unknown or claimed other than declared (:mod:`akita.oracle.phases`).
    """
    try:
        options = ConformOptions.of(options, keywords)
    except TraceError as error:
        raise error.located(path=path) from None
    placement = options.placement
    stream = iter(events)
    given = None
    if placement == "trace":
        names = frozenset(v.name for vm in host.vms for v in vm.all_vcpus())
        head, first = look_ahead(stream, names)
        given = trace_placement(host, first)
        stream = chain(head, stream)
    try:
        oracle = Oracle(host, options, phases=phases, placement=given, resync=resync,
                        tick_ns=tick_ns)
    except TraceError as error:
        raise error.located(path=path) from None
    marks = _Marks(timeline, host.pcpus, path)
    count = 0
    for event in stream:
        try:
            marks.add(oracle.feed(event))
        except TraceError as error:
            line = event.get("line") if isinstance(event, dict) else None
            where = (path if line is None else f"{path}:{line}" if unit == "line"
                     else f"{path} (event {line})")
            raise error.located(path=where) from None
        marks.draw(event)
        count += 1
        if progress is not None and count % 65536 == 0:
            progress(count)
    try:
        marks.add(oracle.close(options.end))
    except TraceError as error:
        raise error.located(path=path) from None
    marks.end(oracle.end)
    verdict = _verdict(oracle)
    return ConformanceReport(
        verdict=verdict, events=oracle.events,
        decisions=oracle.decisions, ambiguous=oracle.ambiguous, checks=oracle.checks,
        end=oracle.end, tolerance=oracle.tolerance, ties=options.ties,
        reports=tuple(sorted(oracle.reports)), counts=dict(oracle.counts),
        violations=tuple(oracle.violations), policy=oracle.policy,
        start=oracle.start, vcpus_seen=len(oracle.seen),
        vcpus_declared=len(oracle.vcpus) + len(oracle.rejected),
        phases=dict(oracle.phases), phase_source=oracle.phase_source,
        tolerance_source=tolerance_source, placement=placement,
        first_of_each_rule=oracle.first_of_each_rule,
        tolerated={rule: (n, oracle.tolerated_max[rule]) for rule, n in oracle.tolerated.items()},
        ioq_vms=tuple(vm.name for vm in host.vms if vm.ioq is not None),
        lost=oracle.lost, lost_at=tuple(oracle.lost_at), withheld=dict(oracle.withheld),
        lost_after_idle=oracle.lost_after_idle,
        budgets=oracle.budgets.as_json())


"""Mutation analysis: does the oracle name the rule each wrong scheduler breaks?

For each host, the reference ``akita`` policy and every mutant
(:mod:`akita.reference.mutants`) are simulated with the same seed; the
oracle checks each trace.  A mutant whose trace equals the reference's on a
host cannot be told apart there and is not counted for it.  A mutant is
*killed* when, on some host, the oracle reports a violation of the rule the
mutant breaks; the *mutation score* is the share of mutants killed.  The
reference must pass on every host: a violation there is a false alarm and
fails the analysis.

A trace is judged by default as the oracle judges a JSON Lines trace that
records the decision kinds *reports*; a *check* hook may judge it otherwise,
for instance rendered in a kernel trace format and read back through
:func:`akita.oracle.files.conform_stream`
(``tests/oracle/test_mutants_kernel_formats.py``).
"""

from __future__ import annotations

import io
from collections import Counter
from functools import partial
from typing import Any, Callable, Iterable

import attrs
from akita.model import Host, first_fit
from akita.reference.mutants import MUTANTS, Mutant, simulate_mutant
from akita.reference.policies import AkitaPolicy
from akita.reference.simulator import Simulator
from akita.trace.jsonl import read_trace

from .oracle import DECISIONS
from .phases import trace_phases
from .report import ConformanceReport, conform

__all__ = ["Check", "MutantScore", "MutationReport", "score_mutants", "strip"]

#: How a trace is judged: ``check(host, lines)`` for the JSON Lines *lines* (header first).
Check = Callable[[Host, list[str]], ConformanceReport]


@attrs.define
class MutantScore:
    """How the oracle fared against one mutant.

    :ivar diverged: hosts on which its trace differs from the reference's.
    :ivar flagged: of those, hosts on which the oracle found a violation.
    :ivar named: hosts on which one of them is of the mutant's rule.
    :ivar first: rule -> hosts on which it was the first violation's.
    :ivar rules: rule -> hosts on which the oracle reported it at all.
    """

    name: str
    rule: str
    diverged: int = 0
    flagged: int = 0
    named: int = 0
    first: Counter[str] = attrs.Factory(Counter)
    rules: Counter[str] = attrs.Factory(Counter)

    @property
    def killed(self) -> bool:
        return self.named > 0

    def as_json(self) -> dict[str, Any]:
        return {"mutant": self.name, "rule": self.rule, "diverged": self.diverged,
                "flagged": self.flagged, "named": self.named, "killed": self.killed,
                "first_rules": dict(sorted(self.first.items())),
                "rules": dict(sorted(self.rules.items()))}


@attrs.define
class MutationReport:
    """The reference's record and every mutant's score over the same hosts."""

    hosts: int = 0
    reference_passed: int = 0
    false_alarms: list[dict[str, Any]] = attrs.Factory(list)
    mutants: list[MutantScore] = attrs.Factory(list)

    @property
    def score(self) -> tuple[int, int]:
        """(mutants killed, mutants)."""
        return sum(m.killed for m in self.mutants), len(self.mutants)

    def as_json(self) -> dict[str, Any]:
        killed, total = self.score
        return {"hosts": self.hosts, "reference_passed": self.reference_passed,
                "false_alarms": self.false_alarms, "killed": killed, "mutants_total": total,
                "mutants": [m.as_json() for m in self.mutants]}


def strip(lines: list[str], reports: frozenset[str]) -> list[str]:
    """A JSONL trace without the decision kinds an implementation does not report."""
    dropped = DECISIONS - reports
    if not dropped:
        return lines
    _, events = read_trace(lines)
    return [lines[0]] + [lines[e["line"] - 1] for e in events if e["event"] not in dropped]


def _trace(host: Host, seed: int, duration: int, mutant: Mutant | None) -> list[str]:
    out = io.StringIO()
    if mutant is None:
        Simulator(host, first_fit(host), AkitaPolicy(), duration=duration, seed=seed,
                  trace=out).run()
    else:
        simulate_mutant(host, mutant, duration=duration, seed=seed, trace=out)
    return out.getvalue().splitlines()


def _check(host: Host, lines: list[str], ties: str, reports: frozenset[str]) -> ConformanceReport:
    header, events = read_trace(strip(lines, reports))
    return conform(host, events, end=header["duration_ns"], ties=ties, reports=reports, keep=1000,
                   phases=trace_phases(header, host))


def score_mutants(cases: Iterable[tuple[Host, int]], *, duration: int, ties: str = "any",
                  reports: Iterable[str] = DECISIONS, mutants: Iterable[Mutant] = MUTANTS,
                  progress: Callable[[int], None] | None = None,
                  check: Check | None = None) -> MutationReport:
    """Run the reference and *mutants* on each (host, seed) of *cases* and score the oracle.

    :param ties: ``"any"`` or ``"strict"``, as :class:`~.oracle.Oracle` takes it.
    :param reports: the decision kinds the traces are taken to record (the
        others are stripped before the check).
    :param progress: called with the number of hosts done, after each.
    :param check: how each trace is judged (default: the oracle on the JSON
        Lines trace cut down to *reports*, with *ties*); *ties* and *reports*
        are then the hook's own business and are not used.
    """
    reports = frozenset(reports)
    mutants = list(mutants)
    judge: Check = check if check is not None else partial(_check, ties=ties, reports=reports)
    result = MutationReport(mutants=[MutantScore(m.name, m.rule) for m in mutants])
    for host, seed in cases:
        result.hosts += 1
        reference = _trace(host, seed, duration, None)
        verdict = judge(host, reference)
        if verdict.violations:
            result.false_alarms.append({"seed": seed, "violation": verdict.violations[0].text})
        else:
            result.reference_passed += 1
        for mutant, score in zip(mutants, result.mutants):
            lines = _trace(host, seed, duration, mutant)
            if lines == reference:
                continue
            score.diverged += 1
            found = judge(host, lines)
            score.rules.update(found.counts.keys())
            if found.violations:
                score.flagged += 1
                score.first[found.violations[0].rule] += 1
                score.named += mutant.rule in found.counts
        if progress is not None:
            progress(result.hosts)
    return result

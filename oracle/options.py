"""The options of a conformance check: one record, validated once, passed down.

``akita conform`` builds a :class:`ConformOptions` from its flags and hands
it to :func:`~akita.oracle.files.conform_stream`, which fills in what the
trace decides (the tolerance by the trace's kind, the decision kinds it
records, the rule set a capture claims) and hands it on to
:func:`~akita.oracle.report.conform` and :class:`~akita.oracle.oracle.Oracle`;
none of them repeats a default or a check.  A script may give the same
options as keywords (:func:`~akita.oracle.files.conform_file`), which build
the record.  A value out of range is refused when the record is made, as a
:class:`~akita.trace.jsonl.TraceError` naming the library's parameter
(``reports``, ``ties``); the command line names its flag instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from akita.model.rules import RULE_SETS
from akita.trace.formats import format_names
from akita.trace.jsonl import TraceError

from .placement import PLACEMENTS, PlacementMode
from .validation import DECISIONS

__all__ = ["ConformOptions", "TIES"]

#: How equal keys are judged: any tied vCPU, or the host's queue order.
TIES = ("any", "strict")


def _reports(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _pairs(value: Mapping[str, str] | None) -> Mapping[str, str]:
    return dict(value or {})


@attrs.frozen
class ConformOptions:
    """What a conformance check is asked to do (``None``: decided by the trace).

    :ivar trace_format: ``"auto"`` or a registered format (:mod:`akita.trace.formats`).
    :ivar trace_map: kernel traces: ``task -> "VM/i"`` pairs added to the host's.
    :ivar origin_ns: kernel traces: the trace time that is ``t = 0``.
    :ivar end: the end of the traced span.
    :ivar reports: the decision kinds the trace records (``dispatch`` and
        ``idle`` at least); ``None``: by the trace's kind.
    :ivar tolerance: ns an implementation may be late by; ``None``: by the trace's kind.
    :ivar ties: ``"any"`` or ``"strict"`` (:data:`TIES`).
    :ivar policy: the rule set (:data:`~akita.model.rules.RULE_SETS`);
        ``None``: a capture's claim, else ``"akita"``.
    :ivar keep: how many violations are kept in full.
    :ivar window: how many trace events are kept with each.
    :ivar placement: ``"first-fit"`` or ``"trace"`` (:mod:`akita.oracle.placement`).
    :ivar cpu_hz: ``xentrace``: the cycle counter's frequency in Hz.
    :ivar buffer: ``trace.dat``: the trace instance to read.
    """

    trace_format: str = "auto"
    trace_map: Mapping[str, str] = attrs.field(factory=dict, converter=_pairs)
    origin_ns: int | None = None
    end: int | None = None
    reports: tuple[str, ...] | None = attrs.field(default=None, converter=_reports)
    tolerance: int | None = None
    ties: str = "any"
    policy: str | None = None
    keep: int = 10
    window: int = 8
    placement: PlacementMode = "first-fit"
    cpu_hz: int | None = None
    buffer: str | None = None

    def __attrs_post_init__(self) -> None:
        _check(self)

    def reader_options(self) -> dict[str, Any]:
        """The options a trace format's reader may take (:attr:`~akita.trace.formats.Format.options`)."""
        return {"cpu_hz": self.cpu_hz, "buffer": self.buffer}

    @classmethod
    def of(cls, options: ConformOptions | None, keywords: Mapping[str, Any]) -> ConformOptions:
        """*options*, or, if ``None``, the record *keywords* make; never both.

        :raises TypeError: both were given.
        """
        if options is None:
            return cls(**keywords)
        if keywords:
            raise TypeError(f"options and keywords at once: {', '.join(sorted(keywords))}")
        return options


def _check(options: ConformOptions) -> None:
    """Refuse an option out of range, naming it."""
    if options.trace_format not in format_names():
        raise TraceError("trace_format", options.trace_format,
                         f"one of {', '.join(format_names())}")
    if options.policy is not None and options.policy not in RULE_SETS:
        raise TraceError("policy", options.policy, f"one of {', '.join(RULE_SETS)}")
    reports = None if options.reports is None else frozenset(options.reports)
    if reports is not None and not {"dispatch", "idle"} <= reports <= DECISIONS:
        raise TraceError("reports", sorted(reports),
                         "a subset of the decision kinds with dispatch and idle")
    if options.ties not in TIES:
        raise TraceError("ties", options.ties, '"any" or "strict"')
    tolerance = options.tolerance
    if tolerance is not None and (not isinstance(tolerance, int) or tolerance < 0):
        raise TraceError("tolerance", tolerance, "a duration >= 0")
    if options.placement not in PLACEMENTS:
        raise TraceError("placement", options.placement, f"one of {', '.join(PLACEMENTS)}")

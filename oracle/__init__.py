"""The regression oracle: does another implementation's schedule follow the Akita rules?

:class:`Oracle` checks a stream of trace events (:doc:`/trace-format`) and
reports each decision the rules do not allow as a :class:`Violation` with
its rule id; :class:`ConformOptions` is what a check is asked, validated
once; :func:`conform` runs it over a whole trace, :func:`conform_file`
over a file of any registered format (:data:`FORMATS`, :mod:`akita.trace.formats`:
JSON Lines, Linux scheduler text, trace-cmd's ``trace.dat``, Xen's ``xentrace``);
:func:`read_jsonl`, :func:`read_ftrace`, :func:`read_tracedat` and
:func:`read_xentrace` are the readers (the trace formats' own, :mod:`akita.trace`,
named here as the oracle's);
:func:`trace_phases` and :func:`resolve_oracle_phases` say where each
vCPU's periods start (:mod:`akita.oracle.phases`).
"""

from akita.trace.ftrace import read_ftrace
from akita.trace.jsonl import TraceError, read_jsonl
from akita.trace.tracedat import read_tracedat
from akita.trace.xentrace import read_xentrace

from .files import FORMATS, FTRACE_REPORTS, conform_file, conform_stream
from .options import ConformOptions
from .oracle import DECISIONS, INPUTS, Oracle
from .phases import PhaseError, resolve_oracle_phases, trace_phases
from .report import CONFORMANT, UNCONFIRMED, VIOLATIONS, ConformanceReport, conform
from .violation import RULE_TITLES, Violation

__all__ = [
    "Oracle", "ConformOptions", "Violation", "ConformanceReport", "conform", "conform_file", "conform_stream",
    "read_jsonl", "read_ftrace", "read_tracedat", "read_xentrace", "FORMATS", "FTRACE_REPORTS", "PhaseError", "trace_phases", "resolve_oracle_phases",
    "TraceError", "DECISIONS", "INPUTS", "RULE_TITLES", "CONFORMANT", "VIOLATIONS", "UNCONFIRMED",
]

"""The regression oracle: does another implementation's schedule follow the Akita rules?

:class:`Oracle` checks a stream of trace events (:doc:`/trace-format`) and
reports each decision the rules do not allow as a :class:`Violation` with
its rule id; :func:`conform` runs it over a whole trace; :func:`read_jsonl`
and :func:`read_ftrace` read the two trace formats it takes;
:func:`trace_phases` and :func:`resolve_oracle_phases` say where each
vCPU's periods start (:mod:`akita.oracle.phases`).
"""

from akita.reference.trace import TraceError

from .files import FTRACE_REPORTS, conform_file, conform_stream
from .ftrace import read_ftrace
from .jsonl import read_jsonl
from .oracle import DECISIONS, INPUTS, Oracle
from .phases import PhaseError, resolve_oracle_phases, trace_phases
from .report import CONFORMANT, VIOLATIONS, ConformanceReport, conform
from .violation import RULE_TITLES, Violation

__all__ = [
    "Oracle", "Violation", "ConformanceReport", "conform", "conform_file", "conform_stream", "read_jsonl",
    "read_ftrace", "FTRACE_REPORTS", "PhaseError", "trace_phases", "resolve_oracle_phases",
    "TraceError", "DECISIONS", "INPUTS", "RULE_TITLES", "CONFORMANT", "VIOLATIONS",
]

"""Reading a trace in the project's JSON Lines format (:doc:`/trace-format`).

Line 1 is the header; every other line one event.  Events are yielded as
they are read, each with the field ``line`` (its line number) added, so
that bounded memory is kept and an error or a finding can name its line.
The reader is the trace format's own (:func:`akita.reference.trace.read_trace`),
which the simulator's other readers share.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from akita.reference.trace import read_trace

__all__ = ["read_jsonl"]


def read_jsonl(lines: Iterable[str], path: str = "<trace>") -> tuple[dict[str, Any],
                                                                      Iterator[dict[str, Any]]]:
    """The header of a JSON Lines trace, and an iterator over its events.

    :raises TraceError: the first line is not a version-1 header.  The
        iterator raises it for a line that is not a JSON object.
    """
    return read_trace(lines, path)

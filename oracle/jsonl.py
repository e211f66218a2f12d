"""Reading a trace in the project's JSON Lines format (:doc:`/trace-format`).

Line 1 is the header; every other line one event.  Events are yielded as
they are read, each with the field ``line`` (its line number) added, so
that bounded memory is kept and an error or a finding can name its line.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from .errors import TraceError

__all__ = ["read_jsonl"]


def _parse(text: str, path: str, number: int) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise TraceError("line", text.strip()[:60], f"a JSON object ({error.msg})",
                         path=f"{path}:{number}") from None
    if not isinstance(value, dict):
        raise TraceError("line", text.strip()[:60], "a JSON object", path=f"{path}:{number}")
    return value


def read_jsonl(lines: Iterable[str], path: str = "<trace>") -> tuple[dict[str, Any],
                                                                      Iterator[dict[str, Any]]]:
    """The header of a JSON Lines trace, and an iterator over its events.

    :raises TraceError: the first line is not a version-1 header.  The
        iterator raises it for a line that is not a JSON object.
    """
    lines = iter(lines)
    first = next(lines, None)
    if first is None:
        raise TraceError("header", "an empty file", 'a header line {"akita_trace": 1, ...}',
                         path=f"{path}:1")
    header = _parse(first, path, 1)
    if header.get("akita_trace") != 1:
        raise TraceError("akita_trace", header.get("akita_trace"), "1 (the format version)",
                         path=f"{path}:1")

    def events() -> Iterator[dict[str, Any]]:
        for number, text in enumerate(lines, start=2):
            if text.strip():
                event = _parse(text, path, number)
                event["line"] = number
                yield event

    return header, events()

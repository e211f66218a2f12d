"""Bad trace input: a typed error that names the file, the line and the field."""

from __future__ import annotations

from akita.model import ModelError

__all__ = ["TraceError"]


class TraceError(ModelError):
    """A trace is not shaped as its format requires.

    Its ``path`` is ``"FILE:LINE"`` once the line is known, so the message
    reads ``trace.jsonl:12: field 't': expected ..., got ...``.
    """

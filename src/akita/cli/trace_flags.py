"""The command line's names for the trace readers' parameters.

The library's errors name its parameters (``cpu_hz``, ``trace_map``); a
person at the command line gave flags (``--cpu-hz``, ``--map``).
:func:`as_flags` renames the field of a :class:`~akita.model.ModelError`
raised inside it from the one to the other, and leaves every other field
(a host file's, a trace line's) as it is.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from akita.model import ModelError

__all__ = ["TRACE_FLAGS", "as_flags"]

#: Library parameter -> flag, for the commands that read traces (conform, analyze): the
#: parameters whose value only a flag gives.  (``end`` is also a JSON Lines header's
#: span, so a command maps it only when ``--end`` was given.)
TRACE_FLAGS: Mapping[str, str] = {
    "trace_format": "--format", "trace_map": "--map", "cpu_hz": "--cpu-hz",
    "buffer": "--buffer",
}


@contextmanager
def as_flags(flags: Mapping[str, str] = TRACE_FLAGS) -> Iterator[None]:
    """Re-raise a :class:`~akita.model.ModelError` whose field is a key of *flags* under
    the flag it maps to (its value, expectation, VM and file kept)."""
    try:
        yield
    except ModelError as error:
        if error.field not in flags:
            raise
        raise type(error)(flags[error.field], error.value, error.expected, vm=error.vm,
                          path=error.path) from None

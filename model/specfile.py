"""Strict TOML files: the one bounded parse, and the readers of tables and values.

Every file a command reads -- the host file (:mod:`.host_file`), the sweep
file (:mod:`akita.sweep.spec`), the fleet file (:mod:`akita.fleet.spec`), the
disk file (:mod:`akita.disk.diskfile`) -- is TOML from outside, read the same
strict way: its text bounded before it is parsed (:func:`~.limits.check_text`:
size, line length, nesting), then parsed by :func:`parse_toml`, which turns
everything the parser can raise into one typed error naming the file; then
its tables and values are read by the small readers below, each naming the
key (``sweep.generator.vcpus``) in the :class:`~.errors.ModelError` it
raises for an unknown key, a missing one or a value of the wrong kind.

The parser raises more than :class:`tomllib.TOMLDecodeError`: a number it
cannot convert (an integer of more digits than Python converts) is a
:class:`ValueError`, and a document nested deeper than the interpreter's
stack a :class:`RecursionError` -- the nesting bound keeps the second out,
and the guard is kept all the same.  Both become the file's error, never a
traceback.
"""

from __future__ import annotations

import tomllib
from typing import Any, Iterable

from .errors import HostFileError, ModelError
from .limits import check_text

__all__ = ["parse_toml", "read_table", "read_required", "read_integer", "read_choice",
           "read_names", "MAX_SEED"]

#: The largest seed of a file (a C ``int64``).
MAX_SEED = 2**63 - 1

_MISSING = object()


def parse_toml(text: str, *, path: str | None, kind: str = "host file",
               error: type[ModelError] = HostFileError) -> dict[str, Any]:
    """The TOML document *text* (a UTF-8 byte-order mark at its start dropped), its size,
    lines and nesting bounded first (:func:`~.limits.check_text`).

    :param path: the file, named in the error.
    :param kind: what the file is, in words (``"sweep file"``), for the bounds' errors.
    :raises ModelError: of class *error*, naming *path* and the field ``toml``, for text
        out of bounds or that is not TOML, or TOML of a number or nesting the parser
        cannot hold.
    """
    check_text(text, path=path, kind=kind, error=error)
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as failure:
        raise error("toml", str(failure), "valid TOML", path=path) from None
    except (ValueError, RecursionError) as failure:  # e.g. a number the parser cannot convert
        reason = str(failure).split(":")[0] or type(failure).__name__
        raise error("toml", reason, "valid TOML of bounded numbers and nesting",
                    path=path) from None


def read_table(document: dict[str, Any], key: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    """The table *key* of *document* (``"sweep"`` or ``"sweep.generator"``), its keys checked.

    :raises ModelError: naming *key* if it is not a table, or the first unknown key.
    """
    table: Any = document
    for part in key.split("."):
        table = table.get(part, _MISSING) if isinstance(table, dict) else _MISSING
    if not isinstance(table, dict):
        raise ModelError(key, None if table is _MISSING else table, f"a [{key}] table")
    for name in table:
        if name not in allowed:
            raise ModelError(f"{key}.{name}", name, f"a known key ({', '.join(allowed)})")
    return table


def read_required(table: dict[str, Any], key: str, field: str) -> Any:
    """``table[key]``; :class:`~.errors.ModelError` naming *field* if it is absent."""
    if key not in table:
        raise ModelError(field, None, f"a value for {key!r}")
    return table[key]


def read_integer(value: Any, field: str, low: int, high: int) -> int:
    """*value* if it is an integer (not a bool) in ``[low, high]``; else a
    :class:`~.errors.ModelError` naming *field*."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelError(field, value, f"an integer from {low} to {high}")
    if not low <= value <= high:
        raise ModelError(field, value, f"an integer from {low} to {high}")
    return value


def read_choice(value: Any, field: str, allowed: Iterable[str]) -> str:
    """*value* if it is one of the names *allowed*; else a :class:`~.errors.ModelError`
    naming *field*.  A value that is not a string (a table, a list: unhashable, so that
    ``value in a_dict`` would raise ``TypeError``) is refused the same way."""
    allowed = tuple(allowed)
    if not isinstance(value, str) or value not in allowed:
        raise ModelError(field, value, f"one of {', '.join(allowed)}")
    return value


def read_names(value: Any, field: str, allowed: Iterable[str], what: str) -> tuple[str, ...]:
    """*value* as a non-empty list of distinct names among *allowed* (each a *what*: a
    test, a placement), in its order; :class:`~.errors.ModelError` naming *field*."""
    allowed = tuple(allowed)
    available = ", ".join(allowed)
    if not isinstance(value, list) or not value:
        raise ModelError(field, value, f"a non-empty list of {what}s among {available}")
    for name in value:
        read_choice(name, field, allowed)
    if len(set(value)) != len(value):
        raise ModelError(field, value, f"each {what} once")
    return tuple(value)

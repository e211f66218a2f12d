"""Typed errors of the model.

Every error names *where* the problem is (the host file, the VM, the field),
*what* was found and *what* was expected, so that a command-line front end can
print it on one line and a library caller can inspect it.  All of them
subclass :class:`ValueError`: bad input is a bad value.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["ModelError", "DurationError", "HostFileError", "ParameterError"]


class ModelError(ValueError):
    """A value of the model is not what a rule of the model requires.

    :param field: the offending field, as it is spelled in a host file
        (``"c_pes"``, ``"host.pcpus"``).
    :param value: the value that was given, as given.
    :param expected: what the rule expects, in words.
    :param vm: the name of the VM the field belongs to, if any.
    :param path: the host file, once the error is known to come from one.
    """

    #: How the message names ``field``: ``field 'c_pes'``.
    noun = "field"

    def __init__(
        self,
        field: str,
        value: object,
        expected: str,
        *,
        vm: str | None = None,
        path: str | None = None,
    ) -> None:
        self.field = field
        self.value = value
        self.expected = expected
        self.vm = vm
        self.path = path
        super().__init__(self._message())

    def _message(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path)
        if self.vm is not None:
            where.append(f"vm {self.vm!r}")
        where.append(f"{self.noun} {_shown(self.field)}")
        return f"{': '.join(where)}: expected {self.expected}, got {_shown(self.value)}"

    def located(self, *, vm: str | None = None, path: str | None = None) -> "ModelError":
        """The same error, with the VM and/or file filled in where still unknown."""
        return type(self)(
            self.field,
            self.value,
            self.expected,
            vm=self.vm if self.vm is not None else vm,
            path=self.path if self.path is not None else path,
        )

    # keep keyword-only arguments through pickling
    def __reduce__(self) -> tuple[Callable[..., ModelError], tuple[object, ...]]:
        return (_rebuild, (type(self), self.field, self.value, self.expected, self.vm, self.path))


#: The most characters of a value an error message quotes.
SHOWN_CHARS = 100


def _shown(value: object) -> str:
    """*value* as an error message quotes it: its ``repr``, cut to :data:`SHOWN_CHARS`.

    A message is one line a person reads, so a huge value (an integer of
    thousands of digits, whose ``repr`` Python refuses, or a long line of a
    file) is shown by its first characters and its size, never in full.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {value.bit_length() * 30103 // 100000 + 1} digits"
    try:
        text = repr(value)
    except ValueError:  # a value holding such an integer
        return f"a {type(value).__name__} too large to show"
    if len(text) > SHOWN_CHARS:
        return f"{text[:SHOWN_CHARS - 20]}... ({len(text)} characters)"
    return text


def _rebuild(cls: type[ModelError], field: str, value: object, expected: str, vm: str | None,
             path: str | None) -> ModelError:
    return cls(field, value, expected, vm=vm, path=path)


class DurationError(ModelError):
    """A duration is not an exact, unit-bearing number of nanoseconds."""


class HostFileError(ModelError):
    """A host file cannot be read or is not shaped as the format requires."""


class ParameterError(ModelError):
    """An argument of a library call is out of the range the call accepts.

    ``field`` is the parameter's name as the function spells it
    (``"duration"``, ``"max_ticks"``), never a front end's: the library does
    not know which option of which program set it.  A front end names its
    own option instead -- the command line maps each parameter to its flag
    in one table, :data:`akita.cli.FLAGS`, where it reports the error.
    """

    #: How the message names ``field``.
    noun = "parameter"

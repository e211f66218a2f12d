"""The ceilings of a host file: every input is bounded before any work starts.

A host file is read from outside, so nothing in it may decide how much
time or memory a command spends: each count, number and string has a
documented ceiling (``docs/host-file.rst``, "Ceilings"), checked before the
work it would drive -- the size of the file before it is parsed, the
nesting of its brackets before the TOML parser recurses into them, the
number of pCPUs and vCPUs before first fit allocates anything.  Each breach
is a :class:`~.errors.HostFileError` naming the file and the field, which
the command line prints as one line with exit status 2.

The ceilings are those of the *host file* reader; the model's classes
themselves take any size a library caller gives them.  The sweep, fleet
and disk files are read by the same two functions, :func:`read_bounded`
and :func:`check_text` (through :func:`~.specfile.parse_toml`), under
their own names.
"""

from __future__ import annotations

import os

from .errors import HostFileError, ModelError

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LINE_CHARS",
    "MAX_NESTING",
    "MAX_PCPUS",
    "MAX_VMS",
    "MAX_VCPUS_PER_VM",
    "MAX_TOTAL_VCPUS",
    "MAX_INTEGER",
    "MAX_NUMBER_CHARS",
    "MAX_DURATION_NS",
    "MAX_STRING_CHARS",
    "MAX_GUEST_THREADS",
    "MAX_HYSTERESIS",
    "MAX_CONNECTIONS",
    "read_bounded",
    "check_text",
    "check_integer",
    "check_count",
]

#: Bytes of a host file (1 MiB), checked before it is read in full.
MAX_FILE_BYTES = 1 << 20
#: Characters on one line of a host file (a long ``pin`` list can span lines).
MAX_LINE_CHARS = 4096
#: Depth of nested arrays and inline tables (a host file needs 3).
MAX_NESTING = 16
#: pCPUs of a host (``host.pcpus``).
MAX_PCPUS = 1024
#: ``[[vm]]`` tables of a host.
MAX_VMS = 4096
#: vCPUs of one VM (``vcpus``).
MAX_VCPUS_PER_VM = 256
#: vCPUs of all the VMs of a host together.
MAX_TOTAL_VCPUS = 4096
#: The magnitude of any TOML integer in a host file (``2**63 - 1``, a C ``int64``).
MAX_INTEGER = 2**63 - 1
#: Characters of a number written as text: a duration or a fraction.
MAX_NUMBER_CHARS = 40
#: The longest duration, in ns (``2**63 - 1`` ns, about 292 years: the kernel's ``s64`` time).
MAX_DURATION_NS = 2**63 - 1
#: Characters of any other string (a VM name, a path, a trace-map key or value).
MAX_STRING_CHARS = 256
#: Worker threads of one guest (``[vm.guest] threads``): four per vCPU at the most
#: vCPUs a VM may have; each is simulated, so the count drives time and memory.
MAX_GUEST_THREADS = 4 * MAX_VCPUS_PER_VM
#: Controller periods in a row before a ballooning change (``[vm.guest] hysteresis``).
MAX_HYSTERESIS = 10_000
#: Clients of a closed-loop workload (``workload.connections``); each is simulated.
MAX_CONNECTIONS = 65_536


def read_bounded(path: str | os.PathLike[str], *, kind: str = "host file",
                 error: type[ModelError] = HostFileError) -> str:
    """The UTF-8 text of the file at *path*, never reading more than :data:`MAX_FILE_BYTES`.

    The size is checked before the file is read, and no more than the
    ceiling is read even from a file that grows or a pipe.  *kind* names the
    file in the messages (``"host file"``, ``"sweep file"``).

    :raises ModelError: of class *error*, carrying the path: the file cannot
        be read, is too large, or is not UTF-8.
    """
    shown = os.fspath(path)
    too_large = f"a {kind} of at most {MAX_FILE_BYTES} bytes"
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise error("file", f"{size} bytes", too_large, path=shown)
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as failure:
        reason = failure.strerror or type(failure).__name__
        raise error("file", shown, f"a readable file ({reason})", path=shown) from None
    if len(data) > MAX_FILE_BYTES:
        raise error("file", f"more than {MAX_FILE_BYTES} bytes", too_large, path=shown)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as failure:
        raise error("file", f"byte {failure.start}", "UTF-8 text", path=shown) from None


def check_text(text: str, *, path: str | None = None, kind: str = "host file",
               error: type[ModelError] = HostFileError) -> None:
    """Refuse a file's *text* that is too long, has too long a line or nests too deep.

    The nesting is counted by a scan that skips strings and comments, so the
    TOML parser, which recurses once per level, never sees a document deeper
    than :data:`MAX_NESTING`.  *kind* and *error* as for :func:`read_bounded`.
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise error("file", f"{size} bytes", f"a {kind} of at most {MAX_FILE_BYTES} bytes",
                    path=path)
    depth, deepest = _deepest(text)
    if depth > MAX_NESTING:
        raise error(f"line {deepest}", f"{depth} levels of '[' or '{{'",
                    f"arrays and inline tables nested at most {MAX_NESTING} deep", path=path)
    for number, row in enumerate(text.split("\n"), start=1):
        if len(row) > MAX_LINE_CHARS:
            raise error(
                f"line {number}", f"{len(row)} characters",
                f"a line of at most {MAX_LINE_CHARS} characters (split long arrays over lines)",
                path=path,
            )


def _deepest(text: str) -> tuple[int, int]:
    """The deepest nesting of ``[`` and ``{`` outside strings and comments, and its line."""
    depth = deepest = 0
    where = number = 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            number += 1
        elif c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if text[i] == "\\" and c == '"':
                    i += 1
                elif text[i] == "\n":
                    if len(quote) == 1:
                        break  # an unterminated string: the parser will say so
                    number += 1
                i += 1
            i += len(quote)
            continue
        elif c in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, number
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return deepest, where


def check_integer(value: int, *, field: str, vm: str | None = None) -> int:
    """*value* if its magnitude is at most :data:`MAX_INTEGER`."""
    if not -MAX_INTEGER <= value <= MAX_INTEGER:
        raise ModelError(field, value, f"an integer of magnitude at most {MAX_INTEGER}", vm=vm)
    return value


def check_count(value: int, ceiling: int, *, field: str, vm: str | None = None) -> int:
    """*value* if ``1 <= value <= ceiling``."""
    if value < 1:
        raise ModelError(field, value, "an integer >= 1", vm=vm)
    if value > ceiling:
        raise ModelError(field, value, f"an integer of at most {ceiling} (the ceiling of a host file)",
                         vm=vm)
    return value

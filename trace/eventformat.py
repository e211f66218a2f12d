"""The kernel's description of a trace event's binary record: its ``format`` text.

Each event of the Linux tracing file system has a ``format`` file
(``/sys/kernel/tracing/events/SYSTEM/EVENT/format``) that says how the
kernel lays out its record in the ring buffer, and trace-cmd copies these
files into ``trace.dat`` (trace-cmd.dat(5), "EVENT FORMATS"; the ring
buffer's own ``events/header_page`` has the same field syntax)::

    name: sched_switch
    ID: 372
    format:
            field:unsigned short common_type;   offset:0;   size:2;   signed:0;
            ...
            field:char prev_comm[16];   offset:8;   size:16;   signed:0;
            field:pid_t prev_pid;       offset:24;  size:4;    signed:1;
            field:long prev_state;      offset:32;  size:8;    signed:1;

    print fmt: "prev_comm=%s ...", REC->prev_comm, ...

(Linux ``Documentation/trace/events.rst``, "Event formats".)  A field is
read from a record by its offset and size: an integer of 1, 2, 4 or 8 bytes
(signed or not), a fixed ``char`` array (a NUL-padded string), or a
``__data_loc`` / ``__rel_loc`` string, a 32-bit word whose low 16 bits are
the string's offset (from the record's start, or from the end of the word
for ``__rel_loc``) and whose high 16 bits are its length (libtraceevent,
``event-parse.c``, ``dynamic_offset``).

:func:`state_mask` reads one more thing from the ``print fmt`` of
``sched_switch``: which bits of ``prev_state`` mean "not runnable" (see
its docstring).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Collection, Sequence
from typing import Any

import attrs

from .kernel import KernelTraceError

__all__ = ["Field", "EventFormat", "RecordReader", "c_string", "parse_fields", "parse_format",
           "record_reader", "state_mask"]

_FIELD = re.compile(
    r"^\s*field:\s*(?P<decl>[^;\n]{1,200}?)\s*;\s*offset:\s*(?P<offset>[0-9]{1,9})\s*;"
    r"\s*size:\s*(?P<size>[0-9]{1,9})\s*;(?:\s*signed:\s*(?P<signed>[01])\s*;)?", re.M)
_DECL = re.compile(r"^(?P<type>.*?)\s*\b(?P<name>[A-Za-z_]\w*)\s*(?P<dim>\[[^\]]*\])?$")
_NAME = re.compile(r"^name:\s*(?P<name>\S{1,200})\s*$", re.M)
_ID = re.compile(r"^ID:\s*(?P<id>[0-9]{1,9})\s*$", re.M)
_PRINT = re.compile(r"^print fmt:\s*(?P<fmt>.*)$", re.M)
_SHOWN = {"int": "an integer", "str": "a char array", "loc": "a __data_loc string",
          "rel": "a __rel_loc string", "other": "a field"}
_INTS = {(1, False): "B", (1, True): "b", (2, False): "H", (2, True): "h",
         (4, False): "I", (4, True): "i", (8, False): "Q", (8, True): "q"}


@attrs.frozen(slots=True)
class Field:
    """One field of an event record.

    :ivar name: its name (``prev_pid``).
    :ivar offset: its offset in the record, bytes.
    :ivar size: its size, bytes.
    :ivar signed: whether an integer field is signed.
    :ivar kind: ``"int"``, ``"str"`` (a fixed ``char`` array), ``"loc"``
        (``__data_loc``), ``"rel"`` (``__rel_loc``) or ``"other"``.
    """

    name: str
    offset: int
    size: int
    signed: bool
    kind: str


@attrs.frozen(slots=True)
class EventFormat:
    """An event's format: its name, its id (a record's ``common_type``) and its fields."""

    system: str
    name: str
    id: int
    fields: dict[str, Field]
    print_fmt: str


def _kind(ctype: str, dim: str | None, size: int) -> str:
    if ctype.startswith("__data_loc"):
        return "loc"
    if ctype.startswith("__rel_loc"):
        return "rel"
    if dim is not None:
        return "str" if ctype.split()[-1:] == ["char"] else "other"
    return "int" if size in (1, 2, 4, 8) else "other"


def parse_fields(text: str) -> dict[str, Field]:
    """The fields (``field:...; offset:N; size:N; signed:N;``) of a format text, by name.

    A field with no ``signed:`` (kernels before 2.6.32) is signed unless its
    type says ``unsigned`` or is a ``uN``.
    """
    fields: dict[str, Field] = {}
    for match in _FIELD.finditer(text):
        decl = _DECL.match(match["decl"])
        if decl is None:
            continue
        ctype, size = decl["type"], int(match["size"])
        if match["signed"] is not None:
            signed = match["signed"] == "1"
        else:
            signed = not (ctype.startswith("unsigned") or re.fullmatch(r"u[0-9]+", ctype))
        fields[decl["name"]] = Field(decl["name"], int(match["offset"]), size, signed,
                                     _kind(ctype, decl["dim"], size))
    return fields


def parse_format(text: str, system: str) -> EventFormat:
    """The event format of the ``format`` *text* of an event of *system*.

    :raises KernelTraceError: no ``name:`` or ``ID:`` line (unlocated; the
        caller locates it).
    """
    name, ident = _NAME.search(text), _ID.search(text)
    if name is None or ident is None:
        raise KernelTraceError(f"{system} event format", text[:60],
                               "an event format with 'name:' and 'ID:' lines")
    fmt = _PRINT.search(text)
    return EventFormat(system, name["name"], int(ident["id"]), parse_fields(text),
                       fmt["fmt"] if fmt else "")


@attrs.frozen(slots=True)
class RecordReader:
    """Reads chosen fields of an event's records in one :meth:`struct.Struct.unpack_from`.

    :ivar need: the fewest bytes a record must have.
    :ivar read: ``read(buffer, start, length)``: the fields' values in the
        order asked: integers as ``int``; a fixed ``char`` array as its raw
        bytes, NUL padding included (cut it with :func:`c_string`); a
        ``__data_loc`` string as its bytes, or ``None`` if they lie outside
        the record.  The caller checks ``length >= need`` first.
    :ivar direct: when the fields are fixed and asked in the order of their
        offsets, the same values from ``direct(buffer, start)`` (a bound
        :meth:`struct.Struct.unpack_from`, the fast path); else ``None``.
    """

    need: int
    read: Callable[[bytes, int, int], tuple[Any, ...]]
    direct: Callable[[bytes, int], tuple[Any, ...]] | None = None


def c_string(raw: bytes) -> bytes:
    """*raw* up to its first NUL."""
    return raw.split(b"\0", 1)[0]


def record_reader(event: EventFormat, names: Sequence[str], endian: str,
                  text: Collection[str] = ()) -> RecordReader:
    """A reader of the fields *names* of *event*'s records, in byte order *endian* (``<``, ``>``).

    The fields named in *text* must be strings (a ``char`` array or a
    ``__data_loc`` / ``__rel_loc`` string), every other one an integer: a
    format whose ``prev_comm`` says ``int`` or whose ``prev_pid`` says
    ``char[16]`` is refused here, not read as a value of the wrong type.

    :raises KernelTraceError: a field is missing, is not of the kind asked
        (an integer of 1, 2, 4 or 8 bytes, or a string), or overlaps another
        (unlocated).
    """
    fields = [_wanted(event, name, name in text) for name in names]
    order = sorted(range(len(fields)), key=lambda i: fields[i].offset)
    layout, at = endian, 0
    for i in order:
        f = fields[i]
        if f.offset < at:
            raise KernelTraceError(f"{event.system}:{event.name}.{f.name}", f"offset {f.offset}",
                                   "fields that do not overlap")
        code = f"{f.size}s" if f.kind == "str" else "I" if f.kind in ("loc", "rel") \
            else _INTS[f.size, f.signed]
        layout += f"{f.offset - at}x{code}"
        at = f.offset + f.size
    unpack = struct.Struct(layout).unpack_from
    locs = [(i, f.kind == "rel", f.offset + f.size) for i, f in enumerate(fields)
            if f.kind in ("loc", "rel")]
    back = [order.index(i) for i in range(len(fields))]
    if not locs and back == list(range(len(fields))):
        return RecordReader(at, lambda buffer, start, length: unpack(buffer, start), unpack)

    def read(buffer: bytes, start: int, length: int) -> tuple[Any, ...]:
        raw = unpack(buffer, start)
        values = [raw[j] for j in back]
        for i, rel, end in locs:
            first = (values[i] & 0xFFFF) + (end if rel else 0)
            size = values[i] >> 16
            values[i] = buffer[start + first:start + first + size] \
                if first + size <= length else None
        return tuple(values)

    return RecordReader(at, read)


def _wanted(event: EventFormat, name: str, text: bool) -> Field:
    field = event.fields.get(name)
    kinds = ("str", "loc", "rel") if text else ("int",)
    if field is None or field.kind not in kinds or (field.kind in ("loc", "rel")
                                                    and field.size != 4):
        got = "no such field" if field is None else f"{_SHOWN[field.kind]} of {field.size} bytes"
        raise KernelTraceError(f"{event.system}:{event.name}.{name}", got,
                               "a string (a char array or a __data_loc string)" if text
                               else "an integer of 1, 2, 4 or 8 bytes")
    return field


# ---------------------------------------------------------------- prev_state

#: The most characters of a mask expression :func:`state_mask` evaluates.
MAX_MASK_CHARS = 1000
_TOKEN = re.compile(r"\s*(?:(?P<num>0[xX][0-9a-fA-F]{1,16}|[0-9]{1,20})[uUlL]*"
                    r"|(?P<op><<|>>|[()|&^+\-*~]))")
_STATE = re.compile(r"REC->prev_state\s*")


def state_mask(print_fmt: str) -> int:
    """The bits of ``sched_switch``'s ``prev_state`` that mean the task stopped running.

    The kernel writes ``prev_state`` with ``__trace_sched_switch_state``
    (``include/trace/events/sched.h``): ``0`` (``TASK_RUNNING``) or a
    preempted task's ``TASK_REPORT_MAX`` bit (printed ``R+``) for a task
    still runnable, a blocked state's bit (``S``, ``D``, ...) otherwise.
    Its ``print fmt`` tests those bits first, so the file itself says which
    they are::

        (REC->prev_state & ((((0x0 | 0x1 | ... | 0x40) + 1) << 1) - 1)) ? __print_flags(...) : "R",
        REC->prev_state & (((0x0 | ... | 0x40) + 1) << 1) ? "+" : ""     (Linux >= 4.14)
        REC->prev_state & (1024-1) ? __print_flags(...) : "R", REC->prev_state & 1024 ? "+" : ""
        REC->prev_state ? __print_flags(REC->prev_state, ...) : "R"      (older kernels)

    The mask is the expression of the first test (all bits when there is
    none), evaluated here as integers; a task is runnable iff
    ``prev_state & mask == 0``, which is what ``R`` and ``R+`` print.

    :raises KernelTraceError: the ``print fmt`` has no such test, or its mask
        is not an integer expression (unlocated).
    """
    found = _STATE.search(print_fmt)
    if found is None:
        raise KernelTraceError("sched_switch print fmt", print_fmt[:80],
                               "a 'REC->prev_state & MASK ? ...' test")
    rest = print_fmt[found.end():]
    if rest.startswith("?"):
        return -1
    tokens, end = _tokens(rest[1:]) if rest.startswith("&") else ([], 0)
    if not tokens or not rest[1 + end:].lstrip(" )").startswith("?"):
        raise KernelTraceError("sched_switch print fmt", rest[:80],
                               "'& MASK ?' after REC->prev_state")
    return _Mask(tokens, rest[:80]).value()


def _tokens(text: str) -> tuple[list[str], int]:
    """The tokens of the mask operand at the start of *text*, and where it ends.

    The operand is one number, or a parenthesised expression (with its parentheses).
    """
    tokens: list[str] = []
    depth, at = 0, 0
    while at < min(len(text), MAX_MASK_CHARS):
        match = _TOKEN.match(text, at)
        if match is None:
            break
        token = match["num"] or match["op"]
        if token == ")" and depth == 0:
            break
        if not tokens and token != "(" and not match["num"]:
            break
        tokens.append(token)
        at = match.end()
        depth += (token == "(") - (token == ")")
        if depth == 0 and (match["num"] or token == ")"):
            break
    return tokens, at


class _Mask:
    """An evaluator of C integer expressions by precedence: numbers, ``| ^ & << >> + - * ~ ()``."""

    _LEVELS = (("|",), ("^",), ("&",), ("<<", ">>"), ("+", "-"), ("*",))

    def __init__(self, tokens: list[str], shown: str) -> None:
        self.tokens, self.at, self.shown, self.depth = tokens, 0, shown, 0

    def fail(self) -> KernelTraceError:
        return KernelTraceError("sched_switch print fmt", self.shown,
                                "an integer mask expression after 'REC->prev_state &'")

    def value(self) -> int:
        result = self.binary(0)
        if self.at != len(self.tokens):
            raise self.fail()
        return result

    def binary(self, level: int) -> int:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.at < len(self.tokens) and self.tokens[self.at] in self._LEVELS[level]:
            op = self.tokens[self.at]
            self.at += 1
            left = self.apply(op, left, self.binary(level + 1))
        return left

    def apply(self, op: str, left: int, right: int) -> int:
        if op in ("<<", ">>"):
            if not 0 <= right <= 64:
                raise self.fail()
            result = left << right if op == "<<" else left >> right
        elif op == "|":
            result = left | right
        elif op == "^":
            result = left ^ right
        elif op == "&":
            result = left & right
        elif op == "+":
            result = left + right
        elif op == "-":
            result = left - right
        else:
            result = left * right
        if result.bit_length() > 128:
            raise self.fail()
        return result

    def unary(self) -> int:
        if self.at >= len(self.tokens) or self.depth > 32:
            raise self.fail()
        token = self.tokens[self.at]
        self.at += 1
        self.depth += 1
        try:
            if token in ("~", "-"):
                operand = self.unary()
                return ~operand if token == "~" else -operand
            if token == "(":
                inner = self.binary(0)
                if self.at >= len(self.tokens) or self.tokens[self.at] != ")":
                    raise self.fail()
                self.at += 1
                return inner
            if token[0].isdigit():
                return self.number(token)
            raise self.fail()
        finally:
            self.depth -= 1

    def number(self, token: str) -> int:
        try:
            return int(token, 8 if re.fullmatch(r"0[0-9]+", token) else 0)
        except ValueError:  # an octal number with an 8 or a 9
            raise self.fail() from None

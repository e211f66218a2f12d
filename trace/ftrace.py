"""Reading the text people record of Linux scheduler events, as :class:`~.kernel.SchedEvent`.

What is recorded
----------------

The Linux scheduler fires tracepoints (``include/trace/events/sched.h`` in
the kernel's tree, github.com/torvalds/linux), and four of them say what a
CPU scheduler decided:

``sched_switch``
   A CPU stops running one task (``prev_*``) and starts another
   (``next_*``); ``prev_state`` says whether the first was still runnable
   (preempted) or blocked.
``sched_wakeup`` and ``sched_wakeup_new``
   A task (a new one, for the second) becomes runnable, queued on the CPU
   ``target_cpu``.  Older kernels add a ``success=`` field; a wakeup with
   ``success=0`` found its task already runnable and changed nothing, so it
   is no event here.
``sched_migrate_task``
   A task moves from ``orig_cpu`` to ``dest_cpu`` (a ``migrate``, with
   ``target_cpu`` its ``dest_cpu``).

The text forms
--------------

People record these events as text in several forms, and :func:`sched_events`
reads them all, line by line, whichever form each line is in.  Every event
line is a *header* and a *body*.  The header is the task running when the
event fired (``comm-pid``; ``comm pid`` in ``perf script``; this reader
ignores it, as the body names the tasks), an optional ``(tgid)`` column
(the kernel's ``record-tgid`` option; trace-cmd prints ``(-----)`` for an
unknown one), the CPU as ``[001]``, an optional column of flags
(``d..2.``; none with the kernel's ``irq-info`` option off, or on old
kernels), the time in seconds with six or nine decimals and a colon, and
the event's name and a colon (the kernel's ``trace_print_context`` in
``kernel/trace/trace_output.c``).  The body is one of:

1. the kernel's own text -- the tracefs ``trace`` and ``trace_pipe`` files,
   ``trace-cmd report -N``, ``perf script``, Android systrace -- the event's
   ``TP_printk`` format::

       prev_comm=qemu-web prev_pid=4242 prev_prio=120 prev_state=S ==> next_comm=swapper/1
           next_pid=0 next_prio=120          (one line, wrapped here)
       comm=qemu-web pid=4242 prio=120 [success=1] target_cpu=001
       comm=qemu-web pid=4242 prio=120 orig_cpu=0 dest_cpu=1

2. trace-cmd's default (``trace-cmd report``), which prints switches and
   wakeups through libtraceevent's ``plugins/plugin_sched_switch.c``
   (github.com/rostedt/libtraceevent): ``comm:pid [prio] S ==> comm:pid
   [prio]`` and ``comm:pid [prio] [success=N] CPU:002`` (``success=`` only
   if the kernel's event has the field).  A comm may hold spaces and colons
   (``CPU 1/KVM:x``): the pid is the digits after the last colon before
   `` [prio]``.  A migration is printed in the kernel's form;
3. the raw fields (``trace-cmd report -R``): the kernel's field names in
   their record order, ``prev_state`` a number and no ``==>``.

Around the body, trace-cmd pads it after the event's name, prefixes each
line of an instance's buffer with the buffer's name (``akftext:``), writes
the CPU glued to the flags and without brackets with ``-l`` (``0d..2.``),
a ``(+24)`` after the time with ``--ts-diff``, nine decimals with ``-t``,
and begins with ``cpus=N`` or ``version = 6``; a multi-line ``bprint``
record goes on in lines that begin with a space, which are no event and
are skipped.  ``perf script`` names an event ``sched:sched_switch``.
Android systrace HTML (``<!DOCTYPE html>``) holds the kernel's text in
``<script class="trace-data" type="application/text">`` blocks (after ``var
linuxPerfData = "\\`` in the legacy form, a line maybe ending in an escaped
``\\n\\``) among blocks of JSON: only the blocks of ftrace text are read,
line by line, and a block catapult compressed (base64 gzip) is refused.
Not read: the ``fields`` and ``latency-format`` options' text (hexadecimal
values; relative microseconds) and clocks that print counts (``x86-tsc``,
``counter``, ``trace-cmd report --raw-ts``): a kept line in such a form is
refused.

Runnable or not
---------------

A task switched out is still runnable -- preempted -- when the kernel's
text reads ``R`` or ``R+`` (``+``: the preempt bit).  A numeric
``prev_state`` is read as ``__trace_sched_switch_state`` writes it since
Linux 4.14: 0 for running, one bit ``1 << (i - 1)`` for the state of index
``i`` (``S D T t X Z P I``: 0x01 to 0x80), and ``TASK_REPORT_MAX`` (0x100)
alone for a preemption; the kernel prints ``R`` when ``prev_state &
(TASK_REPORT_MAX - 1)`` is 0 and adds ``+`` when the ``TASK_REPORT_MAX``
bit is set (the ``print fmt`` of ``events/sched/sched_switch/format`` on
Linux 6.18 spells these masks out).  So a state is runnable iff its low
eight bits are 0 or its preempt bit is set (:func:`prev_state_runnable`).
trace-cmd's default form prints ``R`` exactly when the low eight bits are 0
(its letters ``SDTtZXxW`` are the pre-4.14 names of those bits: ``W`` is
4.14's ``I``), so it agrees.

Before 4.14 the field was the task's raw ``p->state`` and the preempt bit
``TASK_STATE_MAX``: 1024 in 3.x (printed ``prev_state & (TASK_STATE_MAX-1)``
with 256 as ``W`` and 512 as ``P``), then 2048 and 4096 as 4.x added
``TASK_NOLOAD`` and ``TASK_NEW``.  Read by the rule above, an old
preemption (1024, 2048, 4096) is runnable and every state with a bit below
0x100 (``S``, ``D``, ``TASK_KILLABLE``, ``TASK_IDLE``, ...) blocked, as the
old kernel meant; but a state made only of bits from 0x100 up --
``TASK_WAKING`` (256) or ``TASK_PARKED`` (512) alone -- reads as runnable
where an old kernel meant blocked.  Only kernel threads park; for a trace
of such a kernel the kernel's own text, or ``trace-cmd report -N`` (which
prints with the recording kernel's format), is exact.

Order and errors
----------------

The reader yields events in the file's order and refuses a kept event
whose time is before the previous one's, naming both lines.  The kernel's
``trace`` file, ``trace-cmd report`` and ``perf script`` merge the per-CPU
buffers by time, so what they print of a stopped trace is in order; a
``trace_pipe`` read while tracing runs, or per-CPU files put end to end,
need not be (and an old kernel could stamp one CPU's nested events out of
order: two ``cpu_idle`` lines of trappy's ``trace_idle_unsorted.txt``).
Such a file is not reordered: an order the text does not give would be
invented, and a bounded window could not say how far a line strays.  Equal
times are in order.

Comment lines, blank lines, other events and text that is no event line
are skipped.  A line of a kept event that cannot be read is refused with a
:class:`~.kernel.KernelTraceError` naming the file and line, the part that
failed, what was expected and what was got, and so are numbers beyond the ceilings of
:doc:`/trace-format` (a CPU of more than :data:`MAX_INDEX_DIGITS` digits, a
time of more than 12 digits before the point or 9 after, a comm of more
than 64 characters).  A time is read digit by digit into integer
nanoseconds (:func:`parse_seconds`).  The reader holds one line, the last
event's time and a bounded cache of tasks, whatever the length of the
trace, and its work on a line is linear in the line's length.

A ``CPU:N [LOST n EVENTS]`` (kernel) or ``CPU:N [n EVENTS DROPPED]``
(trace-cmd) line is the capture's own record of a hole: it becomes a
``lost`` event of CPU ``N``, dated at the last event read, with the count
(:mod:`akita.trace.kernel`, "Lost events").  The kernel's header line
``# entries-in-buffer/entries-written: A/B`` says that ``B - A`` older
records were overwritten before the first one: counted
(:attr:`~.kernel.Tally.overwritten`).

:func:`read_ftrace` is these events through :func:`~.kernel.akita_events`:
the oracle's events, with the mapping from tasks to vCPUs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from typing import Any

from .kernel import (MARK_PREFIX, KernelTraceError, SchedEvent, SchedKind, Tally, Task,
                     akita_events, ascii_digits, check_mapping, check_origin)

__all__ = ["sched_events", "read_ftrace", "looks_like_ftrace", "prev_state_runnable",
           "parse_seconds", "FtraceError", "FtraceTally", "MAX_INDEX_DIGITS", "TASK_REPORT_MAX"]

#: The most digits a CPU number of an ftrace line may have (the kernel prints three).
MAX_INDEX_DIGITS = 6

#: The preempt bit of a numeric ``prev_state`` since Linux 4.14 (``include/linux/sched.h``).
TASK_REPORT_MAX = 0x100

#: ``FtraceError`` is the common error of the kernel readers (kept for callers).
FtraceError = KernelTraceError


# Each kept event's lines, in two patterns with the same groups (cpu, seconds, decimals, then
# the body's): a fast one matched from the line's last '[' before the event's name (the
# CPU's), and the whole line's, which also reads trace-cmd's -l form (the CPU glued to the
# flags, no brackets).  One pattern per event keeps the groups few, which sre matches faster.
_FROM_CPU = r"\[([0-9]{1,6})\]\s+(?:[^\s\[\]:]+\s+)?"
_WHOLE = (r".*?[-\s][0-9]+\s+(?:\(\s*[-0-9]+\)\s+)?"  # [buffer: ]comm-pid (perf: comm pid) (tgid)
          r"\[?([0-9]{1,6})(?:\]\s+(?:[^\s\[\]:]+\s+)?|[^\s0-9\[\]:]\S*\s+)")  # [cpu] flags
# s: (+diff) [perf's sched:]
_TIME = r"([0-9]{1,12})\.([0-9]{1,9}):\s+(?:\(\+[0-9]+\)\s+)?(?:sched:)?"
_STATE = r"[A-Za-z|+]+|[0-9]{1,20}"
_MORE = r"(?: \w+=\S*)*"  # fields a vendor kernel adds (systrace's 'state=W')
# A comm is at most 15 bytes (TASK_COMM_LEN); the patterns take up to 64 characters, which also
# bounds their backtracking on a hostile line.
_BODIES = {  # the kernel's fields (the -R form's too) | trace-cmd's default form
    "s": (r"sched_switch:\s+(?:prev_comm=(.{0,64}?) prev_pid=([0-9]+) prev_prio=-?[0-9]+"
          r" prev_state=(" + _STATE + r")(?: ==>)? next_comm=(.{0,64}?) next_pid=([0-9]+)"
          r" next_prio=-?[0-9]+"
          r"|(.{0,64}):([0-9]+) \[-?[0-9]+\] ([A-Za-z|]+) ==> (.{0,64}):([0-9]+) \[-?[0-9]+\])"),
    "w": (r"(sched_wakeup|sched_wakeup_new):\s+(?:comm=(.{0,64}?) pid=([0-9]+) prio=-?[0-9]+"
          r"(?: success=([0-9]+))? target_cpu=([0-9]{1,6})" + _MORE
          + r"|(.{0,64}):([0-9]+) \[-?[0-9]+\](?: success=([0-9]+))? CPU:([0-9]{1,6}))"),
    "m": (r"sched_migrate_task:\s+comm=(.{0,64}?) pid=([0-9]+) prio=-?[0-9]+ orig_cpu=-?[0-9]+"
          r" dest_cpu=([0-9]{1,6})" + _MORE),
}
_KEPT = ("sched_switch:", "sched_wakeup:", "sched_wakeup_new:", "sched_migrate_task:")
# The header, loosely (any event, any number of digits), to say what is wrong with a line the
# patterns of _READERS do not take, and to know an event line.
_HEADER = re.compile(
    r".*?[-\s][0-9]+\s+(?:\(\s*[-0-9]+\)\s+)?"
    r"(?:\[(?P<cpu>[0-9]+)\]\s+(?:[^\s\[\]:]+\s+)?|(?P<lcpu>[0-9]+)[^\s0-9\[\]:]\S*\s+)"
    r"(?P<time>[0-9]+\.[0-9]+):\s+(?:\(\+[0-9]+\)\s+)?(?:sched:)?(?P<event>\w+):"
    r"\s*(?P<body>(?:.*\S)?)\s*$",
    re.ASCII)
# Loose on purpose: a digit of any script before the colon, so that a time in Arabic-Indic
# digits is refused as a line, not skipped as no event (the readers' only Unicode digit class).
_KEPT_AFTER_TIME = re.compile(r"(?:\d|us\S?)\s?:\s+(?:\(\+\d+\)\s+)?(?:sched:)?"
                              r"(?:sched_switch|sched_wakeup|sched_wakeup_new|sched_migrate_task):")
_LOST = re.compile(r"\[(?:LOST (?P<lost>[0-9]{1,20}) EVENTS"
                   r"|(?:(?P<dropped>[0-9]{1,20}) )?EVENTS DROPPED)\]")
# A lost-events line whatever its count says, to refuse (not skip) one _LOST does not take.
_LOST_ANY = re.compile(r"\[(?:LOST \S+ EVENTS|(?:\S+ )?EVENTS DROPPED)\]")
#: The kernel's header line of its buffer's counters (``tracing_stats`` in kernel/trace/trace.c).
_ENTRIES = re.compile(r"# entries-in-buffer/entries-written: ([0-9]{1,20})/([0-9]{1,20})")
#: The CPU of a lost-events line: ``CPU:1 [LOST 42 EVENTS]`` (kernel), ``CPU:1 [42 EVENTS
#: DROPPED]`` (trace-cmd report).
_LOST_CPU = re.compile(r"CPU:\s?(?P<cpu>[0-9]{1,%d})\s+\[" % MAX_INDEX_DIGITS)
_SECONDS = re.compile(r"(?P<whole>[0-9]{1,12})\.(?P<fraction>[0-9]{1,9})")
_SCALE = tuple(10 ** (9 - n) for n in range(10))  # ns per unit of a fraction of n digits
_FIRST = re.compile(r"\s*(?:#|cpus=[0-9]+\s*$|version\s*=\s*[0-9]+\s*$|<!doctype\s+html|<html)",
                    re.IGNORECASE)

_EXPECTED_LINE = "an ftrace line 'comm-pid [cpu] flags seconds.decimals: event: fields'"
_TASK_CACHE = 1 << 14  # distinct (pid, comm) pairs kept before the cache starts again


def parse_seconds(text: str) -> int:
    """The exact number of nanoseconds in *text*, decimal seconds as ftrace writes them.

    ``parse_seconds("5123.456789") == 5_123_456_789_000``.  The digits are read
    as integers; no float is involved, so no nanosecond is lost or invented.

    :raises ValueError: if *text* is not 1 to 12 digits, a point and 1 to 9 digits.
    """
    match = _SECONDS.fullmatch(text)
    if match is None:
        raise ValueError(f"not seconds with 1 to 9 decimals: {text!r}")
    return int(match["whole"]) * 1_000_000_000 + int(match["fraction"].ljust(9, "0"))


def prev_state_runnable(state: str, report_max: int = TASK_REPORT_MAX) -> bool:
    """Whether a task switched out in *state* (a ``prev_state``) was still runnable.

    *state* is the kernel's letters (``R``, ``R+``, ``S``, ``D|W``: runnable
    iff ``R`` or marked ``+``, preempted) or a number as the raw form prints
    it: runnable iff ``state & (report_max - 1) == 0`` or its ``report_max``
    bit is set.  *report_max* is the preempt bit of the recording kernel
    (:data:`TASK_REPORT_MAX` since Linux 4.14; a reader that has the
    kernel's format may pass that kernel's own).
    """
    if ascii_digits(state):
        value = int(state)
        return not value & (report_max - 1) or bool(value & report_max)
    return state == "R" or state.endswith("+")


def looks_like_ftrace(first_line: str) -> bool:
    """Whether *first_line* can begin a text trace :func:`sched_events` reads.

    The kernel's ``# tracer: nop`` (or any ``#`` comment), trace-cmd's
    ``cpus=N`` or ``version = 6``, systrace's ``<!DOCTYPE html>`` or
    ``<html>``, or an event line.
    """
    return bool(_FIRST.match(first_line) or _HEADER.match(first_line))


class FtraceTally(Tally):
    """:class:`~.kernel.Tally`, with the name :func:`read_ftrace`'s callers know.

    :ivar lines: lines read (the tally's ``records``).
    """

    @property
    def lines(self) -> int:
        """Lines read, every one."""
        return self.records


def sched_events(lines: Iterable[str], *, path: str = "<ftrace>",
                 tally: Tally | None = None) -> Iterator[SchedEvent]:
    """The scheduler events of the text trace *lines*, in their order, one by one.

    :param lines: a trace in any form the module describes, line by line (an
        open file will do); line ends are ignored.  Read only as the
        iterator is advanced.
    :param path: the trace's name, for ``where`` and error messages.
    :param tally: if given, its ``records`` counts the lines read.
    :raises KernelTraceError: while iterating, for a line of a kept event
        that cannot be read, a time before the previous event's, a record of
        lost events, or a compressed systrace block.
    """
    return _events(lines, path, Tally() if tally is None else tally)


def read_ftrace(lines: Iterable[str], mapping: Mapping[str, str], *,
                origin_ns: int | None = None, path: str = "<ftrace>",
                tally: Tally | None = None) -> Iterator[dict[str, Any]]:
    """The oracle's events of the text trace *lines*: :func:`sched_events`
    through :func:`~.kernel.akita_events`.

    :param mapping: which task runs which vCPU: a pid in decimal or a comm, to
        ``"VM/i"`` (a pid key wins).  Tasks not named are invisible.
    :param origin_ns: the kernel time, in ns, that becomes ``t = 0`` (default:
        the first event's).
    :param tally: if given, counts what was read (:class:`FtraceTally`).
    :returns: an iterator of ``{"t", "cpu", "event"[, "vcpu"], "line"}``.
    :raises ModelError: at once, if *mapping* or *origin_ns* is malformed.
    :raises KernelTraceError: while iterating (see :func:`sched_events`);
        events before the origin are skipped and counted (``tally.before_origin``).
    """
    checked = check_mapping(mapping)
    origin = check_origin(origin_ns)
    tally = FtraceTally() if tally is None else tally
    return akita_events(sched_events(lines, path=path, tally=tally), checked,
                        origin_ns=origin, tally=tally)


def _events(lines: Iterable[str], path: str, tally: Tally) -> Iterator[SchedEvent]:
    numbered = _numbered(lines, path)
    tasks: dict[tuple[str, str], Task] = {}

    def task(pid: str, comm: str) -> Task | None:
        if pid == "0":
            return None
        found = tasks.get((pid, comm))
        if found is None:
            if len(tasks) >= _TASK_CACHE:
                tasks.clear()
            found = tasks[(pid, comm)] = Task(pid, comm)
        return found

    last: tuple[int, tuple[Any, ...], int] = (-1, (), 0)  # the last event's ns, groups, line
    for number, text in numbered:
        tally.records = number
        if _MARK in text:
            mark = _mark(text, f"{path}:{number}", number)
            if mark is not None:
                if mark.ns < last[0]:
                    raise KernelTraceError("timestamp", mark.ns, f"a time at or after "
                                           f"{last[0]} ns", path=f"{path}:{number}")
                yield mark
            continue
        at = text.find("sched_")
        while at >= 0 and not text.startswith(_KEPT, at):
            at = text.find("sched_", at + 6)
        if at < 0:
            if text.startswith("# entries-in-buffer/entries-written:"):
                entries = _ENTRIES.match(text)
                if entries is not None:
                    tally.overwritten += max(int(entries[2]) - int(entries[1]), 0)
                continue
            if "EVENTS" in text:
                lost = _lost(text, last[0], f"{path}:{number}", number)
                if lost is not None:
                    yield lost
            continue
        fast, slow, decode = _READERS[text[at + 6]]
        m = fast.match(text, max(text.rfind("[", 0, at), 0)) or slow.match(text)
        if m is None:
            _refuse(text, f"{path}:{number}")  # or return: a line that is no event
            continue
        fields = m.groups()
        ns = int(fields[1] + fields[2]) * _SCALE[len(fields[2])]
        if ns < last[0]:
            raise _backwards(fields, last, f"{path}:{number}")
        last = (ns, fields, number)
        event = decode(fields, ns, f"{path}:{number}", number, task)
        if event is not None:
            yield event


def _lost(text: str, ns: int, where: str, number: int) -> SchedEvent | None:
    """A record of lost events, of the CPU it names, dated at the last event read; ``None``
    if *text* is no lost-events line.

    :raises KernelTraceError: a lost-events line whose count is not ASCII digits (at most
        20), or that names no CPU.
    """
    lost = _LOST.search(text)
    if lost is None:
        shape = _LOST_ANY.search(text)
        if shape is not None:
            raise KernelTraceError("lost events", shape[0], "a count of at most 20 ASCII "
                                   "digits, '[LOST n EVENTS]' or '[n EVENTS DROPPED]'",
                                   path=where)
        return None
    cpu = _LOST_CPU.search(text)
    if cpu is None:
        raise KernelTraceError("trace", text.strip(), "a lost-events line naming its CPU, "
                               "'CPU:N [LOST n EVENTS]' or 'CPU:N [n EVENTS DROPPED]'",
                               path=where)
    count = lost["lost"] or lost["dropped"]
    return SchedEvent(max(ns, 0), int(cpu["cpu"]), "lost", where, number,
                      count=None if count is None else int(count))
#: A controller's decision written to ``trace_marker`` (:data:`.kernel.MARK_PREFIX`).
_MARK = "tracing_mark_write: " + MARK_PREFIX


def _mark(text: str, where: str, line: int) -> SchedEvent | None:
    """The ``mark`` event of a ``tracing_mark_write`` line of the project's controllers."""
    head = _HEADER.match(text)
    if head is None or head["event"] != "tracing_mark_write":
        return None
    try:
        ns = parse_seconds(head["time"])
    except ValueError:
        raise KernelTraceError("timestamp", head["time"], "seconds with at most 9 decimals",
                               path=where) from None
    return SchedEvent(ns, int(head["cpu"] or head["lcpu"] or 0), "mark", where, line,
                      text=head["body"])


def _backwards(fields: tuple[Any, ...], last: tuple[int, tuple[Any, ...], int], where: str) -> KernelTraceError:
    _, before, line = last
    return KernelTraceError(
        "timestamp", f"{fields[1]}.{fields[2]}", f"a time at or after {before[1]}.{before[2]} "
        f"(line {line}), the lines in time order (sort them by time, or read the capture with "
        "'trace-cmd report', which merges the CPUs' buffers by time)", path=where)


# The events of a line's groups (cpu, seconds, decimals, then the body's, as _BODIES has them).
_TaskOf = Callable[[str, str], "Task | None"]


def _switch(fields: tuple[Any, ...], ns: int, where: str, line: int, task: _TaskOf) -> SchedEvent:
    cpu, _, _, pc, pp, ps, nc, np, pc2, pp2, ps2, nc2, np2 = fields
    if pp is not None:
        return SchedEvent(ns, int(cpu), "switch", where, line, task(pp, pc),
                          prev_state_runnable(ps), task(np, nc))
    return SchedEvent(ns, int(cpu), "switch", where, line, task(pp2, pc2), ps2 == "R",
                      task(np2, nc2))


def _wakeup(fields: tuple[Any, ...], ns: int, where: str, line: int, task: _TaskOf) -> SchedEvent | None:
    """``None`` for a wakeup with ``success=0``: its task was runnable, nothing changed."""
    cpu, _, _, name, comm, pid, success, target, comm2, pid2, success2, target2 = fields
    if pid is None:
        comm, pid, success, target = comm2, pid2, success2, target2
    if success == "0":
        return None
    kind: SchedKind = "wakeup" if name == "sched_wakeup" else "wakeup_new"
    return SchedEvent(ns, int(cpu), kind, where, line, None, False, None, task(pid, comm),
                      int(target))


def _migrate(fields: tuple[Any, ...], ns: int, where: str, line: int, task: _TaskOf) -> SchedEvent:
    cpu, _, _, comm, pid, target = fields
    return SchedEvent(ns, int(cpu), "migrate", where, line, None, False, None, task(pid, comm),
                      int(target))


_Decoder = Callable[[tuple[Any, ...], int, str, int, _TaskOf], "SchedEvent | None"]
#: By the letter after ``sched_``: the fast and the whole line's pattern, and the decoder.
_READERS: dict[str, tuple[re.Pattern[str], re.Pattern[str], _Decoder]] = {
    letter: (re.compile(f"{_FROM_CPU}{_TIME}{_BODIES[letter]}\\s*$", re.ASCII),  # ASCII digits
             re.compile(f"{_WHOLE}{_TIME}{_BODIES[letter]}\\s*$", re.ASCII), decode)
    for letter, decode in (("s", _switch), ("w", _wakeup), ("m", _migrate))}


# -- where the lines come from: a text file, or the ftrace blocks of a systrace HTML file --

def _numbered(lines: Iterable[str], path: str) -> Iterator[tuple[int, str]]:
    """``(number, text)`` for every line; a systrace file's lines outside its text blocks as ''."""
    numbered = enumerate(lines, start=1)
    first = next(numbered, None)
    if first is None:
        return iter(())
    if re.match(r"\s*<(?:!doctype\s+html|html)", first[1], re.IGNORECASE):
        return chain([(first[0], "")], _systrace(numbered, path))
    return chain([first], numbered)


def _systrace(numbered: Iterator[tuple[int, str]], path: str) -> Iterator[tuple[int, str]]:
    """The lines of a systrace HTML file, those outside its blocks of ftrace text as ''.

    A block is ``<script class="trace-data" ...>`` (or the legacy
    ``var linuxPerfData = "\\``) to ``</script>``; it is ftrace text unless
    its first line opens JSON.  A legacy line may end in an escaped ``\\n\\``.
    """
    state = "out"  # out of a block; "start" of one; in a "text" or "json" block
    for number, text in numbered:
        if state == "out":
            if "trace-data" in text and "<script" in text or "var linuxPerfData" in text:
                state = "start"
            yield number, ""
            continue
        if "</script>" in text:
            state = "out"
            yield number, ""
            continue
        if state == "start" and text.strip():
            head = text.lstrip()
            if head.startswith("H4sI"):  # base64 of gzip's magic bytes
                raise KernelTraceError("", head[:40], "a systrace block of ftrace text (this "
                                       "one is compressed: decode it with 'base64 -d | gunzip' "
                                       "and read the text)", path=f"{path}:{number}")
            state = "json" if head[:1] in "{[" else "text"
        if state == "text":
            line = text.rstrip("\r\n")
            yield number, line[:-3] if line.endswith("\\n\\") else line
        else:
            yield number, ""


# -- what is wrong with a line that names a kept event but is not one -------------------------

_FORMS = {  # the kernel's form of each event's fields, and trace-cmd's default form
    "sched_switch": ("'prev_comm=C prev_pid=P prev_prio=N prev_state=S ==> next_comm=C "
                     "next_pid=P next_prio=N'", "trace-cmd's 'C:P [N] S ==> C:P [N]'"),
    "sched_wakeup": ("'comm=C pid=P prio=N [success=0|1] target_cpu=CPU'",
                     "trace-cmd's 'C:P [N] [success=0|1] CPU:CPU'"),
    "sched_migrate_task": ("'comm=C pid=P prio=N orig_cpu=CPU dest_cpu=CPU'",
                           "'comm=C pid=P prio=N orig_cpu=CPU dest_cpu=CPU'"),
}
_FORMS["sched_wakeup_new"] = _FORMS["sched_wakeup"]
_NUMBER = re.compile(r"-?[0-9]+")
_DIGITS = re.compile(r"[0-9]+")
_FIELDS = {  # the fields of the kernel's form, in order: (name, value, what it must be)
    "sched_switch": (("prev_comm", None, ""), ("prev_pid", _DIGITS, "a pid"),
                     ("prev_prio", _NUMBER, "a number"),
                     ("prev_state", re.compile(_STATE), "a state (letters such as R, R+, S, "
                      "D|W, or a number of at most 20 digits)"),
                     ("next_comm", None, ""), ("next_pid", _DIGITS, "a pid"),
                     ("next_prio", _NUMBER, "a number")),
    "sched_wakeup": (("comm", None, ""), ("pid", _DIGITS, "a pid"),
                     ("prio", _NUMBER, "a number"), ("target_cpu", _DIGITS, "a CPU number")),
    "sched_migrate_task": (("comm", None, ""), ("pid", _DIGITS, "a pid"),
                           ("prio", _NUMBER, "a number"), ("orig_cpu", _NUMBER, "a CPU number"),
                           ("dest_cpu", _DIGITS, "a CPU number")),
}
_FIELDS["sched_wakeup_new"] = _FIELDS["sched_wakeup"]
_KEY = re.compile(r"(?:^| )(\w+)=")
_PLUGIN_TASK = re.compile(r"(.*):([0-9]+) \[(-?[0-9]+)\]")


def _refuse(text: str, where: str) -> None:
    """Raise the error of *text*, a line that names a kept event but :data:`_EVENT`
    does not take; return if it is no event line (a ``bprint`` continuation, a
    ``print`` of such a name)."""
    head = _HEADER.match(text)
    if head is None:
        if _KEPT_AFTER_TIME.search(text):
            raise KernelTraceError("line", text.strip(), _EXPECTED_LINE, path=where)
        return
    event, body = head["event"], head["body"]
    if event + ":" not in _KEPT:
        return
    try:
        parse_seconds(head["time"])
    except ValueError:
        raise KernelTraceError("timestamp", head["time"], "seconds with at most 9 decimals "
                               "(and at most 12 digits before the point)", path=where) from None
    cpu = head["cpu"] or head["lcpu"]
    if len(cpu) > MAX_INDEX_DIGITS:
        raise _cpu_error("cpu", cpu, where)
    fields = "comm=" in body or event == "sched_migrate_task"
    problem = (_field_problem if fields else _plugin_problem)(event, body, where)
    raise KernelTraceError(event, body, f"{_FORMS[event][0 if fields else 1]} ({problem})",
                           path=where)


def _cpu_error(field: str, digits: str, where: str) -> KernelTraceError:
    return KernelTraceError(field, digits, f"a CPU number of at most {MAX_INDEX_DIGITS} digits",
                            path=where)


def _field_problem(event: str, body: str, where: str) -> str:
    keys = list(_KEY.finditer(body))
    values: dict[str, str] = {}
    for i, key in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(body)
        values.setdefault(key[1], body[key.end():end].removesuffix(" ==>"))
    previous = "the event's name"
    for name, pattern, what in _FIELDS[event]:
        if name not in values:
            return f"no '{name}=' field after {previous}"
        value = values[name]
        if pattern is not None and not pattern.fullmatch(value):
            return f"{name}={value!r} is not {what}"
        if name in ("target_cpu", "dest_cpu") and len(value) > MAX_INDEX_DIGITS:
            raise _cpu_error(name, value, where)
        previous = f"'{name}={value}'"
    if event == "sched_switch" and set(values) - {name for name, _, _ in _FIELDS[event]}:
        extra = sorted(set(values) - {name for name, _, _ in _FIELDS[event]})
        return f"an unknown field '{extra[0]}='"
    return "the fields are out of order, or not one space apart"


def _plugin_problem(event: str, body: str, where: str) -> str:
    if event == "sched_switch":
        prev, arrow, nxt = body.partition(" ==> ")
        if not arrow:
            return "no ' ==> ' between the task switched out and the one switched in"
        if not re.fullmatch(r".*:[0-9]+ \[-?[0-9]+\] [A-Za-z|]+", prev):
            return f"the task switched out {prev!r} is not 'comm:pid [prio] state'"
        if not _PLUGIN_TASK.fullmatch(nxt):
            return f"the task switched in {nxt!r} is not 'comm:pid [prio]'"
        return "a part that is not one space apart"
    task, cpu_mark, cpu = body.rpartition(" CPU:")
    if not cpu_mark:
        return "no ' CPU:NNN' (the CPU the task is queued on)"
    if ascii_digits(cpu) and len(cpu) > MAX_INDEX_DIGITS:
        raise _cpu_error("target_cpu", cpu, where)
    if not ascii_digits(cpu):
        return f"the target CPU {cpu!r} is not a CPU number"
    task = re.sub(r" success=[0-9]+$", "", task)
    if not _PLUGIN_TASK.fullmatch(task):
        return f"the task {task!r} is not 'comm:pid [prio]'"
    return "a part that is not one space apart"


#: The header pattern, under its old name, for callers that test a first line
#: (use :func:`looks_like_ftrace`, which also knows trace-cmd's and systrace's).
_LINE = _HEADER

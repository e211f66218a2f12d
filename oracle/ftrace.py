"""Reading a Linux kernel trace as a stream of Akita trace events.

What ftrace records
-------------------

The Linux scheduler has tracepoints, and ftrace writes the events they fire
as text, one line per event, in the ``trace`` and ``trace_pipe`` files of the
tracing file system.  Three of them say what a CPU scheduler decided:

``sched_switch``
   A CPU stops running one task (``prev_*``) and starts another
   (``next_*``).  ``prev_state`` says why the first one stopped: ``R`` (or
   ``R+``) if it was still runnable, so it was preempted; anything else
   (``S`` sleeping, ``D`` waiting for I/O, ``I`` idle, ``S|...``) if it
   blocked.
``sched_wakeup`` and ``sched_wakeup_new``
   A task (a new one, for the second) becomes runnable, queued on the CPU
   ``target_cpu``.

A line is ``comm-pid``, an optional ``(tgid)``, the ``[cpu]`` the event
happened on, an optional column of flags (``d..2.``, ``dNh4.``; older
kernels have none), the time in seconds with six or nine decimals and a
colon, the event's name and its fields (each event is one line, wrapped
here)::

    <idle>-0     [001] d..2.  5123.456789: sched_switch: prev_comm=swapper/1 prev_pid=0
        prev_prio=120 prev_state=R ==> next_comm=qemu-web next_pid=4242 next_prio=120
    <idle>-0     [000] dNh4.  5123.459000: sched_wakeup: comm=qemu-web pid=4242
        prio=120 target_cpu=001

Older kernels write ``sched_wakeup`` with a ``success=`` field before
``target_cpu``.  A wakeup with ``success=0`` found its task already runnable
and changed nothing, so it is skipped.

The mapping
-----------

The host sees a vCPU as a task of its kernel: a thread of the VM's
hypervisor process (QEMU names its vCPU threads ``CPU 0/KVM``,
``CPU 1/KVM``, ...).  A *mapping* says which task runs which vCPU.  It maps
a key to a vCPU name ``VM/i``, where a key is either a pid in decimal
(``"4242"``) or a comm (``"qemu-web"``, at most 15 bytes, the kernel's
limit).  A task is looked up by its pid first, then by its comm, so a pid key
wins over a comm key.  Pid 0, the idle task of every CPU (``swapper/N``), is
never mapped.  A host file can carry the mapping in its ``[trace_map]``
table (:attr:`akita.model.Host.trace_map`; pass ``dict(host.trace_map)``).

Tasks the mapping does not name are *invisible to the oracle*: a CPU that
runs one of them is, as far as Akita is concerned, idle, and their wakeups
and blocks are dropped.  (The host's own threads do use the CPU; the trace
cannot say whether Akita would have let them.)

The events
----------

:func:`read_ftrace` turns the kernel's events into Akita trace events
(``docs/trace-format.rst``), dicts shaped as its JSON Lines event lines:
``{"t": ns, "cpu": int, "event": kind, "vcpu": "VM/i"}``.

* A ``sched_switch`` away from a mapped task whose ``prev_state`` is not
  ``R`` or ``R+`` is a ``block`` of its vCPU.  A switch away from a still
  runnable task is a preemption, which the next event shows.
* A ``sched_switch`` to a mapped task is a ``dispatch`` of its vCPU on the
  CPU; to pid 0 or to an unmapped task it is an ``idle`` of the CPU (written
  once: no second ``idle`` while the CPU is already idle).  At one time the
  ``block`` comes before the ``dispatch`` or ``idle``.
* A ``sched_wakeup`` or ``sched_wakeup_new`` of a mapped task is a ``wake``
  of its vCPU, with ``cpu`` its ``target_cpu``.

Times are exact.  The kernel's decimal seconds are read digit by digit into
integer nanoseconds, never through a float (``5123.456789`` is
``5123456789000`` ns), and an *origin* is subtracted, so that ``t`` starts
at 0 as in a simulated trace.  The origin is the ``origin_ns`` argument or,
by default, the time of the first ``sched_switch``, ``sched_wakeup`` or
``sched_wakeup_new`` line.  The oracle measures every VM's phase from the
origin: the first period of a vCPU of phase ``p`` begins at ``t = p``, the
next at ``p + T``, and so on.  A kernel trace carries no phases, so the
host file must declare them (``phase = "3ms"`` per VM, or ``phases =
"synchronous"``; :mod:`akita.oracle.phases`); choose ``origin_ns`` as the instant
those phases are measured from.

What a kernel trace cannot tell
-------------------------------

Akita's state is richer than the kernel's.  A kernel trace has no mode
(``mode``), no budgets (``release`` and ``exhaust``, the ``budget``,
``deadline`` and ``key`` of a ``dispatch``), no period starts, no
temperatures and no job completions.  A conformance oracle reading a kernel
trace can therefore check only what follows from who ran, who was runnable
and when; the rules on modes, budgets, releases and temperatures are checked
only from JSON Lines traces that record them.

Reading is strict where it matters and streaming throughout.  Comment lines
(``#``), blank lines, other events and text that is no event line are
skipped.  A line of a kept event (``sched_switch``, ``sched_wakeup``,
``sched_wakeup_new``) that cannot be read, a time that goes backwards, a time
before the origin, and a ``[LOST n EVENTS]`` line (a trace with a hole
cannot be checked) are refused with an :class:`FtraceError` naming the file
and line (``trace.txt:12``), the field, what was expected and what was got.
So are numbers beyond the ceilings of :doc:`/trace-format`: a CPU number of
more than :data:`MAX_INDEX_DIGITS` digits, a timestamp of more than 12
digits before the point.  A :class:`FtraceTally` passed to
:func:`read_ftrace` counts what was read, so that a caller can refuse a
trace with no kept line, or none of whose tasks is mapped, instead of
judging an empty schedule.  The reader holds one line and
one state per CPU, whatever the length of the trace.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from akita.model.errors import ModelError
from akita.model.host import check_trace_key, check_trace_vcpu
from akita.reference.trace import TraceError

__all__ = ["FtraceError", "FtraceTally", "read_ftrace", "parse_seconds", "MAX_INDEX_DIGITS"]

#: The most digits a CPU number of an ftrace line may have (the kernel prints three).
MAX_INDEX_DIGITS = 6

_KEPT = ("sched_switch", "sched_wakeup", "sched_wakeup_new")
_RUNNABLE = ("R", "R+")

_LINE = re.compile(
    r"^\s*(?P<task>.+)-(?P<pid>\d+)\s+"
    r"(?:\(\s*[-\d]+\)\s+)?"
    r"\[(?P<cpu>\d+)\]\s+"
    r"(?:(?P<flags>[^\s\[\]:]+)\s+)?"
    r"(?P<time>\d+\.\d+):\s+"
    r"(?P<event>\w+):\s?(?P<body>.*?)\s*$"
)
_SWITCH = re.compile(
    r"prev_comm=(?P<prev_comm>.*?) prev_pid=(?P<prev_pid>\d+) prev_prio=-?\d+"
    r" prev_state=(?P<prev_state>\S+)"
    r" ==> next_comm=(?P<next_comm>.*?) next_pid=(?P<next_pid>\d+) next_prio=-?\d+"
)
_WAKEUP = re.compile(
    r"comm=(?P<comm>.*?) pid=(?P<pid>\d+) prio=-?\d+"
    r"(?: success=(?P<success>[01]))?"
    r" target_cpu=(?P<target_cpu>\d+)"
)
_KEPT_NAME = re.compile(r"\b(?:sched_switch|sched_wakeup|sched_wakeup_new):")
_LOST = re.compile(r"\[LOST \d+ EVENTS\]")
_SECONDS = re.compile(r"(?P<whole>\d{1,12})\.(?P<fraction>\d{1,9})")

_EXPECTED_LINE = "an ftrace line 'comm-pid [cpu] flags seconds.decimals: event: fields'"
_EXPECTED = {
    "sched_switch": (
        "'prev_comm=C prev_pid=P prev_prio=N prev_state=S ==> next_comm=C next_pid=P next_prio=N'"
    ),
    "sched_wakeup": "'comm=C pid=P prio=N [success=0|1] target_cpu=CPU'",
}
_EXPECTED["sched_wakeup_new"] = _EXPECTED["sched_wakeup"]


class FtraceError(TraceError):
    """A kernel trace cannot be read as the oracle needs it.

    A :class:`~akita.reference.trace.TraceError` (so a
    :class:`~akita.model.errors.ModelError`), located as the JSON Lines
    reader locates its errors: its ``path`` is ``"FILE:LINE"``, and the
    message reads ``trace.txt:12: field 'sched_switch': expected ..., got
    ...``.
    """


class FtraceTally:
    """What :func:`read_ftrace` read, for a caller to tell an empty answer from a clean one.

    :ivar lines: lines read.
    :ivar kept: lines of a kept event (``sched_switch``, ``sched_wakeup``,
        ``sched_wakeup_new``).
    :ivar mapped: events of a mapped task yielded (``dispatch``, ``block``, ``wake``).
    :ivar unmapped: the first few tasks (``comm-pid``) seen that the mapping does not name.
    """

    __slots__ = ("lines", "kept", "mapped", "unmapped")

    #: How many unmapped task names are kept.
    NAMES = 5

    def __init__(self) -> None:
        self.lines = 0
        self.kept = 0
        self.mapped = 0
        self.unmapped: list[str] = []

    def saw_unmapped(self, comm: str, pid: str) -> None:
        name = f"{comm}-{pid}"
        if pid != "0" and len(self.unmapped) < self.NAMES and name not in self.unmapped:
            self.unmapped.append(name)


def _index(text: str, field: str, where: str) -> int:
    if len(text) > MAX_INDEX_DIGITS:
        raise FtraceError(field, text, f"a CPU number of at most {MAX_INDEX_DIGITS} digits",
                          path=where)
    return int(text)


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


def _mapping(mapping: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(mapping, Mapping):
        raise ModelError("mapping", mapping, "a mapping from pids or comms to vCPU names 'VM/i'")
    checked = {}
    for key, vcpu in mapping.items():
        field = f"mapping[{key!r}]"
        check_trace_key(key, field=field)
        check_trace_vcpu(vcpu, field=field)
        checked[key] = vcpu
    return checked


def read_ftrace(
    lines: Iterable[str],
    mapping: Mapping[str, str],
    *,
    origin_ns: int | None = None,
    path: str = "<ftrace>",
    tally: FtraceTally | None = None,
) -> Iterator[dict]:
    """The Akita trace events of the ftrace text *lines*, one by one.

    :param lines: the text of a ``trace`` or ``trace_pipe`` file, line by line
        (an open file will do); line ends are ignored.
    :param mapping: which task runs which vCPU: a pid in decimal or a comm,
        to ``"VM/i"``.  A pid key wins over a comm key.  Tasks not named are
        invisible: running one is ``idle``.
    :param origin_ns: the kernel time, in ns, that becomes ``t = 0``, from
        which every VM's phase is measured.  Default: the time of the first
        ``sched_switch``, ``sched_wakeup`` or ``sched_wakeup_new`` line.
    :param path: the name of the trace, for error messages.
    :param tally: if given, counts what was read (:class:`FtraceTally`).
    :returns: an iterator of event dicts ``{"t", "cpu", "event"[, "vcpu"]}``
        in nondecreasing ``t``.  It reads *lines* only as it is advanced.
    :raises ModelError: at once, if *mapping* or *origin_ns* is malformed.
    :raises FtraceError: while iterating, for a malformed line of a kept
        event, a time that goes backwards or lies before the origin, or a
        ``[LOST n EVENTS]`` line.
    """
    checked = _mapping(mapping)
    if origin_ns is not None and (
        not isinstance(origin_ns, int) or isinstance(origin_ns, bool) or origin_ns < 0
    ):
        raise ModelError("origin_ns", origin_ns, "an integer number of ns >= 0, or None")
    return _events(lines, checked, origin_ns, path, FtraceTally() if tally is None else tally)


def _events(
    lines: Iterable[str], mapping: dict[str, str], origin: int | None, path: str,
    tally: FtraceTally,
) -> Iterator[dict]:
    def vcpu_of(pid: str, comm: str) -> str | None:
        if pid == "0":
            return None
        found = mapping.get(pid)
        found = found if found is not None else mapping.get(comm)
        if found is None:
            tally.saw_unmapped(comm, pid)
        return found

    idle: dict[int, bool] = {}  # per CPU: whether its last event was an idle
    last: tuple[int, str, int] | None = None  # (ns, text, line) of the last kept event
    for number, raw in enumerate(lines, start=1):
        tally.lines = number
        text = raw.rstrip("\r\n")
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _LINE.match(text)
        if match is None:
            if _LOST.search(text):
                raise FtraceError(
                    "trace", stripped,
                    "a complete trace (events were lost: enlarge buffer_size_kb)",
                    path=f"{path}:{number}",
                )
            if _KEPT_NAME.search(text):
                raise FtraceError("line", stripped, _EXPECTED_LINE, path=f"{path}:{number}")
            continue
        event = match["event"]
        if event not in _KEPT:
            continue
        tally.kept += 1
        stamp = match["time"]
        try:
            now = parse_seconds(stamp)
        except ValueError:
            raise FtraceError(
                "timestamp", stamp, "seconds with at most 9 decimals", path=f"{path}:{number}"
            ) from None
        if last is not None and now < last[0]:
            raise FtraceError(
                "timestamp", stamp, f"a time at or after {last[1]} (line {last[2]})",
                path=f"{path}:{number}",
            )
        last = (now, stamp, number)
        if origin is None:
            origin = now
        elif now < origin:
            raise FtraceError(
                "timestamp", stamp, f"a time at or after the origin ({origin} ns)",
                path=f"{path}:{number}",
            )
        t = now - origin
        body = match["body"]
        if event == "sched_switch":
            fields = _SWITCH.fullmatch(body)
            if fields is None:
                raise FtraceError(event, body, _EXPECTED[event], path=f"{path}:{number}")
            cpu = _index(match["cpu"], "cpu", f"{path}:{number}")
            prev = vcpu_of(fields["prev_pid"], fields["prev_comm"])
            if prev is not None and fields["prev_state"] not in _RUNNABLE:
                tally.mapped += 1
                yield {"t": t, "cpu": cpu, "event": "block", "vcpu": prev, "line": number}
            nxt = vcpu_of(fields["next_pid"], fields["next_comm"])
            if nxt is not None:
                tally.mapped += 1
                idle[cpu] = False
                yield {"t": t, "cpu": cpu, "event": "dispatch", "vcpu": nxt, "line": number}
            elif not idle.get(cpu, False):
                idle[cpu] = True
                yield {"t": t, "cpu": cpu, "event": "idle", "line": number}
        else:
            fields = _WAKEUP.fullmatch(body)
            if fields is None:
                raise FtraceError(event, body, _EXPECTED[event], path=f"{path}:{number}")
            if fields["success"] == "0":
                continue
            woken = vcpu_of(fields["pid"], fields["comm"])
            if woken is not None:
                tally.mapped += 1
                cpu = _index(fields["target_cpu"], "target_cpu", f"{path}:{number}")
                yield {"t": t, "cpu": cpu, "event": "wake", "vcpu": woken, "line": number}

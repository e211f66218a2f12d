"""The scheduler events every trace reader produces, and what they mean to the oracle.

A kernel or hypervisor records its scheduler's decisions in its own format
-- ftrace text, ``trace-cmd report`` text, Android systrace, trace-cmd's
binary ``trace.dat``, Xen's ``xentrace`` records -- but they all say the
same few things: a CPU switched from one task to another (and whether the
first was still runnable), a task woke up and was queued on a CPU, a task
moved to another CPU.  Each reader turns its format into a stream of
:class:`SchedEvent`, in the order the trace gives them; :func:`akita_events`
is the one place that turns such a stream into the oracle's events
(``docs/trace-format.rst``), whatever the format:

* a ``switch`` away from a mapped task that is no longer runnable is a
  ``block`` of its vCPU (a switch away from a runnable one is a preemption,
  which the next decision shows);
* a ``switch`` to a mapped task is a ``dispatch`` of its vCPU on the CPU; to
  the idle task or to an unmapped one it is an ``idle`` of the CPU (written
  once: no second ``idle`` while the CPU is already idle).  At one instant
  the ``block`` comes before the ``dispatch`` or ``idle``;
* a ``wakeup`` or ``wakeup_new`` of a mapped task is a ``wake`` of its vCPU
  on its ``target_cpu``;
* a ``migrate`` changes nothing the oracle reads (the next wakeup or
  dispatch says where the task runs); it is counted, so that a report can
  say whether the trace recorded migrations;
* in a trace whose origin is a controller's ``akita: origin`` mark (below),
  a ``dispatch`` of a vCPU the trace has neither woken nor blocked since is
  preceded by its ``wake`` at the same instant: the check begins while the
  vCPUs already run, a task that runs is runnable, and one that never
  sleeps (a CPU-bound guest) has no wakeup to show it;
* a ``mark`` is a line a controller wrote to ``trace_marker`` beginning with
  :data:`MARK_PREFIX` (:mod:`akita.linux`): ``akita: origin`` sets the
  origin (unless one is given) to its time; ``akita: mode pcpu=N HI`` is a
  ``mode`` decision of pCPU ``N``; ``akita: temperature pcpu=N vcpu=VM/i
  value=K`` a ``temperature`` decision.  Other marks are ignored.

Lost events
-----------

A kernel does not always write every record: a ring buffer that overflows
drops them and says so (the kernel's ``[LOST n EVENTS]`` line, trace-cmd's
``[n EVENTS DROPPED]``, a ring-buffer page's missed-events flag; a ``lost``
:class:`SchedEvent`), and a guest kernel under load has been seen to drop
``sched_switch`` records and say nothing.  Every switch names the task it
switches *from* (``prev``), which must be the task the CPU's last switch
switched *to*: where they differ, at least one switch of that CPU was not
written.  Either way, the CPU's state from its last known switch (``since``)
to the first switch after the hole is unknown; that switch is turned into
a ``lost`` event of the CPU, ``{"t", "cpu", "event": "lost", "since"[,
"vcpu"][, "count"]}``, ahead of its ``block`` and ``dispatch`` or
``idle``: ``vcpu`` is the vCPU the CPU was found running (absent: the idle
task or an unmapped one), ``count`` the records the capture says it lost,
if it says.  The oracle resynchronises on it and withholds what the hole
would make it find (:mod:`akita.oracle.oracle`); a hole that no later
switch of its CPU closes is reported at the stream's last instant.  The
first :data:`Tally.LOST_SHOWN` holes are kept in :attr:`Tally.lost_at`.

The *mapping* says which task runs which vCPU: a key is a task's ``pid``
(decimal for Linux, ``d1v0`` for a Xen vCPU) or its ``comm``; a pid key
wins.  Unmapped tasks are invisible: a CPU running one is idle to the oracle.

Times are exact integer nanoseconds on the trace's clock; an *origin* is
subtracted so that ``t`` starts at 0 (default: the first event's time).
Events before a given origin are skipped, not judged, and counted
(:attr:`Tally.before_origin`): the origin is where the check begins, the
instant every VM's phase is measured from.  A time that goes backwards is
refused, located by the event's ``where`` (``trace.txt:12``,
``trace.dat@0x1a2c0``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

import attrs

from akita.model.errors import ModelError
from akita.model.host import check_trace_key, check_trace_vcpu
from .jsonl import TraceError

__all__ = ["MARK_PREFIX", "Task", "SchedEvent", "SchedKind", "Tally", "KernelTraceError",
           "akita_events", "ascii_digits",
           "check_mapping", "check_origin"]

SchedKind = Literal["switch", "wakeup", "wakeup_new", "migrate", "lost", "mark"]


def ascii_digits(text: str) -> bool:
    """Whether *text* is one or more of the ASCII digits ``0``-``9``.

    The kernel prints numbers in ASCII; :meth:`str.isdigit` (like the digit
    class of a ``str`` pattern without :data:`re.ASCII`) also takes Arabic-Indic
    ``'١٢'``, which :func:`int` reads as 12, and superscript ``'²'``, which
    :func:`int` refuses -- a field of either is not a kernel's number.
    """
    return text.isascii() and text.isdigit()


#: The beginning of a controller's ``trace_marker`` line that the oracle reads.
MARK_PREFIX = "akita: "


class KernelTraceError(TraceError):
    """A kernel or hypervisor trace cannot be read as the oracle needs it.

    A :class:`~akita.trace.jsonl.TraceError` (so a
    :class:`~akita.model.errors.ModelError`) whose ``path`` locates the
    problem: ``"FILE:LINE"`` for text, ``"FILE@0xOFFSET"`` for a binary
    record; its message names the field, what was expected and what was got.
    """


@attrs.frozen(slots=True)
class Task:
    """A schedulable entity of the traced system: a Linux task or a Xen vCPU.

    :ivar pid: its id as text (``"4242"``; ``"d1v0"`` for domain 1's vCPU 0).
    :ivar comm: its name (``"CPU 0/KVM"``; the same as *pid* for a Xen vCPU).
    """

    pid: str
    comm: str


@attrs.define(slots=True)
class SchedEvent:
    """One scheduler event as a reader found it (never changed once made).

    Not ``attrs.frozen``: a frozen instance costs 1.6 us more to build, half
    of a trace.dat reader's time per record (measured: 300k against 345k
    records/s), and readers make one per record.

    :ivar ns: the time on the trace's clock, integer ns.
    :ivar cpu: the CPU the event happened on (a ``switch``'s CPU).
    :ivar kind: ``"switch"``, ``"wakeup"``, ``"wakeup_new"`` or ``"migrate"``.
    :ivar where: the event's place in its file, for messages (``trace.txt:12``).
    :ivar line: its line (text) or ordinal (binary), carried into the oracle's events.
    :ivar prev: ``switch``: the task switched out (``None``: the idle task).
    :ivar prev_runnable: ``switch``: whether *prev* was still runnable (preempted).
    :ivar next: ``switch``: the task switched in (``None``: the idle task).
    :ivar task: ``wakeup``, ``wakeup_new``, ``migrate``: the task.
    :ivar target_cpu: ``wakeup``: the CPU it is queued on; ``migrate``: the CPU it moves to.
    :ivar count: ``lost``: the records the capture says were lost before this
        point of *cpu*'s buffer (``None``: it does not say how many).
    :ivar text: ``mark``: the marker's text.
    """

    ns: int
    cpu: int
    kind: SchedKind
    where: str
    line: int
    prev: Task | None = None
    prev_runnable: bool = False
    next: Task | None = None
    task: Task | None = None
    target_cpu: int | None = None
    count: int | None = None
    text: str | None = None


class Tally:
    """What a stream held, for a caller to tell an empty answer from a clean one.

    :ivar records: lines or records read (every one, kept or not).
    :ivar kinds: scheduler events read, by kind.
    :ivar mapped: oracle events of mapped tasks yielded (``dispatch``, ``block``, ``wake``).
    :ivar unmapped: the first few tasks (``comm-pid``) seen that the mapping does not name.
    :ivar before_origin: scheduler events skipped because they lie before the origin.
    :ivar tasks: every task seen (``comm-pid``), with how many events named it.
    :ivar lost: holes found (a switch whose ``prev`` is not the CPU's last
        ``next``, or a capture's own record of lost events).
    :ivar lost_records: records the capture itself says were lost (known counts summed).
    :ivar lost_marks: the capture's own lost-event records, counted or not.
    :ivar lost_at: the first :data:`LOST_SHOWN` holes: ``(t, cpu, since)``
        on the oracle's time axis.
    :ivar overwritten: records the capture's ring buffer overwrote before its
        first record, by tracefs's own counters (``entries-written`` less
        ``entries-in-buffer``; a trace.dat's per-CPU ``overrun``): lost from
        before the trace begins, so no hole in it, but said.
    """

    #: How many unmapped task names are kept.
    NAMES = 5
    #: How many distinct tasks are counted (for the "no mapping" message).
    TASKS = 4096
    #: How many holes are kept with their instants.
    LOST_SHOWN = 20

    def __init__(self) -> None:
        self.records = 0
        self.kinds: dict[str, int] = {"switch": 0, "wakeup": 0, "wakeup_new": 0, "migrate": 0,
                                      "lost": 0}
        #: controller marks read (``mark`` events; not scheduler events).
        self.marks = 0
        self.mapped = 0
        self.unmapped: list[str] = []
        self.before_origin = 0
        self.tasks: dict[str, int] = {}
        self.lost = 0
        self.lost_records = 0
        self.lost_marks = 0
        self.lost_at: list[tuple[int, int, int]] = []
        self.overwritten = 0

    def saw(self, task: Task) -> None:
        """Count an event naming *task* (at most :data:`TASKS` distinct tasks)."""
        name = f"{task.comm}-{task.pid}"
        if name in self.tasks:
            self.tasks[name] += 1
        elif len(self.tasks) < self.TASKS:
            self.tasks[name] = 1

    def most_seen(self, n: int = 5) -> list[tuple[str, int]]:
        """The *n* tasks named by the most events, most first (then by name)."""
        return sorted(self.tasks.items(), key=lambda item: (-item[1], item[0]))[:n]

    def hole(self, t: int, cpu: int, since: int) -> None:
        """Count a hole of *cpu* from *since* to *t*."""
        self.lost += 1
        if len(self.lost_at) < self.LOST_SHOWN:
            self.lost_at.append((t, cpu, since))

    @property
    def kept(self) -> int:
        """Scheduler events read (switches, wakeups, migrations)."""
        return sum(n for kind, n in self.kinds.items() if kind != "lost")

    def saw_unmapped(self, task: Task) -> None:
        name = f"{task.comm}-{task.pid}"
        if len(self.unmapped) < self.NAMES and name not in self.unmapped:
            self.unmapped.append(name)


def check_mapping(mapping: Mapping[str, str]) -> dict[str, str]:
    """*mapping* checked: keys are pids or comms, values vCPU names ``VM/i``.

    :raises ModelError: naming the key that is malformed.
    """
    if not isinstance(mapping, Mapping):
        raise ModelError("mapping", mapping, "a mapping from pids or comms to vCPU names 'VM/i'")
    checked = {}
    for key, vcpu in mapping.items():
        field = f"mapping[{key!r}]"
        check_trace_key(key, field=field)
        check_trace_vcpu(vcpu, field=field)
        checked[key] = vcpu
    return checked


def check_origin(origin_ns: object) -> int | None:
    """*origin_ns* checked: an integer ``>= 0`` or ``None``.

    :raises ModelError: otherwise.
    """
    if origin_ns is not None and (
        not isinstance(origin_ns, int) or isinstance(origin_ns, bool) or origin_ns < 0
    ):
        raise ModelError("origin_ns", origin_ns, "an integer number of ns >= 0, or None")
    return origin_ns


def akita_events(events: Iterable[SchedEvent], mapping: Mapping[str, str], *,
                 origin_ns: int | None = None, tally: Tally | None = None) -> Iterator[dict[str, Any]]:
    """The oracle's events (``{"t", "cpu", "event"[, "vcpu"], "line"}``) of *events*.

    After a controller's origin mark, a switch to a vCPU the trace never showed woken
    yields a ``wake`` with ``"first": True`` before its dispatch: runnable since before
    the capture began, first seen there (the akita-linux rule set's L10 tells the two apart).

    :param mapping: task key (pid or comm) -> ``"VM/i"``, checked by :func:`check_mapping`.
    :param origin_ns: the trace time that becomes ``t = 0`` (default: the first event's).
    :param tally: counts the kinds read and the mapped events yielded.
    :raises KernelTraceError: while iterating, for a time that goes backwards.
    """
    tally = Tally() if tally is None else tally
    idle: dict[int, bool] = {}  # per CPU: whether its last event was an idle
    last: SchedEvent | None = None
    origin = origin_ns
    holes = _Holes(tally)

    def vcpu_of(task: Task | None) -> str | None:
        if task is None:
            return None
        tally.saw(task)
        found = mapping.get(task.pid)
        found = found if found is not None else mapping.get(task.comm)
        if found is None:
            tally.saw_unmapped(task)
        return found

    known: set[str] = set()  # vCPUs woken or blocked so far
    marked = False  # whether the origin is a controller's mark
    for e in events:
        if e.kind == "mark":
            tally.marks += 1
            if origin is None and e.text == MARK_PREFIX + "origin":
                origin = e.ns
                marked = True
            elif origin is not None and e.ns >= origin:
                decision = _mark_event(e, e.ns - origin)
                if decision is not None:
                    yield decision
            continue
        tally.kinds[e.kind] += 1
        if last is not None and e.ns < last.ns:
            raise KernelTraceError("timestamp", e.ns, f"a time at or after {last.ns} ns "
                                   f"({last.where}): the trace is not in time order",
                                   path=e.where)
        last = e
        if e.kind == "lost":
            tally.lost_marks += 1
            tally.lost_records += e.count or 0
        if origin is None:
            origin = e.ns
        elif e.ns < origin:
            tally.before_origin += 1
            holes.forget(e)
            continue
        t = e.ns - origin
        if e.kind == "lost":
            holes.mark(e.cpu, e.count)
        elif e.kind == "switch":
            prev = vcpu_of(e.prev)
            hole = holes.check(e, t, prev)
            if hole is not None:
                idle[e.cpu] = False  # the oracle is told afresh what the CPU does
                yield hole
            if prev is not None and not e.prev_runnable:
                tally.mapped += 1
                known.add(prev)
                yield {"t": t, "cpu": e.cpu, "event": "block", "vcpu": prev, "line": e.line}
            nxt = vcpu_of(e.next)
            if nxt is not None:
                tally.mapped += 1
                idle[e.cpu] = False
                if marked and nxt not in known:  # runnable since before the capture began
                    known.add(nxt)
                    yield {"t": t, "cpu": e.cpu, "event": "wake", "vcpu": nxt, "line": e.line,
                           "first": True}
                yield {"t": t, "cpu": e.cpu, "event": "dispatch", "vcpu": nxt, "line": e.line}
            elif not idle.get(e.cpu, False):
                idle[e.cpu] = True
                yield {"t": t, "cpu": e.cpu, "event": "idle", "line": e.line}
        elif e.kind in ("wakeup", "wakeup_new"):
            woken = vcpu_of(e.task)
            if woken is not None:
                tally.mapped += 1
                known.add(woken)
                cpu = e.cpu if e.target_cpu is None else e.target_cpu
                yield {"t": t, "cpu": cpu, "event": "wake", "vcpu": woken, "line": e.line}
    if last is not None and origin is not None:
        yield from holes.unclosed(max(last.ns - origin, 0), last.line)


_UNKNOWN = Task("?", "?")  # a CPU whose running task a lost record hid


class _Holes:
    """Each CPU's running task by its switches, to find the switches a trace did not write.

    Per CPU: the task its last switch switched to (``None``: idle;
    :data:`_UNKNOWN` after a capture's own lost-events record), when, and the
    records the capture said it lost since.
    """

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.running: dict[int, Task | None] = {}
        self.known: dict[int, int] = {}  # the instant of the CPU's last switch (oracle time)
        self.count: dict[int, int | None] = {}

    def forget(self, e: SchedEvent) -> None:
        """A switch before the origin still says what the CPU runs (not when: t is 0 then)."""
        if e.kind == "switch":
            self.running[e.cpu] = e.next
            self.known[e.cpu] = 0
        elif e.kind == "lost":
            self.mark(e.cpu, e.count)

    def mark(self, cpu: int, count: int | None) -> None:
        """The capture says records of *cpu* were lost here."""
        if cpu in self.running:
            had = self.count.get(cpu, 0)
            self.count[cpu] = None if count is None or had is None else had + count
            self.running[cpu] = _UNKNOWN

    def check(self, e: SchedEvent, t: int, prev_vcpu: str | None) -> dict[str, Any] | None:
        """The ``lost`` event ahead of switch *e* at *t*, if its CPU's records have a hole."""
        cpu = e.cpu
        believed = self.running.get(cpu, e.prev)
        self.running[cpu] = e.next
        since = self.known.get(cpu, t)
        self.known[cpu] = t
        same = (believed is None and e.prev is None) or (
            believed is not None and e.prev is not None and believed.pid == e.prev.pid)
        if same:
            return None
        event = self._event(t, cpu, since, prev_vcpu, e.line)
        if believed is None:  # the CPU's last written switch went to idle
            event["after"] = "idle"
        return event

    def _event(self, t: int, cpu: int, since: int, vcpu: str | None, line: int) -> dict[str, Any]:
        self.tally.hole(t, cpu, since)
        event: dict[str, Any] = {"t": t, "cpu": cpu, "event": "lost", "since": since}
        if vcpu is not None:
            event["vcpu"] = vcpu
        count = self.count.pop(cpu, None)
        if count is not None:
            event["count"] = count
        event["line"] = line
        return event

    def unclosed(self, t: int, line: int) -> Iterator[dict[str, Any]]:
        """The holes no later switch of their CPU closed, as of the last instant *t*."""
        for cpu in sorted(self.running):
            if self.running[cpu] is _UNKNOWN:
                yield self._event(t, cpu, self.known.get(cpu, t), None, line)


def _mark_event(e: SchedEvent, t: int) -> dict[str, Any] | None:
    """The oracle's ``mode`` or ``temperature`` event of a controller's mark, if it is one."""
    words = (e.text or "")[len(MARK_PREFIX):].split()
    if not words or words[0] not in ("mode", "temperature"):
        return None
    fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    pcpu = fields.get("pcpu", "")
    if not ascii_digits(pcpu):
        raise KernelTraceError("mark", e.text, "'pcpu=N' in an akita mode or temperature mark",
                               path=e.where)
    if words[0] == "mode":
        mode = words[-1]
        return {"t": t, "cpu": int(pcpu), "event": "mode", "mode": mode, "line": e.line}
    value = fields.get("value", "")
    if not ascii_digits(value) or "vcpu" not in fields:
        raise KernelTraceError("mark", e.text, "'vcpu=VM/i value=K' in an akita temperature "
                               "mark", path=e.where)
    return {"t": t, "cpu": int(pcpu), "event": "temperature", "vcpu": fields["vcpu"],
            "temperature": int(value), "line": e.line}

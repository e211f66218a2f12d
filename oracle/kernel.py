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
from typing import Literal

import attrs

from akita.model.errors import ModelError
from akita.model.host import check_trace_key, check_trace_vcpu
from akita.reference.trace import TraceError

__all__ = ["MARK_PREFIX", "Task", "SchedEvent", "SchedKind", "Tally", "KernelTraceError",
           "akita_events",
           "check_mapping", "check_origin"]

SchedKind = Literal["switch", "wakeup", "wakeup_new", "migrate", "mark"]

#: The beginning of a controller's ``trace_marker`` line that the oracle reads.
MARK_PREFIX = "akita: "


class KernelTraceError(TraceError):
    """A kernel or hypervisor trace cannot be read as the oracle needs it.

    A :class:`~akita.reference.trace.TraceError` (so a
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
    text: str | None = None


class Tally:
    """What a stream held, for a caller to tell an empty answer from a clean one.

    :ivar records: lines or records read (every one, kept or not).
    :ivar kinds: scheduler events read, by kind.
    :ivar mapped: oracle events of mapped tasks yielded (``dispatch``, ``block``, ``wake``).
    :ivar unmapped: the first few tasks (``comm-pid``) seen that the mapping does not name.
    :ivar before_origin: scheduler events skipped because they lie before the origin.
    """

    #: How many unmapped task names are kept.
    NAMES = 5

    def __init__(self) -> None:
        self.records = 0
        self.kinds: dict[str, int] = {"switch": 0, "wakeup": 0, "wakeup_new": 0, "migrate": 0}
        #: controller marks read (``mark`` events; not scheduler events).
        self.marks = 0
        self.mapped = 0
        self.unmapped: list[str] = []
        self.before_origin = 0

    @property
    def kept(self) -> int:
        """Scheduler events read, of every kind."""
        return sum(self.kinds.values())

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
                 origin_ns: int | None = None, tally: Tally | None = None) -> Iterator[dict]:
    """The oracle's events (``{"t", "cpu", "event"[, "vcpu"], "line"}``) of *events*.

    :param mapping: task key (pid or comm) -> ``"VM/i"``, checked by :func:`check_mapping`.
    :param origin_ns: the trace time that becomes ``t = 0`` (default: the first event's).
    :param tally: counts the kinds read and the mapped events yielded.
    :raises KernelTraceError: while iterating, for a time that goes backwards.
    """
    tally = Tally() if tally is None else tally
    idle: dict[int, bool] = {}  # per CPU: whether its last event was an idle
    last: SchedEvent | None = None
    origin = origin_ns

    def vcpu_of(task: Task | None) -> str | None:
        if task is None:
            return None
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
        if origin is None:
            origin = e.ns
        elif e.ns < origin:
            tally.before_origin += 1
            continue
        t = e.ns - origin
        if e.kind == "switch":
            prev = vcpu_of(e.prev)
            if prev is not None and not e.prev_runnable:
                tally.mapped += 1
                known.add(prev)
                yield {"t": t, "cpu": e.cpu, "event": "block", "vcpu": prev, "line": e.line}
            nxt = vcpu_of(e.next)
            if nxt is not None:
                tally.mapped += 1
                idle[e.cpu] = False
                if marked and nxt not in known:
                    known.add(nxt)
                    yield {"t": t, "cpu": e.cpu, "event": "wake", "vcpu": nxt, "line": e.line}
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


def _mark_event(e: SchedEvent, t: int) -> dict | None:
    """The oracle's ``mode`` or ``temperature`` event of a controller's mark, if it is one."""
    words = (e.text or "")[len(MARK_PREFIX):].split()
    if not words or words[0] not in ("mode", "temperature"):
        return None
    fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    pcpu = fields.get("pcpu", "")
    if not pcpu.isdigit():
        raise KernelTraceError("mark", e.text, "'pcpu=N' in an akita mode or temperature mark",
                               path=e.where)
    if words[0] == "mode":
        mode = words[-1]
        return {"t": t, "cpu": int(pcpu), "event": "mode", "mode": mode, "line": e.line}
    value = fields.get("value", "")
    if not value.isdigit() or "vcpu" not in fields:
        raise KernelTraceError("mark", e.text, "'vcpu=VM/i value=K' in an akita temperature "
                               "mark", path=e.where)
    return {"t": t, "cpu": int(pcpu), "event": "temperature", "vcpu": fields["vcpu"],
            "temperature": int(value), "line": e.line}

"""A JSON Lines trace rendered as each kernel trace the oracle reads: ftrace, trace.dat, xentrace.

A kernel or hypervisor records only who a CPU switched to, whether the one
it left could still run, and who woke (``trace/kernel.py``).
:func:`kernel_schedule` cuts a simulator trace (``docs/trace-format.rst``)
down to exactly that: from its ``wake``, ``block``, ``dispatch`` and ``idle``
events, a :class:`Schedule` of :class:`Switch` and :class:`Wakeup` records
per pCPU -- a ``dispatch`` or ``idle`` is a switch from the pCPU's running
vCPU (the idle task at first), a ``block`` the ``prev_state`` of its pCPU's
next switch -- and every other event is dropped, as a kernel records
nothing of modes, temperatures, releases or budgets.  The records are in
*kernel order*, which differs from the trace's in one case: a vCPU that
blocks and is woken again at the same instant, before its pCPU decides, is
switched out before its wakeup (:func:`kernel_schedule`).  Each serializer
lays that schedule out as the kernel or hypervisor would:

* :func:`render_ftrace_text`: the kernel's ftrace text, written by
  :func:`ftrace_render.render_ftrace` from the schedule put back into JSON
  Lines (:func:`schedule_lines`);
* :func:`render_tracedat`: trace-cmd's ``trace.dat`` (``tests/tracedat_build.py``,
  after trace-cmd.dat(5) v6 and v7): one CPU buffer per pCPU, pages of at
  most :data:`PAGE_RECORDS` records, a time extend before a gap of
  ``2**27`` ns or more, a task ``pid`` and ``comm`` per vCPU and the idle
  task (pid 0, ``swapper/N``), ``prev_state`` 0 (runnable) or 1 (``S``);
* :func:`render_xentrace`: Xen's per-pCPU buffers as ``xentrace`` polls them
  (``tests/xentrace_writer.py``, every :data:`POLL_EVERY` trace
  points), a domain ``d{k}v0`` per vCPU and a cycle counter of
  :data:`XEN_HZ` Hz, a cycle a picosecond: trace point number *k* of its
  instant *t* (counted over all pCPUs, in kernel order) is at cycle
  :func:`xen_cycles` ``= XEN_BASE + 1000 t + 10 (k + 1)``, its records within
  5 cycles of it, so each pCPU's counts never go backwards, even at one
  instant, and the reader's ``(cycles - origin) * 10**9 // XEN_HZ`` is
  exactly *t*, the origin being fixed at ``XEN_BASE`` by a record of another
  class there (the reader's origin is the capture's earliest cycle count).

Each returns a :class:`Rendering`: the bytes, the mapping (task key ->
vCPU) and the options :func:`akita.oracle.files.conform_stream` needs to
read them (format, origin, ``cpu_hz``), such that the oracle's events have
the trace's own ``t``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import attrs

import xentrace_writer as xw
from ftrace_render import render_ftrace
from tracedat_build import (Parts, build, header_page, page, switch_format, switch_record,
                            wakeup_format, wakeup_record)

__all__ = ["Switch", "Wakeup", "Schedule", "Rendering", "kernel_schedule", "schedule_lines",
           "render_ftrace_text", "render_tracedat", "render_xentrace", "xen_cycles", "RENDERERS",
           "LINUX_ORIGIN", "PAGE_RECORDS", "XEN_HZ", "XEN_BASE", "SLOTS", "POLL_EVERY"]

#: The Linux clock's time (ns) that is the trace's ``t = 0`` (``render_ftrace``'s default).
LINUX_ORIGIN = 1000 * 10**9

_SW, _WK = 316, 318                 # the event ids the trace.dat formats declare
_EXTEND = 1 << 27                   # a record's time delta has 27 bits
_PAGE_SIZE = 4096
_MARKER = 0x00081001                # TRC_HVM_VMENTRY: a record the xentrace reader skips

#: Records per trace.dat page: the most that fit in a page, each a switch after a time extend
#: (a 16-byte page header; a 4-byte record header, an 8-byte extend).
PAGE_RECORDS = (_PAGE_SIZE - 16) // (4 + len(switch_record(_SW, (0, ""), 0, (0, ""))) + 8)
#: The xentrace cycle counter's frequency: 10**12 Hz, a cycle a picosecond.
XEN_HZ = 10**12
#: The cycle count of the capture's first record (a large one, as a real TSC is).
XEN_BASE = 7 * 10**15
#: Trace points an instant may hold: their cycles stay below the next ns.
SLOTS = 98
#: Trace points written between two of ``xentrace``'s polls of the buffers.
POLL_EVERY = 64


@attrs.frozen
class Switch:
    """pCPU *cpu* stops running *prev* (``None``: idle), *blocked* or not, and runs *next*."""

    t: int
    slot: int
    cpu: int
    prev: str | None
    blocked: bool
    next: str | None


@attrs.frozen
class Wakeup:
    """*vcpu* becomes runnable, queued on pCPU *cpu*."""

    t: int
    slot: int
    cpu: int
    vcpu: str


Record = Switch | Wakeup


@attrs.frozen
class Schedule:
    """What a kernel trace of a JSON Lines trace holds.

    :ivar cpus: per pCPU, its records in the trace's order.
    :ivar vcpus: the vCPUs named, in the order the trace first names them.
    """

    cpus: tuple[tuple[Record, ...], ...]
    vcpus: tuple[str, ...]

    def records(self) -> list[Record]:
        """Every record, in the trace's order (by time, then slot)."""
        return sorted((r for cpu in self.cpus for r in cpu), key=lambda r: (r.t, r.slot))


@attrs.frozen
class Rendering:
    """A kernel trace's bytes, its mapping, and how :func:`conform_stream` must read it."""

    data: bytes
    trace_map: dict[str, str]
    options: dict[str, Any]


class _Builder:
    """The records of a schedule, made as the JSON Lines events are read in order."""

    def __init__(self, cpus: int) -> None:
        self.cpus: list[list[Record]] = [[] for _ in range(cpus)]
        self.running: dict[int, str | None] = {}
        self.blocked: dict[int, str] = {}   # pCPU -> its vCPU that blocked, not yet switched out
        self.vcpus: dict[str, None] = {}
        self.now: int | None = None
        self.slot = 0

    def _slot(self, t: int) -> int:
        self.slot = self.slot + 1 if t == self.now else 0
        self.now = t
        if self.slot >= SLOTS:
            raise ValueError(f"t={t}: more than {SLOTS} switches and wakeups at one instant")
        return self.slot

    def block(self, t: int, cpu: int, vcpu: str) -> None:
        if vcpu != self.running.get(cpu):
            raise ValueError(f"t={t}: block of {vcpu}, not running on pCPU {cpu}")
        self.blocked[cpu] = vcpu

    def wake(self, t: int, cpu: int, vcpu: str) -> None:
        for where, name in list(self.blocked.items()):
            if name == vcpu:  # it left its pCPU before it could be woken: a switch to idle
                self.switch(t, where, None)
        self.vcpus.setdefault(vcpu)
        self.cpus[cpu].append(Wakeup(t, self._slot(t), cpu, vcpu))

    def switch(self, t: int, cpu: int, nxt: str | None) -> None:
        prev, blocked = self.running.get(cpu), cpu in self.blocked
        if nxt == prev and not blocked:
            return  # the pCPU goes on as it was: a kernel records no switch
        for name in (prev, nxt):
            if name is not None:
                self.vcpus.setdefault(name)
        self.cpus[cpu].append(Switch(t, self._slot(t), cpu, prev, blocked, nxt))
        self.blocked.pop(cpu, None)
        self.running[cpu] = nxt


def kernel_schedule(lines: Sequence[str]) -> Schedule:
    """The switches and wakeups of the JSON Lines trace *lines* (header first), in kernel order.

    A ``block`` is the ``prev_state`` of its pCPU's next switch, as in
    ``render_ftrace``; but where the blocked vCPU is woken again before that
    switch (a job completes and the next arrives at the same instant), a
    kernel has switched it out first -- it could not wake a task still
    blocking -- so it is switched to idle just before its wakeup, and the
    decision that follows is a switch from idle.  A decision that leaves the
    pCPU as it was (a ``dispatch`` of its running vCPU, an ``idle`` of an
    idle pCPU) is no switch.

    :raises ValueError: for an instant of more than :data:`SLOTS` records, or a
        ``block`` of a vCPU its pCPU is not running (no kernel can record either).
    """
    header = json.loads(lines[0])
    events = [json.loads(line) for line in lines[1:]]
    count = max([header.get("host", {}).get("pcpus", 0)] + [e["cpu"] + 1 for e in events])
    built = _Builder(count)
    for e in events:
        kind, t, cpu = e["event"], e["t"], e["cpu"]
        if kind == "block":
            built.block(t, cpu, e["vcpu"])
        elif kind == "wake":
            built.wake(t, cpu, e["vcpu"])
        elif kind in ("dispatch", "idle"):
            built.switch(t, cpu, e.get("vcpu"))
    return Schedule(tuple(tuple(c) for c in built.cpus), tuple(built.vcpus))


# -- ftrace text ------------------------------------------------------------------------------


def schedule_lines(schedule: Schedule, header: str) -> list[str]:
    """*schedule* as a JSON Lines trace again (*header* first): its ``wake``, ``block``,
    ``dispatch`` and ``idle`` events, in kernel order."""
    out = [header]
    for r in schedule.records():
        if isinstance(r, Wakeup):
            out.append(json.dumps({"t": r.t, "cpu": r.cpu, "event": "wake", "vcpu": r.vcpu}))
            continue
        if r.blocked:
            out.append(json.dumps({"t": r.t, "cpu": r.cpu, "event": "block", "vcpu": r.prev}))
        decision = {"event": "idle"} if r.next is None else {"event": "dispatch", "vcpu": r.next}
        out.append(json.dumps({"t": r.t, "cpu": r.cpu, **decision}))
    return out


def render_ftrace_text(lines: Sequence[str]) -> Rendering:
    """The kernel's ftrace text of *lines*: :func:`ftrace_render.render_ftrace` of its schedule."""
    out, maps = render_ftrace(schedule_lines(kernel_schedule(lines), lines[0]), LINUX_ORIGIN)
    pairs = (option.removeprefix("--map=").split("=", 1) for option in maps)
    return Rendering(("\n".join(out) + "\n").encode(), {pid: name for pid, name in pairs},
                     {"trace_format": "ftrace", "origin_ns": LINUX_ORIGIN})


# -- trace.dat ---------------------------------------------------------------------------------


def _linux_tasks(schedule: Schedule) -> dict[str, tuple[int, str]]:
    """vCPU -> its task's (pid, comm); pids as ``render_ftrace`` numbers them."""
    return {name: (4000 + i, name.replace("/", "-")[:15]) for i, name in enumerate(schedule.vcpus)}


def _pages(records: Sequence[Record], tasks: dict[str, tuple[int, str]], cpu: int) -> bytes:
    """One pCPU's records as ring-buffer pages of at most :data:`PAGE_RECORDS` records."""
    idle = (0, f"swapper/{cpu}")

    def task(name: str | None) -> tuple[int, str]:
        return idle if name is None else tasks[name]

    out = []
    for start in range(0, len(records), PAGE_RECORDS):
        chunk = records[start:start + PAGE_RECORDS]
        stamp = LINUX_ORIGIN + chunk[0].t
        items: list[tuple] = []
        for r in chunk:
            delta, stamp = LINUX_ORIGIN + r.t - stamp, LINUX_ORIGIN + r.t
            if delta >= _EXTEND:
                items.append(("extend", delta))
                delta = 0
            if isinstance(r, Switch):
                data = switch_record(_SW, task(r.prev), int(r.blocked), task(r.next))
            else:
                data = wakeup_record(_WK, task(r.vcpu), r.cpu)
            items.append(("data", delta, data))
        out.append(page(LINUX_ORIGIN + chunk[0].t, items, page_size=_PAGE_SIZE))
    return b"".join(out)


def render_tracedat(lines: Sequence[str], version: int = 7) -> Rendering:
    """The trace.dat (*version* 6 or 7, uncompressed) trace-cmd would save of *lines*."""
    schedule = kernel_schedule(lines)
    tasks = _linux_tasks(schedule)
    parts = Parts(page_size=_PAGE_SIZE, header_page=header_page(8, _PAGE_SIZE),
                  systems=[("sched", [switch_format(_SW).encode(), wakeup_format(_WK).encode()])],
                  options=[(4, b"[local] global\0")], clock=b"[local]",
                  cpus=[_pages(records, tasks, cpu) for cpu, records in enumerate(schedule.cpus)])
    return Rendering(build(parts, version), {str(pid): name for name, (pid, _) in tasks.items()},
                     {"trace_format": "trace.dat", "origin_ns": LINUX_ORIGIN})


# -- xentrace ----------------------------------------------------------------------------------


def xen_cycles(t: int, slot: int) -> int:
    """The cycle count of trace point *slot* of instant *t* (its records lie within 5)."""
    return XEN_BASE + 1000 * t + 10 * (slot + 1)


def render_xentrace(lines: Sequence[str]) -> Rendering:
    """The ``xentrace`` capture of *lines*: vCPU number *k* (from 1) is domain *k*'s vCPU 0."""
    schedule = kernel_schedule(lines)
    domains = {name: (k, 0) for k, name in enumerate(schedule.vcpus, 1)}
    xen = xw.Xen(len(schedule.cpus))
    xen.raw(0, xw.record(_MARKER, tsc=XEN_BASE))
    out = []
    for n, r in enumerate(schedule.records(), 1):
        tsc = xen_cycles(r.t, r.slot)
        if isinstance(r, Wakeup):
            xen.wake(r.cpu, tsc, domains[r.vcpu])
        else:
            prev = None if r.prev is None else domains[r.prev]
            if r.blocked and prev is not None:
                xen.block(r.cpu, tsc - 5, prev)
            xen.switch(r.cpu, tsc, prev, xw.BLOCKED if r.blocked else xw.RUNNABLE,
                       None if r.next is None else domains[r.next])
        if n % POLL_EVERY == 0:
            out.append(xen.poll())
    out.append(xen.poll())
    return Rendering(b"".join(out), {f"d{k}v0": name for name, (k, _) in domains.items()},
                     {"trace_format": "xentrace", "origin_ns": 0, "cpu_hz": XEN_HZ})


#: The renderer of each kernel format.
RENDERERS: dict[str, Callable[[Sequence[str]], Rendering]] = {
    "ftrace": render_ftrace_text, "trace.dat": render_tracedat, "xentrace": render_xentrace,
}

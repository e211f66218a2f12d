"""Feeding a trace of any format the oracle reads to an :class:`~.accumulate.Accumulator`.

The readers are the trace formats' (:func:`akita.trace.opening.open_trace`): JSON
Lines, Linux scheduler text (the kernel's ``trace``, ``trace-cmd report``,
``perf script``, systrace), trace-cmd's ``trace.dat`` and Xen's
``xentrace``, compressed or not.  What differs is how a task is named:

* a JSON Lines trace names its vCPUs (``VM/i``) and records releases and
  modes; its time axis is the trace's, ``t = 0`` the start of the run, and
  it ends at the header's ``duration_ns``;
* a kernel trace names tasks: a task the host's ``[trace_map]`` (or a
  ``--map``) maps is named by its vCPU, any other by ``comm-pid`` (a Xen
  vCPU by its ``dDvV``); the idle task is idleness.  ``t = 0`` is the
  trace's first event (or the origin given) and the trace ends at its last.
  A CPU's first switch says who ran before it (its ``prev``), so the span
  from ``t = 0`` to it is charged to that task; a switch whose ``prev`` is
  not the task the CPU's last switch started, or a record of lost events,
  makes the CPU's time since its last switch *unknown* (never guessed).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from akita.trace.kernel import KernelTraceError, SchedEvent, Task
from akita.trace.jsonl import TraceError

from .accumulate import Accumulator

__all__ = ["feed_jsonl", "feed_kernel", "refuse_empty", "task_namer"]


def feed_jsonl(acc: Accumulator, header: Mapping[str, Any], events: Iterator[dict[str, Any]],
               path: str) -> tuple[int, int]:
    """Feed a JSON Lines trace's *events*; return ``(events read, end of the span)``."""
    count = 0
    last = 0
    dispatch, idle, wake, block = acc.dispatch, acc.idle, acc.wake, acc.block
    for count, e in enumerate(events, start=1):
        kind = e["event"]
        t = e["t"]
        last = t
        if kind == "dispatch":
            dispatch(t, e["cpu"], e["vcpu"])
        elif kind == "idle":
            idle(t, e["cpu"])
        elif kind == "wake":
            wake(t, e["vcpu"])
        elif kind == "block":
            block(e["vcpu"])
        elif kind == "release":
            acc.release(t, e["cpu"], e["vcpu"], e["deadline"], e["budget"])
        elif kind == "mode":
            acc.mode(t, e["cpu"], e["mode"])
    end = header.get("duration_ns")
    if not isinstance(end, int) or isinstance(end, bool) or end < last:
        end = last
    return count, end


def task_namer(mapping: Mapping[str, str]) -> Any:
    """A function naming a kernel task: its vCPU if *mapping* maps its pid or comm, else
    ``comm-pid`` (a Xen vCPU, whose comm is its pid, by its pid); ``None`` for idle."""
    names: dict[tuple[str, str], str] = {}

    def name(task: Task | None) -> str | None:
        if task is None:
            return None
        key = (task.pid, task.comm)
        found = names.get(key)
        if found is None:
            found = mapping.get(task.pid) or mapping.get(task.comm)
            if found is None:
                found = task.pid if task.comm == task.pid else f"{task.comm}-{task.pid}"
            names[key] = found
        return found

    return name


def feed_kernel(acc: Accumulator, records: Iterator[SchedEvent], mapping: Mapping[str, str],
                origin_ns: int | None = None) -> tuple[int, int, int]:
    """Feed a kernel trace's *records*; return ``(events read, end of the span, migrate
    records)``, the span starting at *origin_ns* (default: the first record)."""
    name = task_namer(mapping)
    origin = origin_ns
    started: dict[int, Task | None] = {}  # per CPU: the task its last switch started
    lost: set[int] = set()
    count = migrate_records = 0
    last_ns: int | None = None
    last_where = ""
    for e in records:
        count += 1
        if last_ns is not None and e.ns < last_ns:
            raise KernelTraceError("timestamp", e.ns, f"a time at or after {last_ns} ns "
                                   f"({last_where}): the trace is not in time order",
                                   path=e.where)
        last_ns, last_where = e.ns, e.where
        if origin is None:
            origin = e.ns
        if e.ns < origin:
            continue
        t = e.ns - origin
        kind = e.kind
        if kind == "switch":
            cpu = e.cpu
            if cpu not in started:
                acc.start_cpu(cpu, name(e.prev))
            elif cpu in lost or not _same(started[cpu], e.prev):
                acc.hole(cpu)
            lost.discard(cpu)
            started[cpu] = e.next
            if e.prev is not None and not e.prev_runnable:
                acc.block(name(e.prev) or "")
            nxt = name(e.next)
            if nxt is None:
                acc.idle(t, cpu)
            else:
                acc.dispatch(t, cpu, nxt)
        elif kind in ("wakeup", "wakeup_new"):
            woken = name(e.task)
            if woken is not None:
                acc.wake(t, woken)
        elif kind == "migrate":
            migrate_records += 1
        elif kind == "lost":
            if e.cpu in started:
                lost.add(e.cpu)
                acc.hole(e.cpu)
    end = 0 if last_ns is None or origin is None else max(last_ns - origin, 0)
    return count, end, migrate_records


def _same(a: Task | None, b: Task | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and a.pid == b.pid)


def refuse_empty(path: str, count: int, what: str) -> None:
    """Raise :class:`TraceError` for a trace with no event to analyse."""
    if count == 0:
        raise TraceError("", "no event", f"a trace with {what}", path=path)

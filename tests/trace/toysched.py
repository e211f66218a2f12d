"""A toy trace format: the whole of what the registry needs to read one more format.

A *toysched* log is text: a first line ``toysched 1``, then one scheduler
event a line, fields one space apart::

    NS CPU switch PREV R|S NEXT      (PREV, NEXT: PID/COMM, or - for the idle task)
    NS CPU wakeup TASK TARGET_CPU

It exists to show that a format is one module (this one: its sniff, its
reader and, for the test, its writer) and one registry line
(:func:`akita.trace.formats.register`, in ``test_trace_formats.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from akita.trace.formats import Read, Source
from akita.trace.kernel import KernelTraceError, SchedEvent, Task

MAGIC = "toysched 1"


def looks_like_toysched(first_line: str) -> bool:
    """Whether a text trace's first line is a toysched log's."""
    return first_line.strip() == MAGIC


def _task(text: str) -> Task | None:
    if text == "-":
        return None
    pid, _, comm = text.partition("/")
    return Task(pid, comm)


def _events(lines: Iterator[str], source: Source) -> Iterator[SchedEvent]:
    for number, text in enumerate(lines, start=1):
        source.tally.records += 1
        where = f"{source.path}:{number}"
        if number == 1:
            continue
        fields = text.split()
        if len(fields) == 6 and fields[2] == "switch":
            ns, cpu, _, prev, state, nxt = fields
            yield SchedEvent(int(ns), int(cpu), "switch", where, number, _task(prev),
                             state == "R", _task(nxt))
        elif len(fields) == 5 and fields[2] == "wakeup":
            ns, cpu, _, task, target = fields
            yield SchedEvent(int(ns), int(cpu), "wakeup", where, number, task=_task(task),
                             target_cpu=int(target))
        else:
            raise KernelTraceError("", text.strip(), "NS CPU switch PREV R|S NEXT or "
                                   "NS CPU wakeup TASK TARGET", path=where)


def read_toysched(source: Source) -> Read:
    """The scheduler events of a toysched log (no header: a kernel's format)."""
    return None, _events(source.text(), source)


def toysched_lines(events: Iterable[SchedEvent]) -> list[str]:
    """*events* (switches and wakeups only) written as a toysched log."""
    def task(t: Task | None) -> str:
        return "-" if t is None else f"{t.pid}/{t.comm}"

    out = [MAGIC]
    for e in events:
        if e.kind == "switch":
            out.append(f"{e.ns} {e.cpu} switch {task(e.prev)} "
                       f"{'R' if e.prev_runnable else 'S'} {task(e.next)}")
        elif e.kind == "wakeup":
            target = e.cpu if e.target_cpu is None else e.target_cpu
            out.append(f"{e.ns} {e.cpu} wakeup {task(e.task)} {target}")
        else:
            raise ValueError(f"a toysched log has no {e.kind} event")
    return out

"""What a schedule shows, accumulated in one pass over its events.

The :class:`Accumulator` is told, in time order, what each CPU did: it
started running a task (``dispatch``), went idle, or lost track of what it
ran (a hole in the capture); a task woke or blocked; a server period began
(``release``); a pCPU changed mode.  From these alone it keeps, in memory
bounded by the number of tasks, CPUs, windows and periods (never by the
number of events, except one integer per wake-to-run latency):

* each task's **CPU time**, in total, per CPU and per window of a chosen
  length: a CPU runs the task of its last ``dispatch`` from that instant to
  its next ``dispatch``, ``idle`` or hole (the trace format's own meaning,
  :doc:`/trace-format`);
* its **wake-to-run latencies**: from a ``wake`` of a task that was neither
  running nor already waiting to its next ``dispatch``, in integer ns;
* its **migrations**: dispatches on another CPU than its previous dispatch's;
* each CPU's **idle** time, and the time it was **unknown** (a hole);
* each pCPU's **mode residency** and switches, where modes are recorded;
* each server's **budget used per period**: its CPU time inside each whole
  period ``[s, s + T)``, from its ``release`` events where the trace records
  them, else on the grid ``phase + kT`` of its declaration.

Every time is an exact integer number of ns; shares are exact fractions.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Protocol

import attrs

__all__ = ["Accumulator", "Declared", "Recorder", "UNKNOWN"]

#: The owner of a CPU whose running task a hole in the capture hides.
UNKNOWN = "?"


@attrs.frozen
class Declared:
    """What a host declares of one vCPU: its server (R1) and where its periods start (R2).

    :ivar phase: ns, its first period's start on the trace's time axis, or
        ``None`` where the host leaves it open (then only ``release`` events
        can say where its periods are).
    """

    vcpu: str
    criticality: str
    period: int
    c_opt: int
    c_pes: int | None
    phase: int | None


class Recorder(Protocol):
    """Receives what a schedule picture draws (:mod:`akita.analysis.gantt`)."""

    def segment(self, cpu: int, start: int, end: int, owner: str | None) -> None: ...

    def release(self, t: int, cpu: int, vcpu: str, deadline: int) -> None: ...

    def mode(self, cpu: int, start: int, end: int, mode: str) -> None: ...


class _Period:
    """The server period a vCPU is in: its start, its end where known, the time used in it."""

    __slots__ = ("start", "end", "used", "budget")

    def __init__(self, start: int, end: int | None, budget: int | None) -> None:
        self.start = start
        self.end = end
        self.used = 0
        self.budget = budget


class Accumulator:
    """The running sums of :mod:`akita.analysis.accumulate`, fed event by event.

    :param window: ns, the length of the windows CPU time is also summed in
        (``None``: totals only).
    :param declared: the vCPUs whose budget per period is measured, by name.
    :param grid: whether periods follow the declared phase and period
        (kernel traces) or the trace's ``release`` events (JSON Lines).
    :param recorder: receives the segments, releases and mode bands to draw.
    """

    def __init__(self, *, window: int | None = None, declared: dict[str, Declared] | None = None,
                 grid: bool = False, recorder: Recorder | None = None) -> None:
        self.window = window
        self.declared = declared or {}
        self.grid = grid
        self.recorder = recorder
        self.owner: dict[int, str | None] = {}
        self.since: dict[int, int] = {}
        self.running: dict[str, int] = {}  # task -> the CPU running it
        self.run_ns: dict[str, int] = {}
        self.cpu_ns: dict[str, dict[int, int]] = {}
        self.windows: dict[str, dict[int, int]] = {}
        self.idle_ns: dict[int, int] = {}
        self.unknown_ns: dict[int, int] = {}
        self.waiting: dict[str, int] = {}
        self.latencies: dict[str, list[int]] = {}
        self.last_cpu: dict[str, int] = {}
        self.migrations: dict[str, int] = {}
        self.dispatches: dict[str, int] = {}
        self.wakes: dict[str, int] = {}
        self.mode_now: dict[int, tuple[str, int]] = {}
        self.residency: dict[int, dict[str, int]] = {}
        self.switches: dict[int, dict[str, int]] = {}
        self.periods: dict[str, _Period] = {}
        self.used: dict[str, list[tuple[int, int, int | None]]] = {}  # (start, used, budget)
        self.end = 0

    # ---------------------------------------------------------------- what a CPU does

    def start_cpu(self, cpu: int, owner: str | None, t: int = 0) -> None:
        """Say that *cpu* ran *owner* (``None``: nothing) from *t*, before its first event."""
        self.owner[cpu] = owner
        self.since[cpu] = t
        if owner is not None and owner != UNKNOWN:
            self.running[owner] = cpu
            self._task(owner)

    def dispatch(self, t: int, cpu: int, task: str) -> None:
        """*cpu* starts running *task* at *t*."""
        self._close(cpu, t)
        self._leave(cpu)
        self._task(task)
        self.owner[cpu] = task
        self.running[task] = cpu
        self.dispatches[task] += 1
        woke = self.waiting.pop(task, None)
        if woke is not None:
            self.latencies[task].append(t - woke)
        last = self.last_cpu.get(task)
        if last is not None and last != cpu:
            self.migrations[task] += 1
        self.last_cpu[task] = cpu

    def idle(self, t: int, cpu: int) -> None:
        """*cpu* runs nothing from *t*."""
        self._close(cpu, t)
        self._leave(cpu)
        self.owner[cpu] = None

    def hole(self, cpu: int) -> None:
        """What *cpu* ran since its last known event is unknown (records were lost)."""
        self._leave(cpu)
        self.owner[cpu] = UNKNOWN

    def wake(self, t: int, task: str) -> None:
        """*task* becomes runnable at *t* (a wake of a running or waiting task changes nothing)."""
        self._task(task)
        self.wakes[task] += 1
        if task not in self.running and task not in self.waiting:
            self.waiting[task] = t

    def block(self, task: str) -> None:
        """*task* is no longer runnable (the switch or idle that follows closes its time)."""
        self.waiting.pop(task, None)

    def release(self, t: int, cpu: int, task: str, deadline: int, budget: int | None) -> None:
        """A period of server *task* starts at *t*, refilled to *budget*, due at *deadline*."""
        self._task(task)
        on = self.running.get(task)
        if on is not None:
            self._close(on, t)  # the time so far belongs to the period that ends here
        period = self.periods.get(task)
        if period is not None:
            self.used.setdefault(task, []).append((period.start, period.used, period.budget))
        self.periods[task] = _Period(t, None, budget)
        if self.recorder is not None:
            self.recorder.release(t, cpu, task, deadline)

    def mode(self, t: int, cpu: int, mode: str) -> None:
        """pCPU *cpu* enters *mode* (``"HI"`` or ``"LO"``) at *t*; every pCPU starts in LO."""
        was, since = self.mode_now.get(cpu, ("LO", 0))
        if was == mode:
            return
        self._mode_span(cpu, was, since, t)
        counts = self.switches.setdefault(cpu, {"LO->HI": 0, "HI->LO": 0})
        counts[f"{was}->{mode}"] = counts.get(f"{was}->{mode}", 0) + 1
        self.mode_now[cpu] = (mode, t)

    def finish(self, t: int, cpus: int = 0) -> None:
        """The trace ends at *t*: close every CPU, mode and period (a partial one is dropped)."""
        self.end = t
        for cpu in sorted(set(self.owner) | set(range(cpus))):
            self.since.setdefault(cpu, 0)
            self.owner.setdefault(cpu, None)
            self._close(cpu, t)
        for cpu in sorted(set(self.mode_now) | set(range(cpus))):
            was, since = self.mode_now.get(cpu, ("LO", 0))
            self._mode_span(cpu, was, since, t)
            self.mode_now[cpu] = (was, t)
            self.switches.setdefault(cpu, {"LO->HI": 0, "HI->LO": 0})
        for task, period in list(self.periods.items()):
            if period.end is not None:
                self._roll(task, t)

    # ---------------------------------------------------------------- the sums

    def _task(self, task: str) -> None:
        if task not in self.run_ns:
            self.run_ns[task] = 0
            self.cpu_ns[task] = {}
            self.latencies[task] = []
            self.migrations[task] = 0
            self.dispatches[task] = 0
            self.wakes[task] = 0
            declared = self.declared.get(task)
            if self.grid and declared is not None and declared.phase is not None:
                self.periods[task] = _Period(declared.phase, declared.phase + declared.period,
                                             declared.c_opt)
                self._released(task, declared.phase, declared.period)

    def _close(self, cpu: int, t: int) -> None:
        """Charge ``[since, t)`` of *cpu* to what it ran; *cpu* goes on from *t*."""
        start = self.since.get(cpu, 0)
        owner = self.owner.get(cpu)
        self.since[cpu] = t
        if t <= start:
            return
        if self.recorder is not None:
            self.recorder.segment(cpu, start, t, owner)
        if owner is None:
            self.idle_ns[cpu] = self.idle_ns.get(cpu, 0) + t - start
        elif owner == UNKNOWN:
            self.unknown_ns[cpu] = self.unknown_ns.get(cpu, 0) + t - start
        else:
            self.run_ns[owner] += t - start
            per_cpu = self.cpu_ns[owner]
            per_cpu[cpu] = per_cpu.get(cpu, 0) + t - start
            if self.window is not None:
                self._windows(owner, start, t)
            if owner in self.periods:
                self._charge(owner, start, t)

    def _leave(self, cpu: int) -> None:
        """The task *cpu* ran (if any) no longer runs there."""
        current = self.owner.get(cpu)
        if current is not None and self.running.get(current) == cpu:
            del self.running[current]

    def _windows(self, task: str, start: int, end: int) -> None:
        assert self.window is not None
        sums = self.windows.setdefault(task, {})
        while start < end:
            index = start // self.window
            cut = min(end, (index + 1) * self.window)
            sums[index] = sums.get(index, 0) + cut - start
            start = cut

    def _charge(self, task: str, start: int, end: int) -> None:
        """Add ``[start, end)`` to *task*'s periods (rolling its declared grid as it goes)."""
        period = self.periods[task]
        if period.end is None:  # by releases: the release closed the time before it
            period.used += max(0, end - max(start, period.start))
            return
        while start < end:
            period = self._roll(task, start)
            assert period.end is not None
            cut = min(end, period.end)
            if cut > period.start:
                period.used += cut - max(start, period.start)
            start = cut

    def _roll(self, task: str, t: int) -> _Period:
        """*task*'s grid period that holds *t*, the whole ones before it recorded."""
        period = self.periods[task]
        declared = self.declared[task]
        while period.end is not None and t >= period.end:
            self.used.setdefault(task, []).append((period.start, period.used, period.budget))
            period = self.periods[task] = _Period(period.end, period.end + declared.period,
                                                  declared.c_opt)
            self._released(task, period.start, declared.period)
        return period

    def _released(self, task: str, start: int, period: int) -> None:
        """A declared grid's period starts: drawn on every lane of *task* (CPU ``-1``)."""
        if self.recorder is not None:
            self.recorder.release(start, -1, task, start + period)

    def _mode_span(self, cpu: int, mode: str, start: int, end: int) -> None:
        if end <= start:
            return
        spans = self.residency.setdefault(cpu, {"LO": 0, "HI": 0})
        spans[mode] = spans.get(mode, 0) + end - start
        if self.recorder is not None:
            self.recorder.mode(cpu, start, end, mode)

    def shares(self, span: int) -> dict[str, Fraction]:
        """Each task's CPU time over *span* ns, exact (empty for an empty span)."""
        if span <= 0:
            return {}
        return {task: Fraction(ns, span) for task, ns in self.run_ns.items()}

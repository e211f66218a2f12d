"""CPU share per VM over time, and mean response times, read back from a JSON Lines trace.

A pCPU runs the vCPU of its last ``dispatch`` until its next ``dispatch``
or ``idle`` (:doc:`/trace-format`); summing those spans into windows of
``window`` ns gives each VM's share of one pCPU per window, exactly.  The
trace is read as a stream by :func:`akita.trace.jsonl.open_trace`, so a
malformed line is refused with its file, line and field.

A ``complete`` event names the job's ``arrival``: :func:`mean_rtt` gives
the exact mean response time of a VM's jobs (the simulator's metrics give
percentiles only), of all of them or of those that arrived from a given
instant on.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from akita.trace.jsonl import count, field, located, open_trace

__all__ = ["shares_over_time", "mean_rtt"]


def shares_over_time(trace_path: str, window: int, duration: int) -> dict[str, list[Fraction]]:
    """VM name -> its CPU time per window over one pCPU's worth of time, as exact fractions."""
    windows = -(-duration // window)
    busy: dict[str, list[int]] = {}
    running: dict[int, tuple[str, int]] = {}

    def account(cpu: int, until: int) -> None:
        if cpu not in running:
            return
        vm, since = running.pop(cpu)
        slots = busy.setdefault(vm, [0] * windows)
        while since < until:
            w = since // window
            end = min(until, (w + 1) * window)
            slots[w] += end - since
            since = end

    with open_trace(trace_path) as (_, events):
        for event in events:
            kind = event.get("event")
            if kind in ("dispatch", "idle"):
                where = located(trace_path, event)
                cpu, t = count(event, "cpu", where), count(event, "t", where)
                account(cpu, t)
                if kind == "dispatch":
                    running[cpu] = (field(event, "vcpu", where).split("/")[0], t)
    for cpu in list(running):
        account(cpu, duration)
    return {vm: [Fraction(ns, window) for ns in slots] for vm, slots in sorted(busy.items())}


def _response_times(trace_path: str, vm: str, since: int) -> Iterator[int]:
    """The response times of *vm*'s jobs that arrived at or after *since* (ns), in trace order."""
    prefix = vm + "/"
    with open_trace(trace_path) as (_, events):
        for event in events:
            if event.get("event") != "complete":
                continue
            where = located(trace_path, event)
            if not field(event, "vcpu", where).startswith(prefix):
                continue
            arrival = count(event, "arrival", where)
            if arrival >= since:
                yield count(event, "t", where) - arrival


def mean_rtt(trace_path: str, vm: str, since: int = 0) -> Fraction | None:
    """The exact mean response time (ns) of *vm*'s jobs that arrived at or after *since*; ``None`` if none."""
    total = done = 0
    for rtt in _response_times(trace_path, vm, since):
        total, done = total + rtt, done + 1
    return Fraction(total, done) if done else None

"""CPU share per VM over time, read back from a JSON Lines trace.

A pCPU runs the vCPU of its last ``dispatch`` until its next ``dispatch``
or ``idle`` (:doc:`/trace-format`); summing those spans into windows of
``window`` ns gives each VM's share of one pCPU per window, exactly.  The
trace is read as a stream by :func:`akita.reference.trace.open_trace`, so a
malformed line is refused with its file, line and field.
"""

from __future__ import annotations

from fractions import Fraction

from akita.reference.trace import count, field, located, open_trace

__all__ = ["shares_over_time"]


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

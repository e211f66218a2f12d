"""CPU share per VM over time, read back from a JSON Lines trace.

A pCPU runs the vCPU of its last ``dispatch`` until its next ``dispatch``
or ``idle`` (:doc:`/trace-format`); summing those spans into windows of
``window`` ns gives each VM's share of one pCPU per window, exactly.
"""

from __future__ import annotations

import json
from fractions import Fraction

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

    with open(trace_path, encoding="utf-8") as trace:
        next(trace)
        for line in trace:
            event = json.loads(line)
            if event["event"] in ("dispatch", "idle"):
                account(event["cpu"], event["t"])
                if event["event"] == "dispatch":
                    running[event["cpu"]] = (event["vcpu"].split("/")[0], event["t"])
    for cpu in list(running):
        account(cpu, duration)
    return {vm: [Fraction(ns, window) for ns in slots] for vm, slots in sorted(busy.items())}

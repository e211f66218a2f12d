"""The R5 detection latency of a run, measured from its own capture.

For each switch to HI mode the capture holds both ends: the instant the HI
vCPU's consumption in its period reached ``C_opt`` while it ran (from the
kernel's ``sched_switch`` events, on the period grid the host file
declares), and the controller's ``akita: mode pcpu=N HI`` mark.  The
latency is the difference: how long after the rules' instant (R5) the
controller had read the kernel's account, decided, moved the vCPUs to their
HI-mode classes and written the mark.
"""

from __future__ import annotations

from pathlib import Path

from akita.model import load_host
from akita.trace.ftrace import read_ftrace

__all__ = ["detection_latencies"]


def detection_latencies(host_file: Path, trace_file: Path) -> list[int]:
    """The ns from each R5 instant (a HI vCPU reaching ``C_opt`` in LO mode) to its mark."""
    host = load_host(host_file)
    hi = {v.name: v.vm for vm in host.vms if vm.is_hi for v in vm.all_vcpus()}
    running: dict[int, tuple[str, int] | None] = {}
    consumed: dict[tuple[str, int], int] = {}
    hi_mode: dict[int, bool] = {}
    pending: dict[int, int] = {}
    found: list[int] = []
    with open(trace_file) as lines:
        for e in read_ftrace(lines, dict(host.trace_map)):
            t, cpu, kind = e["t"], e["cpu"], e["event"]
            now = running.get(cpu)
            if now is not None and now[0] in hi and not hi_mode.get(cpu) and cpu not in pending:
                crossed = _crossing(now[0], now[1], t, hi[now[0]], consumed)
                if crossed is not None:
                    pending[cpu] = crossed
            elif now is not None and now[0] in hi:
                _crossing(now[0], now[1], t, hi[now[0]], consumed)
            if kind in ("dispatch", "idle", "block") and now is not None:
                running[cpu] = None
            if kind == "dispatch":
                running[cpu] = (e["vcpu"], t)
            elif kind == "mode":
                hi_mode[cpu] = e["mode"] == "HI"
                if e["mode"] == "HI" and cpu in pending:
                    found.append(t - pending.pop(cpu))
                elif e["mode"] == "LO":
                    pending.pop(cpu, None)
            if now is not None and kind not in ("dispatch", "idle", "block"):
                running[cpu] = (now[0], t)
    return found


def _crossing(name: str, since: int, until: int, vm: object,
              consumed: dict[tuple[str, int], int]) -> int | None:
    """Charge *name* for ``[since, until)`` period by period; when it reached ``C_opt``."""
    period, phase, c_opt = vm.period, vm.phase or 0, vm.c_opt  # type: ignore[attr-defined]
    crossed = None
    a = since
    while a < until:
        k = (a - phase) // period
        end = min(until, phase + (k + 1) * period)
        before = consumed.get((name, k), 0)
        after = before + (end - a)
        consumed[(name, k)] = after
        if crossed is None and before < c_opt <= after and a >= phase:
            crossed = a + (c_opt - before)
        a = end
    return crossed

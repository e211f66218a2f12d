"""What a run created, written down as it is created, and undone on every exit path.

The run keeps a :class:`Ledger` in a small JSON file: the cpusets, the
tracing instance, the threads it attached (with their scheduling attributes
and cpuset from before) and the processes it started.  :func:`undo` puts all
of it back; the run calls it on a normal exit, an error, Ctrl-C and
``SIGTERM``, and a watchdog process (:mod:`akita.linux.watchdog`) calls it
when the run dies without doing so (``SIGKILL``, a crash).  Only what the
ledger names is touched: a thread the run did not attach keeps its policy,
a process it did not start is never signalled.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import attrs

from . import sched
from .cpuset import ROOT, _evacuate, restore_balance

__all__ = ["Ledger", "undo"]


@attrs.define
class Ledger:
    """Everything a run created or changed, saved to *path* at each change."""

    path: Path
    cpusets: list[str] = attrs.Factory(list)
    balance_was: str | None = None
    instance: str | None = None
    attached: list[dict[str, Any]] = attrs.Factory(list)
    started: list[int] = attrs.Factory(list)

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({
            "cpusets": self.cpusets, "balance_was": self.balance_was, "instance": self.instance,
            "attached": self.attached, "started": self.started}))
        tmp.replace(self.path)

    @classmethod
    def load(cls, path: Path) -> "Ledger":
        data = json.loads(path.read_text())
        return cls(path, data["cpusets"], data["balance_was"], data["instance"],
                   data["attached"], data["started"])


def _write(path: Path, value: str) -> None:
    try:
        with open(path, "w") as f:
            f.write(value)
    except OSError:
        pass


def undo(ledger: Ledger) -> list[str]:
    """Put back everything *ledger* names; return what could not be put back."""
    problems = []
    for entry in ledger.attached:
        tid = entry["tid"]
        try:
            sched.set_attr(tid, sched.SchedAttr(*entry["attr"]))
        except (ValueError, OSError) as error:
            if Path(f"/proc/{tid}").exists():
                problems.append(f"thread {tid}: policy not restored ({error})")
        _write(ROOT / entry["cpuset"].lstrip("/") / "tasks", str(tid))
    for pid in ledger.started:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for path in reversed(ledger.cpusets):
        _evacuate(Path(path), ROOT)
        if Path(path).exists():
            problems.append(f"cpuset {path} not removed")
    if ledger.balance_was is not None:
        restore_balance(ROOT, ledger.balance_was)
    if ledger.instance is not None and Path(ledger.instance).exists():
        _write(Path(ledger.instance) / "tracing_on", "0")
        for _ in range(50):
            try:
                Path(ledger.instance).rmdir()
                break
            except OSError:
                import time
                time.sleep(0.02)
        if Path(ledger.instance).exists():
            problems.append(f"tracing instance {ledger.instance} not removed")
    ledger.attached, ledger.started, ledger.cpusets = [], [], []
    ledger.instance, ledger.balance_was = None, None
    return problems

"""Whether a CPU writes its switches out of idle into the trace, and which CPUs to run on.

``sched_switch`` fires in ``__schedule()`` for every switch, the idle task's
own included (Linux, ``kernel/sched/core.c``), so a complete capture of a
CPU shows each idle period as a switch *to* ``swapper/N`` followed by a
switch *from* it.  Not every kernel writes both.  On the machine this
project is measured on (Linux 6.18, a nested guest) CPU 1 writes every
switch into idle and none out of it, while CPU 0 writes both (measured:
:doc:`/linux`, "Idle exits").  In a capture each unwritten idle exit is a
hole (:mod:`akita.trace.kernel`, "Lost events"): the oracle cannot say when
the next task began, charges no budget across the hole and withholds the
findings of that pCPU until each vCPU's next period start.  With the vCPUs
on such a CPU, holes cover most of a run and a wrong controller's findings
are withheld instead of reported.

:func:`probe` measures it, before a run, on each CPU: one short-lived child
process per CPU, pinned there, sleeps :data:`SLEEPS` times for
:data:`SLEEP_S`, each sleep an idle period of its CPU when nothing else runs
there, while a tracing instance of the run's own records ``sched_switch``.
A CPU that entered idle at least ``SLEEPS // 2`` times and never wrote a
switch out of it does not write its idle exits (``unwritten``); one that
wrote any does (``written``); one that hardly idled (another process kept
it busy) is ``unknown``.  :func:`choose_cpus` prefers CPUs that write them.

On a busy machine the probe tells nothing (no CPU idles), yet the property
is the kernel's and holds until the next boot.  So every definite answer --
the probe's, and each run's own capture, counted on its exclusive pCPUs by
:func:`count` -- is kept in :data:`KNOWN` (``/run``, a tmpfs emptied at
boot) under the kernel's ``boot_id``, and a CPU the probe cannot tell takes
the answer kept for it this boot (:func:`remember`, :func:`recall`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Callable, Literal, Mapping, Sequence

import attrs

from . import cpuset, tracefs
from .errors import LinuxParameterError

__all__ = ["IdleExits", "probe", "count", "choose_cpus", "remember", "recall", "SLEEPS",
           "SLEEP_S", "KNOWN"]

#: Sleeps per CPU, and their length (s): about 40 ms of probing in all.
SLEEPS = 20
SLEEP_S = 0.002
#: The most the probe's children may take (s), a bound on a stalled CPU.
PROBE_TIMEOUT_S = 10.0
#: The definite answers of this boot: ``{"boot_id": ..., "cpus": {"1": "unwritten"}}``.
KNOWN = Path("/run/akita-linux/idle-exits.json")
_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")

Written = Literal["written", "unwritten", "unknown"]

_CHILD = ("import os, sys, time\n"
          "os.sched_setaffinity(0, {int(sys.argv[1])})\n"
          "for _ in range(int(sys.argv[2])):\n"
          "    time.sleep(float(sys.argv[3]))\n")


@attrs.frozen
class IdleExits:
    """What the probe saw of one CPU: its switches into idle and out of it."""

    cpu: int
    entries: int
    exits: int

    @property
    def written(self) -> Written:
        """``written``, ``unwritten`` or ``unknown`` (see the module)."""
        if self.exits:
            return "written"
        return "unwritten" if self.entries >= SLEEPS // 2 else "unknown"

    def as_json(self) -> dict[str, object]:
        return {"cpu": self.cpu, "idle_entries": self.entries, "idle_exits": self.exits,
                "written": self.written}


def count(text: str, cpus: Sequence[int]) -> dict[int, IdleExits]:
    """Switches into idle and out of it per CPU of *text*, a capture read by the project's
    own reader (:func:`akita.trace.ftrace.sched_events`: the idle task is ``None``)."""
    from akita.trace.ftrace import sched_events

    entries = dict.fromkeys(cpus, 0)
    exits = dict.fromkeys(cpus, 0)
    for e in sched_events(text.splitlines()):
        if e.kind == "switch" and e.cpu in entries:
            exits[e.cpu] += e.prev is None
            entries[e.cpu] += e.next is None
    return {cpu: IdleExits(cpu, entries[cpu], exits[cpu]) for cpu in cpus}


def probe(cpus: Sequence[int], *,
          instance_factory: Callable[[], tracefs.Instance] = tracefs.Instance
          ) -> dict[int, IdleExits]:
    """Record each CPU of *cpus* going idle and waking, and count what was written.

    The instance is the run's own (``akita-linux-<pid>``), removed before this
    returns, on every path.
    """
    instance = instance_factory()
    children: list[subprocess.Popen[bytes]] = []
    try:
        instance.create()
        instance.start()
        children = [subprocess.Popen([sys.executable, "-c", _CHILD, str(cpu), str(SLEEPS),
                                      str(SLEEP_S)], stdin=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                    for cpu in cpus]
        for child in children:
            child.wait(timeout=PROBE_TIMEOUT_S)
        instance.stop()
        return count(instance.read(), cpus)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
        instance.remove()


def choose_cpus(pcpus: int, told: Mapping[int, Written] | None = None) -> list[int]:
    """*pcpus* online CPUs for the pCPUs, leaving the others to the controller.

    Ranked by what *told* (a :func:`probe` of every online CPU, :func:`recall`-ed) says: a CPU
    that writes its idle exits first, then one the probe could not tell
    (busy with other work: the property is the kernel's, not the load's, so an
    untold CPU may well write them), then one that does not; within each, not
    CPU 0 (which serves most interrupts) first, then the higher number.  The
    chosen are returned in increasing order.

    :raises LinuxParameterError: naming ``cpus``, when fewer than ``pcpus + 1``
        CPUs are online.
    """
    online = sorted(cpuset._online())
    if len(online) <= pcpus:
        raise LinuxParameterError("cpus", "default", f"{pcpus} online CPUs besides one for "
                                  f"the controller (this machine has {len(online)})")
    told = told or {}
    order = {"written": 2, "unknown": 1, "unwritten": 0}

    def rank(cpu: int) -> tuple[int, bool, int]:
        return (order[told.get(cpu, "unknown")], cpu != 0, cpu)

    return sorted(sorted(online, key=rank, reverse=True)[:pcpus])


def _boot_id() -> str:
    try:
        return _BOOT_ID.read_text().strip()
    except OSError:
        return ""


def _kept(known: Path) -> dict[str, str]:
    """The answers *known* keeps for this boot (none if another boot's, or unreadable)."""
    try:
        doc = json.loads(known.read_text())
        return dict(doc["cpus"]) if doc.get("boot_id") == _boot_id() else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def recall(found: Mapping[int, IdleExits], *, known: Path = KNOWN) -> dict[int, Written]:
    """Each CPU of *found* told: the probe's answer, or where it is ``unknown``, the one
    kept for that CPU this boot (``unknown`` if none, or the file unreadable)."""
    kept = _kept(known)
    told: dict[int, Written] = {}
    for cpu, seen in found.items():
        answer = seen.written
        if answer == "unknown" and kept.get(str(cpu)) in ("written", "unwritten"):
            answer = "written" if kept[str(cpu)] == "written" else "unwritten"
        told[cpu] = answer
    return told


def remember(found: Mapping[int, IdleExits], *, known: Path = KNOWN) -> None:
    """Keep the definite answers of *found* for this boot (best effort: a read-only /run
    leaves the next run to probe again)."""
    from akita.atomic import write_atomic

    told = {str(cpu): seen.written for cpu, seen in found.items() if seen.written != "unknown"}
    if not told:
        return
    kept = {**_kept(known), **told}
    try:
        known.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(known, json.dumps({"boot_id": _boot_id(), "cpus": kept},
                                       sort_keys=True) + "\n")
    except OSError:
        pass

"""The same command gives the same verdicts with every core busy as on an idle machine.

Issue 30's "deterministic limits": every limit that decides in ``akita prove``,
``akita check`` and the exact search of ``akita admit`` is a count -- Z3's
resource count (``--rlimit``) or the search's states -- and the wall clock
is only an outer guard, reported as such (decisions 120 and 353).  So a
command's verdicts, and what it spent of its budget, cannot move with the
machine's load.  Each test here runs a command twice in a fresh interpreter,
once as the machine is and once with one busy process per core started by the
test (and stopped by it on every exit path), and compares everything but the
seconds.  That the busy processes really ran beside the command is checked
from their own CPU time, so a test cannot pass by having measured an idle
machine twice.  A deliberately tiny budget answers ``unknown`` both times,
never a pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def _akita(*args: str) -> tuple[int, Any]:
    """``akita ARGS --json`` in a fresh interpreter: exit status and the document."""
    done = subprocess.run([sys.executable, "-c", "from akita.cli import main; main()", *args,
                           "--json"], capture_output=True, text=True, timeout=900)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def _timeless(document: Any) -> Any:
    """*document* without its seconds (the one field that may move with the load)."""
    if isinstance(document, dict):
        return {k: _timeless(v) for k, v in document.items() if k != "seconds"}
    if isinstance(document, list):
        return [_timeless(v) for v in document]
    return document


def _cpu_seconds(pid: int) -> float:
    """User and system CPU seconds process *pid* has used (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND


class BusyCores:
    """One busy process per core, started and stopped by the test itself."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> BusyCores:
        for _ in range(os.cpu_count() or 1):
            self.processes.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        return self

    def cpu_seconds(self) -> list[float]:
        return [_cpu_seconds(p.pid) for p in self.processes]

    def __exit__(self, *exc: object) -> None:
        for p in self.processes:
            p.kill()
        for p in self.processes:
            p.wait(timeout=30)


def _idle_then_busy(*args: str) -> tuple[tuple[int, Any], tuple[int, Any]]:
    """The command run as the machine is, then with every core busy; the busy processes
    must each have had at least a tenth of the second run's wall time (on two cores
    shared with the command and another test worker each gets about half; real-time
    tasks of other tests can take more)."""
    idle = _akita(*args)
    with BusyCores() as busy:
        began, before = time.perf_counter(), busy.cpu_seconds()
        loaded = _akita(*args)
        wall = time.perf_counter() - began
        spent = [after - was for after, was in zip(busy.cpu_seconds(), before)]
    assert all(s >= wall / 10 for s in spent), \
        f"the busy processes did not run beside it: {spent} CPU s in {wall:.2f} s"
    return idle, loaded


def test_prove_spends_the_same_count_and_concludes_the_same_under_load():
    names = ("first_fit_placements_are_valid", "edf_vd_test_is_monotone",
             "negative_control_no_guard")
    (status, idle), (status_busy, loaded) = _idle_then_busy(
        "prove", "--rlimit", "0", *names)
    assert status == status_busy == 0
    assert _timeless(idle) == _timeless(loaded)
    assert [o["verdict"] for o in idle["obligations"]] == ["proved", "proved", "refuted"]
    assert all(o["rlimit_used"] > 0 for o in idle["obligations"])


def test_prove_with_a_tiny_budget_is_unknown_under_load_as_when_idle():
    (status, idle), (status_busy, loaded) = _idle_then_busy(
        "prove", "--rlimit", "50", "edf_vd_test_is_monotone")
    assert status == status_busy == 3
    assert _timeless(idle) == _timeless(loaded)
    [outcome] = loaded["obligations"]
    assert outcome["verdict"] == "unknown" and "resource limit reached" in outcome["reason"]


@pytest.mark.parametrize("rlimit, status, verdict", [("0", 0, "proved"), ("50", 3, "unknown")])
def test_check_concludes_the_same_under_load(rlimit, status, verdict):
    (got, idle), (got_busy, loaded) = _idle_then_busy(
        "check", str(EXAMPLES / "fig5.toml"), "--rlimit", rlimit)
    assert got == got_busy == status
    assert _timeless(idle) == _timeless(loaded)
    assert [p["verdict"] for p in loaded["pcpus"]] == [verdict]


def test_the_exact_search_answers_the_same_under_load():
    """``akita admit`` with ``test = "exact"`` (a state count decides the search, an
    interval count the re-check): the whole document, to the byte but its seconds."""
    (status, idle), (status_busy, loaded) = _idle_then_busy(
        "admit", str(EXAMPLES / "exact.toml"))
    assert status == status_busy == 0
    assert _timeless(idle) == _timeless(loaded)
    assert loaded["test"] == "exact" and loaded["admitted"]
    assert loaded["pcpus"][0]["decided"] == "exact"

"""akita linux on the real kernel, judged by the oracle from its real captures.

Each test runs examples/fig5.toml for a few seconds with stand-in guests
attached (tests/data/linux/standin.c): three CPU-bound LO guests and a HI
guest that needs 15 ms of each 100 ms period for five periods (it asks for
C_pes, R5) and 3 ms for ten (it cools down, R8, R9).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from akita.linux import sched
from cli_run import interruptible
from repo import EXAMPLES

FIG5 = EXAMPLES / "fig5.toml"
AKITA = [sys.executable, "-m", "akita"]


def _linux(tmp: Path, guests: tuple[dict[str, int], int], *extra: str, seconds: float = 2.5
           ) -> subprocess.CompletedProcess:
    tids, align = guests
    attach = [a for name, tid in tids.items() for a in ("--attach", f"{name}={tid}")]
    attach += ["--align", str(align), "--seed", "0"]
    return subprocess.run([*AKITA, "linux", str(FIG5), "--seconds", str(seconds), "--out",
                           str(tmp), "--json", *attach, *extra], capture_output=True, text=True,
                          timeout=120)


def _conform(tmp: Path, *extra: str) -> dict:
    done = subprocess.run([*AKITA, "conform", str(tmp / "host.toml"), str(tmp / "trace.txt"),
                           "--json", *extra], capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1, 3), done.stderr  # 3: unconfirmed, a failed attempt
    return json.loads(done.stdout)


def _rules(report: dict) -> set[str]:
    return set(report["counts"])


@pytest.mark.rule("R2", "R4", "R5", "R6", "R7", "R8", "R9")
def test_a_correct_run_conforms_to_akita_linux_and_not_to_akita(tmp_path, standins):
    """On this shared machine the controller is now and then late by more than the
    tolerance (bench/README.md: 38 of 40 runs conformant at the 1 ms default, decision 349);
    up to three runs are made, each judged, and one must be conformant -- every failed one
    is shown."""
    failed = []
    for attempt in range(3):
        out = tmp_path / str(attempt)
        standins.close()
        done = _linux(out, standins.fig5())
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)
        assert summary["switches_to_hi"] >= 1 and summary["returns_to_lo"] >= 1
        report = _conform(out)
        assert report["policy"] == "akita-linux" and report["decisions"] > 50
        strict = _conform(out, "--policy", "akita")
        assert "R7" in _rules(strict)  # CBS throttling is not R7's work conservation (L1)
        if report["verdict"] == "conformant":
            return
        failed.append((report["counts"], report["violations"][:2]))
    pytest.fail(f"no conformant run in 3: {failed}")


@pytest.mark.rule("R5", "R6", "R8", "R9")
@pytest.mark.parametrize("variant, rule", [
    ("no-switch", "R5"), ("no-cooling", "R9"), ("lo-in-deadline", "R6")])
def test_each_wrong_controller_is_named_by_its_rule(tmp_path, standins, variant, rule):
    """A wrong controller is named by its rule in one of up to three runs (a run where its
    wrong step never came up is conformant, rightly); every unnamed run is shown.  Before
    the run chose a CPU that writes its idle exits (decision 345), ``no-switch`` and
    ``lo-in-deadline`` went unnamed on a quiet machine: each idle exit on CPU 1 was a hole,
    and their findings were withheld (docs/linux.rst, "Idle exits")."""
    unnamed = []
    for attempt in range(3):
        out = tmp_path / str(attempt)
        standins.close()
        done = _linux(out, standins.fig5(), "--variant", variant)
        assert done.returncode == 0, done.stderr
        report = _conform(out)
        if report["verdict"] == "violations" and rule in _rules(report):
            return
        unnamed.append((report["verdict"], report["counts"]))
    pytest.fail(f"{variant} not named by {rule} in 3 runs: {unnamed}")


def _leftovers(pid: int) -> list[str]:
    return ([p.name for p in Path("/sys/fs/cgroup/cpuset").glob(f"akita-linux-{pid}-*")]
            + [p.name for p in Path("/sys/kernel/tracing/instances").glob(f"akita-linux-{pid}")])


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_killed_run_leaves_nothing_behind(tmp_path, standins, how):
    tids, _ = standins.fig5()
    attach = [a for name, tid in tids.items() for a in ("--attach", f"{name}={tid}")]
    run = interruptible([*AKITA, "linux", str(FIG5), "--seconds", "20", "--out",
                         str(tmp_path), *attach], stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE, text=True)
    until = time.monotonic() + 30
    while not _leftovers(run.pid) and time.monotonic() < until:
        time.sleep(0.05)
    assert _leftovers(run.pid), "the run never made its cpusets"
    controlled = False
    while not controlled and time.monotonic() < until:  # (the CPU may be held a while)
        controlled = any(sched.get_attr(tid).policy != sched.SCHED_OTHER for tid in tids.values())
        time.sleep(0.05)
    assert controlled, "the run never gave a vCPU its class"
    time.sleep(0.5)
    run.send_signal(how)
    run.wait(timeout=30)
    ledger = tmp_path / ".akita-linux-ledger.json"
    until = time.monotonic() + 10  # the watchdog (SIGKILL) removes its ledger last
    while (_leftovers(run.pid) or ledger.exists()) and time.monotonic() < until:
        time.sleep(0.05)
    assert _leftovers(run.pid) == []
    for tid in tids.values():
        assert sched.get_attr(tid).policy == sched.SCHED_OTHER
        assert Path(f"/proc/{tid}/cpuset").read_text().strip() == "/"
    assert not ledger.exists()


def test_without_root_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    from akita.cli import run

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert run(["linux", str(FIG5), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "root is needed" in err


def test_without_the_deadline_class_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    from akita.cli import run
    from akita.linux import requirements

    monkeypatch.setattr(requirements, "problems", lambda: ["no SCHED_DEADLINE class usable here "
                                                      "(EINVAL)"])
    assert run(["linux", str(FIG5), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SCHED_DEADLINE" in err


@pytest.mark.rule("R5", "R6", "R7")
def test_the_real_workloads_run_under_akita_and_their_capture_is_complete(tmp_path, kernel):
    """examples/fig5.toml with no --attach: a real memcached and its open-loop client, and
    three lookbusy programs (akita.linux.workloads), for 3 s.  The capture must be
    complete by the ring buffer's own counters (decision 220), the client's record written,
    the switch to HI mode made (memcached needs 25% of the CPU, C_opt is 5%: it asks in its
    first loaded period), and the oracle must judge it by akita-linux from its first
    records, not mid-run."""
    import shutil

    import kernel_needs

    reason = kernel_needs.missing(memcached=True)
    if reason is not None or shutil.which("memcached") is None:
        pytest.skip(f"the real workloads need {reason or 'memcached'}")
    done = subprocess.run([*AKITA, "linux", str(FIG5), "--seconds", "3", "--seed", "1",
                           "--out", str(tmp_path), "--json"], capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    capture = summary["capture"]
    assert capture["complete"] and capture["overrun"] == capture["dropped events"] == 0
    assert capture["entries"] > 10_000
    assert summary["switches_to_hi"] >= 1
    memcached = summary["workloads"]["memcached"]
    assert memcached["requests"] > 50_000 and memcached["rtt_ns"]["p999"] is not None
    report = _conform(tmp_path)
    assert report["policy"] == "akita-linux" and report["decisions"] > 1000
    assert report["lost_events"]["capture_overwritten"] == 0
    assert report["start_ns"] < 50_000_000  # judged from the origin on, not mid-run

"""Whether a CPU writes its idle exits, and the CPUs a run takes: counted from trace text
(no root needed), chosen by rank, and probed on the real kernel where it can be."""

from __future__ import annotations

import os

import pytest

from akita.linux import cpuset, idle_exits
from akita.linux.errors import LinuxParameterError
from akita.linux.idle_exits import SLEEPS, IdleExits, choose_cpus, count, recall, remember
from akita.linux.tracefs import TRACEFS

_LINE = ("{comm:>16}-{pid:<7} [{cpu:03d}] d..2. 100.{us:06d}: sched_switch: prev_comm={comm} "
         "prev_pid={pid} prev_prio=120 prev_state=S ==> next_comm={ncomm} next_pid={npid} "
         "next_prio=120")


def _switch(cpu: int, prev: int, nxt: int, us: int) -> str:
    name = {0: "swapper/1"}
    return _LINE.format(comm=name.get(prev, "task"), pid=prev, cpu=cpu, us=us,
                        ncomm=name.get(nxt, "task"), npid=nxt)


def test_a_cpu_that_writes_no_switch_out_of_idle_is_told_apart():
    # CPU 0 goes idle and wakes ten times, both written; CPU 1 goes idle ten times, the
    # switches out of idle unwritten (the shape this machine's CPU 1 gives).
    lines = []
    for k in range(SLEEPS // 2):
        lines += [_switch(0, 50, 0, 10 * k), _switch(1, 60, 0, 10 * k + 1),
                  _switch(0, 0, 50, 10 * k + 5)]  # in time order, as a capture is
    lines.append("          <idle>-0       [001] dNh2. 100.000900: sched_wakeup: comm=x pid=60 "
                 "prio=120 target_cpu=001")
    seen = count("\n".join(lines), [0, 1])
    assert seen[0] == IdleExits(0, SLEEPS // 2, SLEEPS // 2) and seen[0].written == "written"
    assert seen[1] == IdleExits(1, SLEEPS // 2, 0) and seen[1].written == "unwritten"
    # too few idle periods to tell: unknown, never "written"
    assert IdleExits(1, SLEEPS // 2 - 1, 0).written == "unknown"
    assert seen[1].as_json() == {"cpu": 1, "idle_entries": SLEEPS // 2, "idle_exits": 0,
                                 "written": "unwritten"}


@pytest.mark.parametrize("told, chosen", [
    ({0: "written", 1: "unwritten"}, [0]),  # this machine
    ({0: "written", 1: "written"}, [1]),    # both write: not CPU 0
    ({0: "unknown", 1: "unwritten"}, [0]),  # untold beats unwritten
    ({0: "unknown", 1: "unknown"}, [1]),    # nothing told: the last
    ({}, [1]),
])
def test_the_run_takes_a_cpu_that_writes_its_idle_exits(monkeypatch, told, chosen):
    monkeypatch.setattr(cpuset, "_online", lambda: {0, 1})
    assert choose_cpus(1, told) == chosen


def test_a_definite_answer_is_kept_for_the_boot_and_only_for_it(tmp_path, monkeypatch):
    known, boot = tmp_path / "run" / "idle-exits.json", tmp_path / "boot_id"
    monkeypatch.setattr(idle_exits, "_BOOT_ID", boot)
    boot.write_text("boot-a\n")
    busy = {0: IdleExits(0, 0, 0), 1: IdleExits(1, 0, 0)}
    assert recall(busy, known=known) == {0: "unknown", 1: "unknown"}  # nothing kept yet
    remember({0: IdleExits(0, 20, 20), 1: IdleExits(1, 20, 0)}, known=known)
    assert recall(busy, known=known) == {0: "written", 1: "unwritten"}
    # an unknown never overwrites what was kept; a new answer of the probe wins
    remember(busy, known=known)
    assert recall({0: IdleExits(0, 20, 0), 1: IdleExits(1, 0, 0)}, known=known) == {
        0: "unwritten", 1: "unwritten"}
    boot.write_text("boot-b\n")  # rebooted: nothing kept holds
    assert recall(busy, known=known) == {0: "unknown", 1: "unknown"}
    known.write_text("{not json")
    assert recall(busy, known=known) == {0: "unknown", 1: "unknown"}


def test_a_run_leaves_a_cpu_for_the_controller(monkeypatch):
    monkeypatch.setattr(cpuset, "_online", lambda: {0, 1})
    with pytest.raises(LinuxParameterError) as caught:
        choose_cpus(2, {})
    assert caught.value.field == "cpus"


def test_the_probe_tells_each_cpu_on_the_real_kernel(kernel):
    online = sorted(cpuset._online())
    seen = idle_exits.probe(online)
    assert sorted(seen) == online
    for cpu, found in seen.items():
        assert found.cpu == cpu and found.entries >= 0 and found.exits >= 0
        assert found.written in ("written", "unwritten", "unknown")
    # the run's own instance name, removed on return
    assert not (TRACEFS / "instances" / f"akita-linux-{os.getpid()}").exists()


def test_a_run_names_a_pcpu_that_wrote_no_idle_exit():
    from pathlib import Path

    from akita.linux.run import RunResult

    def result(*seen: IdleExits) -> RunResult:
        return RunResult(Path("out"), Path("out/host.toml"), Path("out/trace.txt"), (1,), {},
                         0, 1.0, "correct", 0, 0, None, idle_exits=seen)

    assert result(IdleExits(1, 20, 20)).unwritten_idle_exits() is None
    assert result(IdleExits(1, 3, 0)).unwritten_idle_exits() is None  # untold: not named
    line = result(IdleExits(1, 29, 0)).unwritten_idle_exits()
    assert line is not None and line.startswith("CPU 1 (0 of 29 idle periods) wrote no switch")
    assert result(IdleExits(1, 29, 0)).as_json()["idle_exits"] == [
        {"cpu": 1, "idle_entries": 29, "idle_exits": 0, "written": "unwritten"}]

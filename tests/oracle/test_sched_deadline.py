"""Linux's SCHED_DEADLINE, a real implementation of EDF over CBS servers, under ``--policy edf``.

The captures (``tests/data/sched_deadline``, README there) are three periodic
deadline tasks partitioned onto one CPU.  Where every job fits its runtime
the kernel's schedule is EDF over the servers, and the oracle says so, with
its latencies counted within the tolerance; where a job overruns, CBS
throttles the task until its next period and runs other work meanwhile --
not work-conserving, unlike the ``edf`` rule set's servers (R7) -- and the
oracle names exactly that task and rule.
"""

from __future__ import annotations

import pytest
from repo import ROOT

from akita.model import load_host
from akita.oracle import conform_file
from akita.trace.ftrace import parse_seconds
from akita.oracle.tolerance import KERNEL_TOLERANCE_NS

DATA = ROOT / "tests" / "data" / "sched_deadline"


def check(name: str, **options):
    trace = DATA / f"{name}.txt"
    origin = parse_seconds(trace.read_text().splitlines()[0].rsplit("T0 = ", 1)[1])
    return conform_file(load_host(DATA / f"{name}.toml"), trace, policy="edf",
                        placement="trace", origin_ns=origin, **options)


def test_jobs_within_their_runtime_are_edf_within_the_default_tolerance():
    report = check("fit")
    assert report.verdict == "conformant" and report.decisions > 100
    assert report.tolerance == KERNEL_TOLERANCE_NS and report.vcpus_seen == 3
    count, largest = report.tolerated["R7"]  # wake-to-run latencies, counted, not hidden
    assert count > 10 and 0 < largest <= KERNEL_TOLERANCE_NS


def test_judged_exactly_the_real_latencies_are_violations():
    report = check("fit", tolerance=0)
    assert report.verdict == "violations" and set(report.counts) <= {"R4", "R7", "R10"}


@pytest.mark.rule("R7")
def test_cbs_throttling_is_named_as_the_servers_not_being_work_conserving():
    report = check("overrun")
    assert report.verdict == "violations" and set(report.counts) == {"R7"}
    first = report.first_of_each_rule["R7"]
    assert first.allowed == ("dl_c/0",) and first.did == "idle"
    assert "dl_c/0 (inactive" in first.text  # out of budget: throttled, not blocked
    assert all(v.allowed == ("dl_c/0",) for v in report.violations)


def ran_in_period(name: str, task: str, period: int) -> dict[int, tuple[int, int]]:
    """How long *task* ran in each of its periods, and the line of its last switch-out there,
    from the capture's sched_switch lines alone (its first line's T0 is period 0's start)."""
    import re
    lines = (DATA / f"{name}.txt").read_text().splitlines()
    origin = parse_seconds(lines[0].rsplit("T0 = ", 1)[1].strip())
    switch = re.compile(r"\s(\d+\.\d+): sched_switch: prev_comm=(\S+) .*==> next_comm=(\S+)")
    ran: dict[int, tuple[int, int]] = {}
    since = None
    for number, line in enumerate(lines, start=1):
        m = switch.search(line)
        if m is None:
            continue
        t = parse_seconds(m[1]) - origin
        if m[2] == task and since is not None:
            k = since // period
            ran[k] = (ran.get(k, (0, 0))[0] + t - since, number)
        since = t if m[3] == task else None
    return ran


def test_throttling_comes_microseconds_after_the_runtime_is_spent():
    """overrun.txt: dl_c (5 ms runtime, 6 ms jobs) is switched out 2 to 24 us after spending
    its runtime in each of 10 whole periods: the kernel charges runtime at every scheduling
    event of the CPU, and this CPU had many (docs/conform.rst, SCHED_DEADLINE)."""
    ran = ran_in_period("overrun", "dl_c", 40_000_000)
    late = sorted(used - 5_000_000 for k, (used, _) in ran.items() if k < 10)
    assert len(late) == 10 and late[0] >= 2_000 and late[-1] <= 24_000
    assert late[len(late) // 2] == 5_000


@pytest.mark.rule("R10")
def test_grub_reclaiming_shows_as_runs_past_the_runtime_and_late_preemption():
    """reclaim.txt: dl_c with SCHED_FLAG_RECLAIM runs its whole 6 ms jobs on a 5 ms runtime;
    the rules accept that as background time, and count the delays before dl_a's release
    preempts it (R10, within the tolerance; violations when judged exactly)."""
    ran = ran_in_period("reclaim", "dl_c", 40_000_000)
    assert all(6_000_000 <= used <= 6_050_000 for k, (used, _) in ran.items() if k < 10)
    report = check("reclaim")
    assert report.verdict == "conformant" and report.tolerated["R10"][0] == 10
    exact = check("reclaim", tolerance=0)
    assert exact.counts["R10"] == 10
    first = exact.first_of_each_rule["R10"]
    assert first.did == "dl_c/0" and "dl_c/0 (inactive" in first.text


@pytest.mark.rule("R4")
def test_a_sporadic_task_exercises_the_cbs_wake_up_rule():
    """sporadic.txt: dl_c's jobs come 0, T/2 or T late; at a late wake-up the kernel gives it
    the deadline wake + 40 ms, off its period grid, and orders it after a task whose grid
    deadline it ties: a tie under --ties any, an R4 against the fifo order under strict."""
    ran = ran_in_period("sporadic", "dl_c", 40_000_000)
    assert sorted(ran)[:10] == [0, 1, 2, 4, 5, 7, 9, 10, 11, 13]  # periods 3, 6, 8, 12 skipped
    report = check("sporadic")
    assert report.verdict == "conformant" and report.ambiguous == 3
    strict = check("sporadic", ties="strict")
    assert strict.counts == {"R4": 3}
    assert all("broke a tie against the fifo queue order" in v.text for v in strict.violations)

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
from akita.oracle.ftrace import parse_seconds
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

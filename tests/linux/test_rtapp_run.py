"""The exported Fig. 5 host run by rt-app on this machine, traced, and what it ran
(akita.linux.rtapp_run); skipped, with the reason, where rt-app, root or tracefs is missing."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from akita.linux.rtapp import export
from akita.linux.rtapp_run import figures, missing, ns_per_loop, run_traced
from akita.linux.wakeups import TRACEFS
from akita.model import load_host
from repo import EXAMPLES

_WHY = missing(1)


def test_figures_read_shares_and_periods_from_a_trace():
    """A hand-made trace: thread a runs 2 ms of every 10 ms, b 1 ms of every 10 ms."""
    lines = []
    for k in range(5):
        base = 1_000_000 + k * 10_000_000
        for name, pid, run in (("a", 11, 2_000_000), ("b", 12, 1_000_000)):
            lines.append(f"  <idle>-0 [001] d..2. {base / 1e9:.6f}: sched_wakeup: comm={name} "
                         f"pid={pid} prio=120 target_cpu=001")
            lines.append(f"  <idle>-0 [001] d..2. {base / 1e9:.6f}: sched_switch: "
                         f"prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> "
                         f"next_comm={name} next_pid={pid} next_prio=120")
            base += run
            lines.append(f"  {name}-{pid} [001] d..2. {base / 1e9:.6f}: sched_switch: "
                         f"prev_comm={name} prev_pid={pid} prev_prio=120 prev_state=S ==> "
                         f"next_comm=swapper/1 next_pid=0 next_prio=120")
    found = figures(lines, ["a", "b"], cpu=1)
    a, b = found["threads"]["a"], found["threads"]["b"]
    assert a["median_wake_interval_ns"] == 10_000_000 and a["wakeups"] == 5
    # the window opens at b's first dispatch (3 ms), when both have started, and closes at
    # the last event (44 ms): a's first 2 ms lie before it
    assert found["window_ns"] == 41_000_000
    assert (a["cpu_ns"], b["cpu_ns"]) == (8_000_000, 5_000_000)
    assert a["share"] == Fraction(8, 41) and a["cpus"] == [1]
    assert found["others_ns"] == 0  # only the idle task ran between them


@pytest.mark.skipif(_WHY is not None, reason=_WHY or "")
def test_rt_app_runs_the_exported_fig5_lookbusy_threads_at_their_duty_cycle(tmp_path):
    """rt-app runs each lookbusy thread every 10 ms on CPU 1, the three alike.

    The bounds are rt-app's, not the model's: ``run`` is a loop count calibrated once
    (decision 180), so a thread's CPU time per window is 2.5 ms only as far as the
    calibration holds (five runs here gave medians of 0.257-0.260 and one run 0.17, the
    machine being shared).  What the use case fixes is checked tightly: the period (within
    5 % of 10 ms), CPU 1 only, the three equal demands alike (within 15 % of each other);
    the share loosely (half to one and a half times 25 %)."""
    made = export(load_host(EXAMPLES / "kernel" / "fig5.toml"), cpus=(1,), seed=1, seconds=3)
    missed = []
    for attempt in range(3):  # rt-app's calibration drifts on this machine: one run must fit
        workdir = tmp_path / str(attempt)
        workdir.mkdir()
        found = _run_once(made.document, workdir)
        miss = _misfit(found)
        if miss is None:
            return
        missed.append(miss)
    pytest.fail(f"no run in 3 within the bounds: {missed}")


def _run_once(document: dict, workdir: Path) -> dict:
    """One traced rt-app run of *document* on CPU 1, read back (skips if CPU 1 was taken)."""
    trace, done = run_traced(document, cpu=1, seconds=3, workdir=workdir)
    assert done.returncode == 0, done.stderr[-500:]
    assert ns_per_loop(done.stderr + done.stdout) is not None
    assert not any(p.name.startswith("akita-rtapp-") for p in (TRACEFS / "instances").iterdir())
    with open(trace) as lines:
        found = figures(lines, document["tasks"], cpu=1)
    (workdir / "figures.json").write_text(json.dumps(found, default=str))
    if found["others_share"] > Fraction(1, 10):
        pytest.skip(f"CPU 1 was taken by other tasks {float(found['others_share']):.0%} of "
                    "the run (this machine is shared): rt-app's periods are not its own")
    assert found["threads"]["memcached-0"]["cpus"] == [1]
    assert sum(t["share"] for t in found["threads"].values()) <= 1
    return found


def _misfit(found: dict) -> str | None:
    """What in *found* is outside the use case's bounds, or None."""
    shares = []
    for name in ("lookbusy1-0", "lookbusy2-0", "lookbusy3-0"):
        thread = found["threads"][name]
        assert thread["cpus"] == [1], name
        if not 9_500_000 <= thread["median_wake_interval_ns"] <= 10_500_000:
            return f"{name} woke every {thread['median_wake_interval_ns']} ns"
        if not Fraction(1, 8) <= thread["share"] <= Fraction(3, 8):
            return f"{name} took {float(thread['share']):.3f}"
        shares.append(thread["share"])
    if max(shares) > min(shares) * Fraction(115, 100):
        return f"shares {[round(float(s), 3) for s in shares]} differ by more than 15 %"
    return None


def test_the_recorded_rt_app_run_of_fig5_reads_back_its_periods_and_shares():
    """The committed capture (tests/data/README.md, rtapp/): the lookbusy threads woke
    every 10 ms and took 27.3-27.4 % of CPU 1 each, memcached's approximation every 1 ms."""
    import lzma

    from repo import ROOT

    data = ROOT / "tests" / "data" / "rtapp"
    document = json.loads((data / "fig5.json").read_text())
    with lzma.open(data / "fig5-trace.txt.xz", "rt") as lines:
        found = figures(lines, document["tasks"], cpu=1)
    threads = found["threads"]
    assert found["window_ns"] == 2_918_128_000
    assert [threads[f"lookbusy{i}-0"]["median_wake_interval_ns"] for i in (1, 2, 3)] == \
        [10_002_000, 10_002_000, 10_025_000]
    assert [threads[f"lookbusy{i}-0"]["cpu_ns"] for i in (1, 2, 3)] == \
        [795_438_000, 799_816_000, 797_522_000]
    assert threads["memcached-0"]["median_wake_interval_ns"] == 1_002_000
    assert all(t["cpus"] == [1] for t in threads.values())
    assert found["others_share"] < Fraction(1, 10), float(found["others_share"])

"""The controller that leaves a HI vCPU in the deadline class past its virtual deadline
(``--variant throttle-past-vd``, the behaviour before decision 310) is named by the oracle
from the real capture of examples/fig5.toml's real memcached (L8)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from repo import EXAMPLES

FIG5 = EXAMPLES / "fig5.toml"
AKITA = [sys.executable, "-m", "akita"]


@pytest.mark.long
@pytest.mark.rule("R2", "R4", "R7")
def test_the_controller_that_throttles_past_the_virtual_deadline_is_named(tmp_path, kernel):
    """memcached needs about 25% of the CPU against a density C_opt / (x T) of 25%: it has
    not reached C_opt by its virtual deadline in its first loaded period (five runs of five,
    docs/kernel.rst), and the kernel throttles it when it wakes after it; L8 says it runs
    there, as SCHED_FIFO, so the oracle must find the pCPU idle or running a LO vCPU while
    it is runnable."""
    import kernel_needs

    reason = kernel_needs.missing(memcached=True)
    if reason is not None or shutil.which("memcached") is None:
        pytest.skip(f"the real workloads need {reason or 'memcached'}")
    done = subprocess.run([*AKITA, "linux", str(FIG5), "--seconds", "3", "--seed", "1",
                           "--variant", "throttle-past-vd", "--out", str(tmp_path), "--json"],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["capture"]["complete"]
    judged = subprocess.run([*AKITA, "conform", str(tmp_path / "host.toml"),
                             str(tmp_path / "trace.txt"), "--json"], capture_output=True,
                            text=True, timeout=600)
    assert judged.returncode == 1, judged.stderr
    report = json.loads(judged.stdout)
    named = [v for v in report["violations"] if v["rule"] in ("R4", "R7")
             and "memcached/0" in v["text"] and "virtual deadline" in v["text"]]
    assert named, report["counts"]

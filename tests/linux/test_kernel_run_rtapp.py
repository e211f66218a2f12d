"""A host's periodic workloads as an rt-app use case (akita.linux.rtapp)."""

import json
import os
import shutil
import subprocess

import pytest

from akita.linux.rtapp import use_case
from akita.model import ModelError, load_host
from repo import EXAMPLES


def test_fig7_becomes_four_pinned_threads_of_run_and_timer():
    doc = use_case(load_host(EXAMPLES / "kernel" / "fig7.toml"), cpus=(1,), seed=1, seconds=2)
    tasks = doc["tasks"]
    assert sorted(tasks) == ["hi-0", "lookbusy1-0", "lookbusy2-0", "lookbusy3-0"]
    assert tasks["hi-0"]["run"] == 5000 and tasks["hi-0"]["timer"]["period"] == 10000
    assert tasks["lookbusy1-0"]["run"] == 2500
    assert all(t["cpus"] == [1] and t["policy"] == "SCHED_OTHER" for t in tasks.values())
    # the offset of a third of a window is in the delay, beside the seeded phase
    host = load_host(EXAMPLES / "kernel" / "fig7.toml")
    from akita.model.phases import resolve_phases

    phases = resolve_phases(host, 1)
    assert tasks["lookbusy2-0"]["delay"] == (phases["lookbusy2"] + 3_300_000) // 1000
    assert doc["global"]["duration"] == 2 and doc["global"]["calibration"] == "CPU1"


def test_nice_is_the_threads_priority():
    doc = use_case(load_host(EXAMPLES / "kernel" / "weights.toml"), cpus=(1,), seed=1,
                   seconds=1)
    assert doc["tasks"]["light-0"]["priority"] == 5 and "timer" not in doc["tasks"]["heavy-0"]


def test_a_request_server_has_no_rt_app_form():
    with pytest.raises(ModelError) as caught:
        use_case(load_host(EXAMPLES / "kernel" / "fig5.toml"), cpus=(1,), seed=1, seconds=1)
    assert caught.value.vm == "memcached"


@pytest.mark.skipif(shutil.which("rt-app") is None or os.geteuid() != 0,
                    reason="needs rt-app and root")
def test_rt_app_runs_the_use_case(tmp_path):
    doc = use_case(load_host(EXAMPLES / "kernel" / "batch-periodic.toml"), cpus=(1,), seed=1,
                   seconds=1)
    doc["global"]["calibration"] = 100  # ns per loop: no calibration step in a test
    path = tmp_path / "use-case.json"
    path.write_text(json.dumps(doc))
    done = subprocess.run(["rt-app", str(path)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr[-500:]

"""Host-file workloads as real tasks on this machine's kernel (akita.linux.workloads).

The tests that run tasks check first what they need and are skipped with the reason;
each records about a second.
"""

import os
import signal
import subprocess
import sys
import time
from fractions import Fraction

import pytest
from cli_run import interruptible

from akita.linux.workloads import CPU_CGROUP, VcpuTask, Workloads, require
from akita.model import ModelError, loads_host
from kernel_needs import missing


def _host(workloads: dict[str, str]) -> str:
    text = "[host]\npcpus = 1\nphases = \"synchronous\"\n"
    for name, workload in workloads.items():
        text += f'[[vm]]\nname = "{name}"\ntype = "Type2"\nworkload = {workload}\n'
    return text


def _ours() -> set[str]:
    return {p.name for p in CPU_CGROUP.glob(f"akita-kernel-{os.getpid()}-*")}


def test_a_burning_request_server_has_no_real_program():
    host = loads_host(_host({"net": '{ kind = "poisson", rate = 10, service = "1us", '
                                    'burn = true }'}))
    with pytest.raises(ModelError) as caught:
        require(host)
    assert caught.value.vm == "net" and "burn" in str(caught.value)


def test_every_vcpu_needs_a_cpu(tmp_path):
    host = loads_host(_host({"a": '{ kind = "cpu-bound" }'}))
    with pytest.raises(ModelError, match="a/0"):
        Workloads(host, placement={}, client_cpu=0, seed=1, seconds=1, out_dir=tmp_path)


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_a_duty_task_gets_its_share_and_a_hog_gets_the_rest(tmp_path):
    """lookbusy at 30% beside a CPU hog on CPU 1: the duty task uses 30% (it asks for less
    than its fair half), the hog about the rest; a task that burned wall-clock time instead
    of CPU time, or ignored its jobs, would be refuted by the first figure."""
    host = loads_host(_host({"duty": '{ kind = "duty", utilization = "30%", window = "10ms" }',
                             "hog": '{ kind = "cpu-bound" }'}))
    with Workloads(host, placement={("duty", 0): 1, ("hog", 0): 1}, client_cpu=0, seed=1,
                   seconds=1.0, out_dir=tmp_path, isolate=True) as load:
        tasks = load.start()
        assert {t.vm for t in tasks} == {"duty", "hog"} and all(isinstance(t, VcpuTask)
                                                                 for t in tasks)
        for task in tasks:
            assert os.sched_getaffinity(task.tid) == {1}
            assert os.sched_getscheduler(task.tid) == os.SCHED_OTHER
        load.wait()
        figures = load.results()
    duty, hog = figures["duty"], figures["hog"]
    assert abs(Fraction(str(duty["cpu_share"])) - Fraction(3, 10)) < Fraction(3, 100)
    assert hog["cpu_share"] > 0.55
    assert 95 <= duty["jobs"] <= 100  # one job a 10 ms window, the last ones may be cut
    assert duty["response_ns"]["p50"] >= 3_000_000  # each job needs 3 ms of CPU
    assert not _ours()  # the cgroup is removed


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_an_exception_kills_everything_it_started(tmp_path):
    host = loads_host(_host({"hog": '{ kind = "cpu-bound" }'}))
    with pytest.raises(RuntimeError):
        with Workloads(host, placement={("hog", 0): 1}, client_cpu=0, seed=1, seconds=30,
                       out_dir=tmp_path, isolate=True) as load:
            pids = [t.pid for t in load.start()]
            raise RuntimeError("the controller failed")
    time.sleep(0.1)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in pids)
    assert not _ours()


@pytest.mark.skipif(missing(memcached=True) is not None, reason=str(missing(memcached=True)))
def test_memcached_answers_every_request_of_the_process(tmp_path):
    host = loads_host(_host({"kv": '{ kind = "poisson", rate = 2000, service = "10us" }'})
                      .replace('type = "Type2"', 'type = "Type1"'))
    with Workloads(host, placement={("kv", 0): 1}, client_cpu=0, seed=3, seconds=1.0,
                   out_dir=tmp_path, isolate=True) as load:
        (task,) = load.start()
        with open(f"/proc/{task.pid}/task/{task.tid}/comm") as comm:
            assert comm.read().strip() == "mc-worker"
        load.wait()
        kv = load.results()["kv"]
    assert 1700 <= kv["requests"] <= 2300  # a Poisson second at 2,000/s
    assert kv["unanswered"] == 0
    assert 0 < kv["rtt_ns"]["p50"] <= kv["rtt_ns"]["p999"]


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_ctrl_c_leaves_nothing_behind(tmp_path):
    host = tmp_path / "hog.toml"
    host.write_text(_host({"hog": '{ kind = "cpu-bound" }'}))
    cmd = [sys.executable, "-m", "akita", "kernel-run", str(host), "--seconds", "30",
           "--runs", "1"]
    proc = interruptible(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    children: list[str] = []
    while time.monotonic() < deadline and not children:
        time.sleep(0.2)
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                                  text=True).stdout.split()
    assert children, "the run started no task"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert b"killed" in err
    assert not any(os.path.exists(f"/proc/{pid}") for pid in children)
    assert not list(CPU_CGROUP.glob(f"akita-kernel-{proc.pid}-*"))


@pytest.mark.skipif(missing(memcached=True) is not None, reason=str(missing(memcached=True)))
def test_a_controller_that_never_waits_still_gets_the_latencies(tmp_path):
    """As the Akita-on-Linux controller uses it: start, run to the end on its own, exit;
    the tasks are in the root group (no cgroup is made) and the results carry every
    request and job, but no CPU times (those are read by wait())."""
    host = loads_host(_host({"kv": '{ kind = "poisson", rate = 1000, service = "10us" }',
                             "duty": '{ kind = "duty", utilization = "20%", window = "10ms" }'})
                      .replace('name = "kv"\ntype = "Type2"', 'name = "kv"\ntype = "Type1"'))
    with Workloads(host, placement={("kv", 0): 1, ("duty", 0): 1}, client_cpu=0, seed=2,
                   seconds=0.5, out_dir=tmp_path) as load:
        tasks = load.start()
        assert not _ours()
        for task in tasks:
            with open(f"/proc/{task.pid}/cgroup") as groups:
                assert ":cpu:/\n" in groups.read()
        time.sleep((load.end_ns - time.monotonic_ns()) / 1e9 + 0.05)
    figures = load.results()
    assert figures["kv"]["unanswered"] == 0 and figures["kv"]["requests"] > 300
    assert 0 < figures["duty"]["jobs"] <= 50  # without the group, the machine may slow it
    assert figures["kv"]["cpu_share"] is None

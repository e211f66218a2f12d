"""A sweep on a real dask.distributed cluster: a worker killed mid-sweep loses and
duplicates nothing (akita/parallel.py)."""

import json
import logging
import os
import signal
from collections import Counter

import pytest

from akita.sweep import loads_spec, run_sweep

distributed = pytest.importorskip("distributed")

#: 16 batches of 100 sets, each some 50 ms of AMC-rtb: both workers are busy when one dies.
SPEC = """
[sweep]
seed = 7
sets = 200
utilizations = { start = 0.6, stop = 0.95, step = 0.05 }
tests = ["amc-rtb", "edf-vd"]
batch = 100
[sweep.generator]
kind = "uunifast"
vcpus = 20
periods = ["10ms", "1000ms"]
granularity = "100us"
criticality_factor = 2
p_hi = 0.5
"""


def _processing(dask_scheduler):
    """How often each task was handed to a worker (run on the scheduler)."""
    return Counter(entry[0] for entry in dask_scheduler.transition_log if entry[2] == "processing")


def test_a_worker_killed_mid_sweep_loses_and_duplicates_nothing(tmp_path):
    spec = loads_spec(SPEC)
    serial = run_sweep(spec, workers=0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=logging.CRITICAL) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        before = client.run(os.getpid)
        killed = []

        def kill_one_at_the_first_result(done, total):
            if done and not killed:
                victim = sorted(before.values())[0]
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        result = run_sweep(spec, store=tmp_path, scheduler=cluster.scheduler_address,
                           progress=kill_one_at_the_first_result)
        handed = client.run_on_scheduler(_processing)
        after = client.run(os.getpid)
    assert killed and killed[0] not in after.values()  # it died, and its nanny started another
    assert len(handed) == 16 and max(handed.values()) >= 2  # its tasks were run again elsewhere
    assert json.dumps(result.as_json()) == json.dumps(serial.as_json())
    assert result.csv() == serial.csv()
    stored = list((tmp_path / spec.digest[:16]).glob("*.json"))
    assert len(stored) == 16 and result.computed == 16


def test_the_local_cluster_leaves_port_8787_alone(tmp_path, recwarn):
    """Another cluster may hold the dashboard's usual port: the sweep's own scheduler
    listens elsewhere and warns of nothing (its stderr stays one closing line)."""
    import socket

    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
    except OSError:
        pass  # already held by someone else: the situation this test sets up
    else:
        holder.listen()
    try:
        small = SPEC.replace("sets = 200", "sets = 10").replace("batch = 100", "batch = 10")
        result = run_sweep(loads_spec(small), workers=1, store=tmp_path)
        assert result.points
    finally:
        holder.close()
    assert not [w for w in recwarn if "8787" in str(w.message)]

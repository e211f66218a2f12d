"""A small fleet's sampled hosts on a real dask.distributed cluster (a scheduler and two
worker processes, started here and shut down after): the same bytes as the serial run."""

import json
import logging

import pytest

from akita.fleet import loads_spec, run_fleet
from repo import ROOT

SMALL = (ROOT / "tests" / "fleet" / "small.toml").read_text(encoding="utf-8")

distributed = pytest.importorskip("distributed")


def _fleet_tasks(dask_scheduler):
    """The fleet's tasks the scheduler handed to a worker, and the workers it had."""
    keys = {str(entry[0]) for entry in dask_scheduler.transition_log
            if entry[2] == "processing" and str(entry[0]).startswith("akita-fleet-")}
    return sorted(keys)


def test_the_cluster_gives_the_serial_bytes():
    spec = loads_spec(SMALL)
    serial = run_fleet(spec, workers=0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=logging.CRITICAL) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        parallel = run_fleet(spec, scheduler=cluster.scheduler_address)
        ran = client.run_on_scheduler(_fleet_tasks)
    assert len(ran) == 4  # two sampled hosts of each placement, each one task
    assert json.dumps(parallel.as_json()) == json.dumps(serial.as_json())
    assert parallel.csv() == serial.csv()
    sampled = serial.as_json()["placements"]
    assert [len(p["samples"]) for p in sampled.values()] == [2, 2]
    assert {s["policy"] for s in sampled["first-fit"]["samples"]} == {"akita"}
    assert {s["policy"] for s in sampled["spread"]["samples"]} == {"credit"}

"""One fleet, start to finish: draw the VMs, replay each placement, simulate the sample.

:func:`run_fleet` is what ``akita fleet`` does, for a script.  The VMs are
drawn once (:func:`~.arrivals.arrivals`) and replayed under each placement
in this process, one after the other (:func:`~.replay.replay`): a replay is
a sequence of decisions that each depend on the last, with nothing to share
out.  The sampled hosts of every placement (:func:`~.sample.sample_hosts`)
are independent, so they are the tasks that go to the cluster, through
:func:`akita.parallel.run_tasks` (serially with
``workers=0``, on a local ``dask.distributed`` cluster by default, or on an
existing one), and each result is put in place by its index, so the output
is the same whatever the number of workers and the order they finish in.
"""

from __future__ import annotations

from typing import Callable

from akita.parallel import run_tasks

from .arrivals import arrivals
from .replay import Replay, replay
from .results import FleetResult, PlacementResult
from .sample import POLICY_OF, SampleJob, SampleResult, host_seed, sample_hosts, simulate_sample
from .spec import FleetSpec

__all__ = ["run_fleet", "sample_jobs"]


def sample_jobs(spec: FleetSpec, replays: dict[str, Replay]) -> list[SampleJob]:
    """The sampled hosts of every placement, placement by placement, host by host."""
    jobs = []
    for name in spec.placements:
        run = replays[name]
        peaks = {peak.host: peak for peak in run.peaks}
        policy = spec.policy or POLICY_OF.get(name, spec.spread_policy)
        for host in sample_hosts(spec.seed, name, list(peaks), spec.sample):
            jobs.append(SampleJob(placement=name, policy=policy, peak=peaks[host],
                                  pcpus=spec.pcpus, test=spec.test, duration=spec.duration,
                                  seed=host_seed(spec.seed, name, host)))
    return jobs


def run_fleet(spec: FleetSpec, *, workers: int | None = None, scheduler: str | None = None,
              progress: Callable[[str, int, int], None] | None = None) -> FleetResult:
    """Run *spec* and return its results.

    :param workers: worker processes of a local Dask cluster for the sampled
        hosts (default: every core); ``0`` runs them in this process.
    :param scheduler: the address of an existing Dask cluster instead.
    :param progress: called as ``progress(stage, done, total)`` from this
        thread: ``("placing", placements done, placements)``, then
        ``("simulating", hosts done, hosts)``.
    """
    vms = list(arrivals(spec))
    replays: dict[str, Replay] = {}
    for placed, name in enumerate(spec.placements):
        if progress is not None:
            progress("placing", placed, len(spec.placements))
        replays[name] = replay(spec, name, vms)
    jobs = sample_jobs(spec, replays)
    results: list[SampleResult | None] = [None] * len(jobs)
    finished = 0
    if progress is not None:
        progress("simulating", 0, len(jobs))

    def done(index: int, result: SampleResult) -> None:
        nonlocal finished
        results[index] = result
        finished += 1
        if progress is not None:
            progress("simulating", finished, len(jobs))

    run_tasks(simulate_sample, jobs, done, workers=workers, scheduler=scheduler,
              name=f"akita-fleet-{spec.digest[:16]}")
    complete = [r for r in results if r is not None]
    assert len(complete) == len(jobs), "a sampled host was not simulated"
    return FleetResult(spec, tuple(
        PlacementResult(replays[name], tuple(r for r in complete if r.placement == name))
        for name in spec.placements))

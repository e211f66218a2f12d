"""Benchmark: the sweep's throughput in sets per second, in this process and on Dask.

    python bench/sweep.py [--spec examples/sweep-rtss2011.toml] [--sets N] [--workers 1 2]
                          [--repeat 1]

Runs the spec (by default the RTSS 2011 reproduction, 19 points x 1000 sets,
four tests) with nothing stored, so every batch is computed:

* ``serial``: ``workers=0``, in this process, without Dask;
* ``N workers, end to end``: :func:`akita.sweep.run_sweep` with
  ``workers=N``, which starts a local ``dask.distributed`` cluster of N
  worker processes and shuts it down (what ``akita sweep --workers N`` costs,
  bar the plot);
* ``N workers, warm cluster``: the same batches on a cluster started
  beforehand, as ``akita sweep`` starts its own (``scheduler=`` its
  address), so that the figure is the throughput of the work alone.

Each line gives the best of ``--repeat`` wall-clock runs, the sets per second
and the speed-up over ``serial``.  The machine is shared, so the script first
measures what two cores give at that moment: a pure-Python loop alone and
twice at once in two processes ("2 processes at once: x1.98" means two
free cores; x1.0, one); read the speed-ups against that figure.  Every run
must give the same JSON, byte for byte; the script stops if one does not.  ``--sets`` lowers the sets per
point for a quicker look (the figures move little, the start-up's share more).
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import time
from pathlib import Path

import attrs

from akita.sweep import SweepSpec, load_spec, run_sweep

ROOT = Path(__file__).resolve().parent.parent


def _burn(n: int) -> float:
    start = time.perf_counter()
    total = 0
    for i in range(n):
        total += i * i
    return time.perf_counter() - start


def free_cores(n: int = 10_000_000) -> float:
    """How many loops run in the time of one, two at once in two processes (2.0: two free cores)."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        alone = min(pool.map(_burn, [n]))
        both = max(pool.map(_burn, [n, n]))
    return 2 * alone / both


def timed(repeat: int, spec: SweepSpec, **where) -> tuple[float, str]:
    """The best wall-clock time of *repeat* runs of *spec*, and its JSON."""
    best, document = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        result = run_sweep(spec, **where)
        best = min(best, time.perf_counter() - start)
        document = json.dumps(result.as_json())
    return best, document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default=str(ROOT / "examples" / "sweep-rtss2011.toml"))
    parser.add_argument("--sets", type=int, help="sets per point (default: the spec's)")
    parser.add_argument("--batch", type=int, help="sets per batch (default: the spec's)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    spec = load_spec(args.spec)
    if args.sets:
        spec = attrs.evolve(spec, sets=args.sets, batch=min(spec.batch, args.sets))
    if args.batch:
        spec = attrs.evolve(spec, batch=min(args.batch, spec.sets))
    total = len(spec.utilizations) * spec.sets
    print(f"{args.spec}: {len(spec.utilizations)} points x {spec.sets} sets = {total} sets, "
          f"tests {', '.join(spec.tests)}, {spec.generator.vcpus} vCPUs, batches of {spec.batch}")
    print(f"  2 processes at once:         x{free_cores():.2f} (the cores free now)")
    serial, reference = timed(args.repeat, spec, workers=0)
    print(f"  serial (no Dask):            {serial:7.2f} s  {total / serial:8.0f} sets/s")
    import dask
    from distributed import Client, LocalCluster

    from akita.parallel import LOCAL_CONFIG

    for workers in args.workers:
        seconds, document = timed(args.repeat, spec, workers=workers)
        assert document == reference, f"{workers} workers gave other numbers"
        print(f"  {workers} workers, end to end:     {seconds:7.2f} s  {total / seconds:8.0f} "
              f"sets/s  x{serial / seconds:.2f}")
        with dask.config.set(LOCAL_CONFIG), \
                LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                             host="127.0.0.1", dashboard_address=None,
                             silence_logs=logging.ERROR) as cluster, \
                Client(cluster, set_as_default=False) as client:
            client.run(lambda: __import__("akita.sweep.batches"))  # workers import once, untimed
            seconds, document = timed(args.repeat, spec, scheduler=cluster.scheduler_address)
        assert document == reference, f"{workers} warm workers gave other numbers"
        print(f"  {workers} workers, warm cluster:   {seconds:7.2f} s  {total / seconds:8.0f} "
              f"sets/s  x{serial / seconds:.2f}")
    print(f"  2 processes at once:         x{free_cores():.2f} (the cores free at the end)")


if __name__ == "__main__":
    main()

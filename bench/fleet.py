"""Benchmark: ``akita fleet`` on examples/fleet.toml, in this process and on Dask.

    python bench/fleet.py [--spec examples/fleet.toml] [--workers 1 2] [--repeat 1]

Times the two stages of :func:`akita.fleet.run_fleet` apart and together:

* ``draw``: the VMs of the spec (:func:`akita.fleet.arrivals.arrivals`);
* ``replay NAME``: one placement over the horizon, in events (arrivals and
  departures) per second;
* ``serial``, ``N workers``: the whole run end to end with ``workers=0``
  (no Dask) and with a local ``dask.distributed`` cluster of N worker
  processes started and shut down inside the run (what ``akita fleet
  --workers N`` costs, bar the plot).  Only the sampled hosts' simulations
  go to the cluster; the replays stay in this process.

Each figure is the best of ``--repeat`` wall-clock runs.  The machine is
shared, so read the figures against its load; every run must give the same
JSON, byte for byte, and the script stops if one does not.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from akita.fleet import load_spec, run_fleet
from akita.fleet.arrivals import arrivals
from akita.fleet.replay import replay

ROOT = Path(__file__).resolve().parent.parent


def best(repeat: int, run):
    """The best wall-clock time of *repeat* calls of *run*, and the last value."""
    fastest, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default=str(ROOT / "examples" / "fleet.toml"))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    spec = load_spec(args.spec)
    seconds, vms = best(args.repeat, lambda: list(arrivals(spec)))
    print(f"{args.spec}: {spec.hosts} hosts x {spec.pcpus} pCPUs, {len(vms)} VMs, "
          f"{spec.sample} sampled hosts per placement for {spec.duration / 1e9:g} s")
    print(f"  draw the VMs:          {seconds:7.2f} s")
    for name in spec.placements:
        seconds, run = best(args.repeat, lambda: replay(spec, name, vms))
        events = run.offered + run.departed
        print(f"  replay {name:<10}     {seconds:7.2f} s  {events / seconds:8.0f} events/s "
              f"({events} events)")
    serial, result = best(args.repeat, lambda: run_fleet(spec, workers=0))
    reference = json.dumps(result.as_json())
    print(f"  serial (no Dask):      {serial:7.2f} s")
    for workers in args.workers:
        seconds, result = best(args.repeat, lambda: run_fleet(spec, workers=workers))
        assert json.dumps(result.as_json()) == reference, f"{workers} workers gave other bytes"
        print(f"  {workers} workers, end to end: {seconds:7.2f} s  x{serial / seconds:.2f}")


if __name__ == "__main__":
    main()

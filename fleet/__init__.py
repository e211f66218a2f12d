"""Fleets: VMs arriving and leaving, placed online by first fit or by spreading.

``akita fleet SPEC.toml`` replays a fleet of identical hosts over a horizon:
VMs of the paper's Table 1 types arrive (a Bernoulli process on a tick
grid), live for a drawn lifetime and leave, and each placement compared
puts each arriving VM on a host, or rejects it, under the same exact
admission test.  It counts the pCPUs and hosts in use over time and the
rejections, and simulates a sample of each placement's hosts at their
peak, as tasks on ``dask.distributed`` (:mod:`akita.parallel`), for
the HI VMs' deadline misses and tail latency and the LO VMs' share.
Everything but the simulated metrics is exact, and all of it is the same
bytes whatever the number of workers.

* :mod:`.spec` -- the fleet file;
* :mod:`.arrivals` -- the VMs, when they come and how long they stay;
* :mod:`akita.fleet.placement` -- first fit and spreading over a fleet;
* :mod:`.replay` -- one placement, event by event;
* :mod:`.sample` -- the sampled hosts and their simulation;
* :mod:`.runner` -- one fleet, start to finish;
* :mod:`.results` -- as JSON and CSV;
* :mod:`.plot` -- cores in use over time.
"""

from .results import FleetResult
from .runner import run_fleet
from .spec import FleetSpec, load_spec, loads_spec

__all__ = ["FleetSpec", "load_spec", "loads_spec", "run_fleet", "FleetResult"]

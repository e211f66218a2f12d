"""Acceptance-ratio sweeps: how often each admission test accepts random task sets.

``akita sweep SPEC.toml`` draws, at each LO-mode utilisation of a grid,
many random mixed-criticality task sets (:mod:`akita.model.taskgen`) and
counts, per admission test, the sets the test accepts on one pCPU -- the
experiment behind the published acceptance-ratio curves.  The sets are cut
into batches that run on ``dask.distributed`` (a local cluster by default),
are stored as they finish, and are added up in a fixed order, so the
numbers are the same whatever the number of workers and however often the
sweep was interrupted.

* :mod:`.spec` -- the sweep file;
* :mod:`.batches` -- a batch and what it computes;
* :mod:`.store` -- finished batches on disk;
* :mod:`.runner` -- one sweep, start to finish;
* :mod:`.results` -- per point, as JSON and CSV;
* :mod:`.wilson` -- the confidence interval;
* :mod:`.plot` -- the curves.

The batches go to the cluster through :mod:`akita.parallel`, which
``akita fleet`` shares.
"""

from .results import PointResult, SweepResult
from .runner import run_sweep
from .spec import SweepSpec, load_spec, loads_spec

__all__ = ["SweepSpec", "load_spec", "loads_spec", "run_sweep", "SweepResult", "PointResult"]

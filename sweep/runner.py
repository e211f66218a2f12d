"""One sweep, start to finish: plan, reuse what is stored, run the rest, add up.

:func:`run_sweep` is what ``akita sweep`` does, for a script.  It cuts the
spec into batches (:func:`~.batches.plan`), reads back every batch already
finished under *store* (:class:`~.store.BatchStore`), runs the others
(:func:`akita.parallel.run_tasks`: serially, on a local Dask cluster or on an
existing one), stores each as it arrives, and adds the counts up per point
(:func:`~.results.assemble`).  Stopped at any moment, it loses at most the
batches still running; run again with the same *store*, it computes only
the missing ones, and the result is the same, byte for byte.
"""

from __future__ import annotations

import os
from typing import Callable

from akita.parallel import run_tasks

from .batches import BatchResult, Job, plan, run_job
from .results import SweepResult, assemble
from .spec import SweepSpec
from .store import BatchStore

__all__ = ["run_sweep"]


def run_sweep(spec: SweepSpec, *, store: str | os.PathLike[str] | None = None,
              workers: int | None = None, scheduler: str | None = None,
              progress: Callable[[int, int], None] | None = None) -> SweepResult:
    """Run *spec* and return its results.

    :param store: the folder of finished batches (resumed from, written to);
        ``None`` keeps nothing.
    :param workers: worker processes of a local Dask cluster (default: every
        core); ``0`` runs in this process without Dask.
    :param scheduler: the address of an existing Dask cluster instead.
    :param progress: called as ``progress(sets_done, sets_total)``, from this
        thread, after the stored batches are read and after each batch.
    """
    batches = plan(spec.utilizations, spec.sets, spec.batch)
    kept = None if store is None else BatchStore(store, spec.digest, len(spec.tests))
    results: list[BatchResult | None] = [None if kept is None else kept.load(b) for b in batches]
    todo = [index for index, result in enumerate(results) if result is None]
    total = len(spec.utilizations) * spec.sets
    finished = sum(b.count for b, r in zip(batches, results) if r is not None)
    if progress is not None:
        progress(finished, total)

    def done(position: int, result: BatchResult) -> None:
        nonlocal finished
        index = todo[position]
        if kept is not None:
            kept.save(batches[index], result)
        results[index] = result
        finished += batches[index].count
        if progress is not None:
            progress(finished, total)

    jobs = [Job(batches[i], spec.seed, spec.tests, spec.generator, spec.exact_states) for i in todo]
    run_tasks(run_job, jobs, done, workers=workers, scheduler=scheduler,
              name=f"akita-sweep-{spec.digest[:16]}")
    complete = [r for r in results if r is not None]
    assert len(complete) == len(batches), "a batch was not run"
    return assemble(spec, batches, complete, reused=len(batches) - len(todo))

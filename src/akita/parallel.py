"""Running independent tasks: in this process, on a local Dask cluster, or on an existing one.

The one place where work goes to a cluster: a sweep's batches
(:mod:`akita.sweep.runner`) and a fleet's sampled hosts
(:mod:`akita.fleet.runner`) both come here, and neither owns it.  The tasks
are independent, so they run on ``dask.distributed``
(https://distributed.dask.org): by default a
:class:`distributed.LocalCluster` of one single-threaded worker *process*
per core (the admission tests and the simulator are pure Python, so threads
would share one interpreter lock), on the loopback interface, without a
dashboard and without the workers' statistical profiler, each worker
ignoring Ctrl-C (:func:`dask_setup`), which the caller handles; with an
address, the existing cluster whose scheduler listens there (every worker
must have ``akita-sched`` installed).  ``workers=0`` runs the tasks one
after the other in this process, without Dask.

Each task is submitted with an explicit key, and its result is handed to
*done* as it arrives, in whatever order the cluster finishes them; the
caller puts it in place by its index, so the output does not depend on that
order.  A worker that dies mid-task loses nothing: the scheduler runs its
tasks again on the others (and its nanny starts a new worker), and a task's
result reaches *done* once.  ``distributed`` is imported here, on first use
only, so that ``import akita`` and the other commands never load it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import threading
import warnings
from typing import Any, Callable, Iterator, Sequence, TypeVar

from akita.model import ModelError, ParameterError

__all__ = ["default_workers", "run_of", "run_tasks", "dask_setup", "LOCAL_CONFIG"]

T = TypeVar("T")
R = TypeVar("R")

#: A scheduler's address: a protocol, a host and a port (``tcp://host:8786``).
_ADDRESS = re.compile(r"(?:tcp|tls|ws|wss|ucx)://[^\s/]+:[0-9]{1,5}")
#: The local cluster's workers run without their statistical profiler, which samples
#: every thread's stack each 10 ms for a dashboard nobody opens (it cost up to a third
#: of a sweep batch's time in one measurement here, within the shared machine's noise
#: in others); an existing cluster keeps its own settings.  They also ignore Ctrl-C,
#: which the caller handles: each preloads this module (:func:`dask_setup`).
LOCAL_CONFIG = {"distributed.worker.profile.enabled": False,
                "distributed.worker.preload": ["akita.parallel"]}


def run_of(items: Sequence[T], part: int, parts: int) -> Sequence[T]:
    """Run *part* of *items* cut, in their order, into *parts* runs of (nearly) equal
    length: the runs together are *items*, each item in exactly one.  How work is dealt
    into parts whose answers are joined in the parts' order (the re-check's certificate
    states, the split search's shift classes)."""
    return items[part * len(items) // parts:(part + 1) * len(items) // parts]


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_tasks(function: Callable[[T], R], items: Sequence[T], done: Callable[[int, R], None], *,
              workers: int | None = None, scheduler: str | None = None,
              name: str = "akita") -> None:
    """``done(index, function(item))`` once for each of *items*, as each finishes.

    *function* must be importable by the workers (a module-level function of
    ``akita``) and pure: its result may be computed twice if a worker dies.

    :param workers: worker processes of a local cluster (default
        :func:`default_workers`); ``0``: in this process, without Dask.
    :param scheduler: the address of an existing cluster's scheduler
        (``tcp://host:8786``); then *workers* is not used.
    :param name: the prefix of the tasks' keys on the cluster.
    :raises ParameterError: naming ``scheduler``, for an address that is not one or
        where no scheduler answers.
    """
    if scheduler is None and workers == 0:
        for index, item in enumerate(items):
            done(index, function(item))
        return
    if not items:
        return
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    with _client(workers, scheduler) as client:
        with warnings.catch_warnings():
            # a task carries its own data (a certificate re-checked in parts: tens of
            # MiB each), by design: Dask's advice to load it "with Dask directly" is
            # not for a command's user to read on every run
            warnings.filterwarnings("ignore", message="Sending large graph",
                                    category=UserWarning)
            futures = client.map(function, list(items),
                                 key=[f"{name}-{i}" for i in range(len(items))], pure=False)
        position = {future.key: index for index, future in enumerate(futures)}
        try:
            for future in as_completed(futures, loop=client.loop):
                done(position[future.key], future.result())
                future.release()
        except KilledWorker as error:
            raise ModelError("cluster", str(error), "workers that stay up: every worker that "
                             "ran this task died") from None


@contextlib.contextmanager
def _client(workers: int | None, scheduler: str | None) -> Iterator[Any]:
    """A ``distributed.Client`` of the existing cluster at *scheduler*, or of a new
    local cluster of *workers* processes, closed on exit."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        if not _ADDRESS.fullmatch(scheduler):
            raise ParameterError("scheduler", scheduler, "the address of a Dask scheduler, "
                                 "such as tcp://host:8786")
        try:
            client = Client(scheduler, timeout="10s", set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise ParameterError("scheduler", scheduler, "the address of a running Dask "
                                 f"scheduler, such as tcp://host:8786 ({error})") from None
        with client:
            yield client
        return
    import dask

    with dask.config.set(LOCAL_CONFIG), \
            LocalCluster(n_workers=workers or default_workers(), threads_per_worker=1,
                         processes=True, host="127.0.0.1", dashboard_address=None,
                         # no dashboard; the scheduler's HTTP routes on a free loopback
                         # port, not 8787, which another cluster may hold (a warning)
                         scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                         silence_logs=logging.CRITICAL) as cluster, \
            Client(cluster, set_as_default=False) as client:
        yield client


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process: the hook ``distributed`` calls in every worker
    that names this module in ``distributed.worker.preload``
    (https://distributed.dask.org/en/stable/plugins.html, "Preload Scripts").

    A Ctrl-C in the terminal sends SIGINT to every process of the foreground
    group: the command and its local cluster's worker processes alike.  The
    command stops, keeps what it stored and shuts its cluster down; a worker
    that handled the signal itself would only die first and print a
    traceback.  So each worker of the local cluster ignores SIGINT from the
    moment it starts, restarted workers too (signals can be set from the main
    thread only).
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)

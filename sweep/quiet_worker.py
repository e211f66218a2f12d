"""A worker preload: the local cluster's workers leave Ctrl-C to the sweep.

A Ctrl-C in the terminal sends SIGINT to every process of the foreground
group: the sweep and its local cluster's worker processes alike.  The
sweep stops, keeps the batches it stored and shuts its cluster down; a
worker that handled the signal itself would only die first and print a
traceback.  So each worker of the local cluster ignores SIGINT, from the
moment it starts -- restarted workers too -- through ``dask_setup``, the
hook ``distributed`` calls in every worker that names this module in
``distributed.worker.preload``
(https://distributed.dask.org/en/stable/plugins.html, "Preload Scripts").
"""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["dask_setup"]


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process (signals can be set from the main thread only)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)

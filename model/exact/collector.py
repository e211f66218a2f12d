"""Python's cyclic garbage collector, paused while an exact computation runs.

The exact search (:func:`.search.explore`) keeps millions of search states, and the
interval re-check (:func:`akita.proofs.exact_certificate.check_intervals`) a million or
so families, alive until it ends; neither makes reference cycles, yet each full
collection walks every live container object for nothing.  Pausing the collector
changes no answer -- it frees only cycles, and reference counting frees the rest as
before -- and saves 7-9% of the search's and 10% of the re-check's CPU time
(decisions 360 and 369, bench/README.md).
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator

__all__ = ["paused"]


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector paused, and restored as it was on every way out (also usable as a
    decorator, ``@paused()``)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

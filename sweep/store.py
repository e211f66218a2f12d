"""Finished batches on disk, so that an interrupted sweep continues where it stopped.

Each finished batch is one small JSON file, written atomically
(:func:`akita.atomic.write_atomic`: a temporary file in the same folder,
flushed and synced, then renamed over the final name), so a file is either whole or
absent, whenever the sweep is stopped.  Only the process that runs the
sweep writes them, as results come back from the cluster, so a task that
the cluster ran twice (a worker lost mid-task, its task run again
elsewhere) is still stored once.

The files live in ``FOLDER/DIGEST/`` where ``DIGEST`` is the first 16 hex
digits of the spec's :attr:`~.spec.SweepSpec.digest` (seed, generator,
tests): a changed spec finds none of another spec's batches.  Each file
repeats the full digest and the batch it holds, and is reused only when
both match and its counts are well formed; any other file is ignored and
overwritten.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from akita.atomic import write_atomic

from .batches import Batch, BatchResult

__all__ = ["BatchStore"]

#: The most bytes of a batch file read back (a well-formed one has a few hundred).
_MAX_BYTES = 1 << 16


class BatchStore:
    """The stored batches of one spec under *folder*.

    :param folder: where the spec's batches are kept (``--out``'s ``NAME-batches``).
    :param digest: the spec's digest.
    :param tests: how many tests a stored result must count.
    """

    def __init__(self, folder: str | os.PathLike[str], digest: str, tests: int) -> None:
        self.folder = Path(folder) / digest[:16]
        self.digest = digest
        self.tests = tests

    def path(self, batch: Batch) -> Path:
        """The file of *batch*."""
        u = batch.utilization
        return self.folder / f"u{u.numerator}-{u.denominator}_s{batch.start}_n{batch.count}.json"

    def load(self, batch: Batch) -> BatchResult | None:
        """The stored result of *batch*, or ``None`` if there is no valid one."""
        try:
            with open(self.path(batch), "rb") as stream:
                data = json.loads(stream.read(_MAX_BYTES))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("batch") != self._key(batch):
            return None
        return BatchResult.from_json(data.get("result"), self.tests)

    def save(self, batch: Batch, result: BatchResult) -> None:
        """Store *result* as the result of *batch*, atomically."""
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"batch": self._key(batch), "result": result.as_json()}) + "\n"
        write_atomic(self.path(batch), text)

    def _key(self, batch: Batch) -> dict[str, object]:
        u = batch.utilization
        return {"digest": self.digest, "utilization": f"{u.numerator}/{u.denominator}",
                "start": batch.start, "count": batch.count}

"""What a disk scheduler in the hypervisor does, and what it is charged for.

A scheduler holds the requests that reached the hypervisor and picks the
next one whenever the drive is free.  The simulation
(:mod:`akita.disk.simulation`) calls :meth:`Scheduler.add` when a request
arrives, :meth:`Scheduler.completed` when the drive finishes one, and
:meth:`Scheduler.dispatch` once all events of an instant are applied and
the drive is idle.  ``dispatch`` answers with a request to start, with an
instant to be asked again (a non-work-conserving scheduler *waiting* for a
request it expects), or with ``None`` (nothing to do until a request
arrives).

Waits are counted per VM: each wait started, and each that ended because
the request waited for came (its *success*).  Pregather's prediction
success ratio, CFQ's idling and the anticipatory scheduler's anticipation
are all this count.

Memory (decision 86): what the scheduler's own structures hold, counted as
:data:`REQUEST_BYTES` for each queued request it indexes (its start
sector, length, arrival and owner, 8 bytes each; an index holding the same
request twice counts twice) and :data:`WORD_BYTES` for each further integer
it keeps (a counter, an instant, a statistic, a zone's density).  The
simulation samples it and reports the peak.
"""

from __future__ import annotations

from typing import Sequence

from ..drive import Drive
from ..request import Request
from ..vdisk import VirtualDisk

__all__ = ["Scheduler", "REQUEST_BYTES", "WORD_BYTES", "Answer"]

#: One queued request in one index: start sector, length, arrival, owner.
REQUEST_BYTES = 32
#: One integer of state.
WORD_BYTES = 8

#: What :meth:`Scheduler.dispatch` answers.
Answer = Request | int | None


class Scheduler:
    """The interface, and the per-VM wait counts every scheduler keeps."""

    name = ""

    def __init__(self, drive: Drive, images: Sequence[VirtualDisk]) -> None:
        self.drive = drive
        self.images = tuple(images)
        self.vms = len(self.images)
        #: per VM: ``[waits started, waits that got the request waited for]``.
        self.waits = [[0, 0] for _ in range(self.vms)]

    def add(self, request: Request, now: int) -> None:
        """*request* arrived at *now*."""
        raise NotImplementedError

    def dispatch(self, now: int, head: int) -> Answer:
        """The request to start at *now* with the head at sector *head*, an instant to be
        asked again, or ``None``."""
        raise NotImplementedError

    def completed(self, request: Request, now: int) -> None:
        """The drive finished *request* at *now*."""

    def memory_bytes(self) -> int:
        """The bytes its structures hold now (module docstring)."""
        raise NotImplementedError

    def wait_started(self, vm: int) -> None:
        self.waits[vm][0] += 1

    def wait_succeeded(self, vm: int) -> None:
        self.waits[vm][1] += 1

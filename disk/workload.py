"""Guest workloads shaped like sysbench's file I/O test.

``sysbench fileio`` runs one of ``seqrd``, ``seqwr``, ``rndrd``, ``rndwr``
over prepared files, 16 KB per request by default
(``--file-block-size=16384``), each thread waiting for its request before
the next (synchronous I/O).  Here a guest process is one such thread on
its own file, a sub-range of its VM's image: a sequential process reads
or writes its file from ``start`` on, ``stride`` sectors apart, wrapping
at the file's end; a random one picks a request-aligned offset uniformly
in its file, from its own generator.  Between the completion of one
request and the issue of the next a process *thinks* for ``think_ns`` --
CPU work in the guest and the trip through the hypervisor's split driver
(decision 85).  A VM may run several processes: the source's *mixed
applications* (a sequential reader beside a random writer).

Requests in flight (decision 300).  ``depth`` bounds how many of a
process's requests are outstanding at once and ``batch`` how many it
issues before it thinks again.  ``depth = batch = 1`` is sysbench's
synchronous thread.  A guest's read-ahead on a sequential reader is
``depth > 1, batch = 1``: several windows in flight, each refilled a think
after it completes.  Buffered writes flushed by an ``fsync`` are
``batch > 1``: a burst of requests, at most ``depth`` outstanding, the next
burst a think after the whole burst completed.

Think times (decision 301).  ``think_draw = "fixed"`` thinks exactly
``think_ns``; ``"exponential"`` draws each think from the exponential
distribution of mean ``think_ns`` (:func:`exponential_ns`), from a
generator of the process's own, so that the offsets a random process
draws do not move when its thinks are drawn.
"""

from __future__ import annotations

import random
from typing import Callable

import attrs

from akita.model import ModelError

from .vdisk import IMAGE_SECTORS

__all__ = ["PATTERNS", "THINKS", "ProcessSpec", "VMSpec", "Stream", "exponential_ns"]

#: sysbench's file test modes this models: name -> (sequential, writes).
PATTERNS = {"seqrd": (True, False), "seqwr": (True, True),
            "rndrd": (False, False), "rndwr": (False, True)}

#: How a process's think times are drawn (decision 301).
THINKS = ("fixed", "exponential")

#: sysbench's default request: 16 KB.
REQUEST_SECTORS = 32
#: sysbench's default total file size, 2 GB (one file per process here).
FILE_SECTORS = 2 * 2**30 // 512


def _pattern(instance: object, attribute: "attrs.Attribute[str]", value: str) -> None:
    if value not in PATTERNS:
        raise ModelError("pattern", value, f"one of {', '.join(PATTERNS)}")


def _think(instance: object, attribute: "attrs.Attribute[str]", value: str) -> None:
    if value not in THINKS:
        raise ModelError("think_draw", value, f"one of {', '.join(THINKS)}")


def _at_least(low: int) -> Callable[[object, "attrs.Attribute[int]", int], None]:
    def check(instance: object, attribute: "attrs.Attribute[int]", value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise ModelError(attribute.name, value, f"an integer of at least {low}")
    return check


@attrs.frozen
class ProcessSpec:
    """One guest process: its pattern, file and pace.

    :param file: which of its VM's files it uses (processes may share one);
        ``None``: a file of its own.
    :param start: where in the file a sequential process begins (sectors).
    :param stride: how far a sequential process advances per request;
        ``None``: its request size.
    :param depth: at most this many of its requests outstanding at once.
    :param batch: requests it issues before it thinks again (module docstring).
    :param think_draw: ``"fixed"`` or ``"exponential"`` think times of mean ``think_ns``.
    """

    name: str
    pattern: str = attrs.field(validator=_pattern)
    think_ns: int = attrs.field(default=100_000, validator=_at_least(0))
    request_sectors: int = attrs.field(default=REQUEST_SECTORS, validator=_at_least(1))
    file_sectors: int = attrs.field(default=FILE_SECTORS, validator=_at_least(1))
    file: int | None = None
    start: int = attrs.field(default=0, validator=_at_least(0))
    stride: int | None = None
    depth: int = attrs.field(default=1, validator=_at_least(1))
    batch: int = attrs.field(default=1, validator=_at_least(1))
    think_draw: str = attrs.field(default="fixed", validator=_think)

    @property
    def sequential(self) -> bool:
        return PATTERNS[self.pattern][0]

    @property
    def writes(self) -> bool:
        return PATTERNS[self.pattern][1]


@attrs.frozen
class VMSpec:
    """A VM: its image size and its processes."""

    name: str
    processes: tuple[ProcessSpec, ...]
    image_sectors: int = IMAGE_SECTORS

    def files(self) -> list[int]:
        """The file index of each process."""
        own = iter(range(len(self.processes)))
        return [p.file if p.file is not None else next(own) for p in self.processes]


class Stream:
    """The offsets, within its file, of one process's successive requests."""

    __slots__ = ("spec", "rng", "position")

    def __init__(self, spec: ProcessSpec, rng: random.Random) -> None:
        if spec.request_sectors > spec.file_sectors:
            raise ModelError("request_sectors", spec.request_sectors,
                             f"at most the file's {spec.file_sectors} sectors")
        self.spec = spec
        self.rng = rng
        self.position = spec.start % spec.file_sectors

    def next_offset(self) -> int:
        """The file offset of the next request."""
        spec = self.spec
        if not spec.sequential:
            return self.rng.randrange(spec.file_sectors // spec.request_sectors) \
                * spec.request_sectors
        offset = self.position
        if offset + spec.request_sectors > spec.file_sectors:
            offset = 0
        self.position = offset + (spec.stride or spec.request_sectors)
        return offset


#: Bits of one uniform draw of :func:`exponential_ns`.
_BITS = 32


def exponential_ns(rng: random.Random, mean_ns: int) -> int:
    """A draw of the exponential distribution of mean *mean_ns*, in whole nanoseconds.

    Von Neumann's method ("Various techniques used in connection with random
    digits", 1951; Knuth, TAOCP vol. 2, 3.4.1): draw uniforms ``u0 > u1 > ...``
    while they descend; a run of odd length accepts ``K + u0``, an even one
    adds 1 to ``K`` and starts again.  It compares integers only (uniforms of
    32 bits), so a seed gives the same draws on every machine; no logarithm
    of a float enters.
    """
    whole = 0
    while True:
        first = previous = rng.getrandbits(_BITS)
        run = 1
        while True:
            draw = rng.getrandbits(_BITS)
            if draw >= previous:
                break
            previous, run = draw, run + 1
        if run % 2:
            return mean_ns * ((whole << _BITS) + first) >> _BITS
        whole += 1

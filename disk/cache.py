"""The drive's cache: segments that the drive fills by reading ahead of each read.

Drive manuals of the source's era describe it the same way (Fujitsu's
MPG3xxxAH and MHC2040AT product manuals, section 6.5 "Read-ahead cache";
Seagate's product manuals, "Prefetch operation"): after a read command
has read its data from the medium, the drive goes on reading the following
blocks into the buffer; a later read that asks for blocks the buffer holds
is sent from the buffer at the interface's rate, without touching the
medium; a write clears the segments holding any block it writes.  The
buffer is cut into *segments*, one per stream being read ahead, reused
least recently used first.

Here (decision 302): the buffer is the WD Caviar Black WD1001FALS's 32 MB
(WD's specification sheet), in :data:`SEGMENTS` segments; a read that
misses fills a segment with its own blocks and then reads ahead at the
medium's sustained rate until the next command that needs the medium, or
until the segment is full; a read entirely inside a segment's blocks is a
*hit*: it costs its transfer at the interface's rate (SATA 3 Gb/s,
300 MB/s after 8b/10b coding) and no seek or rotation, and the reading
ahead goes on under it (the head is not needed to send from the buffer).  A
read that begins inside the segment being filled and reaches past what it
holds continues from there: the head is already at its next block, so it
costs only the rest of its transfer from the medium (the manuals' *partial
hit*).  Any other read, and every write, is served by the medium
(:meth:`~.drive.Drive.service_ns`) from where the head stopped reading
ahead.  Write caching is not modelled: a write costs its mechanical time.
"""

from __future__ import annotations

import attrs

from akita.model import ModelError

from .drive import SECTOR_BYTES, Drive

__all__ = ["DriveCache", "CacheSpec", "WD1001FALS_CACHE", "SEGMENTS", "NO_CACHE"]

#: Segments the 32 MB buffer is cut into (decision 302: the sheet does not say).
SEGMENTS = 16


@attrs.frozen
class CacheSpec:
    """The buffer's size, its segments, and the interface's rate."""

    bytes: int
    segments: int
    interface_bytes_per_s: int

    def __attrs_post_init__(self) -> None:
        for name in ("bytes", "segments", "interface_bytes_per_s"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ModelError(f"cache.{name}", value, "a non-negative integer")
        if self.segments and self.bytes // self.segments < SECTOR_BYTES:
            raise ModelError("cache.segments", self.segments, "segments of one sector or more")
        if self.segments and not self.interface_bytes_per_s:
            raise ModelError("cache.interface_bytes_per_s", 0, "a positive rate")

    @property
    def segment_sectors(self) -> int:
        return self.bytes // self.segments // SECTOR_BYTES if self.segments else 0


#: WD1001FALS: a 32 MB buffer (WD's sheet), SATA 3 Gb/s (300 MB/s of data).
WD1001FALS_CACHE = CacheSpec(bytes=32 * 2**20, segments=SEGMENTS,
                             interface_bytes_per_s=300_000_000)
#: No cache: every request is served by the medium (the model before decision 302).
NO_CACHE = CacheSpec(bytes=0, segments=0, interface_bytes_per_s=0)


class _Segment:
    __slots__ = ("start", "end", "limit", "since")

    def __init__(self, start: int, end: int, limit: int) -> None:
        self.start, self.end, self.limit = start, end, limit
        self.since = -1  # when reading ahead began; -1: not reading ahead


class DriveCache:
    """The drive's segments, the head's position, and the service time of each request."""

    def __init__(self, drive: Drive, spec: CacheSpec) -> None:
        self.drive, self.spec = drive, spec
        self.segments: list[_Segment] = []   # least recently used first
        self.head = 0                        # the sector after the last one read or written
        self.hits = 0
        self.partial = 0

    def _settle(self, now: int) -> _Segment | None:
        """Stop the read-ahead at *now*; the segment it was filling, if any."""
        for segment in self.segments:
            if segment.since >= 0:
                read = (now - segment.since) * self.drive.bytes_per_s // (SECTOR_BYTES * 10**9)
                segment.end = min(segment.limit, segment.end + read)
                segment.since = -1
                self.head = segment.end
                return segment
        return None

    def _filling(self, now: int) -> tuple[_Segment, int] | None:
        for segment in self.segments:
            if segment.since >= 0:
                read = (now - segment.since) * self.drive.bytes_per_s // (SECTOR_BYTES * 10**9)
                return segment, min(segment.limit, segment.end + read)
        return None

    def serve(self, lba: int, sectors: int, write: bool, now: int) -> tuple[int, int, int]:
        """``(seek, rotation, transfer)`` of a request started at *now*; the cache and the
        head move as it is served (the module says how)."""
        end = lba + sectors
        if not self.spec.segments:
            answer = self.drive.service_ns(self.head, lba, sectors, now)
            self.head = end
            return answer
        if not write:
            hit = self._hit(lba, end, now)
            if hit is not None:
                return hit
        filling = self._settle(now)
        if write:
            self.segments = [s for s in self.segments if s.end <= lba or s.start >= end]
        elif filling is not None and filling.start <= lba < filling.end:
            self.partial += 1
            self._touch(filling)
            rest = end - filling.end
            filling.end = max(filling.end, end)
            self.head = filling.end
            self._read_ahead(filling, now + self.drive.transfer_ns(rest))
            return 0, 0, self.drive.transfer_ns(rest)
        seek, rotation, transfer = self.drive.service_ns(self.head, lba, sectors, now)
        self.head = end
        if not write:
            segment = self._allocate(lba, end)
            self._read_ahead(segment, now + seek + rotation + transfer)
        return seek, rotation, transfer

    def _hit(self, lba: int, end: int, now: int) -> tuple[int, int, int] | None:
        filling = self._filling(now)
        for segment in self.segments:
            held = filling[1] if filling is not None and filling[0] is segment else segment.end
            if segment.start <= lba and end <= held:
                self.hits += 1
                self._touch(segment)
                return 0, 0, (end - lba) * SECTOR_BYTES * 10**9 // self.spec.interface_bytes_per_s
        return None

    def _touch(self, segment: _Segment) -> None:
        self.segments.remove(segment)
        self.segments.append(segment)

    def _allocate(self, lba: int, end: int) -> _Segment:
        self.segments = [s for s in self.segments if s.end <= lba or s.start >= end]
        if len(self.segments) >= self.spec.segments:
            del self.segments[0]
        segment = _Segment(lba, end, max(end, lba + self.spec.segment_sectors))
        self.segments.append(segment)
        return segment

    def _read_ahead(self, segment: _Segment, at: int) -> None:
        """*segment* reads ahead from instant *at* (its request's completion)."""
        if segment.end < segment.limit:
            segment.since = at

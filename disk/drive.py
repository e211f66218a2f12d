"""The drive: seek time as a function of distance, rotation, transfer.

The curve is Ruemmler and Wilkes's two-regime model ("An introduction to
disk drive modeling", IEEE Computer 27(3), 1994): a short seek is
dominated by the arm's acceleration and takes ``a + b * sqrt(d)`` for a
distance of ``d`` cylinders; a long seek coasts at top speed and grows
linearly, ``c + e * d``.  The constants are fixed by three published points
of a real drive, so that the curve passes through each exactly:

* ``t(1)`` is the track-to-track seek;
* ``t(C // 3)`` is the average seek (a third of the stroke is the mean
  distance between two uniformly random cylinders, the distance
  Ruemmler and Wilkes anchor the average at);
* ``t(C - 1)`` is the full-stroke seek;

square root from 1 to ``C // 3``, linear from there to ``C - 1``.

The drive, :data:`WD_CAVIAR_BLACK_1TB`, is the 1 TB SATA disk of the
Pregather testbed's class: Western Digital Caviar Black WD1001FALS, from
WD's product specification sheet: 7,200 RPM; average read seek 8.9 ms;
track-to-track 0.6 ms; full stroke 21.0 ms; average latency 4.2 ms (half
a revolution); sustained host-to/from-drive rate 106 MB/s; 1,953,525,168
sectors of 512 bytes (1,000,204,886,016 bytes).  The sheet gives neither
the number of surfaces nor the cylinders: the drive has four surfaces
(decision 81), and a track holds the sectors one revolution transfers at
the sustained rate.

Rotation: the platter turns at a constant rate from time 0; a sector's
angle is its index within its track.  A request waits, after its seek,
until its first sector comes under the head.  A request that starts at
the sector after the previous one's last has neither seek nor rotational
latency: the drive's cache was reading ahead (or writing back) along the
track (decision 82).  Transfer is at the sustained rate over the whole
disk: zones of different density are not modelled.

All times are integer nanoseconds; the square root is :func:`math.isqrt`.
"""

from __future__ import annotations

import math

import attrs

from akita.model import ModelError

__all__ = ["Drive", "WD_CAVIAR_BLACK_1TB", "SECTOR_BYTES"]

#: Bytes per logical block (sector).
SECTOR_BYTES = 512
#: Fixed-point scale of the square roots (three decimal digits of sqrt(d)).
_ROOT = 1_000_000


def _positive(instance: object, attribute: "attrs.Attribute[int]", value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ModelError(f"drive.{attribute.name}", value, "a positive integer")


@attrs.frozen
class Drive:
    """A disk drive's published figures, and the service times they give.

    :param name: the model, as its sheet names it.
    :param sectors: capacity in 512-byte sectors.
    :param rpm: spindle speed.
    :param track_to_track_ns: the sheet's track-to-track seek.
    :param average_seek_ns: the sheet's average (read) seek.
    :param full_stroke_ns: the sheet's full-stroke seek.
    :param bytes_per_s: the sheet's sustained transfer rate.
    :param surfaces: recording surfaces (heads), which the sheet omits.
    """

    name: str
    sectors: int = attrs.field(validator=_positive)
    rpm: int = attrs.field(validator=_positive)
    track_to_track_ns: int = attrs.field(validator=_positive)
    average_seek_ns: int = attrs.field(validator=_positive)
    full_stroke_ns: int = attrs.field(validator=_positive)
    bytes_per_s: int = attrs.field(validator=_positive)
    surfaces: int = attrs.field(validator=_positive)

    def __attrs_post_init__(self) -> None:
        if not self.track_to_track_ns < self.average_seek_ns < self.full_stroke_ns:
            raise ModelError("drive.average_seek_ns", self.average_seek_ns,
                             "track_to_track_ns < average_seek_ns < full_stroke_ns")
        if self.cylinders < 4:
            raise ModelError("drive.sectors", self.sectors,
                             "room for at least 4 cylinders at this rate and rpm")

    @property
    def revolution_ns(self) -> int:
        """One turn of the platter."""
        return 60_000_000_000 // self.rpm

    @property
    def sectors_per_track(self) -> int:
        """Sectors one revolution transfers at the sustained rate."""
        return max(1, self.bytes_per_s * self.revolution_ns // (SECTOR_BYTES * 10**9))

    @property
    def cylinders(self) -> int:
        return self.sectors // (self.sectors_per_track * self.surfaces)

    def cylinder(self, lba: int) -> int:
        """The cylinder holding sector *lba*."""
        return lba // (self.sectors_per_track * self.surfaces)

    def seek_ns(self, distance: int) -> int:
        """The seek over *distance* cylinders (two regimes, see the module)."""
        if distance <= 0:
            return 0
        third = self.cylinders // 3
        if distance <= third:
            span = math.isqrt(third * _ROOT) - math.isqrt(_ROOT)
            rise = self.average_seek_ns - self.track_to_track_ns
            return self.track_to_track_ns + rise * (math.isqrt(distance * _ROOT)
                                                    - math.isqrt(_ROOT)) // span
        last = self.cylinders - 1
        distance = min(distance, last)
        return self.average_seek_ns + (self.full_stroke_ns - self.average_seek_ns) * (
            distance - third) // (last - third)

    def seek_between_ns(self, a: int, b: int) -> int:
        """The seek from sector *a* to sector *b*."""
        return self.seek_ns(abs(self.cylinder(a) - self.cylinder(b)))

    def rotation_ns(self, lba: int, at: int) -> int:
        """The wait, from instant *at*, until sector *lba* comes under the head."""
        track = self.sectors_per_track
        head = (at % self.revolution_ns) * track // self.revolution_ns
        return (lba % track - head) % track * self.revolution_ns // track

    def transfer_ns(self, sectors: int) -> int:
        """Moving *sectors* sectors at the sustained rate."""
        return sectors * SECTOR_BYTES * 10**9 // self.bytes_per_s

    def service_ns(self, head: int, lba: int, sectors: int, at: int) -> tuple[int, int, int]:
        """``(seek, rotation, transfer)`` of a request for *sectors* at *lba* started at
        instant *at* with the head after sector *head - 1* (the previous request's end)."""
        if lba == head:
            return 0, 0, self.transfer_ns(sectors)
        seek = self.seek_between_ns(head, lba)
        return seek, self.rotation_ns(lba, at + seek), self.transfer_ns(sectors)


#: WD Caviar Black WD1001FALS (WD's product specification sheet; the module says which
#: figures and decision 81 the surfaces).
WD_CAVIAR_BLACK_1TB = Drive(
    name="WD Caviar Black WD1001FALS (1 TB, SATA)", sectors=1_953_525_168, rpm=7200,
    track_to_track_ns=600_000, average_seek_ns=8_900_000, full_stroke_ns=21_000_000,
    bytes_per_s=106_000_000, surfaces=4)

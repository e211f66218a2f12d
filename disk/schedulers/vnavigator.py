"""vNavigator: Pregather's model of where in a VM's image the next requests will fall.

Ling, Ibrahim, Jin, Wu and Tao, "Exploiting spatial locality to improve
disk efficiency in virtualized environments" (the source's slides, and its
journal version "Spatial locality aware disk scheduling in virtualized
environment", IEEE TPDS 2015).  The image is cut into *zones* of 2,000
sectors.  Each request a VM issues adds to its zone's *temporal access
density*; a request's contribution halves with each *prediction window*
(20 ms) that has passed since it arrived, so the density weighs recent
history most.  A zone is *dense* when its density is at least the VM's
*temporal access-density threshold*: ``alpha`` times the density the VM's
requests would give each zone were they spread evenly over its image
(``alpha = 2``, the slides' unnamed parameter 2; decision 87).  Adjacent
dense zones cluster into a *sub-region unit* ``U``: its range ``SR(U)`` is
where a next request is expected.  Its *future access interval*
``ST(U)`` is the mean of its zones' access intervals, each the time from a
completion in or beside the zone to the next request arriving there (a
decaying mean, weight 7/8 on the past): the predicted wait, from a
completion, for the unit's next request.  The interval is counted from the
completion because the guests' I/O is synchronous: a request's successor
is issued only once it completes, so an interval between arrivals would
measure the scheduler's own queueing (decision 87).

Densities are fixed point (``SCALE``); a zone whose requests have all
halved away (``HORIZON`` windows) is forgotten, so the model's memory
follows the VM's recent footprint, not its image.  The slides give the
quantities, not their formulas (the symbols were lost with the figures):
the exact forms here are decision 87.
"""

from __future__ import annotations

from ..vdisk import VirtualDisk

__all__ = ["VNavigator", "ZONE_SECTORS", "WINDOW_NS", "ALPHA"]

#: The source's zone: 2,000 blocks (sectors).
ZONE_SECTORS = 2000
#: The source's prediction window: 20 ms.
WINDOW_NS = 20_000_000
#: The slides' threshold parameter.
ALPHA = 2
#: One undecayed request's contribution to a density.
SCALE = 1 << 16
#: Windows after which a request's contribution has halved to nothing.
HORIZON = 17
#: Zones a unit reaches on each side of the zone it grows from.
MAX_REACH = 8


class _Zone:
    __slots__ = ("density", "window", "done", "interval")

    def __init__(self, window: int) -> None:
        self.density = 0
        self.window = window
        self.done = -1       # the last completion in it not yet followed by an arrival
        self.interval = -1   # decaying mean access interval; -1: none observed


class VNavigator:
    """The zone densities and access intervals of one VM's image."""

    def __init__(self, image: VirtualDisk, zone_sectors: int = ZONE_SECTORS,
                 window_ns: int = WINDOW_NS, alpha: int = ALPHA) -> None:
        self.image = image
        self.zone_sectors = zone_sectors
        self.window_ns = window_ns
        self.alpha = alpha
        self.zones: dict[int, _Zone] = {}
        self.total = 0
        self.total_window = 0
        self.pruned_window = 0

    def zone_of(self, lba: int) -> int:
        return (lba - self.image.start) // self.zone_sectors

    def _decayed(self, value: int, since: int, now_window: int) -> int:
        age = now_window - since
        return value >> age if age < HORIZON else 0

    def record(self, lba: int, now: int) -> None:
        """A request of this VM for sector *lba* arrived at *now*."""
        window = now // self.window_ns
        self._prune(window)
        index = self.zone_of(lba)
        zone = self.zones.get(index)
        if zone is None:
            zone = self.zones[index] = _Zone(window)
        zone.density = self._decayed(zone.density, zone.window, window) + SCALE
        zone.window = window
        done = max((self.zones[i] for i in (index - 1, index, index + 1) if i in self.zones),
                   key=lambda z: z.done)
        if done.done >= 0:
            sample = now - done.done
            zone.interval = sample if zone.interval < 0 else (7 * zone.interval + sample) // 8
            done.done = -1
        self.total = self._decayed(self.total, self.total_window, window) + SCALE
        self.total_window = window

    def completed(self, lba: int, now: int) -> None:
        """A request of this VM for sector *lba* completed at *now*."""
        zone = self.zones.get(self.zone_of(lba))
        if zone is not None:
            zone.done = now

    def _prune(self, window: int) -> None:
        if window == self.pruned_window:
            return
        self.pruned_window = window
        stale = [i for i, z in self.zones.items() if window - z.window >= HORIZON]
        for index in stale:
            del self.zones[index]

    def density(self, index: int, now: int) -> int:
        """The temporal access density of zone *index* at *now* (fixed point)."""
        zone = self.zones.get(index)
        return 0 if zone is None else self._decayed(zone.density, zone.window,
                                                     now // self.window_ns)

    def threshold(self, now: int) -> int:
        """The VM's temporal access-density threshold at *now*."""
        zones = -(-self.image.sectors // self.zone_sectors)
        total = self._decayed(self.total, self.total_window, now // self.window_ns)
        return self.alpha * total // zones

    def dense(self, index: int, now: int) -> bool:
        value = self.density(index, now)
        return value > 0 and value >= self.threshold(now)

    def unit(self, lba: int, now: int) -> tuple[int, int] | None:
        """``SR(U)`` of the unit holding sector *lba*, as ``(first, after last)`` zone
        indices, or ``None`` when its zone is not dense."""
        index = self.zone_of(lba)
        if not self.dense(index, now):
            return None
        low = high = index
        while low > index - MAX_REACH and self.dense(low - 1, now):
            low -= 1
        while high < index + MAX_REACH and self.dense(high + 1, now):
            high += 1
        return low, high + 1

    def in_unit(self, unit: tuple[int, int], lba: int) -> bool:
        return unit[0] <= self.zone_of(lba) < unit[1]

    def predicted_wait(self, unit: tuple[int, int]) -> int | None:
        """``ST(U)``: how long after a completion in the unit its next request is expected
        (the mean of its zones' access intervals), or ``None`` with none observed yet."""
        intervals = [self.zones[i].interval for i in range(*unit)
                     if i in self.zones and self.zones[i].interval >= 0]
        return sum(intervals) // len(intervals) if intervals else None

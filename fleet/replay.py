"""One placement of a fleet, replayed event by event over the horizon.

The events are the VMs' arrivals and the admitted VMs' departures, taken
in time order; at one instant the departures come first (a VM that leaves
at ``t`` frees its pCPUs for a VM that arrives at ``t``), then the arrival
(at most one per tick, :mod:`.arrivals`).  A departure at or after the
horizon is not replayed: the run ends there.  After each instant the
counts are recorded if they changed -- pCPUs in use, hosts in use, VMs
resident, rejections so far -- so the series is exact, a step function
from 0 to the horizon.

For each host the replay also keeps its **peak**: the first instant its
LO-mode utilisation ``sum C_opt/T`` was largest, and the VMs it then held
with the pCPU of each vCPU.  That is the instant a sampled host is
simulated at (:mod:`.sample`): the most its guarantees were asked to carry.
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Callable, Sequence

import attrs

from akita.model import VM

from .arrivals import Arrival
from .placement import placer
from .spec import FleetSpec

__all__ = ["Point", "Peak", "Replay", "replay"]


@attrs.frozen
class Point:
    """The fleet from *time* (ns) until the next point."""

    time: int
    pcpus: int
    hosts: int
    vms: int
    rejected: int


@attrs.frozen
class Peak:
    """Host *host* at the first instant *time* its LO-mode utilisation *load* was largest."""

    host: int
    time: int
    load: Fraction
    vms: tuple[tuple[VM, tuple[int, ...]], ...]


@attrs.frozen
class Replay:
    """What one placement did over the horizon.

    :param placement: its name.
    :param offered: VMs that arrived; ``admitted + rejected == offered``.
    :param rejected_hi: the rejected VMs that were HI.
    :param departed: admitted VMs that left before the horizon.
    :param series: the step function, from time 0.
    :param peaks: per host ever used, its peak, by host index.
    """

    placement: str
    offered: int
    admitted: int
    rejected: int
    rejected_hi: int
    departed: int
    series: tuple[Point, ...]
    peaks: tuple[Peak, ...]
    horizon: int

    @property
    def peak_pcpus(self) -> int:
        """The most pCPUs in use at once."""
        return max(p.pcpus for p in self.series)

    @property
    def peak_hosts(self) -> int:
        """The most hosts in use at once."""
        return max(p.hosts for p in self.series)

    def mean(self, field: str) -> Fraction:
        """The time average of *field* (``"pcpus"``, ``"hosts"``, ``"vms"``) over the horizon."""
        total = 0
        ends = [p.time for p in self.series[1:]] + [self.horizon]
        for point, end in zip(self.series, ends):
            total += getattr(point, field) * (end - point.time)
        return Fraction(total, self.horizon)


def replay(spec: FleetSpec, placement: str, vms: Sequence[Arrival],
           progress: Callable[[int], None] | None = None) -> Replay:
    """Replay the arrivals *vms* (in arrival order) under *placement*.

    :param progress: called with the number of arrivals replayed, now and then.
    """
    fleet = placer(placement, spec.hosts, spec.pcpus, spec.test)
    leaving: list[tuple[int, int, str]] = []  # (departure, index, name)
    series = [Point(0, 0, 0, 0, 0)]
    best: dict[int, Peak] = {}
    rejected = rejected_hi = departed = 0

    def record(time: int) -> None:
        point = Point(time, fleet.busy_pcpus, fleet.busy_hosts, resident(), rejected)
        last = series[-1]
        if (point.pcpus, point.hosts, point.vms, point.rejected) == \
                (last.pcpus, last.hosts, last.vms, last.rejected):
            return
        if last.time == time:
            series[-1] = point
        else:
            series.append(point)

    def resident() -> int:
        return len(leaving)

    def depart(until: int, inclusive: bool) -> None:
        nonlocal departed
        while leaving and (leaving[0][0] < until or inclusive and leaving[0][0] == until):
            time = leaving[0][0]
            while leaving and leaving[0][0] == time:
                _, _, name = heapq.heappop(leaving)
                fleet.remove(name)
                departed += 1
            if time < until:
                record(time)

    for done, arrival in enumerate(vms):
        depart(arrival.time, inclusive=True)
        answer = fleet.offer(arrival.vm)
        if answer is None:
            rejected += 1
            rejected_hi += arrival.vm.is_hi
        else:
            host = answer[0]
            heapq.heappush(leaving, (arrival.departure, arrival.index, arrival.vm.name))
            load = fleet.load(host)
            if host not in best or load > best[host].load:
                best[host] = Peak(host, arrival.time, load, fleet.resident(host))
        record(arrival.time)
        if progress is not None and done % 256 == 255:
            progress(done + 1)
    depart(spec.horizon, inclusive=False)
    if progress is not None:
        progress(len(vms))
    return Replay(placement=placement, offered=len(vms), admitted=len(vms) - rejected,
                  rejected=rejected, rejected_hi=rejected_hi, departed=departed,
                  series=tuple(series), peaks=tuple(best[h] for h in sorted(best)),
                  horizon=spec.horizon)

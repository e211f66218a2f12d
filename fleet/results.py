"""A fleet's results: per placement, the counts over time and the sampled hosts.

:meth:`FleetResult.as_json` is the document ``akita fleet --json`` prints
and writes; :meth:`FleetResult.csv` the time series, one row per point of
each placement's step function.  Means are time averages over the horizon,
computed exactly and written with four decimals (:func:`.sample.decimal`); the
simulated shares are ratios of integer nanoseconds written the same way.
No float is formatted, so the files are the same bytes on every platform.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import attrs

from .replay import Replay
from .sample import SampleResult, decimal
from .spec import FleetSpec

__all__ = ["PlacementResult", "FleetResult", "CSV_HEADER"]

#: The columns of :meth:`FleetResult.csv`.
CSV_HEADER = ("placement", "time_ns", "pcpus_in_use", "hosts_in_use", "vms", "rejected")


@attrs.frozen
class PlacementResult:
    """One placement: its replay and its sampled hosts (in host order)."""

    replay: Replay
    samples: tuple[SampleResult, ...]

    @property
    def name(self) -> str:
        """The placement's name."""
        return self.replay.placement

    def summary(self) -> dict[str, Any]:
        """The counts, the peaks and the means, and what the sampled hosts measured."""
        r = self.replay
        misses = sum(s.hi_misses for s in self.samples)
        lo_cpu = sum(s.lo_cpu_ns for s in self.samples)
        lo_entitled = sum(s.lo_entitled_ns for s in self.samples)
        p99 = [s.hi_p99_ns for s in self.samples if s.hi_p99_ns is not None]
        p999 = [s.hi_p999_ns for s in self.samples if s.hi_p999_ns is not None]
        return {"offered": r.offered, "admitted": r.admitted, "rejected": r.rejected,
                "rejected_hi": r.rejected_hi, "departed": r.departed,
                "peak_pcpus": r.peak_pcpus, "mean_pcpus": decimal(r.mean("pcpus")),
                "peak_hosts": r.peak_hosts, "mean_hosts": decimal(r.mean("hosts")),
                "mean_vms": decimal(r.mean("vms")), "hosts_used": len(r.peaks),
                "sampled": {"hosts": [s.host for s in self.samples], "hi_misses": misses,
                            "lo_share": decimal(Fraction(lo_cpu, lo_entitled))
                            if lo_entitled else None,
                            "hi_p99_ns": max(p99) if p99 else None,
                            "hi_p999_ns": max(p999) if p999 else None}}


@attrs.frozen
class FleetResult:
    """The fleet *spec* under each of its placements, in the spec's order."""

    spec: FleetSpec
    placements: tuple[PlacementResult, ...]

    def of(self, name: str) -> PlacementResult:
        """The result of the placement *name*."""
        for result in self.placements:
            if result.name == name:
                return result
        raise KeyError(name)

    def as_json(self) -> dict[str, Any]:
        """The spec, and per placement its summary and its sampled hosts."""
        return {"spec": self.spec.as_json(),
                "placements": {p.name: p.summary() | {"samples": [s.as_json() for s in p.samples]}
                               for p in self.placements}}

    def csv(self) -> str:
        """The series of every placement, one row per point (:data:`CSV_HEADER`)."""
        lines = [",".join(CSV_HEADER)]
        for result in self.placements:
            for p in result.replay.series:
                lines.append(f"{result.name},{p.time},{p.pcpus},{p.hosts},{p.vms},{p.rejected}")
        return "\n".join(lines) + "\n"

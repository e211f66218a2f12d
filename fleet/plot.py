"""Cores in use over time, one curve per placement.

One step curve per placement: the pCPUs in use (holding at least one
vCPU) over the horizon, in hours, from the exact series of
:class:`~.replay.Replay`; the hosts in use on a second panel below.  The
curves are told apart by line style as well as colour
(:data:`akita.plotting.STYLES`), and the files come out byte
for byte the same from the same results
(:func:`akita.plotting.save`).  matplotlib is imported on the
first call only.
"""

from __future__ import annotations

from pathlib import Path

from .results import FleetResult

__all__ = ["plot_fleet"]

_HOUR = 3600 * 10**9


def plot_fleet(result: FleetResult, folder: Path, name: str, title: str | None = None) -> list[str]:
    """Draw *result* as ``name.svg`` and ``name.png`` in *folder*; return the file names."""
    from akita.plotting import STYLES, pyplot, save

    spec = result.spec
    fig, (cores, hosts) = pyplot().subplots(2, 1, figsize=(6.4, 4.8), sharex=True,
                                            height_ratios=(2, 1), layout="constrained")
    end = spec.horizon / _HOUR
    for index, placement in enumerate(result.placements):
        _, line = STYLES[index % len(STYLES)]
        series = placement.replay.series
        xs = [p.time / _HOUR for p in series] + [end]
        summary = placement.summary()
        for ax, field, label in ((cores, "pcpus", f"{placement.name}: peak "
                                  f"{summary['peak_pcpus']}, mean {summary['mean_pcpus']}"),
                                 (hosts, "hosts", placement.name)):
            ys = [getattr(p, field) for p in series]
            ax.step(xs, ys + ys[-1:], where="post", linestyle=line, linewidth=1.1, label=label)
    total = spec.hosts * spec.pcpus
    cores.set_ylabel(f"pCPUs in use (of {total})")
    hosts.set_ylabel(f"hosts in use (of {spec.hosts})")
    hosts.set_xlabel("time (hours)")
    cores.set_xlim(0, end)
    cores.set_ylim(bottom=0)
    hosts.set_ylim(bottom=0)
    cores.legend(loc="lower right")
    cores.set_title(title or (f"{spec.hosts} hosts x {spec.pcpus} pCPUs, {spec.test}: "
                              f"pCPUs holding a vCPU"))
    return save(fig, folder, name)

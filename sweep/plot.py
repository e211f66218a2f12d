"""The acceptance curves of a sweep, with their confidence bands.

One curve per test: the acceptance ratio against the point's LO-mode
utilisation, with the 95% Wilson interval (:mod:`.wilson`) of each point
drawn as a shaded band.  The curves are told apart by marker and line
style as well as colour (:data:`akita.experiments.plotting.STYLES`); the
legend sits at the lower left, where acceptance curves, which fall from 1
to 0 as the utilisation grows, have no data.  The files come out byte for
byte the same from the same results (:func:`akita.experiments.plotting.save`).
matplotlib (the ``plots`` extra) is imported on the first call only.
"""

from __future__ import annotations

from pathlib import Path

from .results import SweepResult

__all__ = ["plot_sweep"]


def plot_sweep(result: SweepResult, folder: Path, name: str, title: str | None = None) -> list[str]:
    """Draw *result* as ``name.svg`` and ``name.png`` in *folder*; return the file names."""
    from akita.experiments.plotting import STYLES, figure, save

    spec = result.spec
    generator = spec.generator
    fig, ax = figure(6.4, 3.8)
    xs = [float(point.utilization) for point in result.points]
    for index, test in enumerate(spec.tests):
        marker, line = STYLES[index % len(STYLES)]
        bounds = [point.interval(test) for point in result.points]
        ys = [point.ratio(test) for point in result.points]
        curve, = ax.plot(xs, ys, marker=marker, linestyle=line, markersize=3.5, label=test)
        ax.fill_between(xs, [b[0] for b in bounds], [b[1] for b in bounds],
                        color=curve.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel("LO-mode utilisation of the set, U_LO")
    ax.set_ylabel("acceptance ratio on one pCPU")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title or (f"{generator.vcpus} vCPUs, {generator.kind}, "
                           f"C_pes = {generator.criticality_factor} C_opt, "
                           f"P(HI) = {generator.p_hi}: {spec.sets} sets per point"))
    ax.legend(loc="lower left", title="bands: 95% Wilson")
    return save(fig, folder, name)

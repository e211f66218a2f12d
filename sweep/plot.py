"""The acceptance curves of a sweep, with their confidence bands.

One curve per test: the acceptance ratio against the point's LO-mode
utilisation, with the 95% Wilson interval (:mod:`.wilson`) of each point
drawn as a shaded band.  The curves are told apart by marker and line
style as well as colour (:data:`akita.plotting.STYLES`); the
legend sits at the lower left, where acceptance curves, which fall from 1
to 0 as the utilisation grows, have no data.  The files come out byte for
byte the same from the same results (:func:`akita.plotting.save`).
matplotlib (the ``plots`` extra) is imported on the first call only.

The mixed-criticality tests (:data:`MC_TESTS`: their acceptance keeps every
HI vCPU's pessimistic budget across a mode switch) and the plain
uniprocessor tests (``edf``, ``rm-ll``, ``rm-rta``: one bound per mode, or
none, and no guarantee across a switch, :mod:`akita.model.edf`) are drawn
on two panels side by side when a sweep has both, so that a plain test's
higher curve is not read as a better MC test (decision 208).
"""

from __future__ import annotations

from pathlib import Path

from .results import SweepResult

__all__ = ["MC_TESTS", "plot_sweep"]

#: The admission tests that guarantee the HI vCPUs across a mode switch.
MC_TESTS = frozenset({"edf-vd", "amc-rtb", "exact"})


def plot_sweep(result: SweepResult, folder: Path, name: str, title: str | None = None) -> list[str]:
    """Draw *result* as ``name.svg`` and ``name.png`` in *folder*; return the file names."""
    from akita.plotting import STYLES, figure, pyplot, save

    spec = result.spec
    generator = spec.generator
    groups = [(tests, heading) for tests, heading in (
        ([t for t in spec.tests if t in MC_TESTS],
         "mixed-criticality tests (HI guaranteed across a mode switch)"),
        ([t for t in spec.tests if t not in MC_TESTS],
         "plain uniprocessor tests (no guarantee across a mode switch)")) if tests]
    if len(groups) > 1:
        fig, axes = pyplot().subplots(1, len(groups), figsize=(11, 3.8), sharey=True,
                                      layout="constrained")
        panels = list(axes)
    else:
        fig, single = figure(6.4, 3.8)
        panels = [single]
    xs = [float(point.utilization) for point in result.points]
    for ax, (tests, heading) in zip(panels, groups):
        for test in tests:
            marker, line = STYLES[spec.tests.index(test) % len(STYLES)]
            bounds = [point.interval(test) for point in result.points]
            ys = [point.ratio(test) for point in result.points]
            curve, = ax.plot(xs, ys, marker=marker, linestyle=line, markersize=3.5, label=test,
                             color=f"C{spec.tests.index(test)}")
            ax.fill_between(xs, [b[0] for b in bounds], [b[1] for b in bounds],
                            color=curve.get_color(), alpha=0.2, linewidth=0)
        ax.set_xlabel("LO-mode utilisation of the set, U_LO")
        ax.set_ylabel("acceptance ratio on one pCPU")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(loc="lower left", title="bands: 95% Wilson")
        if len(groups) > 1:
            ax.set_title(heading, fontsize=9)
    heading = title or (f"{generator.vcpus} vCPUs, {generator.kind}, "
                        f"C_pes = {generator.criticality_factor} C_opt, "
                        f"P(HI) = {generator.p_hi}: {spec.sets} sets per point")
    if len(groups) > 1:
        fig.suptitle(heading)
    else:
        panels[0].set_title(heading)
    return save(fig, folder, name)

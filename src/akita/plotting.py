"""Plots that come out byte for byte the same from the same data.

The one place of figure setup, series styles and saving for every package
that draws: the experiments (:mod:`akita.experiments`), a sweep's
acceptance curves (:mod:`akita.sweep.plot`) and a fleet's cores in use
(:mod:`akita.fleet.plot`).

matplotlib writes a date and random ids into its files unless told not
to: SVGs get a fixed ``svg.hashsalt`` and no date, PNGs no metadata.  The
Agg backend draws without a display.  matplotlib (the ``plots`` extra) is
imported on first use, so that the experiments' names and descriptions can
be listed without it (``akita reproduce --help``).

Every plot has a title; series that may coincide are told apart by marker
and line style, not by colour alone, and legends are placed where they
cover no data.  A plot of a ``--quick`` run says so on the figure itself
(:data:`QUICK_MARK`, set by :func:`akita.experiments.registry.reproduce`
around each experiment), so that it is never taken for the shipped
full-length figure.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any

from akita.atomic import atomic_file

__all__ = ["pyplot", "figure", "save", "log_axis", "STYLES", "QUICK_MARK"]

#: The words stamped on every figure :func:`save` writes, or ``None`` (a full run).
QUICK_MARK: ContextVar[str | None] = ContextVar("QUICK_MARK", default=None)

#: Marker and line style of the i-th series of a plot: equal series stay visible.
STYLES = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."))


def pyplot() -> Any:
    """``matplotlib.pyplot``, set up for reproducible files (on the first call)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "akita-sched", "figure.dpi": 100, "font.size": 9,
                         "axes.grid": True, "grid.alpha": 0.3})
    return plt


def figure(width: float = 6.0, height: float = 3.2) -> tuple[Any, Any]:
    """A new figure and its axes."""
    pair: tuple[Any, Any] = pyplot().subplots(figsize=(width, height), layout="constrained")
    return pair


def log_axis(ax: Any) -> None:
    """A logarithmic y axis labelled in plain numbers at 1, 2 and 5 of each decade."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def save(fig: Any, folder: Path, name: str) -> list[str]:
    """Write *fig* as ``name.svg`` and ``name.png`` into *folder*; return the file names."""
    folder.mkdir(parents=True, exist_ok=True)
    mark = QUICK_MARK.get()
    if mark is not None:
        fig.text(0.005, 0.005, mark, ha="left", va="bottom", fontsize=7, color="#c00000",
                 gid="quick-mark")
    with atomic_file(folder / f"{name}.svg", "wb") as svg:
        fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    with atomic_file(folder / f"{name}.png", "wb") as png:
        fig.savefig(png, format="png", metadata={"Software": None})
    pyplot().close(fig)
    return [f"{name}.svg", f"{name}.png"]

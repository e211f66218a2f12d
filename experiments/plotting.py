"""Plots that come out byte for byte the same from the same data.

matplotlib writes a date and random ids into its files unless told not
to: SVGs get a fixed ``svg.hashsalt`` and no date, PNGs no metadata.  The
Agg backend draws without a display.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["figure", "save", "plt"]

plt.rcParams.update({"svg.hashsalt": "akita-sched", "figure.dpi": 100, "font.size": 9,
                     "axes.grid": True, "grid.alpha": 0.3})


def figure(width: float = 6.0, height: float = 3.2):
    """A new figure and its axes."""
    return plt.subplots(figsize=(width, height), layout="constrained")


def save(fig, folder: Path, name: str) -> list[str]:
    """Write *fig* as ``name.svg`` and ``name.png`` into *folder*; return the file names."""
    folder.mkdir(parents=True, exist_ok=True)
    fig.savefig(folder / f"{name}.svg", metadata={"Date": None, "Creator": None})
    fig.savefig(folder / f"{name}.png", metadata={"Software": None})
    plt.close(fig)
    return [f"{name}.svg", f"{name}.png"]

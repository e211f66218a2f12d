"""The plot of an analysis (``akita analyze --plot FILE``): shares over time and latencies.

Two panels, linear axes, units on every axis: above, each task's CPU
share in each window (percent of the window), the :data:`SHOWN` busiest
tasks; below, each of those tasks' wake-to-run latency p50, p99 and max
(microseconds).  The figures are the analysis's own integers, drawn; no
figure is computed here.
"""

from __future__ import annotations

from typing import Any

from .result import Analysis

__all__ = ["SHOWN", "plot_analysis"]

#: How many tasks the plot shows (the busiest).
SHOWN = 10


def plot_analysis(analysis: Analysis, path: str) -> None:
    """Draw *analysis* to *path* (SVG or PNG by its suffix)."""
    from matplotlib.figure import Figure

    from .gantt import save

    tasks = list(analysis.tasks)[:SHOWN]
    fig = Figure(figsize=(11, 7.5), dpi=100)
    above, below = fig.subplots(2, 1)
    window = analysis.window_ns
    if window and analysis.windows:
        for task in tasks:
            sums = analysis.windows[task]
            xs = [(i + 0.5) * window / 1e6 for i in range(len(sums))]
            ys = [100 * ns / min(window, analysis.span_ns - i * window)
                  for i, ns in enumerate(sums)]
            above.plot(xs, ys, label=task, linewidth=1)
        above.set_xlabel("time (ms), window centres")
        above.set_ylabel(f"CPU share per {window / 1e6:g} ms window (%)")
        above.set_ylim(0, 100)
        above.legend(fontsize=7, ncols=2, loc="upper right")
    else:
        above.text(0.5, 0.5, "no window given (--window)", ha="center", va="center",
                   transform=above.transAxes)
    above.set_title(f"{analysis.path}: CPU share over time ({analysis.trace_format}, "
                    f"{analysis.events:,} events)", fontsize=10)
    _latencies(below, analysis, tasks)
    fig.tight_layout()
    save(fig, path)


def _latencies(ax: Any, analysis: Analysis, tasks: list[str]) -> None:
    width = 0.27
    for k, (metric, label) in enumerate((("p50", "p50"), ("p99", "p99"), ("max", "max"))):
        values = [analysis.tasks[t]["wake_to_run_ns"][metric] for t in tasks]
        ax.bar([i + (k - 1) * width for i in range(len(tasks))],
               [0 if v is None else v / 1e3 for v in values], width, label=label)
    ax.set_xticks(range(len(tasks)), tasks, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("wake-to-run latency (us)")
    ax.set_title("Wake-to-run latency per task (no bar: 0 ns, dispatched at its wake-up, or "
                 "never woken)", fontsize=10)
    ax.legend(fontsize=8)

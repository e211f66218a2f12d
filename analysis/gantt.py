"""Schedule pictures: a Gantt chart of a window of a trace.

One group of lanes per CPU, from the top in CPU order; in each group, a
band showing the pCPU's mode (LO or HI, where the trace records modes) and
one lane per task that ran on that CPU in the window (or was released
there), in name order, the lane a bar where the CPU ran the task.  A
server's ``release`` (recorded, or on its declared grid in a kernel
trace whose host fixes its phase) is an upward tick at the foot of its lane, its
deadline a downward tick at the head, both where they fall in the window;
time the capture lost is a grey hatched bar on a lane of its own; the
instants a caller marks (``akita conform``'s violations) are red lines
across their CPU's group, labelled with their rule.

The picture is drawn with matplotlib (a dependency, decision 49), as SVG
or PNG by the file's suffix, deterministically: every artist that means
something carries an id (``gid``) an SVG keeps -- ``lane-cpuC-TASK``,
``mode-cpuC-LO``/``-HI``, ``release-cpuC-TASK``, ``deadline-cpuC-TASK``,
``mark-cpuC-RULE`` -- so a reader (or a test) can find it, and the SVG's
hash salt and date are fixed so the same trace gives the same bytes.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from akita.model import format_duration

from .accumulate import UNKNOWN

__all__ = ["GanttRecorder", "Mark", "MODE_COLOURS", "DEFAULT_SPAN", "render", "save"]

#: The window drawn when only its start is given: 200 ms, two periods of Table 1's VMs
#: (decision 202).
DEFAULT_SPAN = 200_000_000
#: The mode bands' colours (RGB hex), what a reader and the tests look for.
MODE_COLOURS = {"LO": "#9ecae1", "HI": "#f03b20"}
#: How many lanes a picture draws at most (the busiest tasks of each CPU kept).
MAX_LANES = 48
_LANE = 1.0  # lane height in data units
_BAND = 0.6  # mode band height
_GAP = 0.8   # between CPU groups


@attrs.frozen
class Mark:
    """An instant to mark on a CPU: ``t`` (ns on the trace's axis), ``cpu``, its ``label``."""

    t: int
    cpu: int
    label: str


class GanttRecorder:
    """Keeps what falls in the window ``[start, end)`` of a trace, as it is read.

    Given to :func:`~akita.analysis.analyze.analyze_stream` as its ``recorder``.
    """

    def __init__(self, start: int, end: int) -> None:
        if end <= start:
            raise ValueError(f"an empty window [{start}, {end})")
        self.start = start
        self.end = end
        self.segments: list[tuple[int, int, int, str | None]] = []
        self.releases: list[tuple[int, int, str, int]] = []
        self.modes: list[tuple[int, int, int, str]] = []
        self.cpus: set[int] = set()

    def segment(self, cpu: int, start: int, end: int, owner: str | None) -> None:
        self.cpus.add(cpu)
        if owner is not None and end > self.start and start < self.end:
            self.segments.append((cpu, max(start, self.start), min(end, self.end), owner))

    def release(self, t: int, cpu: int, vcpu: str, deadline: int) -> None:
        if self.start <= t < self.end or self.start <= deadline < self.end:
            self.releases.append((t, cpu, vcpu, deadline))

    def mode(self, cpu: int, start: int, end: int, mode: str) -> None:
        if end > self.start and start < self.end:
            self.modes.append((cpu, max(start, self.start), min(end, self.end), mode))


def _lanes(rec: GanttRecorder) -> dict[int, list[str]]:
    """Each CPU's lanes: its tasks in the window, busiest first up to a cap, then by name."""
    busy: dict[int, dict[str, int]] = {}
    for cpu, start, end, owner in rec.segments:
        per = busy.setdefault(cpu, {})
        per[owner or ""] = per.get(owner or "", 0) + end - start
    for t, cpu, vcpu, _ in rec.releases:
        if cpu >= 0:
            busy.setdefault(cpu, {}).setdefault(vcpu, 0)
    for cpu in rec.cpus:
        busy.setdefault(cpu, {})
    share = max(1, MAX_LANES // max(1, len(busy)))
    lanes = {}
    for cpu in sorted(busy):
        kept = sorted(busy[cpu], key=lambda task: (-busy[cpu][task], task))[:share]
        lanes[cpu] = sorted(kept, key=lambda task: (task == UNKNOWN, task))
    return lanes


def render(rec: GanttRecorder, *, title: str = "", marks: Sequence[Mark] = (),
           modes_recorded: bool = True) -> Any:
    """The matplotlib figure of *rec*'s window (its axes: ``figure.axes[0]``).

    :returns: a :class:`matplotlib.figure.Figure` (not attached to pyplot) whose axes
        carry ``lane_y``: ``{(cpu, task): y}``, the bottom of each lane, and
        ``band_y``: ``{cpu: y}``, the bottom of each mode band, in data units.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    lanes = _lanes(rec)
    tasks = sorted({task for names in lanes.values() for task in names if task != UNKNOWN})
    palette = _palette(len(tasks))
    colour = {task: palette[i] for i, task in enumerate(tasks)}
    rows = sum(len(names) for names in lanes.values())
    height = 1.2 + 0.28 * rows + 0.25 * len(lanes) * (1 if modes_recorded else 0)
    fig = Figure(figsize=(12, max(2.5, height)), dpi=100)
    ax = fig.add_subplot()
    lane_y: dict[tuple[int, str], float] = {}
    band_y: dict[int, float] = {}
    ticks, labels = [], []
    y = 0.0
    for cpu in sorted(lanes, reverse=True):  # CPU 0 at the top
        for task in reversed(lanes[cpu]):
            lane_y[(cpu, task)] = y
            ticks.append(y + _LANE * 0.4)
            labels.append(f"CPU {cpu}  {task}")
            y += _LANE
        if modes_recorded:
            band_y[cpu] = y
            ticks.append(y + _BAND / 2)
            labels.append(f"CPU {cpu}  mode")
            y += _BAND
        y += _GAP
    ms = 1e6  # the axis is in ms (drawing only: every figure measured is in integer ns)
    by_lane: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for cpu, start, end, owner in rec.segments:
        key = (cpu, owner or "")
        if key in lane_y:
            by_lane.setdefault(key, []).append((start / ms, (end - start) / ms))
    for (cpu, task), bars in sorted(by_lane.items()):
        unknown = task == UNKNOWN
        artist = ax.broken_barh(bars, (lane_y[(cpu, task)], _LANE * 0.8),
                                facecolors="#bbbbbb" if unknown else colour[task],
                                hatch="//" if unknown else None, linewidth=0)
        artist.set_gid(f"lane-cpu{cpu}-{task}")
    for mode in ("LO", "HI"):
        for cpu in sorted(band_y):
            spans = [(s / ms, (e - s) / ms) for c, s, e, m in rec.modes if c == cpu and m == mode]
            if spans:
                band = ax.broken_barh(spans, (band_y[cpu], _BAND * 0.9),
                                      facecolors=MODE_COLOURS[mode], linewidth=0)
                band.set_gid(f"mode-cpu{cpu}-{mode}")
                if mode == "HI":
                    top = band_y[cpu]
                    bottom = min(v for (c, _), v in lane_y.items() if c == cpu) \
                        if any(c == cpu for c, _ in lane_y) else top
                    shade = ax.broken_barh(spans, (bottom, top - bottom),
                                           facecolors=MODE_COLOURS["HI"], alpha=0.08,
                                           linewidth=0, zorder=0)
                    shade.set_gid(f"hi-shade-cpu{cpu}")
    _ticks(ax, rec, lane_y, colour, ms)
    _marks(ax, rec, marks, lane_y, band_y, ms)
    ax.set_xlim(rec.start / ms, rec.end / ms)
    ax.set_ylim(-_GAP / 2, max(y, 1.0))
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.set_xlabel("time (ms)")
    ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    ax.grid(axis="x", linewidth=0.3, alpha=0.5)
    ax.set_title(title or f"Schedule from {format_duration(rec.start)} to "
                 f"{format_duration(rec.end)}", fontsize=10)
    handles: list[Any] = [Patch(facecolor=MODE_COLOURS[m], label=f"{m} mode")
                          for m in ("LO", "HI")] if modes_recorded else []
    if rec.releases:
        from matplotlib.lines import Line2D
        handles += [Line2D([], [], marker="^", linestyle="", color="black", label="release"),
                    Line2D([], [], marker="v", linestyle="", color="black", label="deadline")]
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
                  frameon=False)
    fig.tight_layout()
    ax.lane_y = lane_y  # type: ignore[attr-defined]
    ax.band_y = band_y  # type: ignore[attr-defined]
    return fig


def _ticks(ax: Any, rec: GanttRecorder, lane_y: dict[tuple[int, str], float],
           colour: dict[str, Any], ms: float) -> None:
    """Releases (``^`` at a lane's foot) and deadlines (``v`` at its head) in the window."""
    ups: dict[tuple[int, str], list[float]] = {}
    downs: dict[tuple[int, str], list[float]] = {}
    lanes_of: dict[str, list[int]] = {}
    for cpu, task in lane_y:
        lanes_of.setdefault(task, []).append(cpu)
    for t, cpu, vcpu, deadline in rec.releases:
        for on in lanes_of.get(vcpu, []) if cpu < 0 else [cpu]:  # -1: a declared grid's
            if (on, vcpu) not in lane_y:
                continue
            if rec.start <= t < rec.end:
                ups.setdefault((on, vcpu), []).append(t / ms)
            if rec.start <= deadline < rec.end:
                downs.setdefault((on, vcpu), []).append(deadline / ms)
    for (cpu, vcpu), xs in sorted(ups.items()):
        y = lane_y[(cpu, vcpu)]
        (dots,) = ax.plot(xs, [y] * len(xs), linestyle="", marker="^", markersize=5,
                          color="black", zorder=4)
        dots.set_gid(f"release-cpu{cpu}-{vcpu}")
    for (cpu, vcpu), xs in sorted(downs.items()):
        y = lane_y[(cpu, vcpu)] + _LANE * 0.8
        (dots,) = ax.plot(xs, [y] * len(xs), linestyle="", marker="v", markersize=5,
                          color="black", zorder=4)
        dots.set_gid(f"deadline-cpu{cpu}-{vcpu}")


def _marks(ax: Any, rec: GanttRecorder, marks: Sequence[Mark],
           lane_y: dict[tuple[int, str], float], band_y: dict[int, float], ms: float) -> None:
    """Red lines across each marked CPU's group; a label where no other of its CPU is near."""
    labelled: dict[int, float] = {}
    near = (rec.end - rec.start) / 50
    for mark in sorted(marks, key=lambda m: (m.cpu, m.t, m.label)):
        cpu_lanes = [v for (c, _), v in lane_y.items() if c == mark.cpu]
        if not cpu_lanes or not rec.start <= mark.t < rec.end:
            continue
        top = band_y.get(mark.cpu, max(cpu_lanes) + _LANE)
        line = ax.vlines([mark.t / ms], min(cpu_lanes), top + _BAND, colors="#d00000",
                         linewidth=0.8, alpha=0.8, zorder=5)
        line.set_gid(f"mark-cpu{mark.cpu}-{mark.label}")
        if mark.t - labelled.get(mark.cpu, -near - 1) > near:
            labelled[mark.cpu] = mark.t
            ax.text(mark.t / ms, top + _BAND, mark.label, color="#d00000", fontsize=8,
                    ha="left", va="bottom")


def _palette(n: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab20" if n > 10 else "tab10"]
    return [cmap(i % cmap.N) for i in range(n)]


def save(fig: Any, path: Any) -> None:
    """Write *fig* to *path* (or a binary stream: PNG), SVG or PNG by its suffix, the same
    bytes for the same figure."""
    import matplotlib

    kind = "svg" if isinstance(path, str) and path.lower().endswith(".svg") else "png"
    metadata: dict[str, Any] = {"Date": None} if kind == "svg" else {"Software": None}
    with matplotlib.rc_context({"svg.hashsalt": "akita", "svg.fonttype": "none"}):
        fig.savefig(path, format=kind, metadata=metadata)


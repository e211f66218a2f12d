"""Sphinx extension: draw the state graphs of :mod:`akita.model.transitions` at build time.

On ``builder-inited`` each transition table becomes a networkx graph, drawn
with matplotlib (no pyplot, no global state) at fixed node positions into
``docs/_generated/state-graphs/<name>.svg``, and an rst ``list-table`` of
the same transitions into ``<name>.rst``.  Parallel edges share one arrow
whose label lists them, one ``event (rule)`` per line.  The SVG is byte for
byte the same from build to build: a fixed ``svg.hashsalt``, no date, text
kept as text.  A file is rewritten only when its content changes.
"""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib
import networkx as nx
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from generated import write_if_changed

from akita.model.transitions import PCPU_MODES, TEMPERATURE, VCPU_STATES, Table, to_graph

OUT = Path("_generated") / "state-graphs"
TABLES = (PCPU_MODES, VCPU_STATES, TEMPERATURE)
RC = {"svg.hashsalt": "akita-state-graphs", "svg.fonttype": "none", "font.family": "DejaVu Sans"}


def positions(table: Table) -> dict[str, tuple[float, float]]:
    """Fixed positions, in inches: the vCPU states on a grid (blocked, waiting, running
    by active, inactive), any other table on one row in its state order."""
    if table is VCPU_STATES:
        runs, budgets = ("blocked", "waiting", "running"), ("active", "inactive")
        return {f"{r}-{b}": (3.2 * runs.index(r), -2.6 * budgets.index(b))
                for r in runs for b in budgets}
    return {state: (2.6 * i, 0.0) for i, state in enumerate(table.states)}


def _arc(pos, u: str, v: str, reverse: bool) -> float:
    """arc3 radius: reciprocal edges apart, an edge that would cross a node around it
    (a row's top side for leftward edges, bottom side for rightward ones; the lowest
    row's edges both below)."""
    (x1, y1), (x2, y2) = pos[u], pos[v]
    lowest = min(y for _, y in pos.values())
    crosses = any(
        abs((x - x1) * (y2 - y1) - (y - y1) * (x2 - x1)) < 1e-9
        and min(x1, x2) <= x <= max(x1, x2) and min(y1, y2) <= y <= max(y1, y2)
        for w, (x, y) in pos.items() if w not in (u, v))
    if crosses:
        return -0.5 if y1 == lowest < 0 and x2 < x1 else 0.5
    return 0.25 if reverse else 0.0


def _align(pos, u: str, v: str, rad: float) -> dict[str, str]:
    """Put a curved edge's label on the outer side of the curve."""
    (x1, y1), (x2, y2) = pos[u], pos[v]
    dx, dy = rad * (y2 - y1), -rad * (x2 - x1)  # the direction arc3 bends to
    if u == v or rad == 0:
        return {"horizontalalignment": "center", "verticalalignment": "center"}
    if abs(dx) > abs(dy):
        return {"horizontalalignment": "left" if dx > 0 else "right", "verticalalignment": "center"}
    return {"horizontalalignment": "center", "verticalalignment": "bottom" if dy > 0 else "top"}


def draw(table: Table, fmt: str = "svg") -> bytes:
    """*table*'s graph as SVG (or another matplotlib *fmt*, e.g. for a preview)."""
    graph = to_graph(table)
    pos = positions(table)
    labels: dict[tuple[str, str], list[str]] = {}
    for u, v, data in graph.edges(data=True):
        labels.setdefault((u, v), []).append(data["label"])
    simple = nx.DiGraph()
    simple.add_nodes_from(table.states)
    simple.add_edges_from(labels)
    arcs = {(u, v): _arc(pos, u, v, simple.has_edge(v, u)) for u, v in labels}
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    ys += [y + 1.1 for u, (x, y) in pos.items() if simple.has_edge(u, u)]  # loop and label
    for (u, v), rad in arcs.items():  # the apex of each arc, and room for its label
        (xa, ya), (xb, yb) = pos[u], pos[v]
        ys.append((ya + yb) / 2 - rad * (xb - xa) / 2)
    x0, x1, y0, y1 = min(xs) - 1.6, max(xs) + 1.6, min(ys) - 0.7, max(ys) + 0.7
    node_size = 2500  # points squared: a node is 50 pt (0.69 in) across
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(x1 - x0, y1 - y0))  # one data unit is one inch
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        widths = [2.8 if s == table.initial else 1.2 for s in table.states]  # initial: thick
        nx.draw_networkx_nodes(simple, pos, ax=ax, nodelist=list(table.states), node_size=node_size,
                               node_color="#eef3fb", edgecolors="#24466b", linewidths=widths)
        nx.draw_networkx_labels(simple, pos, ax=ax, font_size=9,
                                labels={s: s.replace("-", "\n") for s in table.states})
        for (u, v), text in labels.items():
            rad = arcs[u, v]
            style = f"arc3,rad={rad}"
            nx.draw_networkx_edges(simple, pos, ax=ax, edgelist=[(u, v)], node_size=node_size,
                                   arrowsize=14, edge_color="#24466b", connectionstyle=style)
            nx.draw_networkx_edge_labels(simple, pos, ax=ax, edge_labels={(u, v): "\n".join(text)},
                                         font_size=7, connectionstyle=style, node_size=node_size,
                                         rotate=False, **_align(pos, u, v, rad),
                                         bbox={"boxstyle": "round,pad=0.2", "fc": "white",
                                               "ec": "none"})
        x, y = pos[table.initial]
        ax.annotate("start", xy=(x, y), xytext=(x - 0.9, y + 0.75), fontsize=8,
                    ha="center", va="center",
                    arrowprops={"arrowstyle": "-|>", "color": "#24466b", "shrinkA": 6,
                                "shrinkB": node_size ** 0.5 / 2 + 2})
        out = io.BytesIO()
        fig.savefig(out, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    return out.getvalue()


def list_table(table: Table) -> str:
    """The rst list-table of *table*'s transitions."""
    lines = [f".. list-table:: {table.title}: transitions (initial state: {table.initial})",
             "   :header-rows: 1", "   :widths: 20 20 45 15", "",
             "   * - Source", "     - Target", "     - Event and guard", "     - Rule"]
    for t in table.transitions:
        lines += [f"   * - ``{t.source}``", f"     - ``{t.target}``", f"     - {t.event}",
                  f"     - {t.rule}"]
    return "\n".join(lines) + "\n"


def generate(app) -> None:
    out = Path(app.srcdir) / OUT
    out.mkdir(parents=True, exist_ok=True)
    for table in TABLES:
        write_if_changed(out / f"{table.name}.svg", draw(table))
        write_if_changed(out / f"{table.name}.rst", list_table(table))


def setup(app):
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

"""The schedule picture every command that has a schedule can draw: ``--gantt FILE.svg|png``.

:func:`gantt_options` adds ``--gantt``, ``--from`` and ``--to`` to a
command; :func:`draw_gantt` reads the trace once more with
:mod:`akita.analysis` and draws the window (:mod:`akita.analysis.gantt`).
``akita simulate`` without ``--trace`` writes its trace to a scratch file
for the picture (:func:`scratch_trace`), removed afterwards.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar

import click

from akita.model import Host, ModelError, parse_duration

from .outputs import writable_file

__all__ = ["gantt_options", "draw_gantt", "scratch_trace", "gantt_window"]

F = TypeVar("F", bound=Callable[..., Any])


def gantt_options(command: F) -> F:
    """Add ``--gantt FILE``, ``--from`` and ``--to`` (keyword arguments ``gantt_path``,
    ``from_text``, ``to_text``) to a click command."""
    command = click.option("--to", "to_text", default=None, metavar="TIME",
                           help="--gantt: the end of the window drawn, e.g. 150ms "
                                "(default: --from plus 200ms).")(command)
    command = click.option("--from", "from_text", default=None, metavar="TIME",
                           help="--gantt: the start of the window drawn, on the trace's time "
                                "axis (t = 0 its start), e.g. 40ms (default: 0).")(command)
    command = click.option("--gantt", "gantt_path", default=None, metavar="FILE.svg|png",
                           type=click.Path(dir_okay=False),
                           help="Draw the schedule as a Gantt chart: one lane per vCPU per "
                                "pCPU, releases, deadlines, LO/HI mode bands.")(command)
    return command


def gantt_window(gantt_path: str | None, from_text: str | None, to_text: str | None,
                 trace_path: str | None = None) -> tuple[int, int] | None:
    """The window ``[from, to)`` in ns, checked before any work (``None`` without --gantt);
    *trace_path*, the trace the picture will read again (not stdin)."""
    from akita.analysis.gantt import DEFAULT_SPAN

    if gantt_path is None:
        if from_text is not None or to_text is not None:
            raise ModelError("--from/--to", from_text or to_text, "--gantt FILE.svg|png with "
                             "them (they choose the window it draws)")
        return None
    if trace_path == "-":
        raise ModelError("--gantt", gantt_path, "a trace read from a file, not stdin (the "
                         "picture reads the trace again)")
    if not gantt_path.lower().endswith((".svg", ".png")):
        raise ModelError("--gantt", gantt_path, "a file name ending .svg or .png")
    writable_file("--gantt", gantt_path)
    start = 0 if from_text is None else parse_duration(from_text, field="--from")
    end = start + DEFAULT_SPAN if to_text is None else parse_duration(to_text, field="--to")
    if end <= start:
        raise ModelError("--to", to_text, f"a time after --from ({from_text or '0'})")
    return start, end


@contextmanager
def scratch_trace(gantt_path: str | None, trace_path: str | None) -> Iterator[str | None]:
    """The trace file a run writes: *trace_path*, or with --gantt alone a scratch one."""
    if gantt_path is None or trace_path is not None:
        yield trace_path
        return
    handle, scratch = tempfile.mkstemp(prefix="akita-gantt-", suffix=".jsonl")
    os.close(handle)
    try:
        yield scratch
    finally:
        os.unlink(scratch)


def draw_gantt(gantt_path: str | None, window: tuple[int, int] | None, trace_path: str | None,
               *, host: Host | None = None, title: str = "", marks: Sequence[Any] = (),
               trace_map: Mapping[str, str] | None = None, **reading: Any) -> None:
    """Draw the window of the trace at *trace_path* to *gantt_path* (nothing without one)."""
    if gantt_path is None or window is None or trace_path is None:
        return
    from akita.analysis import analyze_file
    from akita.analysis.gantt import GanttRecorder, Mark, render, save

    recorder = GanttRecorder(*window)
    found = analyze_file(trace_path, host=host, trace_map=trace_map, recorder=recorder,
                         **reading)
    shown = [m if isinstance(m, Mark) else Mark(m.t, m.cpu, m.rule) for m in marks]
    figure = render(recorder, title=title, marks=shown, modes_recorded=found.modes is not None)
    save(figure, gantt_path)

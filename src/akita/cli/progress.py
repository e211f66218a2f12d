"""Progress bars on stderr, only when stderr is a terminal.

:func:`stderr_bar` draws one transient bar with one task and yields
``update(**fields)`` (rich's ``Progress.update`` on that task), or ``None``
when stderr is not a terminal, so piped and captured runs print nothing but
their results.  rich is imported only when a bar is drawn (``akita simulate
--json`` does not load it).
"""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

__all__ = ["stderr_bar", "Update"]

#: ``update(completed=..., total=..., description=...)`` of the bar's one task.
Update = Callable[..., None]


@contextlib.contextmanager
def stderr_bar(label: str, *, total: float | None = None, unit: str | None = None,
               remaining: bool = True, description: str = "") -> Iterator[Update | None]:
    """A bar headed *label* (``"{task.description}"``: the task's *description*, then what
    ``update(description=...)`` sets), out of *total* (``None``: set by ``update``), showing ``done/total unit`` if *unit*
    is given (``""``: the count alone) and the time remaining if *remaining*."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn,
                               TextColumn, TimeRemainingColumn)

    columns: list[ProgressColumn] = [TextColumn(label), BarColumn()]
    if unit is not None:
        columns += [MofNCompleteColumn()] + ([TextColumn(unit)] if unit else [])
    if remaining:
        columns.append(TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda **fields: bar.update(task, **fields)

"""What a schedule shows: ``akita analyze`` and the schedule pictures (``--gantt``).

:func:`analyze_file` reads a trace of any format the oracle reads (JSON
Lines, Linux scheduler text, ``trace.dat``, ``xentrace``) in one streaming
pass and returns an :class:`Analysis`: CPU shares in total and per window,
wake-to-run latency percentiles, budget used per period against the
declaration, mode residency and switches, migrations and idle time
(:mod:`.accumulate`).  :func:`~.gantt.gantt_file` draws the schedule of a
window of it: one lane per task per CPU, releases, deadlines, mode bands.
"""

from .accumulate import Accumulator, Declared
from .analyze import analyze_file, analyze_stream
from .percentiles import nearest_rank, summary
from .result import Analysis

__all__ = ["Accumulator", "Analysis", "Declared", "analyze_file", "analyze_stream",
           "nearest_rank", "summary"]

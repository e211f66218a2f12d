"""The trace formats: what a schedule looks like on disk, and how each kind is read.

One home for every format the project writes or reads, for the simulator,
the oracle (:mod:`akita.oracle`), the analysis (:mod:`akita.analysis`) and
the experiments alike:

* the project's JSON Lines trace (:mod:`.jsonl`: its writer, its reader, its
  ceilings and :class:`TraceError`; the schema ``trace_schema.json`` beside it)
  and its Perfetto timeline (:mod:`.timeline`);
* the kernels' and hypervisors' scheduler records, read into the one
  scheduler-event record :class:`~.kernel.SchedEvent` (:mod:`.kernel`):
  Linux's text forms (:mod:`.ftrace`), trace-cmd's ``trace.dat``
  (:mod:`.tracedat`, with :mod:`.eventformat` and :mod:`.ringbuffer`) and
  Xen's ``xentrace`` (:mod:`.xentrace`); any of them compressed
  (:mod:`.compressed`);
* the registry of formats (:mod:`.formats`): one record per format -- its
  name, how it is told apart, how it is read, whether it is a kernel's, how to
  record it -- so that a new format is one module and one registry line.
"""

from .jsonl import TraceError

__all__ = ["TraceError"]

"""Reading a Xen ``xentrace`` capture as a stream of scheduler events.

Xen's trace buffers
-------------------

Xen keeps one trace buffer per physical CPU (pCPU) and writes a *record* into
the buffer of the pCPU that executes a trace point.  A record is a sequence
of little-endian 32-bit words (``struct t_rec``, ``xen/include/public/trace.h``
in github:xen-project/xen)::

    word 0      bits 0-27 event id, bits 28-30 n (extra words), bit 31 cycles
    [word 1, 2] the cycle counter (TSC on x86, CNTPCT on Arm): low, high word,
                present when bit 31 is set
    then        n extra words, the event's data

An event id is a class, a subclass and an event (``TRC_SCHED`` 0x0002f000,
its subclasses ``TRC_SCHED_MIN`` 0x00021000 and ``TRC_SCHED_VERBOSE``
0x00028000).  Records are written whole under the buffer's lock with
interrupts off (``trace()`` in ``xen/common/trace.c``); where a record would
not fit before the end of the ring, Xen pads with a ``TRC_TRACE_WRAP_BUFFER``
record.  When the buffer is full, records are dropped and a
``TRC_LOST_RECORDS`` record says how many, once there is room again.

The file ``xentrace`` writes
----------------------------

``xentrace`` (``tools/xentrace/xentrace.c``, ``monitor_tbufs`` and
``write_buffer``) polls the pCPUs' buffers in turn, every 100 ms or when a
buffer passes its high-water mark, and writes each non-empty *window* (the
records produced since its last visit) as a *chunk*: a ``TRC_TRACE_CPU_CHANGE``
record without a cycle count -- header word ``0x2001f003`` (event 0x0001f003,
two extra words), the pCPU number (``int``) and the window's size in bytes --
followed by exactly that many bytes of the pCPU's records.  A file is a
sequence of chunks and nothing else.  Within one pCPU's chunks the records are
in the order Xen wrote them, so their cycle counts never decrease; across
pCPUs the file interleaves *by chunk, not by time*: a chunk holds everything
its pCPU produced since the previous poll (up to its whole buffer, ``xentrace
-S`` pages), so it overlaps in time with the chunks around it.

Merging the pCPUs
-----------------

This reader merges the pCPUs' streams by cycle count with a heap over one
cursor per pCPU, as xenalyze does (``tools/xentrace/xenalyze.c``,
``scan_for_new_pcpu`` and ``read_record``: each pCPU reads its own chunks,
skipping the others' by their headers, and the records are ordered by TSC).
A first pass over the chunk headers (12 bytes each, read by seeking) checks
that they tile the file and finds every pCPU's first chunk; then each cursor
reads its pCPU's records :data:`BLOCK_BYTES` at a time and skips the other
pCPUs' chunks through a small shared cache of chunk headers.  The merge is
exact whatever the order of the chunks, since it assumes only what Xen
guarantees, that each pCPU's records are in order; and it holds one block per
pCPU, whatever the size of the windows.  A bounded *reorder window* over the
file in its order would also be exact for a file written by ``xentrace``'s
loop (a window's records are younger than every record of the chunks two
polling rounds before it), but it must hold two whole windows per pCPU, that
is up to twice each pCPU's trace buffer, which the user sets (``-S``) and
which can be many megabytes; so the reader seeks instead, and needs a
seekable file (a pipe is refused: save it to a file first).  Besides the
blocks, it holds a few thousand chunk headers and, per vCPU, the pCPU it last
ran on.

The pCPUs' cycle counters are taken to be synchronized (an invariant TSC, as
Xen requires on current x86 hosts); xenalyze's correction of TSC skew is not
done.  A skew that matters shows as a vCPU switched in on one pCPU while it
has not yet been switched out of another, which is refused.

Time
----

A cycle count becomes nanoseconds exactly, with the integer frequency
*cpu_hz* of the counter the caller gives: ``ns = (tsc - tsc0) * 10**9 //
cpu_hz``, rounded down, where ``tsc0`` is the cycle count of the first record
of the trace in time order (of any class: the smallest first count of the
pCPUs), the origin xenalyze's time column uses (``abs_cycles_to_time``, which
approximates the division with ``cpu_qhz``).  ``xl info`` shows the counter's
frequency as ``cpu_mhz`` with three decimals (Xen's ``cpu_khz``: the TSC
rate on x86, the generic timer's ``clock-frequency`` on Arm), so ``cpu_mhz
2394.455`` is ``cpu_hz = 2_394_455_000``; xenalyze takes the same number as
``--cpu-hz``.  A record the reader uses must carry a cycle count (Xen's
scheduler writes them all with ``TRACE_TIME``/``trace_time``); one that does
not is refused, since the oracle needs times.  Other records may lack one
(some ``TRC_HVM`` records and ``TRC_TRACE_WRAP_BUFFER`` padding do).

The scheduler's records
-----------------------

Where ``xen/common/sched/core.c`` writes them, and what this reader makes of
them (a vCPU is the :class:`~akita.trace.kernel.Task` ``d{dom}v{vcpu}``, its
pid and comm alike; the idle domain, ``DOMID_IDLE`` = 0x7FFF in
``xen/include/public/xen.h``, is ``None``):

``TRC_SCHED_SWITCH`` (0x0002800a; words prev dom, prev vcpu, next dom, next vcpu)
   ``sched_switch_units``, called by ``schedule()`` when the pCPU's next unit
   differs from its current one, writes ``TRC_SCHED_SWITCH_INFPREV``,
   ``TRC_SCHED_SWITCH_INFNEXT`` and ``TRC_SCHED_SWITCH`` and then, before any
   other record ("Don't add any trace records from here until the actual
   context switch"), the runstate change of the previous vCPU from
   ``running`` to ``blocked`` (it blocked: ``VPF_blocked``), ``runnable``
   (preempted, or it yielded) or ``offline`` (paused, or otherwise not
   runnable), then the next vCPU's change to ``running``.  Neither
   ``INFPREV`` (run time) nor ``INFNEXT`` (wait time, slice) says whether the
   previous vCPU is still runnable; that runstate change does.  So a
   ``TRC_SCHED_SWITCH`` is a ``switch`` whose ``prev_runnable`` is whether
   that record, which must be the next record of the pCPU
   (``TRC_TRACE_WRAP_BUFFER`` padding aside), goes to ``runnable``.  If the
   next record is anything else -- the trace was taken without the
   ``TRC_SCHED_MIN`` subclass (``xentrace -e 0x00028000``), or with a
   scheduling granularity coarser than a CPU (``sched-gran=core``, whose
   switches name units and whose runstate records are per sibling) -- the
   switch is refused rather than guessed.  The records were written like
   this in Xen 4.4 (``xen/common/schedule.c``, ``schedule()``) as they are
   now, and a real capture (``tests/data/README.md``) has it for each of its
   10082 switches.
``TRC_SCHED_RUNSTATE_CHANGE`` (0x00021001 | old << 8 | new << 4; one word, dom << 16 | vcpu)
   ``vcpu_runstate_change``; the states are those of
   ``xen/include/public/vcpu.h`` (``running`` 0, ``runnable`` 1, ``blocked``
   2, ``offline`` 3).  A change from ``blocked`` or ``offline`` to
   ``runnable`` is a ``wakeup``: ``vcpu_wake`` writes it only when the vCPU
   really becomes runnable.  The change after a switch is read with the
   switch; the others are not events.
``TRC_SCHED_SWITCH_INFCONT``, ``TRC_SCHED_CONTINUE_RUNNING``
   The scheduler ran and kept the pCPU's vCPU (``sched_context_switch`` with
   ``vprev == vnext``): no switch, no event.
``TRC_SCHED_WAKE``, ``TRC_SCHED_SLEEP``, ``TRC_SCHED_BLOCK``, ``TRC_SCHED_YIELD``
   Not events of their own.  ``vcpu_wake`` writes ``TRC_SCHED_WAKE`` on entry,
   whether or not the vCPU was blocked or can run; ``vcpu_block`` writes
   ``TRC_SCHED_BLOCK`` before the scheduler runs, and the vCPU may be woken
   again before it does; ``vcpu_sleep_nosync`` writes ``TRC_SCHED_SLEEP`` for
   a pause that may not stop the vCPU.  What they lead to shows in the
   runstate changes: a block or a sleep as a switch away with
   ``prev_runnable`` false, a yield as one with ``prev_runnable`` true.
Migration
   Xen has no scheduler-independent migration record (only per-scheduler
   ones, such as credit2's runqueue ``MIGRATE`` or null's ``MIGRATE``).  The
   reader derives one: a ``switch`` to a vCPU on a pCPU other than the one it
   last ran on is preceded by a ``migrate`` of it at the same time, with
   ``cpu`` the pCPU it last ran on and ``target_cpu`` the new one.

A wakeup's ``cpu`` is the pCPU that woke the vCPU (the record's: ``vcpu_wake``
runs on the waker's pCPU, an event channel's sender for instance), and its
``target_cpu`` is the pCPU the vCPU last ran on, where its scheduler queues it
unless it moves it (Akita pins each vCPU to one pCPU); it is ``None`` for a
vCPU not yet seen running in the trace, so that the oracle takes the waker's
pCPU, which may be the wrong one: a trace should begin before the vCPUs it
checks first wake, or with them running.  A vCPU paused while only queued
(``runnable`` to ``offline``) has no event: a
:class:`~akita.trace.kernel.SchedEvent` cannot say it.

Each event's ``where`` is ``FILE@0xOFFSET``, the byte offset of its record
(a switch's ``TRC_SCHED_SWITCH``), and its ``line`` its ordinal, from 1, in
the stream the reader yields, which is in time order; events at the same
cycle count come in pCPU order, then file order.

What is refused
---------------

Every problem is a :class:`~akita.trace.kernel.KernelTraceError` naming the
file and byte offset, the field, what was expected and what was got, never a
traceback: a file that is not a sequence of chunks (a header that is not a
CPU-change record, a pCPU number not below :data:`MAX_CPUS`, Xen's
``NR_CPUS`` ceiling; a window that is empty, not whole words, or runs past
the end of the file); a record that runs past its window; a
``TRC_LOST_RECORDS`` record (a trace with a hole cannot be checked: enlarge
the buffers with ``xentrace -S``); a cycle count that goes backwards on a
pCPU; a used record without a cycle count, with too few words or with a
state above ``offline``; a domain or vCPU id above 16 bits; a switch without
its runstate change, even at the end of the trace; a vCPU switched in on a
pCPU while it runs on another.  Other records are skipped, as are records of
other classes.  Only little-endian files are read (Xen runs little-endian on
x86 and Arm; ``xentrace`` writes host order).  The version of Xen covered is
4.4 and later, whose sched ids these are (Xen 3.x had ``TRC_SCHED_SWITCH`` at
0x0002f00a).

Sources
-------

github:xen-project/xen at c447b7308b1330ec6dcfef37220736c28f41daa0:
``xen/include/public/trace.h``, ``xen/include/public/xen.h``,
``xen/include/public/vcpu.h``, ``xen/include/xen/trace.h``,
``xen/common/trace.c``, ``xen/common/sched/core.c``, ``xen/arch/Kconfig``,
``xen/arch/x86/include/asm/time.h``, ``xen/arch/arm/include/asm/time.h``,
``xen/arch/arm/time.c``, ``tools/xl/xl_info.c``, ``tools/xentrace/xentrace.c``,
``tools/xentrace/xenalyze.c``; ``xen/common/schedule.c`` at the tags
``RELEASE-4.4.0`` and ``RELEASE-4.12.0``; ``tools/xentrace/formats`` (the
layout of each record's words, ``dom:vcpu = 0x%(1)08x`` for a runstate change)
at 2a40b106e9^, the parent of the commit that removed it with
``xentrace_format`` in 2024.
"""

from __future__ import annotations

import heapq
import sys
from array import array
from collections.abc import Iterator
from struct import Struct
from typing import BinaryIO, NoReturn

from akita.model.errors import ModelError

from .kernel import KernelTraceError, SchedEvent, Tally, Task

__all__ = ["read_xentrace", "is_xentrace", "MAX_CPUS", "BLOCK_BYTES"]

#: pCPU numbers are below this: Xen's ``NR_CPUS`` is at most 16383 (``xen/arch/Kconfig``).
MAX_CPUS = 16383

#: Bytes of its chunks a pCPU's cursor reads at once, a multiple of 4 (the reader holds about
#: this per pCPU).
BLOCK_BYTES = 1 << 16

# Event ids, xen/include/public/trace.h.
_LOST_RECORDS = 0x0001F001           # TRC_GEN + 1
_WRAP_BUFFER = 0x0001F002            # TRC_GEN + 2
_CPU_CHANGE = 0x0001F003             # TRC_GEN + 3
_RUNSTATE_CHANGE = 0x00021001        # TRC_SCHED_MIN + 1, the states in bits 4-11
_RUNSTATE_MASK = 0x0FFFF00F
_SWITCH = 0x0002800A                 # TRC_SCHED_VERBOSE + 10
_EVENT_MASK = 0x0FFFFFFF             # TRC_HD_TO_EVENT
_CYCLES = 0x80000000                 # TRC_HD_CYCLE_FLAG
#: The header word of xentrace's CPU-change record: the event, two extra words, no cycles.
_CHUNK_HEADER = _CPU_CHANGE | (2 << 28)
_CHUNK = Struct("<IiI")              # header, cpu (int), window size in bytes

_DOMID_IDLE = 0x7FFF                 # xen/include/public/xen.h
# The runstates 0 to 3, xen/include/public/vcpu.h; a change has the old one in bits 8-11 of
# its event id and the new one in bits 4-7 (trace_runstate_change, xen/common/sched/core.c).
_STATES = ("running", "runnable", "blocked", "offline")

_SWAP = sys.byteorder != "little"
_WORD = next(code for code in "IL" if array(code).itemsize == 4)  # an unsigned 32-bit word
_HEADER_CACHE = 4096                 # chunk headers remembered for the cursors' skips
_NS = 1_000_000_000

# The kinds of item a pCPU's cursor yields.
_PREEMPTED, _STOPPED, _WOKEN = 0, 1, 2

_XENTRACE_E = "trace the whole TRC_SCHED class (xentrace's default, or -e 0x0002f000)"


def is_xentrace(first_bytes: bytes) -> bool:
    """Whether *first_bytes*, the start of a file, can begin a ``xentrace`` capture.

    ``xentrace`` writes a CPU-change record before every chunk, so a file
    begins with one: the word ``0x2001f003`` (little-endian ``03 f0 01 20``),
    a pCPU number below :data:`MAX_CPUS` and a window size, a positive
    multiple of 4.  Those 12 bytes are not UTF-8 (``0xf0`` must be followed by
    continuation bytes), so neither ftrace text nor JSON Lines can begin so;
    nor can trace-cmd's ``trace.dat`` (``17 08 44 'tracing'``).
    """
    if len(first_bytes) < _CHUNK.size:
        return False
    header, cpu, window = _CHUNK.unpack_from(first_bytes)
    return bool(header == _CHUNK_HEADER and 0 <= cpu < MAX_CPUS and window > 0
                and window % 4 == 0)


def read_xentrace(stream: BinaryIO, *, path: str, cpu_hz: int,
                  tally: Tally | None = None) -> Iterator[SchedEvent]:
    """The scheduler events of the ``xentrace`` capture *stream*, in time order.

    :param stream: the capture, opened in binary; it is read by seeking, from
        its start, so it must be seekable.
    :param path: the capture's name, for ``where`` and error messages.
    :param cpu_hz: the cycle counter's frequency in Hz (``xl info``'s
        ``cpu_mhz`` times 10**6, e.g. ``2_394_455_000``), at least 1 MHz.
    :param tally: if given, its ``records`` counts the records read.
    :returns: an iterator of :class:`~akita.trace.kernel.SchedEvent`; it reads
        *stream* only as it is advanced.
    :raises ModelError: at once, if *cpu_hz* is not an integer of at least 10**6.
    :raises KernelTraceError: at once, if *stream* cannot seek; while
        iterating, for anything the module's docstring lists.
    """
    if not isinstance(cpu_hz, int) or isinstance(cpu_hz, bool) or cpu_hz < 10**6:
        raise ModelError("cpu_hz", cpu_hz, "the cycle counter's frequency as an integer "
                         "number of Hz, at least 10**6 (xl info's cpu_mhz x 10**6)")
    if not stream.seekable():
        raise KernelTraceError("stream", "a stream that cannot seek",
                               "a seekable file (a pCPU's chunks are read by seeking: "
                               "save a pipe to a file first)", path=f"{path}@0x0")
    return _events(_Capture(stream, path), cpu_hz, Tally() if tally is None else tally)


class _Capture:
    """The capture file: blocks read by offset, and its chunks found by their headers."""

    __slots__ = ("stream", "path", "size", "_headers")

    def __init__(self, stream: BinaryIO, path: str) -> None:
        self.stream = stream
        self.path = path
        self.size = stream.seek(0, 2)
        self._headers: dict[int, tuple[int, int]] = {}

    def where(self, offset: int) -> str:
        return f"{self.path}@0x{offset:x}"

    def read(self, offset: int, count: int) -> bytes:
        self.stream.seek(offset)
        data = self.stream.read(count)
        if len(data) != count:
            raise KernelTraceError("file", f"{len(data)} bytes at 0x{offset:x}",
                                   f"{count} bytes (the file changed while it was read)",
                                   path=self.where(offset))
        return data

    def first_chunks(self) -> dict[int, int]:
        """Every pCPU's first chunk (its offset), the headers checked to tile the file."""
        first: dict[int, int] = {}
        offset = 0
        while offset < self.size:
            cpu, window = self._header(offset)
            first.setdefault(cpu, offset)
            offset += _CHUNK.size + window
        return first

    def chunk(self, offset: int) -> tuple[int, int]:
        """The pCPU and window size of the chunk at *offset*, remembered for a while."""
        found = self._headers.get(offset)
        if found is None:
            found = self._header(offset)
            if len(self._headers) >= _HEADER_CACHE:
                del self._headers[next(iter(self._headers))]
            self._headers[offset] = found
        return found

    def next_chunk(self, cpu: int, offset: int) -> int | None:
        """The offset of *cpu*'s first chunk at or after *offset*, a chunk's start."""
        while offset < self.size:
            owner, window = self.chunk(offset)
            if owner == cpu:
                return offset
            offset += _CHUNK.size + window
        return None

    def _header(self, offset: int) -> tuple[int, int]:
        where = self.where(offset)
        if offset + _CHUNK.size > self.size:
            raise KernelTraceError("TRC_TRACE_CPU_CHANGE", f"{self.size - offset} bytes",
                                   "a 12-byte CPU-change record (the file is cut short)",
                                   path=where)
        header, cpu, window = _CHUNK.unpack(self.read(offset, _CHUNK.size))
        if header != _CHUNK_HEADER:
            raise KernelTraceError("TRC_TRACE_CPU_CHANGE", f"0x{header:08x}",
                                   f"a chunk's CPU-change header word 0x{_CHUNK_HEADER:08x} "
                                   "(xentrace writes one before each pCPU's window)", path=where)
        if not 0 <= cpu < MAX_CPUS:
            raise KernelTraceError("cpu", cpu, f"a pCPU number from 0 to {MAX_CPUS - 1}",
                                   path=where)
        end = offset + _CHUNK.size + window
        if window == 0 or window % 4 or end > self.size:
            raise KernelTraceError("window_size", window,
                                   f"a positive number of whole 4-byte words within the file "
                                   f"(at most {self.size - offset - _CHUNK.size} bytes)",
                                   path=where)
        return cpu, window


#: What a pCPU's cursor yields, ordered by the first three: ``(tsc, cpu, offset, code, a, b)``.
_Item = tuple[int, int, int, int, int, int]


class _Tasks(dict[int, "Task | None"]):
    """vCPU word ``dom << 16 | vcpu`` -> its task, made on first use (``None``: the idle domain)."""

    def __missing__(self, vcpu: int) -> Task | None:
        dom = vcpu >> 16
        name = f"d{dom}v{vcpu & 0xFFFF}"
        task = self[vcpu] = None if dom == _DOMID_IDLE else Task(pid=name, comm=name)
        return task


def _events(capture: _Capture, cpu_hz: int, tally: Tally) -> Iterator[SchedEvent]:
    """The merge of every pCPU's records by time, as :class:`SchedEvent`."""
    firsts: list[int] = []  # each pCPU's first cycle count
    lasts: dict[int, int] = {}  # the last cycle count of each pCPU whose records are all read
    cursors: dict[int, Iterator[_Item]] = {}
    heap: list[_Item] = []
    for cpu, chunk in capture.first_chunks().items():
        cursor = cursors[cpu] = _cpu_records(capture, cpu, chunk, firsts, lasts, tally)
        head = next(cursor, None)
        if head is not None:
            heap.append(head)
    if not heap:
        return
    heapq.heapify(heap)
    origin = min(firsts)
    path = capture.path
    tasks = _Tasks()
    last_cpu: dict[int, int] = {}   # vCPU -> the pCPU it last ran on
    running: dict[int, tuple[int, int]] = {}  # vCPU -> (pCPU, offset) while it runs there
    line = 0
    while heap:
        tsc, cpu, offset, code, a, b = heap[0]
        head = next(cursors[cpu], None)
        if head is None:
            heapq.heappop(heap)
        else:
            heapq.heapreplace(heap, head)
        ns = (tsc - origin) * _NS // cpu_hz
        where = f"{path}@0x{offset:x}"
        line += 1
        if code == _WOKEN:
            yield SchedEvent(ns, cpu, "wakeup", where, line, task=tasks[a],
                             target_cpu=last_cpu.get(a))
            continue
        nxt = tasks[b]
        if nxt is not None:
            other = running.get(b)
            if other is not None and other[0] != cpu:
                _two_pcpus(capture, b, cpu, tsc, offset, other, lasts)
            running[b] = (cpu, offset)
            moved_from = last_cpu.get(b)
            last_cpu[b] = cpu
            if moved_from is not None and moved_from != cpu:
                yield SchedEvent(ns, moved_from, "migrate", where, line, task=nxt,
                                 target_cpu=cpu)
                line += 1
        if a >> 16 != _DOMID_IDLE:
            last_cpu[a] = cpu
            if running.get(a, (cpu,))[0] == cpu:
                running.pop(a, None)
        yield SchedEvent(ns, cpu, "switch", where, line, prev=tasks[a],
                         prev_runnable=code == _PREEMPTED, next=nxt)


def _two_pcpus(capture: _Capture, vcpu: int, cpu: int, tsc: int, offset: int,
               other: tuple[int, int], lasts: dict[int, int]) -> NoReturn:
    """Refuse *vcpu* switched in on *cpu* at *tsc* while it runs on the pCPU *other* names.

    *lasts* has the last cycle count of the pCPUs whose records are all read.
    """
    name = f"d{vcpu >> 16}v{vcpu & 0xFFFF}"
    why = (f"pCPU {other[0]}'s records end before this switch: the file is cut short, or "
           "xentrace was stopped without disabling tracing (-x)"
           if lasts.get(other[0], tsc) < tsc else
           "the pCPUs' cycle counters are not synchronized (TSC skew)")
    raise KernelTraceError(
        "TRC_SCHED_SWITCH", f"{name} switched in on pCPU {cpu}",
        f"a vCPU switched out of pCPU {other[0]} (where it was switched in at "
        f"0x{other[1]:x}) before it runs on another; {why}", path=capture.where(offset))


def _cpu_records(capture: _Capture, cpu: int, chunk: int, firsts: list[int],
                 lasts: dict[int, int], tally: Tally) -> Iterator[_Item]:
    """The records of one pCPU the merge needs, in its order.

    An item's *code* is ``_PREEMPTED`` or ``_STOPPED`` for a switch (*a*, *b*
    the previous and next vCPU words), ``_WOKEN`` for a wakeup (*a* the
    vCPU).  The pCPU's first cycle count is appended to *firsts*; its last is
    put in *lasts* once all its records are read.
    """
    last = -1
    pending: tuple[int, int, int, int] | None = None  # a switch: (tsc, offset, prev, next)
    current: int | None = chunk
    while current is not None:
        window = capture.chunk(current)[1]
        tally.records += 1
        pos = current + _CHUNK.size
        end = pos + window
        words = array(_WORD)  # the block, after the words of a record the last one cut
        while pos < end:
            count = min(BLOCK_BYTES, end - pos)
            base = pos - 4 * len(words)
            _extend(words, capture.read(pos, count))
            pos += count
            n = len(words)
            i = 0
            done = 0
            while i < n:
                h = words[i]
                size = (h >> 28 & 7) + (3 if h & _CYCLES else 1)
                if i + size > n:
                    break
                done += 1
                event = h & _EVENT_MASK
                if h & _CYCLES:
                    tsc = words[i + 1] | words[i + 2] << 32
                    if tsc < last:
                        _backwards(capture, cpu, base + 4 * i, tsc, last)
                    if last < 0:
                        firsts.append(tsc)
                    last = tsc
                    at = i + 3
                else:
                    tsc = -1
                    at = i + 1
                if event == _LOST_RECORDS or event == _CPU_CHANGE:
                    _refuse_record(capture, cpu, base + 4 * i, words, at, h, event)
                elif pending is not None:
                    if event == _WRAP_BUFFER:
                        pass
                    elif (event & _RUNSTATE_MASK == _RUNSTATE_CHANGE and event & 0xFC0 == 0
                          and event & 0x30 and tsc >= 0 and size > 3 and words[at] == pending[2]):
                        # the previous vCPU's change from running (0): to runnable (1) or not
                        code = _PREEMPTED if event & 0x30 == 0x10 else _STOPPED
                        yield (pending[0], cpu, pending[1], code, pending[2], pending[3])
                        pending = None
                    else:
                        _not_after_switch(capture, cpu, pending, words, at, h, event, tsc)
                elif event == _SWITCH:
                    if tsc < 0 or size < 7:
                        _unusable(capture, base + 4 * i, "TRC_SCHED_SWITCH", h, tsc, 4)
                    prev_dom, prev_vcpu = words[at], words[at + 1]
                    next_dom, next_vcpu = words[at + 2], words[at + 3]
                    if prev_dom | prev_vcpu | next_dom | next_vcpu > 0xFFFF:
                        _wide_ids(capture, base + 4 * i, prev_dom, prev_vcpu, next_dom, next_vcpu)
                    pending = (tsc, base + 4 * i, prev_dom << 16 | prev_vcpu,
                               next_dom << 16 | next_vcpu)
                elif event & _RUNSTATE_MASK == _RUNSTATE_CHANGE:
                    if tsc < 0 or size < 4 or event & 0xCC0:
                        _bad_runstate(capture, base + 4 * i, h, event, tsc)
                    # blocked (2) or offline (3) to runnable (1): a wakeup
                    if event & 0xEF0 == 0x210 and words[at] >> 16 != _DOMID_IDLE:
                        yield (tsc, cpu, base + 4 * i, _WOKEN, words[at], 0)
                i += size
            tally.records += done
            if pos >= end and i < n:
                _cut(capture, cpu, base + 4 * i, words[i], n - i, end)
            del words[:i]
        current = capture.next_chunk(cpu, end)
    lasts[cpu] = last
    if pending is not None:
        raise KernelTraceError(
            "TRC_SCHED_SWITCH", "the end of the trace",
            f"the runstate change of the previous vCPU after pCPU {cpu}'s last switch (the "
            "trace stopped between the two records; it cannot say whether that vCPU blocked)",
            path=capture.where(pending[1]))


def _extend(words: array[int], data: bytes) -> None:
    """Append the little-endian words of *data* to *words*."""
    if _SWAP:
        fresh = array(_WORD, data)
        fresh.byteswap()
        words.extend(fresh)
    else:
        words.frombytes(data)


# -- refusals (each raises) ---------------------------------------------------------------------


def _cut(capture: _Capture, cpu: int, offset: int, h: int, left: int, end: int) -> NoReturn:
    size = 4 * (h >> 28 & 7) + (12 if h & _CYCLES else 4)
    raise KernelTraceError("record", f"a record of {size} bytes (header 0x{h:08x}) with "
                           f"{4 * left} left", f"records that end with pCPU {cpu}'s window "
                           f"at 0x{end:x}", path=capture.where(offset))


def _backwards(capture: _Capture, cpu: int, offset: int, tsc: int, last: int) -> NoReturn:
    raise KernelTraceError("tsc", tsc, f"a cycle count at or after pCPU {cpu}'s previous "
                           f"one, {last} (each pCPU's records are in order)",
                           path=capture.where(offset))


def _unusable(capture: _Capture, offset: int, name: str, h: int, tsc: int,
              least: int) -> NoReturn:
    """Refuse a record the reader uses for lack of a cycle count or of words."""
    if tsc < 0:
        raise KernelTraceError(name, f"a record without a cycle count (0x{h:08x})",
                               "a record with one: the oracle needs times",
                               path=capture.where(offset))
    raise KernelTraceError(name, f"{h >> 28 & 7} extra words", f"at least {least}",
                           path=capture.where(offset))


def _wide_ids(capture: _Capture, offset: int, *ids: int) -> NoReturn:
    raise KernelTraceError("TRC_SCHED_SWITCH", "d{}v{} -> d{}v{}".format(*ids),
                           "domain and vCPU ids of 16 bits", path=capture.where(offset))


def _bad_runstate(capture: _Capture, offset: int, h: int, event: int, tsc: int) -> NoReturn:
    """Refuse a runstate change without a cycle count, a word, or valid states."""
    if tsc < 0 or not h >> 28 & 7:
        _unusable(capture, offset, "TRC_SCHED_RUNSTATE_CHANGE", h, tsc, 1)
    raise KernelTraceError("TRC_SCHED_RUNSTATE_CHANGE", f"0x{event:08x}",
                           "old and new states from 0 (running) to 3 (offline)",
                           path=capture.where(offset))


def _not_after_switch(capture: _Capture, cpu: int, pending: tuple[int, int, int, int],
                      words: array[int], at: int, h: int, event: int, tsc: int) -> NoReturn:
    """Refuse the switch *pending*: the next record is not its previous vCPU's runstate change.

    *at* indexes that record's data in *words*; *h*, *event* and *tsc* are its header
    word, event id and cycle count (``-1``: none).
    """
    offset, prev = pending[1], pending[2]
    expected = (f"the runstate change of d{prev >> 16}v{prev & 0xFFFF} from running as pCPU "
                f"{cpu}'s next record (xen/common/sched/core.c writes it right after the "
                f"switch; {_XENTRACE_E}, with sched-gran=cpu)")
    if event & _RUNSTATE_MASK != _RUNSTATE_CHANGE:
        raise KernelTraceError("TRC_SCHED_SWITCH", f"event 0x{event:08x} next", expected,
                               path=capture.where(offset))
    if tsc < 0 or not h >> 28 & 7 or event & 0xCC0:
        _bad_runstate(capture, offset, h, event, tsc)
    vcpu, old, new = words[at], event >> 8 & 0xF, event >> 4 & 0xF
    got = f"d{vcpu >> 16}v{vcpu & 0xFFFF} {_STATES[old]} -> {_STATES[new]} next"
    raise KernelTraceError("TRC_SCHED_SWITCH", got, expected, path=capture.where(offset))


def _refuse_record(capture: _Capture, cpu: int, offset: int, words: array[int], data: int, h: int,
                   event: int) -> NoReturn:
    """Refuse a ``TRC_LOST_RECORDS`` record, or a CPU-change record inside a window."""
    if event == _CPU_CHANGE:
        raise KernelTraceError("record", f"a CPU-change record inside pCPU {cpu}'s window",
                               "Xen's records (xentrace writes CPU-change records only "
                               "between windows)", path=capture.where(offset))
    lost = f"{words[data]} records" if h >> 28 & 7 else "records"
    raise KernelTraceError("TRC_LOST_RECORDS", f"{lost} lost on pCPU {cpu}",
                           "a complete trace (events were lost: enlarge the buffer with "
                           "xentrace -S)", path=capture.where(offset))

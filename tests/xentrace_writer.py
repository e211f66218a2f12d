"""Writing ``xentrace`` captures for the tests, laid out as Xen and ``xentrace`` lay them out.

No Xen runs here, so the tests make their captures.  This writer follows the
sources, not the reader (it shares none of its code or constants):

* a record is ``struct t_rec`` of ``xen/include/public/trace.h``: a header
  word (event id in bits 0-27, the number of extra words in bits 28-30, bit
  31 set when a cycle count follows), the cycle count as a low and a high
  word, then the extra words, all little-endian;
* the scheduler writes, per ``xen/common/sched/core.c``: in
  ``sched_switch_units`` ``TRC_SCHED_SWITCH_INFPREV``,
  ``TRC_SCHED_SWITCH_INFNEXT``, ``TRC_SCHED_SWITCH`` (prev dom, prev vcpu, next
  dom, next vcpu), then the previous vCPU's runstate change from running and
  the next one's to running; in ``vcpu_wake`` ``TRC_SCHED_WAKE`` and, if the
  vCPU was blocked or offline, its change to runnable; in ``vcpu_block``
  ``TRC_SCHED_BLOCK``.  A runstate change is event ``0x00021001 | old << 8 |
  new << 4`` with one word, ``dom << 16 | vcpu``;
* ``xentrace`` (``tools/xentrace/xentrace.c``, ``monitor_tbufs``) visits the
  pCPUs in order and writes each one's new records as a chunk: the
  CPU-change record ``0x2001f003``, the pCPU, the window's size in bytes, then
  the records.

The idle domain is 0x7FFF and its vCPU on pCPU *c* is vCPU *c*.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

TRC_LOST_RECORDS = 0x0001F001
TRC_TRACE_WRAP_BUFFER = 0x0001F002
TRC_TRACE_CPU_CHANGE = 0x0001F003
TRC_SCHED_RUNSTATE_CHANGE = 0x00021001
TRC_SCHED_CONTINUE_RUNNING = 0x00021002
TRC_SCHED_SLEEP = 0x00028003
TRC_SCHED_WAKE = 0x00028004
TRC_SCHED_YIELD = 0x00028005
TRC_SCHED_BLOCK = 0x00028006
TRC_SCHED_SWITCH = 0x0002800A
TRC_SCHED_SWITCH_INFPREV = 0x0002800E
TRC_SCHED_SWITCH_INFNEXT = 0x0002800F
TRC_HVM_VMENTRY = 0x00081001

RUNNING, RUNNABLE, BLOCKED, OFFLINE = 0, 1, 2, 3
IDLE = 0x7FFF

VCpu = tuple[int, int]  # (domain, vcpu)


def record(event: int, *extra: int, tsc: int | None = None) -> bytes:
    """One ``struct t_rec``: *event* with *extra* words, and the cycle count *tsc* if given."""
    assert len(extra) <= 7 and event < 1 << 28
    header = event | len(extra) << 28 | (1 << 31 if tsc is not None else 0)
    words = [header] + ([tsc & 0xFFFFFFFF, tsc >> 32] if tsc is not None else []) + list(extra)
    return struct.pack(f"<{len(words)}I", *words)


def runstate(who: VCpu, old: int, new: int, tsc: int | None) -> bytes:
    """A ``TRC_SCHED_RUNSTATE_CHANGE`` of *who* from *old* to *new*."""
    return record(TRC_SCHED_RUNSTATE_CHANGE | old << 8 | new << 4, who[0] << 16 | who[1], tsc=tsc)


def chunk(cpu: int, records: Iterable[bytes]) -> bytes:
    """A chunk of ``xentrace``: the CPU-change record, then the window of *records*."""
    window = b"".join(records)
    return struct.pack("<IiI", TRC_TRACE_CPU_CHANGE | 2 << 28, cpu, len(window)) + window


class Xen:
    """Xen's per-pCPU trace buffers, filled as the scheduler's trace points fill them.

    Each method appends a trace point's records to the buffer of the pCPU
    that executes it; :meth:`poll` drains the buffers as one round of
    ``xentrace``'s loop does.  A switch's ``TRC_SCHED_SWITCH`` has the cycle
    count *tsc* given (the ``INFPREV``/``INFNEXT`` records just before it, the
    runstate changes just after); a wakeup's runstate change has *tsc*.
    """

    def __init__(self, cpus: int) -> None:
        self.buffers: list[list[bytes]] = [[] for _ in range(cpus)]

    def raw(self, cpu: int, data: bytes) -> None:
        self.buffers[cpu].append(data)

    def switch(self, cpu: int, tsc: int, prev: VCpu | None, prev_state: int,
               nxt: VCpu | None) -> None:
        """``sched_switch_units``: *prev* (``None``: idle) leaves *cpu*, in *prev_state*, for *nxt*.
        """
        p = prev if prev is not None else (IDLE, cpu)
        n = nxt if nxt is not None else (IDLE, cpu)
        state = prev_state if prev is not None else RUNNABLE  # the idle vCPU is always runnable
        for data in (
            record(TRC_SCHED_SWITCH_INFPREV, p[0], p[1], 1000, tsc=tsc - 2),
            record(TRC_SCHED_SWITCH_INFNEXT, n[0], n[1], 0, 0xFFFFFFFF, tsc=tsc - 1),
            record(TRC_SCHED_SWITCH, p[0], p[1], n[0], n[1], tsc=tsc),
            runstate(p, RUNNING, state, tsc + 1),
            runstate(n, RUNNABLE, RUNNING, tsc + 2),
        ):
            self.raw(cpu, data)

    def wake(self, cpu: int, tsc: int, who: VCpu, old: int = BLOCKED) -> None:
        """``vcpu_wake`` run on *cpu*: *who* becomes runnable from *old*."""
        self.raw(cpu, record(TRC_SCHED_WAKE, who[0], who[1], tsc=tsc - 1))
        self.raw(cpu, runstate(who, old, RUNNABLE, tsc))

    def block(self, cpu: int, tsc: int, who: VCpu) -> None:
        """``vcpu_block``: *who*, running on *cpu*, asks to block."""
        self.raw(cpu, record(TRC_SCHED_BLOCK, who[0], who[1], tsc=tsc))

    def poll(self, order: Iterable[int] | None = None) -> bytes:
        """One round of ``xentrace``: a chunk per pCPU with new records, in pCPU order."""
        out = []
        for cpu in range(len(self.buffers)) if order is None else order:
            if self.buffers[cpu]:
                out.append(chunk(cpu, self.buffers[cpu]))
                self.buffers[cpu] = []
        return b"".join(out)

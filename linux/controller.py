"""The controller: Akita's rules R2, R5, R6, R8 and R9 carried out over Linux's scheduling classes.

Linux's ``SCHED_DEADLINE`` is a constant-bandwidth server (CBS) under EDF
(Documentation/scheduler/sched-deadline.rst): a task with runtime ``Q``,
relative deadline ``D`` and period ``P`` gets ``Q`` every ``P`` and is
ordered by its absolute deadline.  That is R2's periodic server and R4's
order, so in LO mode the kernel does the scheduling itself:

* a LO vCPU is a deadline task with ``(Q, D, P) = (C_opt, T, T)``;
* a HI vCPU is a deadline task with ``(C_opt, floor(x T), T)``: its absolute
  deadline is R2's virtual deadline ``s + x T``, and its runtime is
  ``C_opt``, because in LO mode it never runs past ``C_opt`` -- R5 switches
  the pCPU to HI mode right there.

Each vCPU enters the deadline class at its own period start ``T0 + p``
(:attr:`Controller.origin` plus its VM's phase), so that the kernel's period
grid is R2's.  The controller does the rest, by the rules:

R5 (LO to HI)
   A HI vCPU's consumption in its period is read from the kernel's own
   per-task accounting (``/proc/<tid>/schedstat``, the CFS/DL
   ``sum_exec_runtime``) at the instant it could first reach ``C_opt`` (a
   timer re-armed for the budget still unused); when it has consumed
   ``C_opt`` and is still runnable (consumed more than ``C_opt``, or in
   state ``R``: the kernel throttles it at ``C_opt``), it asks: its
   temperature is set to the initial one and the pCPU goes to HI mode.
HI mode (R6, R7)
   The LO vCPUs leave the deadline class for ``SCHED_OTHER`` (they run only
   when no HI vCPU is runnable) and every HI vCPU becomes ``SCHED_FIFO``,
   priorities by period (shortest highest, then host order).  The kernel
   cannot raise a HI vCPU to ``C_pes`` inside the deadline class at the
   switch: its admission keeps the LO vCPUs' bandwidth reserved until their
   0-lag time and refuses (``EBUSY``) a reservation of ``U1 + U3 > 1 -
   fair server`` (:doc:`/linux`, measured).
Past the virtual deadline (R2, R4)
   A HI vCPU that has not asked by its virtual deadline ``s + x T`` in LO
   mode leaves the deadline class for ``SCHED_FIFO`` (its HI-mode priority)
   for the rest of its period and rejoins it at its next period start.  R2
   keeps its budget to ``s + T`` and R4 runs it first there (its key is
   past, every other key is later), but the kernel throttles a
   constrained-deadline task that wakes after its deadline until its next
   period (``dl_check_constrained_dl``, kernel/sched/deadline.c): a request
   arriving after ``s + x T`` would wait to ``s + T``.  ``SCHED_FIFO`` runs
   it below the deadline class, behind the LO vCPUs that still hold
   runtime: the ``akita-linux`` rule set's L8 (decision 310).  It is moved
   only while runnable; asleep at its virtual deadline, when it wakes: a
   deadline task that leaves the class asleep keeps its bandwidth in the
   root domain's account (measured, decision 312).
R8, R9 (cooling)
   At each HI vCPU's period start its temperature drops by one if it did
   not ask in the period just ended; when no HI vCPU of the pCPU is warm,
   the pCPU returns to LO mode, and each vCPU rejoins the deadline class at
   its own next period start (so that its kernel grid stays R2's).

Every mode and temperature the controller decides is written to the
tracing instance's ``trace_marker`` (``akita: mode pcpu=0 HI``), so the
oracle checks them (:mod:`akita.oracle.linux_rules`).

A *variant* makes the controller deliberately wrong, for the oracle to name
(``no-switch``: R5 never acted on; ``no-cooling``: temperatures never drop,
so HI mode never ends; ``lo-in-deadline``: HI mode leaves the LO vCPUs in
the deadline class; ``throttle-past-vd``: a HI vCPU stays in the deadline
class past its virtual deadline, where the kernel throttles it, as before
decision 310).  They are the Linux side of the one catalogue of wrong
variants (:data:`akita.model.variants.WRONG_VARIANTS`), which gives each its
rule; the controller adds only its own way of being wrong.
"""

from __future__ import annotations

import heapq
import time
from fractions import Fraction
from typing import Callable, Protocol, Sequence

import attrs

from akita.model.errors import ParameterError
from akita.model.variants import LINUX, carried_by

__all__ = ["VARIANTS", "Kernel", "VcpuState", "Controller", "FIFO_TOP"]

#: The controller's deliberately wrong variants, by the names the controller gives them
#: (``no-switch``, ``no-cooling``, ``lo-in-deadline``, ``throttle-past-vd``): the entries of
#: the catalogue (:func:`akita.model.variants.carried_by`) with the Linux side; and
#: ``"correct"`` first.
VARIANTS: tuple[str, ...] = ("correct", *(v.name_on(LINUX) for v in carried_by(LINUX)))
#: The SCHED_FIFO priority of the HI vCPU with the shortest period in HI mode.
FIFO_TOP = 50
#: The shortest re-check of a HI vCPU's consumption (ns): the polling's floor.
MIN_CHECK_NS = 100_000
#: Before a period start (a vCPU joining the deadline class, R8's cooling) the controller
#: sleeps until this long (ns) before it and spins the rest: a sleeping task's wake-up on this
#: nested machine is 100-700 us late, which made a vCPU's joining (and so its first dispatch)
#: late past the oracle's tolerance.  Only there: spinning before every timer (R5's checks
#: come every 100 us near ``C_opt``) took the spare CPU from the guests' client (decision 348).
SPIN_NS = 1_000_000

__rules__ = {
    "R2": ("Controller._rejoin", "Controller._past_vd", "deadline_params"),
    "R5": ("Controller._check", "Controller._to_hi"),
    "R6": ("Controller._to_hi",),
    "R7": ("Controller._to_hi",),
    "R8": ("Controller._period_start",),
    "R9": ("Controller._cool",),
}


class Kernel(Protocol):
    """What the controller asks of the kernel (:class:`akita.linux.run.LinuxKernel`)."""

    def deadline(self, v: "VcpuState", runtime: int, deadline: int, period: int) -> None: ...

    def fifo(self, v: "VcpuState", priority: int) -> None: ...

    def other(self, v: "VcpuState") -> None: ...

    def consumed(self, v: "VcpuState") -> int: ...

    def runnable(self, v: "VcpuState") -> bool: ...

    def mark(self, text: str) -> None: ...


@attrs.define
class VcpuState:
    """One vCPU as the controller keeps it."""

    name: str
    pcpu: int
    order: int
    hi: bool
    tid: int
    period: int
    phase: int
    c_opt: int
    x: Fraction
    temperature: int = 0
    asked: bool = False
    in_deadline: bool = False
    base: int = 0
    release: int = 0
    #: (consumed ns, mono ns) of the last check that found C_opt not yet reached.
    last_check: tuple[int, int] = (0, 0)
    #: when its one pending consumption check is due (R5), if any.
    check_at: int | None = None


def deadline_params(v: VcpuState) -> tuple[int, int, int]:
    """R2 in the kernel's terms: ``(runtime, deadline, period)`` in ns for LO mode."""
    if v.hi:
        return v.c_opt, int(v.x * v.period), v.period  # floor(x T): a whole ns
    return v.c_opt, v.period, v.period


@attrs.define
class Switch:
    """One LO-to-HI switch: when the controller saw ``C_opt`` reached, and when it acted."""

    vcpu: str
    seen: int
    done: int
    consumed: int


class Controller:
    """Run the vCPUs of the pCPUs *cpus* (lists of :class:`VcpuState`) by the rules."""

    def __init__(self, vcpus: Sequence[VcpuState], kernel: Kernel, *, origin: int,
                 initial_temperature: int = 2, variant: str = "correct",
                 clock: Callable[[], int] | None = None,
                 sleep: Callable[[float], None] | None = None) -> None:
        if variant not in VARIANTS:
            raise ParameterError("variant", variant, f"one of {', '.join(VARIANTS)}")
        self.vcpus = list(vcpus)
        self.kernel = kernel
        self.origin = origin
        self.theta0 = initial_temperature
        self.variant = variant
        self.hi_mode: dict[int, bool] = {v.pcpu: False for v in self.vcpus}
        self.clock = clock or (lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC))
        self.sleep = sleep or time.sleep
        self._timers: list[tuple[int, int, str, VcpuState]] = []
        self._seq = 0
        self.switches: list[Switch] = []
        self.returns = 0
        #: how late (ns) each vCPU joined the deadline class after its period start.
        self.join_lateness: list[int] = []
        hi = sorted((v for v in self.vcpus if v.hi), key=lambda v: (v.period, v.order))
        self.priority = {v.name: FIFO_TOP - rank for rank, v in enumerate(hi)}
        for v in self.vcpus:
            v.release = origin + v.phase - v.period
            self._arm(origin + v.phase, "period", v)

    def _arm(self, at: int, kind: str, v: VcpuState) -> None:
        if kind == "check":
            v.check_at = at
        self._seq += 1
        heapq.heappush(self._timers, (at, self._seq, kind, v))

    def run(self, until: int) -> None:
        """Carry out the rules until mono time *until* (ns)."""
        while True:
            at, kind = (self._timers[0][0], self._timers[0][2]) if self._timers else (until, "")
            now = self.clock()
            if now >= until:
                return
            if at > now:  # before a period start: sleep to SPIN_NS before it, then spin
                lead = SPIN_NS if kind == "period" else 0
                if min(at, until) - now > lead:
                    self.sleep((min(at, until) - now - lead) / 1e9)
                continue
            self.step(now)

    def step(self, now: int) -> None:
        """Everything due at or before *now*, instant by instant: at each, the period starts
        first (R2, R8), then R9, then the vCPUs joining, then the consumption checks (R5),
        then the virtual deadlines passed (L8)."""
        while self._timers and self._timers[0][0] <= now:
            self._instant(self._timers[0][0], now)

    def _instant(self, instant: int, now: int) -> None:
        starts: list[tuple[int, VcpuState]] = []
        checks: list[tuple[int, VcpuState]] = []
        vds: list[VcpuState] = []
        while self._timers and self._timers[0][0] == instant:
            at, _, kind, v = heapq.heappop(self._timers)
            if kind == "period":
                starts.append((at, v))
            elif kind == "vd":
                vds.append(v)
            elif v.check_at == at:
                v.check_at = None
                checks.append((at, v))
        for at, v in starts:
            self._period_start(v, at)
        for pcpu in sorted({v.pcpu for _, v in starts if v.hi}):
            self._cool(pcpu)
        for at, v in starts:
            if not self.hi_mode[v.pcpu] and not v.in_deadline:
                self._rejoin(v)
                self.join_lateness.append(self.clock() - at)
        for at, v in checks:
            if v.release + v.period > at:  # still the period the check was armed in
                self._check(v, now)
        for v in vds:
            self._past_vd(v, now)

    # -- the rules ---------------------------------------------------------------------

    def _period_start(self, v: VcpuState, s: int) -> None:
        """R2's period start for the controller's account; R8 for a HI vCPU."""
        v.release = s
        self._arm(s + v.period, "period", v)
        if not v.hi:
            return
        if (s > self.origin + v.phase and v.temperature > 0 and not v.asked
                and self.variant != "no-cooling"):
            v.temperature -= 1
            self._temperature(v)
        v.asked = False
        v.base = self.kernel.consumed(v)
        v.last_check = (0, s)
        self._arm(s + v.c_opt, "check", v)
        self._arm(s + deadline_params(v)[1], "vd", v)

    def _cool(self, pcpu: int) -> None:
        """R9: back to LO mode when no HI vCPU of *pcpu* is warm."""
        if not self.hi_mode[pcpu] or self.variant == "no-cooling":
            return
        if any(v.temperature > 0 for v in self.vcpus if v.pcpu == pcpu and v.hi):
            return
        self.hi_mode[pcpu] = False
        self.returns += 1
        self.kernel.mark(f"akita: mode pcpu={pcpu} LO")

    def _rejoin(self, v: VcpuState) -> None:
        """A vCPU enters the deadline class at its own period start (R2's grid)."""
        self.kernel.deadline(v, *deadline_params(v))
        v.in_deadline = True

    def _past_vd(self, v: VcpuState, now: int) -> None:
        """R2, R4 past the virtual deadline: a HI vCPU that has not asked in LO mode leaves
        the deadline class for SCHED_FIFO until its next period start (L8, decision 310).

        Only while runnable: a deadline task that leaves the class asleep keeps its
        bandwidth in the root domain's account until the domain is rebuilt (measured:
        decision 312), so that its rejoining is refused after a few periods.  Asleep at its
        virtual deadline, it is looked at again every :data:`MIN_CHECK_NS` until it wakes
        (the kernel throttles it then, L7) or its period ends."""
        if (self.hi_mode[v.pcpu] or not v.in_deadline or v.asked
                or self.variant == "throttle-past-vd"):
            return
        if not self.kernel.runnable(v):
            if now + MIN_CHECK_NS < v.release + v.period:
                self._arm(now + MIN_CHECK_NS, "vd", v)
            return
        self.kernel.fifo(v, self.priority[v.name])
        v.in_deadline = False

    def _check(self, v: VcpuState, now: int) -> None:
        """R5: has *v* consumed ``C_opt`` in its period while runnable?"""
        used = self.kernel.consumed(v) - v.base
        if used < v.c_opt or (used == v.c_opt and not self.kernel.runnable(v)):
            v.last_check = (used, now)
            left = max(v.c_opt - used, MIN_CHECK_NS)
            if now + left < v.release + v.period:
                self._arm(now + left, "check", v)
            return
        if self.variant == "no-switch":
            return
        v.asked = True
        v.temperature = self.theta0
        self._temperature(v)  # at every ask, changed or not: the oracle's L6 reads it
        if not self.hi_mode[v.pcpu]:
            self._to_hi(v.pcpu)
            self.switches.append(Switch(v.name, now, self.clock(), used))

    def _to_hi(self, pcpu: int) -> None:
        """HI mode on *pcpu*: LO vCPUs to SCHED_OTHER, HI vCPUs to SCHED_FIFO (R6, R7)."""
        self.hi_mode[pcpu] = True
        self.kernel.mark(f"akita: mode pcpu={pcpu} HI")  # the decision, before its 4+ calls
        here = [v for v in self.vcpus if v.pcpu == pcpu]
        for v in here:
            if v.hi:
                self.kernel.fifo(v, self.priority[v.name])
                v.in_deadline = False
        for v in here:
            if not v.hi and self.variant != "lo-in-deadline":
                self.kernel.other(v)
                v.in_deadline = False

    def _temperature(self, v: VcpuState) -> None:
        self.kernel.mark(f"akita: temperature pcpu={v.pcpu} vcpu={v.name} value={v.temperature}")

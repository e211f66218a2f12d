"""The oracle's own account of each vCPU and pCPU, kept by the rules alone.

The oracle does not trust the implementation's bookkeeping.  From the trace
it takes only the inputs (which vCPU is runnable, which one runs) and the
passage of time; budgets, deadlines, virtual deadlines, consumption and
temperatures it computes itself, by rules R2, R3, R5 and R8:

* **R2** a vCPU's period starts at ``0, T, 2T, ...``; its budget is refilled
  (``C_opt`` LO, ``C_pes`` HI), its deadline set to ``s + T`` and, for a HI
  vCPU, its LO-mode key to the virtual deadline ``s + x T``, ``x`` from the
  EDF-VD verdict of its pCPU (exact).
* **R3** a running vCPU with budget left consumes it at the rate of time;
  at 0 it is *inactive* until its next period start; background time is
  free.
* **R5** a HI vCPU that consumes ``C_opt`` in a period while runnable *asks*
  for its pessimistic budget: its temperature is set to the initial one.
* **R8** at a HI vCPU's period start, a positive temperature drops by one if
  it did not ask in the period just ended.

:func:`allowed` is the choice rule (R4, R6, R7): the set of vCPUs a pCPU may
run, given the mode.
"""

from __future__ import annotations

from fractions import Fraction

from akita.model import VCPU

__all__ = ["ShadowVCPU", "ShadowCPU", "allowed"]

#: Where the oracle keeps each rule's account (read by the traceability
#: table, docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("ShadowVCPU.start_period",),
    "R3": ("ShadowVCPU.run", "ShadowVCPU.due"),
    "R4": ("allowed",),
    "R5": ("ShadowVCPU.run",),
    "R6": ("allowed",),
    "R7": ("allowed",),
    "R8": ("ShadowVCPU.start_period",),
}


class ShadowVCPU:
    """One vCPU as the rules see it."""

    __slots__ = (
        "name", "cpu", "order", "hi", "period", "c_opt", "full", "x", "release", "deadline",
        "key", "budget", "consumed", "runnable", "temperature", "asked", "claimed_temperature",
        "spent", "watch",
    )

    def __init__(self, vcpu: VCPU, cpu: int, order: int, x: Fraction) -> None:
        vm = vcpu.vm
        self.name = vcpu.name
        self.cpu = cpu
        self.order = order
        self.hi = vm.is_hi
        self.period = vm.period
        self.c_opt = vm.c_opt
        self.full: int = vm.c_pes if vm.is_hi and vm.c_pes is not None else vm.c_opt
        self.x = x
        self.release = 0
        self.deadline = 0
        self.key: int | Fraction = 0
        self.budget = 0
        self.consumed = 0
        self.runnable = False
        self.temperature = 0
        self.asked = False
        self.claimed_temperature = 0
        self.spent = 0
        #: whether reaching ``C_opt`` is a rule point (R5, R10): for a HI vCPU under Akita.
        self.watch = self.hi

    def start_period(self, s: int) -> bool:
        """R2 and R8 at period start *s*; whether the temperature dropped."""
        cooled = False
        if self.hi and s > 0 and self.temperature > 0 and not self.asked:
            self.temperature -= 1
            cooled = True
        self.asked = False
        self.release = s
        self.deadline = s + self.period
        key = s + self.x * self.period if self.hi else self.deadline
        self.key = key.numerator if isinstance(key, Fraction) and key.denominator == 1 else key
        self.budget = self.full
        self.consumed = 0
        return cooled

    def run(self, ran: int) -> bool:
        """R3: charge *ran* ns; whether this run made it reach ``C_opt`` (R5's trigger).

        When the budget runs out, :attr:`spent` is how much of *ran* it lasted.
        """
        if self.budget <= 0 or ran <= 0:
            return False
        spent = ran if ran < self.budget else self.budget
        self.spent = spent
        before = self.consumed
        self.consumed += spent
        self.budget -= spent
        return self.hi and before < self.c_opt <= self.consumed

    def due(self) -> int | None:
        """How long it can run before a rule point: budget exhausted or ``C_opt`` reached."""
        if self.budget <= 0:
            return None
        if self.watch and self.consumed < self.c_opt:
            return min(self.budget, self.c_opt - self.consumed)
        return self.budget


class ShadowCPU:
    """One pCPU: its vCPUs, the mode the rules require and the mode claimed."""

    __slots__ = ("index", "vcpus", "rules_hi", "claimed_hi", "rules_changed", "claimed_changed",
                 "running", "synced", "deferred", "ran_out")

    def __init__(self, index: int) -> None:
        self.index = index
        self.vcpus: list[ShadowVCPU] = []
        self.rules_hi = False  # R13
        self.claimed_hi = False
        self.rules_changed = 0
        self.claimed_changed = 0
        self.running: ShadowVCPU | None = None
        self.synced = 0
        #: vCPUs that woke while it ran another, not yet seen by a decision
        #: (only with ``wake_preempts = false``: a wake is then no decision point).
        self.deferred: set[ShadowVCPU] = set()
        #: the vCPU whose budget ran out when the pCPU was last charged, if any.
        self.ran_out: ShadowVCPU | None = None


def _tier(candidates, key_of, strict: bool) -> list[ShadowVCPU]:
    best, chosen = None, []
    for v in candidates:
        k = key_of(v)
        if best is None or k < best:
            best, chosen = k, [v]
        elif k == best:
            chosen.append(v)
    if strict and len(chosen) > 1:
        chosen = [min(chosen, key=lambda v: (0 if v.hi else 1, v.order))]
    return chosen


def allowed(cpu: ShadowCPU, hi_mode: bool, *, lo_in_hi_mode: bool, virtual_in_hi: bool,
            strict: bool) -> tuple[list[ShadowVCPU], str]:
    """The vCPUs the rules allow *cpu* to run now, and the rule that chose them.

    LO mode (R4): the active runnable vCPUs with the least key (the virtual
    deadline of a HI vCPU, the deadline of a LO one).  HI mode (R6): the
    active runnable HI vCPUs with the earliest deadline (actual, unless the
    host keeps virtual ones); then, if ``lo_in_hi_mode``, the active runnable
    LO ones by deadline.  Otherwise (R7) the inactive runnable vCPUs by
    deadline (LO ones in HI mode only if ``lo_in_hi_mode``).  An empty list
    means the pCPU must idle.  vCPUs in ``cpu.deferred`` -- woken since the
    last decision point, with ``wake_preempts = false`` -- are not seen yet.  With *strict*, a tie is broken as the
    reference breaks it -- HI first, then host order -- so one vCPU is
    allowed; otherwise every tied vCPU is.
    """
    runnable = [v for v in cpu.vcpus if v.runnable and v not in cpu.deferred]
    active = [v for v in runnable if v.budget > 0]
    if not hi_mode:
        if active:
            return _tier(active, lambda v: v.key, strict), "R4"
    else:
        hi = [v for v in active if v.hi]
        if hi:
            return _tier(hi, (lambda v: v.key) if virtual_in_hi else (lambda v: v.deadline),
                         strict), "R6"
        lo = [v for v in active if not v.hi]
        if lo and lo_in_hi_mode:
            return _tier(lo, lambda v: v.deadline, strict), "R7"
    background = [v for v in runnable if v.budget <= 0 and (v.hi or lo_in_hi_mode or not hi_mode)]
    return _tier(background, lambda v: v.deadline, strict), "R7"

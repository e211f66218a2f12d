"""The oracle's own account of each vCPU and pCPU, kept by the rules alone.

The oracle does not trust the implementation's bookkeeping.  From the trace
it takes only the inputs (which vCPU is runnable, which one runs) and the
passage of time; budgets, deadlines, virtual deadlines, consumption,
temperatures and run-queue insertion instants it computes itself, by rules
R2, R3, R5 and R8 and the host's queue order:

* **R2** a vCPU of phase ``p`` (:mod:`akita.oracle.phases`) starts its periods at
  ``p, p + T, p + 2T, ...``; before ``p`` it is inactive (budget 0) with
  the deadline ``p``.  At a period start ``s`` its budget is refilled
  (``C_opt`` LO, ``C_pes`` HI), its deadline set to ``s + T`` and, for a HI
  vCPU, its LO-mode key to the virtual deadline ``s + x T``, ``x`` by the
  host's ``x_rule`` (:func:`akita.model.edf_vd.virtual_deadline_factor`;
  exact).
* **R3** a running vCPU with budget left consumes it at the rate of time;
  at 0 it is *inactive* until its next period start; background time is
  free.
* **R5** a HI vCPU that consumes ``C_opt`` in a period while runnable *asks*
  for its pessimistic budget: its temperature is set to the initial one.
* **R8** at a HI vCPU's period start, a positive temperature drops by one if
  it did not ask in the period just ended.
* **Queue order** (``queue_order = "fifo"``, the paper's run queue): each
  vCPU's *insertion instant* ``ins`` is the last instant its period
  started, it woke, its budget ran out, or it was descheduled while
  runnable; equal keys go by ``(ins, host order)``.  Under ``"host"``,
  equal keys go HI first, then by host order.

:func:`allowed` is the choice rule (R4, R6, R7): the set of vCPUs a pCPU may
run, given the mode and the host's ``hi_mode_order``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Iterable, TypeAlias

import attrs
from akita.model import VCPU

__all__ = ["ShadowVCPU", "ShadowCPU", "Choice", "allowed", "fifo_tie", "host_tie"]

#: Where the oracle keeps each rule's account (read by the traceability
#: table, docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("ShadowVCPU.__init__", "ShadowVCPU.start_period"),
    "R3": ("ShadowVCPU.run", "ShadowVCPU.due"),
    "R4": ("allowed", "fifo_tie", "host_tie"),
    "R5": ("ShadowVCPU.run",),
    "R6": ("allowed",),
    "R7": ("allowed", "_tiers"),
    "R8": ("ShadowVCPU.start_period",),
}


class ShadowVCPU:
    """One vCPU as the rules see it."""

    __slots__ = (
        "name", "cpu", "order", "hi", "period", "c_opt", "full", "x", "release", "deadline",
        "key", "budget", "consumed", "runnable", "temperature", "asked", "claimed_temperature",
        "spent", "watch", "phase", "ins",
    )

    def __init__(self, vcpu: VCPU, cpu: int, order: int, x: Fraction, phase: int = 0) -> None:
        """Before its first period start *phase*: inactive, deadline (and key) *phase* (R2)."""
        vm = vcpu.vm
        self.name = vcpu.name
        self.cpu = cpu
        self.order = order
        self.hi = vm.is_hi
        self.period = vm.period
        self.c_opt = vm.c_opt
        self.full: int = vm.c_pes if vm.is_hi and vm.c_pes is not None else vm.c_opt
        self.x = x
        self.phase = phase
        #: the last period start; before the first, the one a period earlier (never a time
        #: of the trace), so that ``release + period`` is the next one.
        self.release = phase - vm.period
        self.deadline = phase
        self.key: int | Fraction = phase
        self.budget = 0
        self.consumed = 0
        self.runnable = False
        self.temperature = 0
        self.asked = False
        self.claimed_temperature = 0
        self.spent = 0
        #: the run-queue insertion instant (``queue_order = "fifo"``).
        self.ins = 0
        #: whether reaching ``C_opt`` is a rule point (R5, R10): for a HI vCPU under Akita.
        self.watch = self.hi

    def start_period(self, s: int) -> bool:
        """R2 and R8 at period start *s* (an insertion); whether the temperature dropped."""
        cooled = False
        if self.hi and s > self.phase and self.temperature > 0 and not self.asked:
            self.temperature -= 1
            cooled = True
        self.asked = False
        self.release = s
        self.deadline = s + self.period
        key = s + self.x * self.period if self.hi else self.deadline
        self.key = key.numerator if isinstance(key, Fraction) and key.denominator == 1 else key
        self.budget = self.full
        self.consumed = 0
        self.ins = s
        return cooled

    def run(self, ran: int, since: int) -> bool:
        """R3: charge *ran* ns run from *since*; whether it made it reach ``C_opt`` (R5).

        When the budget runs out, :attr:`spent` is how much of *ran* it lasted,
        and the vCPU is inserted among the inactive ones at that instant.
        """
        if self.budget <= 0 or ran <= 0:
            return False
        spent = ran if ran < self.budget else self.budget
        self.spent = spent
        before = self.consumed
        self.consumed += spent
        self.budget -= spent
        if self.budget == 0:
            self.ins = since + spent
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
                 "running", "synced", "deferred", "ran_out", "descheduled")

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
        #: the runnable vCPU the last decision of this instant descheduled: it goes back
        #: into the run queue once that decision is judged (it was chosen against its old place).
        self.descheduled: ShadowVCPU | None = None


#: The order of equal keys: a vCPU's rank among its equals (least first).
Tie: TypeAlias = Callable[[ShadowVCPU], tuple[int, int]]


def fifo_tie(v: ShadowVCPU) -> tuple[int, int]:
    """``queue_order = "fifo"``: inserted first, then host order."""
    return (v.ins, v.order)


def host_tie(v: ShadowVCPU) -> tuple[int, int]:
    """``queue_order = "host"``: HI before LO, then host order."""
    return (0 if v.hi else 1, v.order)


@attrs.frozen
class Choice:
    """The host's options that shape the choice rule, and how ties are judged.

    :param tie: the order of equal keys the rules impose, or ``None`` to
        accept any of them (``--ties any``).
    """

    lo_in_hi_mode: bool
    virtual_in_hi: bool
    hi_first: bool
    tie: Tie | None
    #: Whether HI mode runs a HI vCPU past its budget only when no LO vCPU is runnable
    #: (``hi_mode_order = "capped"``, R3, R7).
    capped: bool = False


def _tier(candidates: Iterable[ShadowVCPU], key_of: Callable[[ShadowVCPU], int | Fraction],
          tie: Tie | None) -> list[ShadowVCPU]:
    best: int | Fraction | None = None
    chosen: list[ShadowVCPU] = []
    for v in candidates:
        k = key_of(v)
        if best is None or k < best:
            best, chosen = k, [v]
        elif k == best:
            chosen.append(v)
    if tie is not None and len(chosen) > 1:
        chosen = [min(chosen, key=tie)]
    return chosen


def _key(v: ShadowVCPU) -> int | Fraction:
    return v.key


def _deadline(v: ShadowVCPU) -> int | Fraction:
    return v.deadline


def _ignored(v: ShadowVCPU) -> int | Fraction:
    """No key: HI mode "ignores" a LO vCPU's deadline; its queue order alone places it."""
    return 0


Tier: TypeAlias = tuple[list[ShadowVCPU], Callable[[ShadowVCPU], "int | Fraction"], str]


def _tiers(runnable: list[ShadowVCPU], hi_mode: bool, rules: Choice) -> list[Tier]:
    """The candidates of each tier, in order, with their key and the rule that orders them.

    LO mode: active by LO-mode key (R4), then inactive by deadline (R7).  HI
    mode, ``hi_mode_order = "hi-first"``: active HI by HI-mode key (R6), then
    (R7) inactive HI by deadline, active LO by queue order alone (the paper:
    in HI mode Akita "ignores" LO vCPUs, so their deadlines order nothing),
    inactive LO by deadline; with ``"capped"``: active HI (R6), active LO by
    queue order alone, inactive LO by deadline, then inactive HI by deadline
    (R3, R7); with ``"budget-first"``: active HI (R6), active
    LO by deadline, then inactive HI and LO merged, by deadline (R7).  LO
    vCPUs only if ``lo_in_hi_mode``.
    """
    active = [v for v in runnable if v.budget > 0]
    inactive = [v for v in runnable if v.budget <= 0]
    if not hi_mode:
        return [(active, _key, "R4"), (inactive, _deadline, "R7")]
    lo_ok = rules.lo_in_hi_mode
    first: Tier = ([v for v in active if v.hi], _key if rules.virtual_in_hi else _deadline, "R6")
    inactive_hi = [v for v in inactive if v.hi]
    active_lo = [v for v in active if not v.hi] if lo_ok else []
    inactive_lo = [v for v in inactive if not v.hi] if lo_ok else []
    if rules.hi_first:
        return [first, (inactive_hi, _deadline, "R7"), (active_lo, _ignored, "R7"),
                (inactive_lo, _deadline, "R7")]
    if rules.capped:
        return [first, (active_lo, _ignored, "R7"), (inactive_lo, _deadline, "R7"),
                (inactive_hi, _deadline, "R7")]
    return [first, (active_lo, _deadline, "R7"), (inactive_hi + inactive_lo, _deadline, "R7")]


def allowed(cpu: ShadowCPU, hi_mode: bool, rules: Choice) -> tuple[list[ShadowVCPU], str]:
    """The vCPUs the rules allow *cpu* to run now, and the rule that chose them.

    The first non-empty tier of :func:`_tiers` (R4 in LO mode; R6, then R7,
    in HI mode -- Asyabi et al., Section 3.4: "in the high critical mode,
    Akita ignores low-criticality vCPUs" while a HI one can run), its
    vCPUs with the least key.  An empty list means the pCPU must idle.
    vCPUs in ``cpu.deferred`` -- woken since the last decision point, with
    ``wake_preempts = false`` -- are not seen yet.  With ``rules.tie``, a
    tie is broken as the host's ``queue_order`` breaks it, so one vCPU is
    allowed; otherwise every tied vCPU is.
    """
    runnable = [v for v in cpu.vcpus if v.runnable and v not in cpu.deferred]
    for group, key_of, rule in _tiers(runnable, hi_mode, rules):
        if group:
            return _tier(group, key_of, rules.tie), rule
    return [], "R7"

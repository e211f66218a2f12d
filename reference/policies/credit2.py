"""``credit2``: Xen's credit2 scheduler (the default since Xen 4.12), after
``xen/common/sched/credit2.c``.

Every VM runs (:func:`..placement.place_all`).  The rules, with the function
of ``credit2.c`` each one follows:

* **Credit** (``csched2_alloc_udata``, ``CSCHED2_CREDIT_INIT``).  Every vCPU
  starts with 10 ms of credit.
* **Burn** (``burn_credits``, ``t2c_update``).  A running vCPU's credit
  drops by ``ran * max_weight / weight`` (integer division, the remainder
  carried in ``residual``), ``max_weight`` the largest weight on the run
  queue: the heaviest vCPU burns 1 credit a ns, the others faster; never
  below ``CSCHED2_CREDIT_MIN`` = -10 ms.
* **Run queue** (``runq_insert``).  Ordered by credit, highest first; a
  vCPU goes behind those of equal credit.
* **Reset** (``csched2_schedule``, ``reset_credit``).  When the vCPU about
  to run and the head of the queue both have credit ``<= 0``
  (``CSCHED2_CREDIT_RESET``), every vCPU of the run queue gains 10 ms (20 ms
  when the chosen one sits at the minimum), clipped to 10.5 ms
  (``CSCHED2_CARRYOVER_MAX``).
* **Pick** (``runq_candidate``).  The running vCPU continues if it has run
  less than the rate limit (``sched_ratelimit_us``, 1 ms); else the first
  queued vCPU with more credit than it (or than idle), skipping those that
  may not run here, those tickled for another pCPU, and those last on
  another pCPU unless ahead by ``CSCHED2_MIGRATE_RESIST`` (500 us); one that
  moves gains ``CSCHED2_MIGRATE_COMPENSATION`` (50 us).
* **How long** (``csched2_runtime``).  Until its credit falls to that of
  the next in line (or to 0), converted back to time (``c2t``), at least
  ``CSCHED2_MIN_TIMER`` (500 us) or what is left of the rate limit, at most
  ``CSCHED2_MAX_TIMER`` (10 ms), at most its cap budget.
* **Wake-up and tickling** (``csched2_unit_wake``, ``runq_tickle``,
  ``tickle_score``).  A waking vCPU is queued by credit and a pCPU is told to
  reschedule: an idle, untickled one it may run on (its own first), else the
  busy pCPU whose running vCPU has the least credit below the woken one's
  (minus the migration resistance off its own pCPU), among those that have
  run at least the rate limit less 50 us
  (``CSCHED2_RATELIMIT_TICKLE_TOLERANCE``).  A vCPU descheduled while
  runnable is queued and tickled the same way (``csched2_context_saved``).
* **Cap** (``unit_grab_budget``, ``unit_return_budget``, ``park_unit``,
  ``replenish_domain_budget``).  A capped VM has a pool of
  ``cap% x 10 ms`` (``CSCHED2_BDGT_REPL_PERIOD``) refilled every 10 ms;
  each vCPU grabs ``max(pool / vCPUs, 500 us)`` to run, gives back what it
  did not use when descheduled, and is parked (off the queue) while the
  pool is empty.

Simplifications (``docs/policies/credit2.rst``): one run queue over all the
host's pCPUs -- what ``credit2_runqueue = "socket"`` (the default) gives on
a host of one socket -- so no load balancing between run queues
(``balance_load``); no soft affinity, SMT, yield or tasklets; the rate limit
is Xen's default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeAlias

from ..policy import Policy
from ..vcpu_state import VCPUState

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["Credit2Policy", "CREDIT_INIT", "CREDIT_MIN", "CREDIT_RESET", "CARRYOVER_MAX",
           "MIN_TIMER", "MAX_TIMER", "MIGRATE_RESIST", "MIGRATE_COMPENSATION", "RATELIMIT"]

US = 1_000
MS = 1_000_000
#: ``CSCHED2_CREDIT_INIT``: the credit a vCPU starts with and gains at a reset.
CREDIT_INIT = 10 * MS
#: ``CSCHED2_CREDIT_MIN``.
CREDIT_MIN = -CREDIT_INIT
#: ``CSCHED2_IDLE_CREDIT``.
IDLE_CREDIT = CREDIT_MIN - 1
#: ``CSCHED2_CREDIT_RESET``: a reset when the best candidate's credit is at most this.
CREDIT_RESET = 0
#: ``CSCHED2_MIN_TIMER`` and ``CSCHED2_CARRYOVER_MAX``.
MIN_TIMER = 500 * US
CARRYOVER_MAX = MIN_TIMER
#: ``CSCHED2_MAX_TIMER``.
MAX_TIMER = CREDIT_INIT
#: ``CSCHED2_MIGRATE_RESIST`` (``opt_migrate_resist`` = 500 us).
MIGRATE_RESIST = 500 * US
#: ``CSCHED2_MIGRATE_COMPENSATION``.
MIGRATE_COMPENSATION = 50 * US
#: ``CSCHED2_RATELIMIT_TICKLE_TOLERANCE``.
TICKLE_TOLERANCE = 50 * US
#: ``SCHED_DEFAULT_RATELIMIT_US`` (``xen/common/sched/private.h``).
RATELIMIT = 1000 * US
#: ``CSCHED2_BDGT_REPL_PERIOD`` (``opt_cap_period`` = 10 ms).
CAP_PERIOD = 10 * MS


class _Dom:
    """``struct csched2_dom``: a VM's cap pool and its parked vCPUs."""

    __slots__ = ("tot_budget", "budget", "parked", "quota")

    def __init__(self, cap: int, vcpus: int) -> None:
        self.tot_budget = CAP_PERIOD * cap // 100
        self.budget = self.tot_budget
        self.quota = max(self.tot_budget // vcpus, MIN_TIMER)
        self.parked: list[UnitState] = []


class _Unit:
    """``struct csched2_unit``."""

    __slots__ = ("dom", "credit", "weight", "residual", "budget", "tickled_cpu", "queued",
                 "parked", "slice")

    def __init__(self, dom: _Dom | None, weight: int) -> None:
        self.dom = dom  # None: no cap
        self.credit = CREDIT_INIT
        self.weight = weight
        self.residual = 0
        self.budget = 0
        self.tickled_cpu = -1
        self.queued = False
        self.parked = False
        self.slice = 0


UnitState: TypeAlias = "VCPUState[_Unit]"


class Credit2Policy(Policy):
    """Xen credit2: credit burnt by weight, resets, one run queue, tickling, caps."""

    name = "credit2"
    admits = False  # every VM runs (place_all)

    #: whether a reset happens at all (a mutant turns it off).
    RESETS: ClassVar[bool] = True

    def setup(self, sim: Simulator) -> None:
        super().setup(sim)
        pcpus = sim.host.pcpus
        self.running = sim.running
        self.runq: list[UnitState] = []
        self.units: list[UnitState] = list(sim.vcpus)  # rqd->svc
        self.idle: set[int] = set(range(pcpus))
        self.tickled: set[int] = set()
        self.entry = [0] * pcpus  # state_entry_time of what each pCPU runs
        self.allowed: dict[UnitState, frozenset[int]] = {}
        self.max_weight = max((s.vm.share.weight for s in sim.vcpus), default=1)
        doms: dict[str, _Dom] = {}
        for state in sim.vcpus:
            share = state.vm.share
            dom = None
            if share.cap:
                dom = doms.setdefault(state.vm.name, _Dom(share.cap, state.vm.vcpus))
            state.sched = _Unit(dom, share.weight)
            self.allowed[state] = frozenset(share.pin) if share.pin else frozenset(range(pcpus))
        for state in sim.vcpus:
            if state.runnable:
                self.runq_insert(state)
        if doms:
            sim.set_timer(CAP_PERIOD, 0, list(doms.values()))

    # -- run queue -------------------------------------------------------------------

    def runq_insert(self, state: UnitState) -> None:
        """``runq_insert``: by credit, behind the vCPUs of equal credit."""
        credit = state.sched.credit
        at = next((i for i, other in enumerate(self.runq) if credit > other.sched.credit),
                  len(self.runq))
        self.runq.insert(at, state)
        state.sched.queued = True

    def runq_remove(self, state: UnitState) -> None:
        self.runq.remove(state)
        state.sched.queued = False

    def current(self, cpu: int) -> UnitState | None:
        cur = self.running[cpu]
        return cur if cur is not None and cur.runnable and not cur.sched.parked else None

    # -- credit ----------------------------------------------------------------------

    def charge(self, state: UnitState, ran: int, t: int) -> None:
        """``burn_credits``, ``t2c_update``."""
        unit = state.sched
        val = ran * self.max_weight + unit.residual
        val, unit.residual = divmod(val, unit.weight)
        unit.credit = max(unit.credit - val, CREDIT_MIN)
        if unit.dom is not None:
            unit.budget -= ran

    def reset_credit(self, snext: UnitState, t: int) -> None:
        """``reset_credit``: everyone on the run queue gains a fresh 10 ms, clipped."""
        reset = CREDIT_INIT * (2 if snext.sched.credit == CREDIT_MIN else 1)
        for state in self.units:
            self.sim.sync_vcpu(state, t)  # a running vCPU is burnt up to now first
            unit = state.sched
            unit.credit = min(unit.credit + reset, CREDIT_INIT + CARRYOVER_MAX)

    # -- cap budget --------------------------------------------------------------------

    def grab_budget(self, state: UnitState) -> bool:
        """``unit_grab_budget``: take a quota from the VM's pool, or be parked."""
        unit, dom = state.sched, state.sched.dom
        if dom is None or unit.budget > 0:
            return True
        dom.budget += unit.budget
        if dom.budget > 0:
            unit.budget = min(dom.quota, dom.budget)
            dom.budget -= unit.budget
            return True
        unit.budget = 0
        unit.parked = True
        if unit.queued:
            self.runq_remove(state)
        dom.parked.append(state)
        return False

    def return_budget(self, state: UnitState, t: int) -> None:
        """``unit_return_budget`` and ``unpark_parked_units``."""
        unit, dom = state.sched, state.sched.dom
        if dom is None or unit.budget <= 0:
            return
        dom.budget += unit.budget
        unit.budget = 0
        if dom.budget > 0:
            self.unpark(dom, t)

    def unpark(self, dom: _Dom, t: int) -> None:
        parked, dom.parked = dom.parked, []
        for state in parked:
            state.sched.parked = False
            if state.runnable and self.running[state.cpu] is not state:
                self.runq_insert(state)
                self.tickle(state, t)
            elif state.runnable:
                self.sim.resched(state.cpu)

    def on_timer(self, t: int, payload: list[_Dom]) -> None:
        """``replenish_domain_budget``, every 10 ms for every capped VM."""
        for dom in payload:
            dom.budget = min(dom.budget + dom.tot_budget, dom.tot_budget)
            if dom.budget > 0:
                self.unpark(dom, t)
        self.sim.set_timer(t + CAP_PERIOD, 0, payload)

    # -- tickling --------------------------------------------------------------------

    def tickle_score(self, new: UnitState, cpu: int, t: int) -> int:
        """``tickle_score``: how much *new* is owed pCPU *cpu* (negative: not at all)."""
        cur = self.current(cpu)
        if cur is None or t - self.entry[cpu] <= RATELIMIT - TICKLE_TOLERANCE:
            return -1
        self.sim.sync_vcpu(cur, t)
        score = new.sched.credit - cur.sched.credit
        if new.cpu != cpu:
            score -= MIGRATE_RESIST
        return score + CREDIT_INIT if score > 0 else score  # soft affinity: every pCPU

    def tickle(self, new: UnitState, t: int) -> None:
        """``runq_tickle``: the pCPU told to reschedule for *new*, if any."""
        cpu, allowed = new.cpu, self.allowed[new]
        idlers = sorted((self.idle - self.tickled) & allowed)
        target = -1
        if idlers:
            target = cpu if cpu in idlers else next((c for c in idlers if c > cpu), idlers[0])
        else:
            best = 0
            busy = [c for c in range(len(self.running))
                    if c not in self.idle and c not in self.tickled and c in allowed]
            for c in sorted(busy, key=lambda c: c != cpu):  # its own pCPU first
                score = self.tickle_score(new, c, t)
                if score > best:
                    best, target = score, c
                    if c == cpu:
                        break  # its own pCPU, in its soft affinity: taken at once
        if target < 0:
            return
        self.tickled.add(target)
        new.sched.tickled_cpu = target
        self.sim.resched(target)

    # -- hooks -----------------------------------------------------------------------

    def on_wake(self, state: UnitState, t: int) -> None:
        """``csched2_unit_wake``."""
        unit = state.sched
        if self.running[state.cpu] is state or unit.queued or unit.parked:
            if self.running[state.cpu] is state:
                self.sim.resched(state.cpu)  # it blocked and woke in this instant
            return
        self.runq_insert(state)
        self.tickle(state, t)

    def on_block(self, state: UnitState, t: int) -> None:
        if state.sched.queued:
            self.runq_remove(state)
        self.sim.resched(state.cpu)

    def pick(self, cpu: int, t: int) -> tuple[UnitState | None, int | None]:
        """``csched2_schedule``, ``runq_candidate``, ``csched2_runtime``."""
        self.tickled.discard(cpu)
        scurr = self.current(cpu)
        if scurr is not None and not self.grab_budget(scurr):
            scurr = None
        if scurr is not None and t - self.entry[cpu] < RATELIMIT:
            return scurr, t + self.runtime(scurr, cpu, t, 0, running=True)
        snext = self.candidate(cpu, scurr)
        prev = self.running[cpu]
        if snext is None:
            self.idle.add(cpu)
            if prev is not None:
                self.deschedule(prev, t)
            return None, None
        self.idle.discard(cpu)
        if snext is not scurr:
            self.runq_remove(snext)
        top = max(snext.sched.credit, self.runq[0].sched.credit if self.runq else snext.sched.credit)
        if self.RESETS and top <= CREDIT_RESET:
            self.reset_credit(snext, t)
        inflight = 0
        if snext is not scurr and scurr is not None:
            inflight = scurr.sched.credit
        snext.sched.tickled_cpu = -1
        if snext.cpu != cpu:
            snext.sched.credit += MIGRATE_COMPENSATION
        running = snext is scurr
        if not running:
            self.entry[cpu] = t
        until = t + self.runtime(snext, cpu, t, inflight, running=running)
        if prev is not None and prev is not snext:
            self.deschedule(prev, t)
        return snext, until

    def candidate(self, cpu: int, scurr: UnitState | None) -> UnitState | None:
        """``runq_candidate`` after the rate limit: who runs on *cpu* next (None: idle)."""
        best = scurr.sched.credit if scurr is not None else IDLE_CREDIT
        for state in list(self.runq):
            unit = state.sched
            if unit.credit <= best:
                break
            if cpu not in self.allowed[state]:
                continue
            if unit.tickled_cpu not in (-1, cpu) and unit.tickled_cpu in self.tickled:
                continue
            if state.cpu != cpu and best + MIGRATE_RESIST > unit.credit:
                continue
            if not self.grab_budget(state):
                continue
            return state
        return scurr

    def deschedule(self, prev: UnitState, t: int) -> None:
        """``csched2_context_saved``: give back budget; requeue and tickle if runnable."""
        self.return_budget(prev, t)
        if prev.runnable and not prev.sched.parked and not prev.sched.queued:
            self.runq_insert(prev)
            self.tickle(prev, t)

    def runtime(self, snext: UnitState, cpu: int, t: int, inflight: int, running: bool) -> int:
        """``csched2_runtime``: how long *snext* runs before the pCPU decides again."""
        min_time = MIN_TIMER
        ratelimit_min = self.entry[cpu] + RATELIMIT - t if running else RATELIMIT
        min_time = max(min_time, ratelimit_min)
        unit = snext.sched
        swait = self.runq[0].sched.credit if self.runq and self.runq[0].sched.credit > 0 else 0
        swait = max(swait, inflight)
        rt_credit = unit.credit - swait if swait > 0 else unit.credit
        time = rt_credit * unit.weight // self.max_weight if rt_credit > 0 else 0
        if unit.dom is not None:
            time = min(time, unit.budget)
        time = min(max(time, min_time), MAX_TIMER)
        unit.slice = time
        return time

    def describe(self, state: UnitState) -> tuple[int, str, int]:
        # the key runs smallest first, as every policy's: the credit below the int32
        # ceiling of Xen's ``svc->credit``
        return 0, str(2**31 - state.sched.credit), state.sched.slice

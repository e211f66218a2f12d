"""``credit``: Xen's credit scheduler (credit1), after ``xen/common/sched/credit.c``.

A proportional-share scheduler with no admission test: every VM runs
(:func:`..placement.place_all`), and vCPUs move between pCPUs.  The rules,
with the function of ``credit.c`` each one follows:

* **Credit** (``burn_credits``).  A running vCPU's credit drops by the time
  it runs, exactly.  Credits are counted in nanoseconds of pCPU time, so
  Xen's ``CSCHED_CREDITS_PER_MSEC`` (10 credits a millisecond) becomes
  1 credit a nanosecond and ``burn_credits``' residual is not needed; the
  upper and lower bounds, one time slice of credit, are 30 000 000.
* **Active vCPUs** (``csched_unit_acct``, ``__csched_unit_acct_start``).  A
  vCPU joins its VM's active list when a tick finds it running, and leaves
  it at an accounting whose credit exceeds the upper bound; its credit is
  then halved.  The active list's weight is the sum, over active vCPUs, of
  their VM's weight.
* **Accounting** (``csched_acct``), every 30 ms.  The credit of the pCPUs
  for one time slice is shared among the active VMs in proportion to
  ``weight x active vCPUs``, at most one slice per active vCPU (more while
  the system-wide balance is negative), at most ``cap`` percent of one
  slice for the whole VM, then evenly among its active vCPUs; the
  arithmetic, its rounding up and the order of the active VMs are Xen's.
  Each active vCPU then becomes UNDER (credit >= 0) or OVER (credit < 0).
* **Cap** (``csched_acct``).  A vCPU of a capped VM whose credit falls
  below ``-ceil(cap% of a slice / active vCPUs)`` is *parked* -- taken off
  the pCPU and its run queue -- and stays parked until an accounting leaves
  its credit >= 0.  A cap is thus enforced per 30 ms accounting period.
* **BOOST** (``csched_unit_wake``, ``csched_unit_acct``).  A vCPU that wakes
  while UNDER (and not parked) becomes BOOST; the first tick (every 10 ms,
  ``csched_tick``) that finds it running makes it UNDER again, as does an
  accounting.
* **Run queues** (``__runq_insert``, ``csched_runq_sort``).  One per pCPU,
  ordered by priority, BOOST > UNDER > OVER, FIFO within a priority; after
  each accounting every queue is re-sorted by the new priorities (stable).
* **Tickle** (``__runq_tickle``).  A waking vCPU is queued on its pCPU; if
  that pCPU is idle it is told to reschedule; else, if some pCPU is idle, one
  idle pCPU the vCPU may run on is (it will steal the vCPU, below), chosen
  round robin; else its own pCPU is, if the vCPU's priority is higher than
  the running one's.
* **Schedule** (``csched_schedule``).  The running vCPU, if still runnable,
  goes back in its queue; the head runs for a 30 ms slice -- unless the
  running vCPU has run less than the 1 ms rate limit, in which case it goes
  on until it has run 1 ms (a wake does not preempt it sooner).
* **Stealing** (``csched_load_balance``, ``csched_runq_steal``).  When the
  head is OVER, or the queue is empty, the pCPU looks at the busy pCPUs in
  turn (from the one after the last it stole from) for a queued, not running
  vCPU of strictly higher priority that may run on it (``pin``), and runs
  that one instead.

Simplifications: one flat set of pCPUs (no SMT, cores, sockets or NUMA
nodes, so ``_csched_cpu_pick``'s idleness weighing and the soft-affinity
step vanish; the running vCPU is never pushed away by a tick); no
migration delay (Xen's default 0); no yield; no tasklets; one global
round-robin cursor for tickling idle pCPUs instead of one per pCPU;
``CSCHED_MIN_TIMER`` is not applied to the rate-limit slice; all pCPUs tick
at the multiples of 10 ms, the accounting runs after the ticks of its instant,
and the run queues are re-sorted at the accounting rather than at each
pCPU's next tick; a tick at time 0 does nothing but let the core dispatch at
0.  Kept from Xen: a vCPU that is never running at a tick never becomes
active, so earns no credit and keeps its priority while its credit drains;
the accounting that follows the tick that catches it makes it OVER.

Trace: a ``dispatch`` carries ``deadline`` 0 (credit has no deadlines),
``key`` the priority rank -- ``"0"`` BOOST, ``"1"`` UNDER, ``"2"`` OVER --
and ``budget`` the slice granted, in ns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from ..policy import Policy
from ..vcpu_state import VCPUState

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["CreditPolicy", "BOOST", "UNDER", "OVER", "IDLE"]

MS = 1_000_000

#: ``CSCHED_PRI_TS_*``: the higher runs first.
BOOST, UNDER, OVER, IDLE = 0, -1, -2, -64


def _ceil(a: int, b: int) -> int:
    """``(a + b - 1) / b`` for ``a >= 0``, as ``credit.c`` rounds up."""
    return -(-a // b)


def _cycle(n: int, cpus: list[int]) -> int:
    """``cpumask_cycle``: the first of the sorted *cpus* after *n*, wrapping round."""
    for c in cpus:
        if c > n:
            return c
    return cpus[0]


class _Dom:
    """``struct csched_dom``: a VM's weight, cap and active vCPUs (newest first)."""

    __slots__ = ("weight", "cap", "active")

    def __init__(self, weight: int, cap: int) -> None:
        self.weight = weight
        self.cap = cap
        self.active: list[UnitState] = []


class _Unit:
    """``struct csched_unit``: a vCPU's credit, priority and flags."""

    __slots__ = ("dom", "pri", "credit", "active", "parked", "queued", "charged_to", "slice",
                 "boost_credit")

    def __init__(self, dom: _Dom) -> None:
        self.dom = dom
        self.pri = UNDER
        self.credit = 0
        self.active = False
        self.parked = False
        self.queued = False
        self.charged_to = 0  # credit is burnt up to this time
        self.slice = 0  # the slice granted at the last dispatch (the trace's budget)
        self.boost_credit = 0  # bcredit only


#: A vCPU under credit: a unit.
UnitState: TypeAlias = "VCPUState[_Unit]"


class CreditPolicy(Policy):
    """Xen credit1: weights, caps, BOOST/UNDER/OVER, per-pCPU queues, stealing."""

    name = "credit"
    admits = False  # every VM runs (place_all)

    #: ``CSCHED_DEFAULT_TSLICE_MS``: the time slice, and the accounting period.
    TSLICE = 30 * MS
    #: ``tick_period_us``: ``TSLICE / CSCHED_TICKS_PER_TSLICE``.
    TICK = 10 * MS
    #: ``sched_ratelimit_us`` (default 1000 us).
    RATELIMIT = 1 * MS

    def setup(self, sim: Simulator) -> None:
        super().setup(sim)
        pcpus = sim.host.pcpus
        self.running: list[UnitState | None] = sim.running
        self.resched = sim.resched
        self.runq: list[list[UnitState]] = [[] for _ in range(pcpus)]
        self.idlers = set(range(pcpus))  # init_pdata: "Start off idling"
        self.run_start = [0] * pcpus  # when the running vCPU was dispatched
        self.allowed: dict[UnitState, frozenset[int]] = {}
        self.active_doms: list[_Dom] = []  # prv->active_sdom
        self.weight = 0  # prv->weight
        self.credit = pcpus * self.TSLICE  # prv->credit
        self.credit_balance = 0
        self.balance_bias = 0
        self.last_tickle = 0
        doms: dict[str, _Dom] = {}
        for state in sim.vcpus:
            share = state.vm.share
            dom = doms.setdefault(state.vm.name, _Dom(share.weight, share.cap))
            state.sched = _Unit(dom)
            self.allowed[state] = frozenset(share.pin) if share.pin else frozenset(range(pcpus))
            if state.runnable:
                self.runq_insert(state)
        sim.set_timer(0, 0, None)  # no work at 0: it lets the core dispatch at time 0

    # -- run queues (__runq_insert, csched_runq_sort) ------------------------------

    def runq_insert(self, state: UnitState) -> None:
        """Behind every queued vCPU of the same or a higher priority."""
        queue, pri = self.runq[state.cpu], state.sched.pri
        at = next((i for i, other in enumerate(queue) if other.sched.pri < pri), len(queue))
        queue.insert(at, state)
        state.sched.queued = True

    def runq_remove(self, state: UnitState) -> None:
        self.runq[state.cpu].remove(state)
        state.sched.queued = False

    def is_current(self, state: UnitState) -> bool:
        """Whether *state* runs (or is about to be rescheduled) on its pCPU."""
        return self.running[state.cpu] is state

    def pri_on(self, cpu: int) -> int:
        """The priority of what pCPU *cpu* runs: IDLE if nothing runnable."""
        cur = self.running[cpu]
        if cur is None or not cur.runnable or cur.sched.parked:
            return IDLE
        return cur.sched.pri

    # -- credit (burn_credits) and the hooks bcredit refines -------------------------

    def burn(self, state: UnitState, t: int) -> None:
        unit = state.sched
        unit.credit -= t - unit.charged_to
        unit.charged_to = t

    def tick_burn(self, state: UnitState, t: int) -> None:
        """What a tick takes from the vCPU it finds running: its credit by run time."""
        self.burn(state, t)

    def wake_priority(self, state: UnitState) -> None:
        """``csched_unit_wake``: an UNDER vCPU that wakes is boosted."""
        if state.sched.pri == UNDER:
            state.sched.pri = BOOST

    def unboost(self, state: UnitState) -> None:
        """``csched_unit_acct``: a tick that finds a BOOST vCPU running ends its boost."""
        if state.sched.pri == BOOST:
            state.sched.pri = UNDER

    def earn(self, state: UnitState, credit_fair: int) -> None:
        state.sched.credit += credit_fair

    def upper_bound(self, state: UnitState) -> None:
        """Credit above one slice: the vCPU stops earning, with half its credit."""
        self.acct_stop(state)
        state.sched.credit //= 2

    def settle(self, state: UnitState) -> None:
        """After the accounting set the vCPU's priority (bcredit may raise it)."""

    def slice_for(self, state: UnitState, cpu: int) -> int:
        return self.TSLICE

    # -- hooks -----------------------------------------------------------------------

    def on_wake(self, state: UnitState, t: int) -> None:
        unit = state.sched
        if self.is_current(state) or unit.parked:
            return  # still current (it blocked at this instant), or paused by its cap
        self.wake_priority(state)
        self.runq_insert(state)
        self.tickle(state)

    def on_block(self, state: UnitState, t: int) -> None:
        if state.sched.queued:
            self.runq_remove(state)
        self.resched(state.cpu)

    def charge(self, state: UnitState, ran: int, t: int) -> None:
        self.burn(state, t)

    def describe(self, state: UnitState) -> tuple[int, str, int]:
        return 0, str(-state.sched.pri), state.sched.slice

    def tickle(self, state: UnitState) -> bool:
        """``__runq_tickle``: which pCPU to tell to reschedule for a queued *state*."""
        cpu, pri = state.cpu, state.sched.pri
        cur = self.pri_on(cpu)
        target = None
        if cur == IDLE or (not self.idlers and pri > cur):
            target = cpu
        elif self.idlers:
            fit = sorted(self.idlers & self.allowed[state])
            if fit:
                self.last_tickle = target = _cycle(self.last_tickle, fit)
            elif pri > cur:
                target = cpu
        if target is None:
            return False
        self.idlers.discard(target)
        self.resched(target)
        return True

    def on_timer(self, t: int, payload: None) -> None:
        for cpu in range(len(self.runq) if t else 0):  # csched_tick -> csched_unit_acct
            cur = self.running[cpu]
            if cur is None or not cur.runnable or cur.sched.parked:
                continue
            self.tick_burn(cur, t)
            self.unboost(cur)
            if not cur.sched.active:
                self.acct_start(cur)
        if t and t % self.TSLICE == 0:
            self.acct()
        self.sim.set_timer(t + self.TICK, 0, None)

    def pick(self, cpu: int, t: int) -> tuple[UnitState | None, int | None]:
        """``csched_schedule``."""
        cur = self.running[cpu]
        current = cur if cur is not None and cur.runnable and not cur.sched.parked else None
        runtime = t - self.run_start[cpu]
        if current is not None and runtime < self.RATELIMIT:
            current.sched.slice = self.RATELIMIT - runtime
            return current, t + current.sched.slice
        if current is not None:
            self.runq_insert(current)
        queue = self.runq[cpu]
        snext = queue[0] if queue else None
        if snext is not None and snext.sched.pri > OVER:
            self.runq_remove(snext)
        else:
            stolen = self.steal(cpu, IDLE if snext is None else snext.sched.pri)
            if stolen is not None:
                snext = stolen
            elif snext is not None:
                self.runq_remove(snext)
        if snext is None:
            self.idlers.add(cpu)
            return None, None
        self.idlers.discard(cpu)
        fresh = snext is not cur  # another vCPU than the one that ran: its run starts now
        if fresh:
            self.run_start[cpu] = t
            snext.sched.charged_to = t
        snext.sched.slice = self.slice_for(snext, cpu)
        return snext, t + snext.sched.slice

    # -- stealing (csched_load_balance, csched_runq_steal) --------------------------

    def steal(self, cpu: int, pri: int) -> UnitState | None:
        workers = [c for c in range(len(self.runq)) if c != cpu and c not in self.idlers]
        if not workers:
            return None
        first = _cycle(self.balance_bias, workers)
        start = workers.index(first)
        for peer in workers[start:] + workers[:start]:
            queue = self.runq[peer]
            if len(queue) + (self.pri_on(peer) != IDLE) <= 1 or self.running[peer] is None:
                continue  # nothing to take, or an idle peer about to take it itself
            for state in queue:
                if state.sched.pri <= pri:
                    break
                if cpu in self.allowed[state]:
                    self.runq_remove(state)
                    self.balance_bias = peer
                    return state  # the core moves it to cpu
        return None

    # -- accounting (csched_acct) ----------------------------------------------------

    def acct_start(self, state: UnitState) -> None:
        unit, dom = state.sched, state.sched.dom
        unit.active = True
        dom.active.insert(0, state)
        self.weight += dom.weight
        if dom not in self.active_doms:
            self.active_doms.insert(0, dom)

    def acct_stop(self, state: UnitState) -> None:
        unit, dom = state.sched, state.sched.dom
        unit.active = False
        dom.active.remove(state)
        self.weight -= dom.weight
        if not dom.active:
            self.active_doms.remove(dom)

    def acct(self) -> None:
        tslice, weight_total = self.TSLICE, self.weight
        credit_total = self.credit
        if self.credit_balance < 0:
            credit_total -= self.credit_balance
        if weight_total == 0:
            self.credit_balance = 0
            return
        weight_left, credit_balance, credit_xtra = weight_total, 0, False
        for dom in list(self.active_doms):
            n = len(dom.active)
            weight_left -= dom.weight * n
            credit_peak = n * tslice
            if self.credit_balance < 0:
                credit_peak += _ceil(-self.credit_balance * dom.weight * n, weight_total)
            credit_cap = 0
            if dom.cap:
                credit_cap = _ceil(dom.cap * tslice, 100)
                credit_peak = min(credit_peak, credit_cap)
                credit_cap = _ceil(credit_cap, n)
            credit_fair = _ceil(credit_total * dom.weight * n, weight_total)
            if credit_fair < credit_peak:
                credit_xtra = True
            else:
                if weight_left:  # give other VMs a chance at unused credit
                    credit_total += _ceil((credit_fair - credit_peak) * weight_total, weight_left)
                if credit_xtra:
                    self.active_doms.remove(dom)
                    self.active_doms.insert(0, dom)
                credit_fair = credit_peak
            credit_fair = _ceil(credit_fair, n)
            for state in list(dom.active):
                unit = state.sched
                self.earn(state, credit_fair)
                if unit.credit < 0:
                    unit.pri = OVER
                    if dom.cap and unit.credit < -credit_cap and not unit.parked:
                        self.park(state)
                    unit.credit = max(unit.credit, -tslice)
                else:
                    unit.pri = UNDER
                    if unit.parked:
                        self.unpark(state)
                    if unit.credit > tslice:
                        self.upper_bound(state)
                self.settle(state)
                credit_balance += unit.credit
        self.credit_balance = credit_balance
        for queue in self.runq:
            queue.sort(key=lambda state: -state.sched.pri)

    def park(self, state: UnitState) -> None:
        state.sched.parked = True
        if state.sched.queued:
            self.runq_remove(state)
        elif self.is_current(state):
            self.resched(state.cpu)

    def unpark(self, state: UnitState) -> None:
        state.sched.parked = False  # after the wake: no BOOST
        if state.runnable and not self.is_current(state):
            self.runq_insert(state)
            self.tickle(state)

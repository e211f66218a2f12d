"""``eevdf``: Linux's EEVDF fair scheduler (6.6 and later, as in 6.18), one task per vCPU.

Source: Linux 6.18 (stable 6.18.38 for ``update_entity_lag``),
``kernel/sched/fair.c``, ``kernel/sched/features.h`` and ``kernel/sched/core.c``.
Each vCPU is a task (a KVM vCPU thread) of nice ``VM.share.nice``.  The rules,
with the function each follows:

* **Weights and virtual time** (``calc_delta_fair``, ``__calc_delta``,
  ``sched_prio_to_weight``, ``sched_prio_to_wmult``).  A task that runs
  ``delta`` ns advances its vruntime by ``delta * 1024 / w`` computed in the
  kernel's own 32-bit fixed point: ``(delta * (1024 * wmult)) >> shift``,
  the product normalised below 2^32 as ``__calc_delta`` does.  All virtual
  times are integers, as in the kernel.
* **V, the zero-lag point** (``avg_vruntime``).  The load-weighted average of
  the vruntimes of the queue's tasks and of the running one:
  ``V = floor(sum(v_i * w_i) / sum(w_i))`` (the kernel floors towards minus
  infinity, so that ``avg_vruntime() + 0`` is eligible).
* **Eligibility** (``vruntime_eligible``, ``entity_eligible``).  A task is
  eligible when its lag ``w_i * (V - v_i)`` is ``>= 0``, tested without the
  division: ``sum(v_j * w_j) >= v_i * sum(w_j)``.
* **Request and virtual deadline** (``update_deadline``).  A task's request
  is its slice ``r_i``: ``sysctl_sched_base_slice`` (0.75 ms x
  ``1 + ilog2(min(cpus, 8))``, ``update_sysctl``), or its own
  ``sched_attr.sched_runtime`` clamped to [0.1 ms, 100 ms]
  (``__setparam_fair``; the VM key ``slice``).  When its vruntime reaches
  its deadline it gets a new one: ``vd_i = v_i + r_i / w_i``.
* **Pick** (``pick_eevdf``).  Among the eligible tasks, the one of earliest
  virtual deadline; the running task stays while its slice is protected
  (``RUN_TO_PARITY``, ``set_protect_slice``, ``protect_slice``): until its
  vruntime reaches ``vprot = min(deadline, v + min_slice / w)``, with
  ``min_slice`` the shortest request queued.  A queue of one task runs it.
* **When the pCPU decides** (``update_curr``, ``entity_tick``).  With
  ``HRTICK`` off (``features.h``), the kernel notices a slice's end at the
  tick: the running task is preempted at the first tick (every
  ``TICK_NSEC``, 4 ms at this kernel's ``CONFIG_HZ=250``) at which its
  protection is over, or at a wake-up on its queue (``update_curr``'s
  ``resched || !protect_slice(curr)``).
* **Lag kept over a sleep** (``update_entity_lag``, ``entity_lag``,
  ``place_entity``, ``PLACE_LAG``).  A task that stops being runnable keeps
  ``vlag = V - v``, clamped to ``+-(max_slice + TICK_NSEC) / w``; when it
  wakes it is placed at ``v = V - vlag * (W + w) / W`` (the inflation that
  makes its lag after placement the lag it left with; ``div_s64``
  truncates), with deadline ``v + r / w``.
* **Delayed dequeue** (``dequeue_entity``, ``DELAY_DEQUEUE``,
  ``DELAY_ZERO``, ``requeue_delayed_entity``).  A task that blocks while not
  eligible stays queued, counted in ``V``, until it would be picked (then it
  leaves, with positive lag cut to 0) or wakes (then it stays, and a
  positive lag is cut to 0 by placing it at ``V``).
* **Wake-up preemption** (``check_preempt_wakeup_fair``, ``PREEMPT_SHORT``,
  ``update_protect_slice``, ``cancel_protect_slice``).  A woken task
  preempts when the pick would now choose it; if its request is shorter
  than the running task's, the running task's protection is ignored for
  that pick (and cancelled when it preempts), else narrowed to the new
  shortest request.  The host option ``wake_preempts`` is
  ``WAKEUP_PREEMPTION``.
* **Where a task runs** (``select_idle_sibling``, ``sched_balance_newidle``
  reduced, as ``cfs``).  It wakes on its previous pCPU, or on the first idle
  one it may run on when that one is busy; an idle pCPU pulls the
  earliest-deadline queued task of the busiest other queue.  A task that
  changes queue keeps its lag, and its deadline relative to its vruntime
  (``PLACE_REL_DEADLINE``).

Simplifications (``docs/policies/eevdf.rst``): no group scheduling
(autogroup, cgroups), no buddies (``NEXT_BUDDY`` is off by default, no
yields), no periodic or NOHZ load balancing, no PELT; ties of equal
deadlines go in host order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeAlias

from ..policy import Policy
from ..vcpu_state import VCPUState
from .cfs import NICE_0_LOAD, SCHED_PRIO_TO_WEIGHT, tunable_factor

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["EEVDFPolicy", "RunQueue", "SCHED_PRIO_TO_WMULT", "calc_delta_fair", "BASE_SLICE", "TICK_NSEC",
           "MIN_CUSTOM_SLICE", "MAX_CUSTOM_SLICE"]

#: ``sched_prio_to_wmult`` (kernel/sched/core.c): 2^32 / weight, as the kernel tabulates it.
SCHED_PRIO_TO_WMULT = (
    48388, 59856, 76040, 92818, 118348,
    147320, 184698, 229616, 287308, 360437,
    449829, 563644, 704093, 875809, 1099582,
    1376151, 1717300, 2157191, 2708050, 3363326,
    4194304, 5237765, 6557202, 8165337, 10153587,
    12820798, 15790321, 19976592, 24970740, 31350126,
    39045157, 49367440, 61356676, 76695844, 95443717,
    119304647, 148102320, 186737708, 238609294, 286331153,
)
#: ``normalized_sysctl_sched_base_slice``, ns (before the CPU scaling).
BASE_SLICE = 750_000
#: ``TICK_NSEC`` at ``CONFIG_HZ=250`` (this kernel's configuration).
TICK_NSEC = 4_000_000
#: ``__setparam_fair``: a custom slice is clamped to [NSEC_PER_MSEC/10, NSEC_PER_MSEC*100].
MIN_CUSTOM_SLICE = 100_000
MAX_CUSTOM_SLICE = 100_000_000

_WMULT_SHIFT = 32
#: Where every virtual clock starts: far enough above 0 that no vruntime or deadline of a
#: run goes negative (a lag is at most (100 ms + a tick) * 1024 / 15, some 7 s), so the
#: trace's keys are the virtual deadlines themselves.  The kernel starts its clocks at an
#: offset too (``init_cfs_rq``); only differences matter.
V0 = 1 << 40


def calc_delta_fair(delta: int, weight: int, wmult: int) -> int:
    """``calc_delta_fair``: *delta* ns of a task of *weight* in virtual ns, in the
    kernel's fixed point (``__calc_delta`` with ``NICE_0_LOAD`` and the task's
    inverse weight *wmult*)."""
    if weight == NICE_0_LOAD:
        return delta
    fact, shift = NICE_0_LOAD * wmult, _WMULT_SHIFT
    while fact >> 32:
        fact >>= 1
        shift -= 1
    return (delta * fact) >> shift


def _div_s64(a: int, b: int) -> int:
    """``div_s64``: C division, truncating towards zero."""
    q = abs(a) // b
    return q if a >= 0 else -q


class _Entity:
    """``struct sched_entity``: what EEVDF keeps of a task."""

    __slots__ = ("vruntime", "deadline", "vlag", "vprot", "slice", "custom", "weight", "wmult",
                 "allowed", "rq", "delayed", "rel_deadline")

    def __init__(self, nice: int, custom: int, allowed: frozenset[int] | None, rq: int) -> None:
        self.weight = SCHED_PRIO_TO_WEIGHT[nice + 20]
        self.wmult = SCHED_PRIO_TO_WMULT[nice + 20]
        self.vruntime = V0
        self.deadline = V0
        self.vlag = 0
        self.vprot = V0
        self.custom = custom  # the sched_runtime asked for, clamped; 0: none
        self.slice = custom
        self.allowed = allowed  # frozenset of pCPUs, or None for any
        self.rq = rq
        self.delayed = False  # DELAY_DEQUEUE: blocked, still queued
        self.rel_deadline = False  # PLACE_REL_DEADLINE: deadline held relative to vruntime

    def vdelta(self, delta: int) -> int:
        return calc_delta_fair(delta, self.weight, self.wmult)


#: A vCPU under EEVDF: a task.
TaskState: TypeAlias = "VCPUState[_Entity]"


class RunQueue:
    """``struct cfs_rq`` of one pCPU: the queued tasks (the tree) and the running one."""

    __slots__ = ("queued", "curr", "zero")

    def __init__(self) -> None:
        self.queued: list[TaskState] = []  # in the tree: runnable or delayed, not running
        self.curr: TaskState | None = None
        self.zero = V0  # the last V computed (zero_vruntime): where a task joins an empty queue

    def members(self) -> list[TaskState]:
        return self.queued + [self.curr] if self.curr is not None else self.queued

    def load(self) -> int:
        return sum(s.sched.weight for s in self.members())


def _before(a: TaskState, b: TaskState) -> bool:
    """``entity_before``: earlier virtual deadline (ties: host order)."""
    return (a.sched.deadline, a.order) < (b.sched.deadline, b.order)


class EEVDFPolicy(Policy):
    """EEVDF on per-pCPU run queues, with delayed dequeue and an idle balancer."""

    name = "eevdf"
    admits = False  # every VM runs (place_all)

    #: ``features.h`` defaults of 6.18 for the features modelled.
    RUN_TO_PARITY: ClassVar[bool] = True
    PREEMPT_SHORT: ClassVar[bool] = True
    PLACE_LAG: ClassVar[bool] = True
    DELAY_DEQUEUE: ClassVar[bool] = True
    #: the tick at which a slice's end is noticed (``HRTICK`` off); 0 for HRTICK.
    TICK: ClassVar[int] = TICK_NSEC

    def setup(self, sim: Simulator) -> None:
        super().setup(sim)
        options = sim.host.options
        self.wake_preempts = options.wake_preempts
        factor = tunable_factor(options.cfs_tunable_scaling, options.online_cpus or sim.host.pcpus)
        #: sysctl_sched_base_slice on this host (update_sysctl), ns
        self.base_slice = factor * BASE_SLICE
        self.rqs = [RunQueue() for _ in range(sim.host.pcpus)]
        for state in sim.vcpus:
            share = state.vm.share
            custom = share.slice
            if custom:
                custom = min(max(custom, MIN_CUSTOM_SLICE), MAX_CUSTOM_SLICE)
            state.sched = _Entity(share.nice, custom, frozenset(share.pin) if share.pin else None,
                                  state.cpu)
            if state.runnable:
                self._enqueue(self.rqs[state.cpu], state)

    # -- the fair clock -----------------------------------------------------------------

    def avg_vruntime(self, rq: RunQueue) -> int:
        """``avg_vruntime``: V, the load-weighted mean vruntime, floored."""
        members = rq.members()
        if members:
            load = sum(s.sched.weight for s in members)
            rq.zero = sum(s.sched.vruntime * s.sched.weight for s in members) // load
        return rq.zero

    def eligible(self, rq: RunQueue, vruntime: int) -> bool:
        """``vruntime_eligible``: lag >= 0, i.e. ``v <= V``, without the division."""
        members = rq.members()
        load = sum(s.sched.weight for s in members)
        return sum(s.sched.vruntime * s.sched.weight for s in members) >= vruntime * load

    def _min_slice(self, rq: RunQueue, default: int) -> int:
        """``cfs_rq_min_slice``: the shortest request queued or running."""
        return min((s.sched.slice for s in rq.members()), default=default)

    def _max_slice(self, rq: RunQueue) -> int:
        """``cfs_rq_max_slice``: the longest request queued or running."""
        return max((s.sched.slice for s in rq.members()), default=0)

    def update_entity_lag(self, rq: RunQueue, state: TaskState) -> None:
        """``update_entity_lag``: keep ``V - v``, clamped, before *state* leaves the queue."""
        se = state.sched
        limit = se.vdelta(self._max_slice(rq) + TICK_NSEC)
        se.vlag = max(-limit, min(limit, self.avg_vruntime(rq) - se.vruntime))

    def place_entity(self, rq: RunQueue, state: TaskState) -> None:
        """``place_entity``: where a task joins *rq*, keeping its lag (``PLACE_LAG``)."""
        se = state.sched
        if not se.custom:
            se.slice = self.base_slice
        vruntime = self.avg_vruntime(rq)
        lag = 0
        members = rq.members()
        if self.PLACE_LAG and members and se.vlag:
            load = sum(s.sched.weight for s in members)
            lag = _div_s64(se.vlag * (load + se.weight), load)
        se.vruntime = vruntime - lag
        if se.rel_deadline:
            se.deadline += se.vruntime
            se.rel_deadline = False
        else:
            se.deadline = se.vruntime + se.vdelta(se.slice)

    def _enqueue(self, rq: RunQueue, state: TaskState) -> None:
        self.place_entity(rq, state)
        rq.queued.append(state)

    # -- slice protection (RUN_TO_PARITY) -----------------------------------------------

    def set_protect_slice(self, rq: RunQueue, state: TaskState) -> None:
        """``set_protect_slice``: run to the deadline, or the shortest queued request."""
        se = state.sched
        window = self._min_slice(rq, se.slice) if self.RUN_TO_PARITY else BASE_SLICE
        window = min(window, se.slice)
        se.vprot = se.deadline
        if window != se.slice:
            se.vprot = min(se.vprot, se.vruntime + se.vdelta(window))

    def update_protect_slice(self, rq: RunQueue, state: TaskState) -> None:
        """``update_protect_slice``: narrow the protection to the shortest request now queued."""
        se = state.sched
        se.vprot = min(se.vprot, se.vruntime + se.vdelta(self._min_slice(rq, se.slice)))

    @staticmethod
    def protected(state: TaskState) -> bool:
        """``protect_slice``."""
        return state.sched.vruntime < state.sched.vprot

    @staticmethod
    def cancel_protect_slice(state: TaskState) -> None:
        if state.sched.vruntime < state.sched.vprot:
            state.sched.vprot = state.sched.vruntime

    # -- the pick ------------------------------------------------------------------------

    def pick_eevdf(self, rq: RunQueue, protect: bool = True) -> TaskState | None:
        """``pick_eevdf``: the eligible task of earliest virtual deadline."""
        if len(rq.queued) + (rq.curr is not None) == 1:
            return rq.curr if rq.curr is not None else rq.queued[0]
        curr = rq.curr
        if curr is not None and not self.eligible(rq, curr.sched.vruntime):
            curr = None
        if curr is not None and protect and self.protected(curr):
            return curr
        best = None
        for state in rq.queued:
            if (best is None or _before(state, best)) and self.eligible(rq, state.sched.vruntime):
                best = state
        if best is None or (curr is not None and _before(curr, best)):
            best = curr
        return best

    # -- run-queue moves -----------------------------------------------------------------

    def _allowed(self, state: TaskState, cpu: int) -> bool:
        allowed = state.sched.allowed
        return allowed is None or cpu in allowed

    def _select(self, state: TaskState) -> int:
        """The pCPU a task wakes on: its previous one unless busy and another is idle."""
        prev = state.sched.rq
        m = len(self.rqs)
        for c in [prev] + [(prev + i) % m for i in range(1, m)]:
            rq = self.rqs[c]
            if rq.curr is None and not rq.queued and self._allowed(state, c):
                return c
        return prev

    def _idle_balance(self, cpu: int) -> None:
        """Pull the earliest-deadline queued (not delayed) task from the busiest other queue."""
        best: tuple[RunQueue, TaskState] | None = None
        best_load = 0
        for c, rq in enumerate(self.rqs):
            load = rq.load()
            if c == cpu or (best is not None and load <= best_load):
                continue
            movable = [s for s in rq.queued if not s.sched.delayed and self._allowed(s, cpu)]
            if movable:
                first = movable[0]
                for s in movable[1:]:
                    if _before(s, first):
                        first = s
                best, best_load = (rq, first), load
        if best is not None:
            src, state = best
            self.update_entity_lag(src, state)  # dequeue_entity, not a sleep
            src.queued.remove(state)
            state.sched.deadline -= state.sched.vruntime  # PLACE_REL_DEADLINE
            state.sched.rel_deadline = True
            state.sched.rq = cpu
            self._enqueue(self.rqs[cpu], state)

    # -- hooks ---------------------------------------------------------------------------

    def charge(self, state: TaskState, ran: int, t: int) -> None:
        """``update_curr`` and ``update_deadline``."""
        se = state.sched
        se.vruntime += se.vdelta(ran)
        if se.vruntime >= se.deadline:
            if not se.custom:
                se.slice = self.base_slice
            se.deadline = se.vruntime + se.vdelta(se.slice)

    def on_block(self, state: TaskState, t: int) -> None:
        """``dequeue_entity`` for a sleep: delayed while not eligible, else gone with its lag."""
        se = state.sched
        rq = self.rqs[se.rq]
        if rq.curr is state:
            if self.DELAY_DEQUEUE and not self.eligible(rq, se.vruntime):
                se.delayed = True
                rq.queued.append(state)
            else:
                self.update_entity_lag(rq, state)
            rq.curr = None
        self.sim.resched(state.cpu)

    def on_wake(self, state: TaskState, t: int) -> None:
        se = state.sched
        if se.delayed:
            rq = self.rqs[se.rq]
            self.requeue_delayed(rq, state)
        else:
            cpu = self._select(state)
            se.rq = cpu
            rq = self.rqs[cpu]
            self._enqueue(rq, state)
        self.wakeup_preempt(rq, state, t)

    def requeue_delayed(self, rq: RunQueue, state: TaskState) -> None:
        """``requeue_delayed_entity`` with ``DELAY_ZERO``: a positive lag is not kept."""
        se = state.sched
        se.delayed = False
        self.update_entity_lag(rq, state)
        if se.vlag > 0:
            rq.queued.remove(state)
            se.vlag = 0
            self._enqueue(rq, state)

    def wakeup_preempt(self, rq: RunQueue, woken: TaskState, t: int) -> None:
        """``check_preempt_wakeup_fair``: does *woken* take the pCPU from the running task?"""
        cpu = woken.sched.rq
        curr = rq.curr
        if curr is not None:
            self.sim.sync_vcpu(curr, t)  # update_curr (it may block the running task)
            curr = rq.curr
        if curr is None:
            self.sim.resched(cpu)
            return
        if not self.wake_preempts:
            return
        if not self.protected(curr):
            self.sim.resched(cpu)  # update_curr: resched || !protect_slice(curr)
        short = self.PREEMPT_SHORT and woken.sched.slice < curr.sched.slice
        if self.pick_eevdf(rq, protect=not short) is woken:
            if short:
                self.cancel_protect_slice(curr)
            self.sim.resched(cpu)
        elif self.RUN_TO_PARITY and short:
            self.update_protect_slice(rq, curr)
            self.sim.resched(cpu)  # the protection's end moved: decide when again

    def pick(self, cpu: int, t: int) -> tuple[TaskState | None, int | None]:
        """``pick_task_fair`` -> ``pick_next_entity``; ``set_next_entity`` on a change."""
        rq = self.rqs[cpu]
        while True:
            if rq.curr is None and not rq.queued:
                self._idle_balance(cpu)
                if not rq.queued:
                    return None, None
            state = self.pick_eevdf(rq)
            assert state is not None  # a non-empty queue always holds an eligible task
            if not state.sched.delayed:
                break
            self.update_entity_lag(rq, state)  # dequeue the delayed task now
            rq.queued.remove(state)
            state.sched.delayed = False
            state.sched.vlag = min(state.sched.vlag, 0)  # DELAY_ZERO
        if state is not rq.curr:
            if rq.curr is not None:
                rq.queued.append(rq.curr)  # put_prev_entity
            rq.queued.remove(state)
            rq.curr = None
            self.set_protect_slice(rq, state)
            rq.curr = state
        return state, self._until(rq, state, t)

    def _until(self, rq: RunQueue, state: TaskState, t: int) -> int | None:
        """When the pCPU decides again if nothing happens first: the first tick at which
        the running task's protection is over (``update_curr`` from ``entity_tick``)."""
        if not rq.queued:
            return None  # alone: update_curr does not resched (nr_queued == 1)
        se = state.sched
        need = 0
        if se.vruntime < se.vprot:
            need = self._real_time_to(se, se.vprot - se.vruntime)
        end = t + max(need, 1)
        if self.TICK:
            end = -(-end // self.TICK) * self.TICK
        return end

    @staticmethod
    def _real_time_to(se: _Entity, vdist: int) -> int:
        """The least run time whose virtual time reaches *vdist* (calc_delta_fair is
        monotone, so a bisection inverts it exactly)."""
        low, high = 0, vdist * se.weight // NICE_0_LOAD + 1
        while se.vdelta(high) < vdist:
            high *= 2
        while low < high:
            mid = (low + high) // 2
            if se.vdelta(mid) >= vdist:
                high = mid
            else:
                low = mid + 1
        return low

    def describe(self, state: TaskState) -> tuple[int, str, int]:
        return 0, str(state.sched.deadline), state.sched.slice

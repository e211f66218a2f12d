"""``cfs``: Linux's Completely Fair Scheduler before EEVDF, one task per vCPU.

Source: Linux v6.5, ``kernel/sched/fair.c`` and ``kernel/sched/core.c``.
Each vCPU is a task (a vCPU thread) of nice ``VM.share.nice``, whose load
weight is ``sched_prio_to_weight[nice + 20]`` (``core.c``; 1024 at nice 0).

*Virtual runtime* (``update_curr``, ``calc_delta_fair``).  A task that runs
``delta`` ns advances its vruntime by ``delta * NICE_0_LOAD / weight``.  The
kernel computes this in fixed point (``__calc_delta``); here it is exact, a
:class:`~fractions.Fraction` (an ``int`` when whole).

*Run queues and the pick* (``pick_next_entity``).  Each pCPU has a run queue
of the runnable tasks it holds; it runs the one of smallest vruntime (ties:
host order), for a slice (``sched_slice``, ``__sched_period``)::

    period = sched_latency                   if nr_running <= latency / min_gran
           = nr_running * min_granularity    otherwise
    slice  = max(period * weight / rq_load, min_granularity)

with ``sched_latency`` 6 ms and ``min_granularity`` 0.75 ms, each scaled
by the CPUs online as Linux scales them at boot (``sched_init_granularity``,
``get_update_sysctl_factor``; host options ``cfs_tunable_scaling``, by
default ``"log"``: x ``1 + ilog2(min(cpus, 8))``, so x1 on 1 CPU, x2 on 2
or 3, x3 on 4 to 7 and x4 on 8 or more, and ``online_cpus``, by default the
host's pCPUs), ``rq_load`` the sum of the weights of the runnable tasks of
the queue and the division an integer floor.  At the slice's end the pCPU
picks again (the ``HRTICK`` form of ``check_preempt_tick``).  The queue's
``min_vruntime`` (``update_min_vruntime``) never decreases and follows the
smallest vruntime of its running and queued tasks.

*Wake-up* (``enqueue_entity``, ``place_entity``).  A waking task is placed at
``max(own vruntime, min_vruntime - sched_latency / 2)`` (``GENTLE_FAIR_SLEEPERS``):
a sleeper is credited at most 3 ms, so it cannot monopolise the pCPU.  It
preempts the running task when the running task's vruntime exceeds its own
by more than the wakeup granularity, 1 ms scaled alike, weighted by the woken task's
weight (``check_preempt_wakeup``, ``wakeup_preempt_entity``, ``wakeup_gran``);
the host option ``wake_preempts`` is the kernel's ``WAKEUP_PREEMPTION``
feature.  It wakes on its previous pCPU, or, when that one is busy, on the
first idle pCPU it may run on (a reduced ``select_idle_sibling``).

*Idle balance* (``newidle_balance``, reduced).  A pCPU left with nothing to
run pulls, from the other run queue of largest load that holds a queued task
it may run, the queued (not running) such task of smallest vruntime.  A task
moved between queues keeps its vruntime relative to the queues'
``min_vruntime`` (``dequeue_entity`` / ``enqueue_entity`` renormalisation).
``pin`` is the tasks' hard affinity.  Every VM is admitted (:func:`.place_all`).

*Group scheduling* (host option ``cfs_groups = "vm"``; ``CONFIG_FAIR_GROUP_SCHED``,
``calc_group_shares``).  libvirt puts each KVM guest's vCPU threads in a cgroup
of its own (``machine.slice/<vm>.scope``, ``cpu.shares`` 1024), so that a VM,
not a vCPU, is the unit the host shares.  Linux gives the group's entity on a
CPU the weight ``tg->shares * grq_load / tg_load`` -- the formula its comment
calls the ideal, with instantaneous loads -- and a task in that group's queue
its ``own / grq_load`` part of it: each vCPU of a VM is worth
``1024 * own / tg_load`` of the host, ``tg_load`` the own weights of the VM's
runnable vCPUs, at least ``MIN_SHARES`` (2).  The model flattens the
hierarchy to that per-task weight (integer floor, as the kernel's
arithmetic), recomputed for a VM's runnable vCPUs whenever one of them wakes
or blocks (decision 290): a VM with one runnable vCPU gives it the whole
1024, one with twelve gives each 85.  ``"none"`` (the default) is the flat
CFS of before.

*Directed yield* (``yield_to``, ``yield_to_task_fair``, ``yield_task_fair``;
KVM's ``kvm_vcpu_on_spin`` calls it on a pause-loop exit).  The yielding task
becomes its queue's *skip* buddy and the target its queue's *next* buddy;
both pCPUs pick again at once: the target's runs the target, the yielder's
runs any other task it has (the ``wakeup_preempt_entity`` check that may veto
a buddy is not modelled; decision 294).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias

from ..policy import Policy
from ..vcpu_state import VCPUState
from .server import exact

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["CFSPolicy", "SCHED_PRIO_TO_WEIGHT", "NICE_0_LOAD", "tunable_factor",
           "GROUP_SHARES", "MIN_SHARES", "group_weight"]

NICE_0_LOAD = 1024
#: A cgroup's ``cpu.shares`` by default, and the least weight a group entity gets.
GROUP_SHARES, MIN_SHARES = 1024, 2
#: ``sched_prio_to_weight`` (kernel/sched/core.c), nice -20 to 19.
SCHED_PRIO_TO_WEIGHT = (
    88761, 71755, 56483, 46273, 36291,
    29154, 23254, 18705, 14949, 11916,
    9548, 7620, 6100, 4904, 3906,
    3121, 2501, 1991, 1586, 1277,
    1024, 820, 655, 526, 423,
    335, 272, 215, 172, 137,
    110, 87, 70, 56, 45,
    36, 29, 23, 18, 15,
)
#: The tunables before scaling (``normalized_sysctl_sched_*``), ns.
SCHED_LATENCY = 6_000_000
MIN_GRANULARITY = 750_000
WAKEUP_GRANULARITY = 1_000_000
NR_LATENCY = SCHED_LATENCY // MIN_GRANULARITY  # sched_nr_latency, 8: scaling keeps the ratio


def tunable_factor(scaling: str, cpus: int) -> int:
    """What Linux multiplies CFS's tunables by on *cpus* CPUs online
    (``get_update_sysctl_factor``: the CPUs counted are at most 8)."""
    counted = min(max(cpus, 1), 8)
    if scaling == "none":
        return 1
    if scaling == "linear":
        return counted
    return 1 + counted.bit_length() - 1  # "log": 1 + ilog2(counted)


def group_weight(own: int, runnable_own: int) -> int:
    """The weight of a task of own weight *own* in a cgroup of ``cpu.shares``
    :data:`GROUP_SHARES` whose runnable tasks' own weights sum to *runnable_own*."""
    return max(MIN_SHARES, GROUP_SHARES * own // runnable_own)


class _Task:
    __slots__ = ("vruntime", "weight", "own", "allowed", "rq", "slice")

    def __init__(self, weight: int, allowed: frozenset[int] | None, rq: int) -> None:
        self.vruntime: int | Fraction = 0
        self.weight = weight
        #: its nice weight; ``weight`` is its weight in the host's queue (its group's part)
        self.own = weight
        self.allowed = allowed  # frozenset of pCPUs, or None for any
        self.rq = rq
        self.slice = 0


#: A vCPU under CFS: a task.
_TaskState: TypeAlias = "VCPUState[_Task]"


class _RunQueue:
    __slots__ = ("queued", "curr", "load", "min_vruntime", "slice_end", "preempt", "next",
                 "skip")

    def __init__(self) -> None:
        self.queued: list[_TaskState] = []  # runnable tasks not running
        self.curr: _TaskState | None = None  # the task this pCPU runs
        self.load = 0  # weights of queued + curr
        self.min_vruntime: int | Fraction = 0
        self.slice_end = 0
        self.preempt = False
        #: the buddies of a directed yield: run *next* first, *skip* only if alone
        self.next: _TaskState | None = None
        self.skip: _TaskState | None = None


def _key(state: _TaskState) -> tuple[int | Fraction, int]:
    return (state.sched.vruntime, state.order)


class CFSPolicy(Policy):
    """CFS (pre-EEVDF) on per-pCPU run queues with an idle balancer."""

    name = "cfs"
    admits = False  # every VM runs (place_all)

    def setup(self, sim: Simulator) -> None:
        super().setup(sim)
        options = sim.host.options
        self.wake_preempts = options.wake_preempts
        #: the scaling factor of the tunables on this host, and the tunables it gives (ns)
        self.factor = tunable_factor(options.cfs_tunable_scaling,
                                     options.online_cpus or sim.host.pcpus)
        self.latency = self.factor * SCHED_LATENCY
        self.min_granularity = self.factor * MIN_GRANULARITY
        self.wakeup_granularity = self.factor * WAKEUP_GRANULARITY
        self.rqs = [_RunQueue() for _ in range(sim.host.pcpus)]
        #: per VM, its vCPUs when each VM is a cgroup (``cfs_groups = "vm"``); else empty
        self.groups: dict[str, list[_TaskState]] = {}
        for state in sim.vcpus:
            pin = state.vm.share.pin
            state.sched = _Task(SCHED_PRIO_TO_WEIGHT[state.vm.share.nice + 20],
                                frozenset(pin) if pin else None, state.cpu)
            if options.cfs_groups == "vm":
                self.groups.setdefault(state.vm.name, []).append(state)
            if state.runnable:
                self._enqueue(self.rqs[state.cpu], state)
        for name in self.groups:
            self._reweight(name)

    # -- run-queue helpers -------------------------------------------------------------

    def _reweight(self, vm: str) -> None:
        """Give VM *vm*'s runnable vCPUs their group weights (``update_cfs_group``)."""
        members = [s for s in self.groups[vm] if s.runnable]
        total = sum(s.sched.own for s in members)
        for state in members:
            task = state.sched
            weight = group_weight(task.own, total)
            self.rqs[task.rq].load += weight - task.weight
            task.weight = weight

    def _enqueue(self, rq: _RunQueue, state: _TaskState) -> None:
        rq.queued.append(state)
        rq.load += state.sched.weight

    def _update_min(self, rq: _RunQueue) -> None:
        """``update_min_vruntime``: monotonic, towards the smallest current vruntime."""
        keys = [s.sched.vruntime for s in rq.queued]
        if rq.curr is not None:
            keys.append(rq.curr.sched.vruntime)
        if keys:
            rq.min_vruntime = max(rq.min_vruntime, min(keys))

    def _move(self, state: _TaskState, src: int, dst: int) -> None:
        """Renormalise *state*'s vruntime from run queue *src* to *dst* (not enqueued)."""
        task = state.sched
        v = task.vruntime - self.rqs[src].min_vruntime + self.rqs[dst].min_vruntime
        task.vruntime = v if v > 0 else 0
        task.rq = dst

    def _allowed(self, state: _TaskState, cpu: int) -> bool:
        allowed = state.sched.allowed
        return allowed is None or cpu in allowed

    def _slice(self, rq: _RunQueue, state: _TaskState) -> int:
        """``sched_slice``: the task's share of the period, at least ``min_granularity``."""
        nr = len(rq.queued) + (rq.curr is not None)
        period = self.latency if nr <= NR_LATENCY else nr * self.min_granularity
        return max(period * state.sched.weight // rq.load, self.min_granularity)

    def _idle_balance(self, cpu: int) -> None:
        """Pull the smallest-vruntime allowed queued task from the busiest other queue."""
        best = None
        for c, rq in enumerate(self.rqs):
            if c == cpu or (best is not None and rq.load <= best[0].load):
                continue
            movable = [s for s in rq.queued if self._allowed(s, cpu)]
            if movable:
                best = (rq, c, min(movable, key=_key))
        if best is not None:
            src, c, state = best
            src.queued.remove(state)
            src.load -= state.sched.weight
            self._move(state, c, cpu)
            self._enqueue(self.rqs[cpu], state)

    def _select(self, state: _TaskState) -> int:
        """The pCPU a task wakes on: its previous one unless busy and another is idle."""
        prev = state.sched.rq
        m = len(self.rqs)
        for c in [prev] + [(prev + i) % m for i in range(1, m)]:
            rq = self.rqs[c]
            if rq.curr is None and not rq.queued and self._allowed(state, c):
                return c
        return prev

    # -- hooks ---------------------------------------------------------------------------

    def on_wake(self, state: _TaskState, t: int) -> None:
        task = state.sched
        cpu = self._select(state)
        if cpu != task.rq:
            self._move(state, task.rq, cpu)
        rq = self.rqs[cpu]
        floor = rq.min_vruntime - self.latency // 2  # place_entity, GENTLE_FAIR_SLEEPERS
        if floor > task.vruntime:
            task.vruntime = floor
        self._enqueue(rq, state)
        if self.groups:
            self._reweight(state.vm.name)
        curr = rq.curr
        if curr is None:
            self.sim.resched(cpu)
        elif self.wake_preempts and (curr.sched.vruntime - task.vruntime
                                     > Fraction(self.wakeup_granularity * NICE_0_LOAD,
                                                task.weight)):
            rq.preempt = True
            self.sim.resched(cpu)

    def on_block(self, state: _TaskState, t: int) -> None:
        rq = self.rqs[state.sched.rq]
        if rq.curr is state:
            rq.curr = None
            rq.load -= state.sched.weight
        if self.groups:
            self._reweight(state.vm.name)
        self._update_min(rq)
        self.sim.resched(state.cpu)

    def charge(self, state: _TaskState, ran: int, t: int) -> None:
        task = state.sched
        if task.weight == NICE_0_LOAD:
            task.vruntime += ran
        else:
            task.vruntime = exact(task.vruntime + Fraction(ran * NICE_0_LOAD, task.weight))
        self._update_min(self.rqs[task.rq])

    def pick(self, cpu: int, t: int) -> tuple[_TaskState | None, int | None]:
        rq = self.rqs[cpu]
        curr = rq.curr
        if curr is not None:
            if not rq.preempt and t < rq.slice_end:
                return curr, rq.slice_end
            rq.queued.append(curr)  # put_prev_entity: back in the tree
            rq.curr = None
        rq.preempt = False
        if not rq.queued:
            self._idle_balance(cpu)
            if not rq.queued:
                return None, None
        state = self._buddy(rq) or min(rq.queued, key=_key)
        rq.queued.remove(state)
        rq.curr = state
        state.sched.slice = self._slice(rq, state)
        rq.slice_end = t + state.sched.slice
        self._update_min(rq)
        return state, rq.slice_end

    def _buddy(self, rq: _RunQueue) -> _TaskState | None:
        """The task a directed yield chose for *rq*, if any (clears the buddies)."""
        nxt, skip = rq.next, rq.skip
        rq.next = rq.skip = None
        if nxt is not None and nxt in rq.queued:
            return nxt
        if skip is not None and skip in rq.queued and len(rq.queued) > 1:
            return min((s for s in rq.queued if s is not skip), key=_key)
        return None

    def yield_to(self, state: _TaskState, target: _TaskState, t: int) -> None:
        src = self.rqs[state.sched.rq]
        if src.curr is state:
            src.skip, src.preempt = state, True
            self.sim.resched(state.sched.rq)
        dst = self.rqs[target.sched.rq]
        if target in dst.queued:
            dst.next, dst.preempt = target, True
            self.sim.resched(target.sched.rq)

    def describe(self, state: _TaskState) -> tuple[int, str, int]:
        return 0, str(state.sched.vruntime), state.sched.slice

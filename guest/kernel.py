"""One VM's guest scheduler: CFS-like run queues, load balancing and vCPU hotplug.

The guest sees its vCPUs as CPUs; it does not know when the host runs
them.  It keeps a run queue per vCPU, as Linux does (``kernel/sched/fair.c``,
reduced as the host's :mod:`akita.reference.policies.cfs` is):

* a vCPU runs the ready thread of least virtual runtime (ties: the lower
  thread number) for a slice of ``max(6 ms / n, 0.75 ms)``, ``n`` the
  threads on its queue counting the one it runs (``sched_slice`` at nice
  0, ``sched_latency`` 6 ms, ``min_granularity`` 0.75 ms); a thread in a
  critical section or spinning is not preempted (a spin lock disables
  preemption);
* a waking thread goes to its previous vCPU if that is idle, else to the
  first idle online vCPU after it, else back to its previous one (or, if
  that is offline, to the online vCPU of fewest threads), with its virtual
  runtime raised to at least the queue's least minus 3 ms
  (``place_entity``); it does not preempt (decision 92);
* a vCPU left with nothing pulls the ready thread of least virtual runtime
  from the online vCPU with the most ready threads (``newidle_balance``);
* *hotplug*: an offline vCPU runs no thread -- its threads move to the
  online vCPUs of fewest threads -- and an online one pulls work at once.
  A thread that holds or spins for a spin lock cannot be moved (Linux's
  ``stop_machine`` waits for every CPU to leave its non-preemptible
  sections): it finishes its section on the vCPU going offline, and moves
  then.

The guest hands each vCPU one *piece* at a time (:mod:`akita.reference.guest_hook`):
a thread's compute up to the end of its slice, a whole critical section,
a spin, or nothing.  Switching threads costs the guest no time.

*Lock waits* (:mod:`.sync`, decision 293).  A waiter for a ``"futex"`` lock
sleeps.  A waiter for a ``"spin"`` lock spins (``ENDLESS``); for a ``"pv"``
lock it spins :data:`~.sync.PV_SPIN` ns, then *parks*: it stays its vCPU's
thread and the vCPU halts until the releaser hands it the lock (the kick).

*Pause-loop exiting* (host option ``ple_window``; KVM's ``handle_pause``,
``grow_ple_window`` and ``kvm_vcpu_on_spin``, decision 294).  A spin is
handed out one window at a time; at each window's end still waiting, the
vCPU exits: the window doubles (``ple_window_grow`` 2), and the vCPU yields
its pCPU to the first of its siblings after the last one it boosted that
is preempted -- runnable, not running (``vcpu->ready``) -- if there is one
(:meth:`.Simulator.yield_to`).  KVM does not know the lock's holder; nor
does this: it boosts a preempted sibling, the holder or not.
"""

from __future__ import annotations

from typing import Any, Protocol

from akita.reference.vcpu_state import ENDLESS, VCPUState

from .parsec import Program
from .program import Compute, Critical, Get, Put, Wait
from .sync import PV_SPIN, Barrier, Channel, Lock
from .thread import BLOCKED, CURRENT, DONE, READY, Thread

__all__ = ["GuestKernel", "Dispatcher", "SCHED_LATENCY", "MIN_GRANULARITY"]

SCHED_LATENCY = 6_000_000
MIN_GRANULARITY = 750_000


class Dispatcher(Protocol):
    """How a kernel hands a vCPU its next piece (the runtime, :mod:`.runtime`)."""

    def give(self, state: VCPUState[Any], demand: int | None, t: int) -> int:
        """Replace *state*'s piece by *demand*; what remained of the old one."""

    def preempted(self, state: VCPUState[Any]) -> bool:
        """Whether the host holds *state* runnable but not running."""

    def yield_to(self, state: VCPUState[Any], target: VCPUState[Any], t: int) -> None:
        """*state* exits on a pause loop and yields its pCPU to *target*."""


class GuestKernel:
    """The guest scheduler of one VM, driving its vCPUs (*states*, in index order)."""

    def __init__(self, name: str, states: list[VCPUState[Any]], program: Program,
                 dispatcher: Dispatcher, *, lock_kind: str = "spin", ple_window: int = 0) -> None:
        self.name = name
        self.states = states
        self.dispatcher = dispatcher
        n = len(states)
        self.threads = [Thread(i, ops, i % n) for i, ops in enumerate(program.ops)]
        self.lock_kind = lock_kind
        self.locks = [Lock(lock_kind) for _ in range(program.locks)]
        #: the pause-loop window (ns, 0: none); the exits, and those that yielded
        self.ple = ple_window
        self.ple_exits = 0
        self.ple_yields = 0
        self._boosted = len(states) - 1
        self.barriers = [Barrier(self.threads) for _ in range(program.barriers)]
        self.channels = [Channel(capacity) for capacity in program.channels]
        self.cur: list[Thread | None] = [None] * n
        self.rq: list[list[Thread]] = [[] for _ in range(n)]
        #: the piece each vCPU holds: a demand, ENDLESS (a spin) or 0 (none)
        self.piece = [0] * n
        #: bumped at every piece handed out: a completion of an older piece is stale
        self.gen = [0] * n
        self.slice_left = [0] * n
        self.online = [True] * n
        #: co-stopped by the host (relaxed co-scheduling; the guest does not know)
        self.stopped = [False] * n
        self.done = 0
        #: when the last thread finished (ns), or None
        self.finished_at: int | None = None
        #: every change of the number of online vCPUs: (t, online)
        self.online_log: list[tuple[int, int]] = [(0, n)]

    # -- the program --------------------------------------------------------------------

    def start(self, t: int) -> None:
        """Start every thread at *t*: each on vCPU ``tid mod n``, each vCPU picks."""
        for thread in self.threads:
            self._enter(thread, t)
            if thread.state is READY:
                self.rq[thread.vcpu].append(thread)
        for v in range(len(self.states)):
            self._schedule(v, t)

    def _enter(self, th: Thread, t: int) -> None:
        """Run *th*'s operations that take no CPU, up to one that does, a wait or the end.

        The thread's state is left ``BLOCKED`` or ``DONE`` if it waits or
        ends; otherwise as it was.
        """
        ops = th.ops
        while th.pc < len(ops):
            op = ops[th.pc]
            if isinstance(op, Compute):
                th.left = op.ns
                return
            if isinstance(op, Critical):
                lock = self.locks[op.lock]
                if lock.holder is None:
                    lock.holder, th.in_cs, th.left = th, True, op.ns
                else:
                    lock.waiters.append(th)
                    th.spun, th.window = 0, self.ple
                    if lock.kind == "futex":
                        th.state = BLOCKED
                    else:
                        th.spinning = True
                return
            if isinstance(op, Wait):
                if not self._arrive(self.barriers[op.barrier], th, t):
                    return
            elif isinstance(op, Put):
                if not self._put(self.channels[op.channel], th, t):
                    return
            elif isinstance(op, Get):
                if not self._get(self.channels[op.channel], th, t):
                    return
            th.pc += 1
        th.state = DONE
        self.done += 1
        if self.done == len(self.threads):
            self.finished_at = t

    def _arrive(self, barrier: Barrier, th: Thread, t: int) -> bool:
        """*th* arrives; whether it goes on (it was the last)."""
        if len(barrier.arrived) + 1 + self._done_parties(barrier) < len(barrier.parties):
            barrier.arrived.append(th)
            th.state = BLOCKED
            return False
        waiting, barrier.arrived = barrier.arrived, []
        for other in waiting:
            other.pc += 1
            self._wake(other, t)
        return True

    def _done_parties(self, barrier: Barrier) -> int:
        return sum(1 for p in barrier.parties if p.state is DONE)

    def _put(self, channel: Channel, th: Thread, t: int) -> bool:
        if channel.getters:
            getter = channel.getters.popleft()
            getter.pc += 1
            self._wake(getter, t)
            return True
        if channel.items < channel.capacity:
            channel.items += 1
            return True
        channel.putters.append(th)
        th.state = BLOCKED
        return False

    def _get(self, channel: Channel, th: Thread, t: int) -> bool:
        if channel.items:
            channel.items -= 1
            if channel.putters:
                putter = channel.putters.popleft()
                putter.pc += 1
                channel.items += 1
                self._wake(putter, t)
            return True
        channel.getters.append(th)
        th.state = BLOCKED
        return False

    def _release(self, lock: Lock, t: int) -> None:
        """The holder leaves; the first waiter, if any, takes the lock."""
        if not lock.waiters:
            lock.holder = None
            return
        nxt = lock.waiters.popleft()
        op = nxt.ops[nxt.pc]
        assert isinstance(op, Critical)
        lock.holder, nxt.spinning, nxt.parked, nxt.in_cs = nxt, False, False, True
        nxt.left = op.ns
        if nxt.state is BLOCKED:
            self._wake(nxt, t, entered=True)
        elif nxt.state is CURRENT:  # it spun on its vCPU: it now runs its section
            self._give(nxt.vcpu, nxt.left, t)

    # -- scheduling -----------------------------------------------------------------------

    def _wake(self, th: Thread, t: int, *, entered: bool = False) -> None:
        """*th* stops waiting: it goes on with its program and, if it has CPU work, queues."""
        th.state = READY
        if not entered:
            self._enter(th, t)
            if th.state is not READY:
                return
        v = self._wake_target(th)
        th.vcpu = v
        queue = self.rq[v]
        floor = min((o.vruntime for o in queue), default=th.vruntime) - SCHED_LATENCY // 2
        if floor > th.vruntime:
            th.vruntime = floor
        queue.append(th)
        if self.cur[v] is None:
            self._schedule(v, t)

    def _wake_target(self, th: Thread) -> int:
        n = len(self.states)
        prev = th.vcpu
        for i in range(n):
            v = (prev + i) % n
            if self.online[v] and self.cur[v] is None and not self.rq[v]:
                return v
        return prev if self.online[prev] else self._least_loaded()

    def _least_loaded(self) -> int:
        """The online vCPU with the fewest threads (lowest index first)."""
        return min((v for v in range(len(self.states)) if self.online[v]),
                   key=lambda v: (len(self.rq[v]) + (self.cur[v] is not None), v))

    def _slice(self, v: int) -> int:
        n = len(self.rq[v]) + 1
        return max(SCHED_LATENCY // n, MIN_GRANULARITY)

    def _piece(self, v: int, th: Thread) -> int | None:
        if th.parked:
            return None
        if th.spinning:
            return self._spin_piece(th)
        if th.in_cs:
            return th.left
        return min(th.left, self.slice_left[v])

    def _spin_piece(self, th: Thread) -> int:
        """What a waiter spins next: to its pv budget's end or its pause-loop window's."""
        if self.lock_kind != "pv":
            return th.window if self.ple else ENDLESS
        budget = PV_SPIN - th.spun
        return min(budget, th.window) if self.ple else budget

    def _give(self, v: int, demand: int | None, t: int) -> int:
        """Hand vCPU *v* its next piece (nothing while it is co-stopped)."""
        self.gen[v] += 1
        if self.stopped[v]:
            self.piece[v] = 0
            return 0
        self.piece[v] = demand if demand is not None else 0
        return self.dispatcher.give(self.states[v], demand, t)

    def _schedule(self, v: int, t: int) -> None:
        """vCPU *v* has no current thread: pick one (pulling if need be) or halt."""
        th = self._pick(v) if self.online[v] else None
        if th is None:
            self.cur[v] = None
            self._give(v, None, t)
            return
        th.state, th.vcpu = CURRENT, v
        self.cur[v] = th
        self.slice_left[v] = self._slice(v)
        self._give(v, self._piece(v, th), t)

    def _pick(self, v: int) -> Thread | None:
        queue = self.rq[v]
        if not queue:
            self._idle_balance(v)
        if not queue:
            return None
        th = min(queue, key=lambda o: (o.vruntime, o.tid))
        queue.remove(th)
        return th

    def _idle_balance(self, v: int) -> None:
        best = None
        for u in range(len(self.states)):
            if u != v and self.online[u] and self.rq[u] and (
                    best is None or len(self.rq[u]) > len(self.rq[best])):
                best = u
        if best is not None:
            th = min(self.rq[best], key=lambda o: (o.vruntime, o.tid))
            self.rq[best].remove(th)
            th.vcpu = v
            self.rq[v].append(th)

    # -- what the host tells ----------------------------------------------------------------

    def on_done(self, v: int, t: int) -> None:
        """vCPU *v* finished its piece at *t*."""
        th, ran = self.cur[v], self.piece[v]
        if self.stopped[v]:  # the halt of a co-stopped vCPU ended: it stays halted
            return
        if th is None:  # a halt ended
            self._schedule(v, t)
            return
        if th.parked:  # the halt of a parked waiter's vCPU ended: it halts on
            self._give(v, None, t)
            return
        if th.spinning:
            self._spun(v, th, ran, t)
            return
        self._progress(v, th, ran)
        if th.left == 0:
            op = th.ops[th.pc]
            if isinstance(op, Critical):
                th.in_cs = False
                self._release(self.locks[op.lock], t)
            th.pc += 1
            self._enter(th, t)
        self._go_on(v, th, t)

    def _spun(self, v: int, th: Thread, ran: int, t: int) -> None:
        """A waiter's spin piece ended, the lock not its: park (pv) or exit (PLE)."""
        th.spun += ran
        if self.lock_kind == "pv" and th.spun >= PV_SPIN:
            th.spinning, th.parked = False, True
            self._give(v, None, t)
            return
        self.ple_exits += 1
        target = self._preempted_sibling(v)
        if target is not None:
            self.ple_yields += 1
            self._boosted = target
            self.dispatcher.yield_to(self.states[v], self.states[target], t)
        th.window *= 2
        self._give(v, self._spin_piece(th), t)

    def _preempted_sibling(self, v: int) -> int | None:
        """The first preempted vCPU after the last boosted one, *v* aside (``kvm_vcpu_on_spin``)."""
        n = len(self.states)
        for i in range(1, n + 1):
            u = (self._boosted + i) % n
            if u != v and self.dispatcher.preempted(self.states[u]):
                return u
        return None

    def _progress(self, v: int, th: Thread, ran: int) -> None:
        th.left -= ran
        th.vruntime += ran
        self.slice_left[v] -= ran

    def _go_on(self, v: int, th: Thread, t: int) -> None:
        """After a piece: the same thread goes on, or the vCPU picks another."""
        if th.state is not CURRENT:  # it waits or is done
            self.cur[v] = None
            self._schedule(v, t)
        elif not self.online[v] and not _pinned(th):  # it leaves, at last
            self.cur[v] = None
            self._give(v, None, t)
            self._move(th, t)
        elif th.spinning or th.in_cs or self.slice_left[v] > 0:
            self._give(v, self._piece(v, th), t)
        elif self.rq[v]:  # its slice is over and another waits
            th.state = READY
            self.rq[v].append(th)
            self.cur[v] = None
            self._schedule(v, t)
        else:
            self.slice_left[v] = self._slice(v)
            self._give(v, self._piece(v, th), t)

    # -- hotplug and co-stop ----------------------------------------------------------------

    def _take(self, v: int, t: int) -> Thread | None:
        """Take *v*'s current thread off it, with the progress of its piece; *v* halts."""
        th, held = self.cur[v], self.piece[v]
        self.cur[v] = None
        left = self._give(v, None, t)
        if th is not None and held not in (0, ENDLESS):
            if th.spinning:
                th.spun += held - left
            else:
                self._progress(v, th, held - left)
        return th

    def offline(self, v: int, t: int) -> None:
        """Take vCPU *v* offline: its threads move to the online vCPUs of fewest threads
        (its current one once out of a spin lock's section, see the module docstring)."""
        self.online[v] = False
        current = self.cur[v]
        moving = self.rq[v]
        self.rq[v] = []
        if current is None or not _pinned(current):
            moving = [th for th in [self._take(v, t)] if th is not None] + moving
        for th in moving:
            self._move(th, t)

    def _move(self, th: Thread, t: int) -> None:
        """*th* goes to the online vCPU of fewest threads."""
        th.state = READY
        u = self._least_loaded()
        th.vcpu = u
        self.rq[u].append(th)
        if self.cur[u] is None:
            self._schedule(u, t)

    def bring_online(self, v: int, t: int) -> None:
        """Bring vCPU *v* online; it pulls a thread at once."""
        self.online[v] = True
        if self.cur[v] is None:
            self._schedule(v, t)

    def set_online(self, count: int, t: int) -> None:
        """Make *count* vCPUs online: the lowest-numbered ones."""
        for v in range(len(self.states) - 1, count - 1, -1):
            if self.online[v]:
                self.offline(v, t)
        for v in range(count):
            if not self.online[v]:
                self.bring_online(v, t)
        self.online_log.append((t, count))

    def co_stop(self, v: int, t: int) -> None:
        """The host stops vCPU *v* (relaxed co-scheduling); its thread stays on it, frozen."""
        th = self._take(v, t)
        self.cur[v] = th
        self.stopped[v] = True

    def co_start(self, v: int, t: int) -> None:
        """The host lets vCPU *v* run again; it goes on where it stopped."""
        self.stopped[v] = False
        th = self.cur[v]
        if th is None:
            self._schedule(v, t)
        else:
            self._give(v, self._piece(v, th), t)

    # -- reading --------------------------------------------------------------------------

    def held(self, v: int, piece_left: int) -> int:
        """The CPU work vCPU *v* has queued (ns): what is left of its piece (*piece_left*),
        the rest of its current thread's operation (a spinner's: its critical section),
        and its run queue's threads' operations."""
        th = self.cur[v]
        held = sum(o.left for o in self.rq[v])
        if th is not None:
            if th.spinning or th.parked:
                op = th.ops[th.pc]
                held += op.ns if isinstance(op, Critical) else 0
            else:
                held += piece_left + th.left - self.piece[v]
        return held

    def online_count(self) -> int:
        return sum(self.online)

    def busy(self, v: int) -> bool:
        """Whether the guest has a thread on vCPU *v* (running, spinning or frozen)."""
        return self.cur[v] is not None


def _pinned(th: Thread) -> bool:
    """Whether *th* is in a non-preemptible section: holding, spinning for or parked on a lock."""
    return th.spinning or th.parked or th.in_cs

"""The guest's synchronisation objects: locks, barriers and bounded queues.

Each holds the threads that wait on it, first come first served:

* :class:`Lock` -- of one of three kinds (:data:`LOCK_KINDS`, the guest's
  ``locks`` key; decision 293):

  ``"spin"``
      a bare spin lock: a waiter keeps its vCPU busy, spinning, until the
      lock is its (a ticket or queued spin lock without paravirtualisation);
  ``"pv"``
      the guest kernel's paravirtual queued spin lock on KVM
      (``kernel/locking/qspinlock_paravirt.h``): a waiter spins
      ``SPIN_THRESHOLD`` (``1 << 15``) times round a ``cpu_relax`` (PAUSE)
      loop, then halts its vCPU (``pv_wait``, a HLT) keeping its thread,
      and the releaser kicks it (``pv_kick``, an IPI) -- :data:`PV_SPIN` ns;
  ``"futex"``
      a pthread mutex as PARSEC's programs create them
      (``pthread_mutex_init(&m, NULL)``: glibc's default, non-adaptive type,
      which tries one compare-and-swap and then sleeps in ``FUTEX_WAIT``;
      ``nptl/pthread_mutex_lock.c``): a waiter sleeps at once and its vCPU
      runs other threads or halts; the releaser's ``FUTEX_WAKE`` wakes it.

  All hand the lock over in arrival order (Linux's queued spin locks are
  FIFO; so is a futex's wait queue here), so a preempted *waiter* next in
  line stalls those behind it too.
* :class:`Barrier` -- ``parties`` threads; the last to arrive releases the
  others (``pthread_barrier_wait``: waiters sleep).
* :class:`Channel` -- a queue of ``capacity`` items between two pipeline
  stages; a producer waits while it is full, a consumer while it is empty
  (a mutex and two condition variables, as PARSEC's pipelines use).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from akita.model.guest import LOCK_KINDS

if TYPE_CHECKING:  # pragma: no cover
    from .thread import Thread

__all__ = ["Lock", "Barrier", "Channel", "LOCK_KINDS", "PV_SPIN", "PAUSE_NS"]

#: One PAUSE on the Intel server cores of FlexCore's time (before Skylake): about 10
#: cycles ("Intel 64 and IA-32 Architectures Optimization Reference Manual", Skylake
#: microarchitecture: PAUSE latency raised "from about 10 cycles" to up to 140), at an
#: assumed 2 GHz clock -- the seed names a 12-core Intel machine, not its clock.
PAUSE_NS = 5
#: A pv spin lock's spin before it halts: ``SPIN_THRESHOLD`` (1 << 15) PAUSE loops.
PV_SPIN = (1 << 15) * PAUSE_NS


class Lock:
    """A lock of kind *kind* (:data:`LOCK_KINDS`); :attr:`holder` is the thread that holds it."""

    __slots__ = ("kind", "holder", "waiters")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.holder: Thread | None = None
        self.waiters: deque[Thread] = deque()


class Barrier:
    """A barrier of :attr:`parties` (the threads that meet at it)."""

    __slots__ = ("parties", "arrived")

    def __init__(self, parties: list[Thread]) -> None:
        self.parties = parties
        self.arrived: list[Thread] = []


class Channel:
    """A bounded queue of :attr:`capacity` items."""

    __slots__ = ("capacity", "items", "getters", "putters")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.items = 0
        self.getters: deque[Thread] = deque()
        self.putters: deque[Thread] = deque()

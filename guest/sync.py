"""The guest's synchronisation objects: locks, barriers and bounded queues.

Each holds the threads that wait on it, first come first served:

* :class:`Lock` -- a spin lock (``spin``: a waiter keeps its vCPU busy,
  spinning, as a ticket or queued spin lock's waiters do) or a blocking
  lock (a waiter sleeps, as on a futex).  Both hand the lock over in
  arrival order (Linux's queued spin locks are FIFO; so is a futex's wait
  queue here), so a preempted *waiter* next in line stalls those behind it
  too.
* :class:`Barrier` -- ``parties`` threads; the last to arrive releases the
  others (``pthread_barrier_wait``: waiters sleep).
* :class:`Channel` -- a queue of ``capacity`` items between two pipeline
  stages; a producer waits while it is full, a consumer while it is empty
  (a mutex and two condition variables, as PARSEC's pipelines use).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .thread import Thread

__all__ = ["Lock", "Barrier", "Channel"]


class Lock:
    """A lock; :attr:`holder` is the thread that holds it."""

    __slots__ = ("spin", "holder", "waiters")

    def __init__(self, spin: bool) -> None:
        self.spin = spin
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

"""What a guest thread does: a straight-line program of five operations.

A thread's program is a list of operations, run in order:

:class:`Compute`
    ``ns`` of CPU time, preemptible by the guest's scheduler.
:class:`Critical`
    take lock ``lock``, hold it for ``ns`` of CPU time, release it.  A
    critical section is not preempted by the guest (a kernel spin lock
    disables preemption; a thread holding a mutex keeps its vCPU for the
    short section here), but its vCPU may be by the host: *lock-holder
    preemption*.
:class:`Wait`
    arrive at barrier ``barrier`` and wait until every party has arrived.
:class:`Put` / :class:`Get`
    put an item into / take one out of the bounded queue ``channel``,
    waiting while it is full / empty (a pipeline's stages).

Only :class:`Compute` and :class:`Critical` take CPU time; the others take
none and only synchronise.  Times are integer nanoseconds.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

__all__ = ["Compute", "Critical", "Wait", "Put", "Get", "Op"]


class Compute(NamedTuple):
    """Run for *ns* of CPU time."""

    ns: int


class Critical(NamedTuple):
    """Hold lock number *lock* for *ns* of CPU time."""

    lock: int
    ns: int


class Wait(NamedTuple):
    """Wait at barrier number *barrier*."""

    barrier: int


class Put(NamedTuple):
    """Put one item into queue number *channel*."""

    channel: int


class Get(NamedTuple):
    """Take one item out of queue number *channel*."""

    channel: int


#: One operation of a thread's program.
Op: TypeAlias = Compute | Critical | Wait | Put | Get

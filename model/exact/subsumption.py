"""Subsumption: a state whose lazy jobs lie inside another's adds no behaviour.

Write ``s2 <= s1`` when the two search states are equal in every field except
the work intervals, and each vCPU's ``[work, most]`` in ``s2`` lies inside its
interval in ``s1`` (so both hold work or both hold none).  A search state
stands for its members, the concrete states with each vCPU's work anywhere in
its interval (:func:`.abstraction.members`; the fields it drops are read by
nothing, :mod:`.abstraction` 4. and 5.), and every behaviour of a member is a
behaviour the search explores from the state (:mod:`.abstraction` 3.).  The
members of ``s2`` are members of ``s1``, so every behaviour from ``s2`` is one
from ``s1``, tick for tick: ``s2`` need not be explored once ``s1`` is, and, if
``s1`` was reached no later than ``s2``, no miss is found later for it.

What varies between comparable states is the work a LO vCPU may still hold
and, past ``C_opt``, what a HI vCPU may (before ``C_opt`` a HI vCPU's
consumption is kept, and it fixes the interval).  :class:`Antichains` keeps,
for each *skeleton* (a state with every interval replaced by "holds work or
not"), the intervals reached with the instant each was first reached, and
answers whether a new state is subsumed (by one reached no later) and which
kept ones the new state subsumes (reached no earlier: the search drops them,
and their successors are among the new state's).  The set the search keeps is
therefore closed under the step *up to subsumption*, which is what the
certificate check verifies (:mod:`akita.proofs.exact_certificate`: every
successor of a member is a member of a kept state).
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["skeleton", "intervals", "inside", "Antichains"]

_W = 7  # fields per vCPU (:data:`.abstraction.FIELDS`)


def skeleton(state: Sequence[int]) -> tuple[int, ...]:
    """*state* with each vCPU's ``work`` and ``most`` replaced by 1 if it holds work, else 0."""
    out = list(state)
    for base in range(2, len(out), _W):
        flag = 1 if out[base + 1] > 0 else 0
        out[base + 1] = out[base + 2] = flag
    return tuple(out)


def intervals(state: Sequence[int]) -> tuple[int, ...]:
    """Each vCPU's ``(work, most)``, flattened."""
    out: list[int] = []
    for base in range(2, len(state), _W):
        out += (state[base + 1], state[base + 2])
    return tuple(out)


def inside(small: Sequence[int], big: Sequence[int]) -> bool:
    """Whether each interval of *small* lies inside the same vCPU's in *big*."""
    for k in range(0, len(small), 2):
        if small[k] < big[k] or small[k + 1] > big[k + 1]:
            return False
    return True


class Antichains:
    """Per skeleton, the kept states' intervals, none inside another kept one reached
    no later."""

    def __init__(self) -> None:
        self._groups: dict[tuple[int, ...], list[tuple[tuple[int, ...], int, bytes]]] = {}

    def keep(self, state: Sequence[int], key: bytes, at: int) -> tuple[bool, list[bytes]]:
        """Whether to keep *state* (packed *key*, reached at *at*): not if a kept state
        reached by *at* has intervals around its own.  If kept, it is recorded, and the
        kept states it subsumes that were reached no earlier are returned: they are no
        longer kept."""
        mine = intervals(state)
        group = self._groups.setdefault(skeleton(state), [])
        dropped = []
        for theirs, when, k in group:
            if when <= at and inside(mine, theirs):
                return False, []
            if when >= at and inside(theirs, mine):
                dropped.append(k)
        if dropped:
            gone = set(dropped)
            group[:] = [entry for entry in group if entry[2] not in gone]
        group.append((mine, at, key))
        return True, dropped

"""The period grid of one vCPU under its phase (rule R2), for the tick unrolling.

A vCPU of period ``T`` and phase ``p`` (``0 <= p < T``, in ticks) starts its
periods at ``p, p + T, p + 2T, ...``; before ``p`` it is inactive with
deadline ``p`` (its "previous deadline" is its first period start).  Its
deadline while tick ``[t, t+1)`` is chosen is therefore the first period
start *after* ``t``: the smallest ``p + kT > t``.  Writing ``t = qT + r``
(``0 <= r < T``), a period starts at instant ``t`` iff ``p == r``, and the
deadline is ``p + T (q + [p <= r])`` -- one comparison of the phase with a
constant, whatever ``t``.

Three encodings of the same grid (:func:`grid`):

* :class:`FixedGrid`: ``p`` an integer (a replay, the cross-check): every
  term below is a Python constant, and the unrolling folds it away.
* :class:`IntGrid` (the default for a symbolic phase): ``p`` one Z3 integer
  in ``[0, T)``; "a period starts at ``t``" is the bound atom ``p == r``, the
  deadline the linear term above.  Keys compare as differences of phases
  plus constants, which Z3's arithmetic core propagates as bounds.
* :class:`OneHotGrid`: one Boolean per candidate phase, exactly one true
  (the case split of the spec); the deadline is a sum of ``If`` terms.
  Kept for the measurement in docs/schedule-proofs.rst (it was slower).
"""

from __future__ import annotations

from typing import Union

import attrs
import z3

from ..errors import ModelError

__all__ = ["Cond", "Term", "Piece", "Grid", "FixedGrid", "IntGrid", "OneHotGrid", "ENCODINGS",
           "grid"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("grid", "Grid.deadline", "Grid.release"),
}


#: A condition: folded to a Python ``bool`` when it is a constant.
Cond = Union[bool, z3.BoolRef]
#: An integer: a Python ``int`` when it is a constant.
Term = Union[int, z3.ArithRef]


@attrs.frozen
class Piece:
    """Where the phase lies (``cond``: it is in ``[lo, hi]``) and what the deadline is there:
    ``phase + base``."""

    cond: Cond
    lo: int
    hi: int
    base: int


class Grid:
    """The period grid of one vCPU of *period* ticks (subclasses fix the phase's encoding)."""

    period: int
    #: The phase, as a term (an ``int`` when fixed).
    phase: Term

    def starts(self, at: int) -> Cond:
        """A period starts at instant *at*."""
        raise NotImplementedError

    def begun(self, at: int) -> Cond:
        """The first period has started by instant *at* (``at >= p``)."""
        raise NotImplementedError

    def deadline(self, t: int) -> Term:
        """The deadline while tick ``[t, t+1)`` is chosen: the first period start after *t*."""
        raise NotImplementedError

    def pieces(self, t: int) -> tuple[Piece, ...]:
        """The deadline at tick *t* piece by piece: ``phase + base`` while the phase
        lies in ``[lo, hi]`` (:class:`Piece`); the pieces cover ``[0, T)``."""
        raise NotImplementedError

    def release(self, k: int) -> Term:
        """The instant period *k* starts: ``p + kT``."""
        return self.phase + k * self.period

    def constraints(self) -> list[z3.BoolRef]:
        """What bounds the phase (nothing when it is fixed)."""
        return []


class FixedGrid(Grid):
    """A known phase: every answer is a constant."""

    def __init__(self, period: int, phase: int) -> None:
        if not 0 <= phase < period:
            raise ModelError("phase", phase, f"a tick in [0, {period})")
        self.period, self.phase = period, phase

    def starts(self, at: int) -> Cond:
        return at % self.period == self.phase

    def begun(self, at: int) -> Cond:
        return at >= self.phase

    def deadline(self, t: int) -> Term:
        return t + 1 + (self.phase - t - 1) % self.period

    def pieces(self, t: int) -> tuple[Piece, ...]:
        return (Piece(True, self.phase, self.phase, self.deadline(t) - self.phase),)


class IntGrid(Grid):
    """A symbolic phase: one Z3 integer ``p`` in ``[0, T)``."""

    def __init__(self, period: int, name: str) -> None:
        self.period = period
        self.phase = z3.Int(f"phase of {name}")

    def starts(self, at: int) -> Cond:
        return self.phase == at % self.period

    def begun(self, at: int) -> Cond:
        return True if at >= self.period else self.phase <= at

    def deadline(self, t: int) -> Term:
        q, r = divmod(t, self.period)
        return self.phase + self.period * z3.If(self.phase <= r, q + 1, q)

    def pieces(self, t: int) -> tuple[Piece, ...]:
        q, r = divmod(t, self.period)
        early = Piece(self.phase <= r, 0, r, self.period * (q + 1))
        if r == self.period - 1:
            return (Piece(True, 0, r, early.base),)
        return early, Piece(self.phase > r, r + 1, self.period - 1, self.period * q)

    def constraints(self) -> list[z3.BoolRef]:
        return [self.phase >= 0, self.phase < self.period]


class OneHotGrid(Grid):
    """A symbolic phase as ``T`` Booleans "the phase is ``r``", exactly one true."""

    def __init__(self, period: int, name: str) -> None:
        self.period = period
        self.chosen = [z3.Bool(f"phase of {name} is {r}") for r in range(period)]
        self.phase = z3.Sum(*[z3.If(c, r, 0) for r, c in enumerate(self.chosen)])

    def starts(self, at: int) -> Cond:
        return self.chosen[at % self.period]

    def begun(self, at: int) -> Cond:
        return True if at >= self.period else z3.Or(*self.chosen[: at + 1])

    def deadline(self, t: int) -> Term:
        return z3.Sum(*[z3.If(c, t + 1 + (r - t - 1) % self.period, 0)
                        for r, c in enumerate(self.chosen)])

    def pieces(self, t: int) -> tuple[Piece, ...]:
        return tuple(Piece(c, r, r, (r - t - 1) % self.period + t + 1 - r)
                     for r, c in enumerate(self.chosen))

    def constraints(self) -> list[z3.BoolRef]:
        return [z3.PbEq([(c, 1) for c in self.chosen], 1)]


#: The encodings of a symbolic phase, by name (:func:`grid`).
ENCODINGS = ("int", "one-hot")


def grid(period: int, phase: int | None, name: str, encoding: str = "int") -> Grid:
    """The grid of vCPU *name*: fixed when *phase* is an ``int``, else symbolic in *encoding*."""
    if phase is not None:
        return FixedGrid(period, phase)
    if encoding == "one-hot":
        return OneHotGrid(period, name)
    if encoding != "int":
        raise ModelError("encoding", encoding, " or ".join(map(repr, ENCODINGS)))
    return IntGrid(period, name)

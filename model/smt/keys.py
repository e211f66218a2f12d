"""Ordering keys of the tick unrolling as pieces of the phases, and how two compare.

A vCPU's key at tick ``t`` (its deadline, or its virtual deadline ``s + x T``,
times ``q``, the denominator of ``x``) is ``q * phase + offset``, where the
offset depends only on which side of ``t mod T`` the phase lies
(:meth:`.grid.Grid.pieces`).  Two keys therefore compare, piece by piece,
as a *difference of two phases* against a constant -- ``ph_j - ph_i <= c``
-- a difference-logic atom that Z3's arithmetic core propagates by bounds,
and that recurs from tick to tick (a handful of constants per pair of
vCPUs), so that the solver learns it once.  A piece pair whose intervals
decide the comparison folds to a constant, and so does every comparison
between fixed phases: the encoding is then the synchronous one's.

(Writing the key as one ``If`` term and comparing terms -- the first
encoding tried -- left Z3 a fresh variable per key and tick and was
several times slower; docs/schedule-proofs.rst.)
"""

from __future__ import annotations

import attrs

from .fold import and_, le, or_
from .grid import Cond, FixedGrid, Grid, Piece

__all__ = ["Key", "deadline_key", "virtual_key", "no_key", "before"]


@attrs.frozen
class Key:
    """``q * phase + offsets[n]`` while the phase lies in ``grid.pieces(t)[n]``."""

    grid: Grid
    pieces: tuple[Piece, ...]
    offsets: tuple[int, ...]


#: The grid of a key that does not depend on any phase (:func:`no_key`).
_NOWHERE = FixedGrid(1, 0)


def no_key() -> Key:
    """The key 0 for every vCPU: equal keys, so that only the queue order orders them."""
    return Key(_NOWHERE, (Piece(True, 0, 0, 0),), (0,))


def deadline_key(grid: Grid, t: int, q: int) -> Key:
    """``q`` times the deadline at tick *t*."""
    pieces = grid.pieces(t)
    return Key(grid, pieces, tuple(q * p.base for p in pieces))


def virtual_key(grid: Grid, t: int, q: int, p: int) -> Key:
    """``q`` times the virtual deadline ``s + (p/q) T`` at tick *t* (``s``: the deadline
    less ``T``)."""
    pieces = grid.pieces(t)
    period = grid.period
    return Key(grid, pieces, tuple(q * (piece.base - period) + p * period for piece in pieces))


def _difference_le(a: Key, pa: Piece, b: Key, pb: Piece, c: int) -> Cond:
    """``phase_a - phase_b <= c``, given the phases lie in *pa* and *pb*."""
    if a.grid is b.grid:
        return 0 <= c
    if pa.hi - pb.lo <= c:
        return True
    if pa.lo - pb.hi > c:
        return False
    return le(a.grid.phase - b.grid.phase, c)


def _difference_eq(a: Key, pa: Piece, b: Key, pb: Piece, c: int) -> Cond:
    """``phase_a - phase_b == c``, given the phases lie in *pa* and *pb*."""
    if a.grid is b.grid:
        return c == 0
    if not pa.lo - pb.hi <= c <= pa.hi - pb.lo:
        return False
    if pa.lo == pa.hi and pb.lo == pb.hi:
        return True
    return a.grid.phase - b.grid.phase == c


def _pairs(a: Key, b: Key) -> list[tuple[int, int]]:
    """The piece pairs that can hold together (one phase: the same piece twice)."""
    if a.grid is b.grid:
        return [(n, n) for n in range(len(a.pieces))]
    return [(m, n) for m in range(len(a.pieces)) for n in range(len(b.pieces))]


def before(a: Key, b: Key, q: int, tie: Cond) -> Cond:
    """``a < b``, or ``a == b`` and *tie* (the first vCPU comes first among equals)."""
    cases = []
    for m, n in _pairs(a, b):
        pa, pb = a.pieces[m], b.pieces[n]
        gap = b.offsets[n] - a.offsets[m]  # a < b  <=>  q (ph_a - ph_b) < gap
        strict = _difference_le(a, pa, b, pb, -(-gap // q) - 1)
        if tie is True:
            holds = _difference_le(a, pa, b, pb, gap // q)
        elif tie is False or gap % q:
            holds = strict
        else:
            holds = or_(strict, and_(_difference_eq(a, pa, b, pb, gap // q), tie))
        cases.append(and_(pa.cond, pb.cond, holds))
    return or_(*cases)

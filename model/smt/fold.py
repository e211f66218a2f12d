"""Boolean and integer connectives that fold Python constants before Z3 sees them.

With a fixed phase (:class:`~.grid.FixedGrid`) most conditions of the tick
unrolling are Python constants ("a period of vCPU 2 starts at tick 40");
folding them here keeps the encoding as small as the synchronous one was,
and the same code builds the symbolic encoding when they are Z3 terms.
"""

from __future__ import annotations

import z3

from .grid import Cond, Term

__all__ = ["and_", "or_", "not_", "ite", "lt", "le", "eq", "as_bool"]


def and_(*conditions: Cond) -> Cond:
    """Conjunction; ``False`` if any is ``False``, the others if some are ``True``."""
    terms = []
    for c in conditions:
        if c is False:
            return False
        if c is not True:
            terms.append(c)
    if not terms:
        return True
    return terms[0] if len(terms) == 1 else z3.And(*terms)


def or_(*conditions: Cond) -> Cond:
    """Disjunction, folded as :func:`and_`."""
    terms = []
    for c in conditions:
        if c is True:
            return True
        if c is not False:
            terms.append(c)
    if not terms:
        return False
    return terms[0] if len(terms) == 1 else z3.Or(*terms)


def not_(c: Cond) -> Cond:
    """Negation."""
    return (not c) if isinstance(c, bool) else z3.Not(c)


def ite(c: Cond, a: Term, b: Term) -> Term:
    """``a`` if *c* else ``b``."""
    if isinstance(c, bool):
        return a if c else b
    return z3.If(c, a, b)


def _ints(a: Term, b: Term) -> bool:
    return isinstance(a, int) and isinstance(b, int)


def lt(a: Term, b: Term) -> Cond:
    """``a < b``."""
    return bool(a < b) if _ints(a, b) else a < b


def le(a: Term, b: Term) -> Cond:
    """``a <= b``."""
    return bool(a <= b) if _ints(a, b) else a <= b


def eq(a: Term, b: Term) -> Cond:
    """``a == b``."""
    return bool(a == b) if _ints(a, b) else a == b


def as_bool(c: Cond) -> z3.BoolRef:
    """*c* as a Z3 formula."""
    return z3.BoolVal(c) if isinstance(c, bool) else c

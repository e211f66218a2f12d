"""Named constraints and solving with verdicts.

:class:`Constraints` collects ``(name, formula)`` pairs.  :func:`solve` asks
Z3 whether they can all hold and answers ``sat`` with a model, ``unsat``
with the names in an unsat core (when asked for), or ``unknown`` with Z3's
reason -- never a bare bool, and ``unknown`` is never read as either.  Its
work is limited by the current resource budget (:mod:`.resources`, a
deterministic count) and its *timeout*, a wall-clock guard.
"""

from __future__ import annotations

from typing import Iterable

import attrs
import z3

from . import resources

__all__ = ["Constraints", "Answer", "solve", "unknown_reason"]


class Constraints:
    """An ordered list of named Z3 formulas."""

    def __init__(self) -> None:
        self.items: list[tuple[str, z3.BoolRef]] = []

    def add(self, name: str, formula: z3.BoolRef | bool) -> None:
        """Add *formula* under *name* (a Python bool is accepted and must be True)."""
        if isinstance(formula, bool):
            formula = z3.BoolVal(formula)
        self.items.append((name, formula))

    def extend(self, pairs: Iterable[tuple[str, z3.BoolRef]]) -> None:
        for name, formula in pairs:
            self.add(name, formula)


@attrs.frozen
class Answer:
    """What Z3 said: ``"sat"``, ``"unsat"`` or ``"unknown"``, and the evidence."""

    status: str
    model: z3.ModelRef | None = None
    core: tuple[str, ...] = ()
    reason: str | None = None


def _solver(core: bool, logic: str | None = None) -> z3.Solver:
    """Z3's SMT core after a pass that substitutes away the many ``name == value``
    definitions of an unrolling (measured several times faster than the default
    strategy on the pCPU schedules); the plain solver when an unsat core is asked;
    Z3's solver for *logic* when one is named (``"QF_NRA"`` for the EDF-VD sums)."""
    if logic is not None:
        return z3.SolverFor(logic)
    if core:
        return z3.Solver()
    return z3.Then("simplify", "propagate-values", "solve-eqs", "elim-uncnstr", "smt").solver()


def solve(constraints: Constraints, *, timeout: float, core: bool = False,
          logic: str | None = None) -> Answer:
    """Check *constraints* with Z3 within the current resource budget
    (:mod:`.resources`) and *timeout* seconds, a wall-clock guard (see
    :func:`_solver`)."""
    solver = _solver(core, logic)
    solver.set("timeout", max(1, int(timeout * 1000)))
    if core:
        solver.set("unsat_core", True)
        for name, formula in constraints.items:
            solver.assert_and_track(formula, z3.Bool(name))
    else:
        for _, formula in constraints.items:
            solver.add(formula)
    result = resources.check(solver)
    if result == z3.sat:
        return Answer("sat", model=solver.model())
    if result == z3.unsat:
        names = tuple(str(b) for b in solver.unsat_core()) if core else ()
        return Answer("unsat", core=names)
    return Answer("unknown", reason=unknown_reason(solver))


def unknown_reason(solver: z3.Solver | z3.Optimize) -> str:
    """Why *solver* answered ``unknown``: the current resource budget if it is spent
    (:mod:`.resources`), else Z3's own reason."""
    budget = resources.current()
    if budget is not None and budget.spent():
        return budget.reason()
    return str(solver.reason_unknown())

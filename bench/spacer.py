"""Z3's Spacer engine (constrained Horn clauses) on the exact question, against the search.

Issue 30 asks whether a symbolic encoding -- "Z3's fixedpoint/Spacer engine for an
unbounded invariant" -- scales where the explicit search (:mod:`akita.model.exact.search`)
does not.  This measures it alone, on pCPUs small enough that the search decides each
in milliseconds.

**The encoding.**  One predicate ``inv_k`` per instant ``k`` of the hyperperiod
(synchronous phases, so the positions in the periods are ``k mod T_i``), over the Z3
model's state (:class:`akita.model.smt.pcpu.State`: work, budget consumed, served,
owed, temperature, ask and insertion instant per vCPU, the mode) and the vCPU that ran
last.  Facts: every state at instant 0, after every arrival within the caps (the tick
step's :func:`akita.model.exact.tick.start`).  One clause per instant: ``inv_k(s)`` and
one tick of the project's own Z3 encoding (:func:`~akita.model.smt.pcpu.choose`,
:func:`~akita.model.smt.pcpu.run_tick`, :func:`~akita.model.smt.pcpu.start_periods`,
placed as :func:`akita.proofs.exact_certificate.z3_step` places it, at ``t = max T``)
with the arrivals the search takes (a HI vCPU ``0..C_pes``, a LO one up to ``C_opt``
held) give ``inv_{k+1}`` of the state after it, insertion instants moved back one
tick so that the current instant stays ``t`` (only their order is read).  A query
clause: a HI period that ends short is an error.  ``sat`` (an inductive invariant
exists) is SAFE, ``unsat`` is UNSAFE.

Each query runs in a child process killed at ``--seconds`` (Spacer did not honour
Z3's own timeout here: a 60 s timeout ran past 10 minutes).  Every answer Spacer gives
is compared with the search's; a disagreement is printed as such and makes the exit
status 1.

    python bench/spacer.py [--sets 10] [--seconds 60] [--seed 3] [--unsafe 8] [--queue host]

``--queue host`` asks the same pCPUs with the ``host`` queue order, where no insertion
instant is read (under ``fifo`` they drift back a tick per tick in the clauses).

``--unsafe N`` also draws pCPUs under the deliberately wrong variants until the search
finds ``N`` UNSAFE ones (``random.Random(5)``), to show the encoding finds misses.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import pickle
import random
import subprocess
import sys
import time
from fractions import Fraction
from typing import Sequence

import attrs
import z3

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from exact import draw  # noqa: E402  (bench/exact.py's seeded pCPUs)

from akita.model.exact.machine import NOBODY, Machine, machine  # noqa: E402
from akita.model.exact.search import Limits, decide  # noqa: E402
from akita.model.exact.tick import current, start  # noqa: E402
from akita.model.smt.grid import FixedGrid  # noqa: E402
from akita.model.smt.named import Constraints  # noqa: E402
from akita.model.smt.pcpu import State, TickPCPU, choose, run_tick, start_periods  # noqa: E402

PERIODS = [4, 6, 8, 12]
VARIANTS = [None, "no-mode-switch", "lo-first-in-hi-mode", "premature-hi-to-lo", "no-cooling"]


def _constants(formulas: Sequence[z3.ExprRef]) -> list[z3.ExprRef]:
    """The uninterpreted constants of *formulas* (a clause's universally bound variables)."""
    found: dict[int, z3.ExprRef] = {}
    stack, seen = list(formulas), set()
    while stack:
        term = stack.pop()
        if term.get_id() in seen:
            continue
        seen.add(term.get_id())
        if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found[term.get_id()] = term
        else:
            stack.extend(term.children())
    return list(found.values())


def _term(value: object) -> z3.ExprRef:
    if isinstance(value, z3.ExprRef):
        return z3.simplify(value)
    return z3.BoolVal(value) if isinstance(value, bool) else z3.IntVal(value)


def _args(state: State, last: object) -> list[z3.ExprRef]:
    return [_term(x) for x in (*state.work, *state.consumed, *state.served, *state.owed,
                               *state.temperature, *state.asked, *state.ins, state.hi_mode,
                               last)]


def clauses(pcpu: TickPCPU) -> z3.Solver:
    """The Horn clauses of *pcpu*'s HI guarantee (module docstring), in a HORN solver."""
    m = machine(pcpu)
    n, t = m.n, max(m.period)
    hyper = math.lcm(*m.period)
    sorts = [z3.IntSort()] * (5 * n) + [z3.BoolSort()] * n + [z3.IntSort()] * n \
        + [z3.BoolSort(), z3.IntSort()]
    inv = [z3.Function(f"inv{k}", *sorts, z3.BoolSort()) for k in range(hyper)]
    solver = z3.SolverFor("HORN")

    def clause(body: list[z3.ExprRef], head: z3.ExprRef) -> None:
        bound = _constants(body + [head])
        solver.add(z3.ForAll(bound, z3.Implies(z3.And(*body), head)) if bound
                   else z3.Implies(z3.And(*body), head))

    for fact in _facts(m, t):
        solver.add(inv[0](*fact))
    for k in range(hyper):
        body, after, last, shorts = _tick(m, t, k, inv[k])
        clause(body, inv[(k + 1) % hyper](*_args(after, last)))
        misses = [_term(c) for (i, _), c in shorts.items() if m.hi[i]]
        if misses:
            clause(body + [z3.Or(*misses)], z3.BoolVal(False))
    return solver


def _facts(m: Machine, t: int) -> list[list[z3.ExprRef]]:
    """Every state at instant 0 after every arrival within the caps, its insertion ranks
    as instants in the frame where the current one is *t*."""
    latest = current(m.n)
    caps = [range((m.full[i] if m.hi[i] else m.c_opt[i]) + 1) for i in range(m.n)]
    out = []
    for demands in itertools.product(*caps):
        s, _ = start(m, [0] * m.n, demands)
        ins = tuple(t if r == latest else t - latest + r for r in s.ins)
        out.append(_args(State(s.work, s.consumed, s.served, s.owed, s.temperature, s.asked,
                               ins, s.hi_mode), s.last))
    return out


def _tick(m: Machine, t: int, k: int, inv: z3.FuncDeclRef) -> tuple[
        list[z3.ExprRef], State, z3.ExprRef, dict]:
    """The body of instant *k*'s clause (the predicate, the arrivals, the tick's named
    definitions), the state after the tick, who ran, and the periods found short."""
    n, pcpu = m.n, m.pcpu
    names = "work consumed served owed temperature".split()
    ints = {f: tuple(z3.Int(f"{f}{i}") for i in range(n)) for f in names}
    asked = tuple(z3.Bool(f"asked{i}") for i in range(n))
    ins = tuple(z3.Int(f"ins{i}") for i in range(n))
    hi_mode, last = z3.Bool("hi_mode"), z3.Int("last")
    before = State(ints["work"], ints["consumed"], ints["served"], ints["owed"],
                   ints["temperature"], asked, ins, hi_mode)
    grids = [FixedGrid(T, (t - k) % T) for T in m.period]
    cs = Constraints()
    run, chosen = choose(pcpu, grids, t, before, [last == i for i in range(n)], cs)
    ran = run_tick(pcpu, t, chosen, run)
    demand = [z3.Int(f"demand{i}") for i in range(n)]
    shorts: dict = {}
    after = start_periods(pcpu, grids, t + 1, ran,
                          {(i, (t + 1) // m.period[i]): demand[i] for i in range(n)}, shorts)
    arrivals = []
    for i in range(n):
        if (k + 1) % m.period[i] != 0:
            arrivals.append(demand[i] == 0)
        elif m.hi[i]:
            arrivals.append(z3.And(demand[i] >= 0, demand[i] <= m.full[i]))
        else:
            arrivals.append(z3.And(demand[i] >= 0,
                                   z3.Or(demand[i] == 0, ran.work[i] + demand[i] <= m.c_opt[i])))
    who: z3.ExprRef = z3.IntVal(NOBODY)
    for i in reversed(range(n)):
        who = z3.If(run[i], i, who)
    body = [inv(*_args(before, last))] + arrivals + [f for _, f in cs.items]
    return body, attrs.evolve(after, ins=tuple(x - 1 for x in after.ins)), who, shorts


def spacer(pcpu: TickPCPU) -> tuple[str, float]:
    """Spacer's answer on *pcpu* and its seconds."""
    solver = clauses(pcpu)
    began = time.perf_counter()
    answer = solver.check()
    word = ("SAFE" if answer == z3.sat else "UNSAFE" if answer == z3.unsat
            else f"UNKNOWN ({solver.reason_unknown()})")
    return word, time.perf_counter() - began


def _child(pcpu: TickPCPU, seconds: float) -> tuple[str, float]:
    """:func:`spacer` in a child process, killed after *seconds*."""
    try:
        done = subprocess.run([sys.executable, __file__, "--child", pickle.dumps(pcpu).hex()],
                              capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        return f"none within {seconds:g} s", seconds
    if done.returncode != 0:
        return f"error: {done.stderr.strip().splitlines()[-1]}", 0.0
    word, took = json.loads(done.stdout)
    return word, took


def row(pcpu: TickPCPU, seconds: float) -> tuple[str, bool]:
    began = time.perf_counter()
    outcome = decide(pcpu, Limits(states=4_000_000, seconds=600))
    search = time.perf_counter() - began
    word, took = _child(pcpu, seconds)
    decided = word in ("SAFE", "UNSAFE")
    agrees = not decided or word == outcome.status
    shape = ", ".join(f"({'HI' if v.hi else 'LO'} {v.period} {v.c_opt}"
                      + (f" {v.c_pes})" if v.hi else ")") for v in pcpu.vcpus)
    spent = f"{took:.2f}" if decided else "--"
    line = (f"| {shape} | {pcpu.variant or '--'} | {outcome.status} | {outcome.states:,} | "
            f"{search * 1000:.1f} | {word} | {spent} |" + ("" if agrees else " **DISAGREE**"))
    return line, agrees


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(spacer(pickle.loads(bytes.fromhex(sys.argv[2])))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--unsafe", type=int, default=8)
    parser.add_argument("--queue", choices=["fifo", "host"], default="fifo")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pcpus = [attrs.evolve(draw(rng, 2, PERIODS, Fraction(4, 5), False), queue_order=args.queue)
             for _ in range(args.sets)]
    unsafe_rng = random.Random(5)
    found = []
    while len(found) < args.unsafe:
        p = draw(unsafe_rng, unsafe_rng.choice([2, 3]), PERIODS, Fraction(4, 5), False)
        p = attrs.evolve(p, variant=unsafe_rng.choice(VARIANTS))
        if decide(p, Limits(states=200_000, seconds=60)).status == "UNSAFE":
            found.append(p)
    print("| pCPU (HI or LO, T, C_opt, C_pes) | variant | search | states | search ms "
          "| Spacer | Spacer s |\n|---|---|---|---|---|---|---|")
    every = True
    for pcpu in pcpus + found:
        line, agrees = row(pcpu, args.seconds)
        every &= agrees
        print(line, flush=True)
    return 0 if every else 1


if __name__ == "__main__":
    sys.exit(main())

"""Re-checking an exact SAFE answer: the reachable set is closed under the tick step and miss-free.

The certificate of a ``SAFE`` answer (:func:`akita.model.exact.search.decide`)
is the set ``S`` of search states it reached.  :func:`check_certificate` checks,
by a second algorithm that shares none of the search's stepping code:

1. **Initially covered**: for every phase vector in scope (each VM every tick
   of its period, the earliest 0 -- the anchoring the shift in time justifies,
   docs/schedule-proofs.rst), every concrete state at instant 0, after every
   arrival within the caps, is a member of some state of ``S``
   (:func:`akita.model.exact.abstraction.covers`).
2. **Closed and miss-free**: from every member of every state of ``S`` at an
   instant where a period starts, the concrete step (:func:`akita.model.exact.tick.step`,
   the Z3 model's semantics, checked against :func:`akita.model.smt.pcpu.unroll`
   by the cross-check, or the Z3 encoding itself, :func:`z3_step`, with
   ``step=z3_step``) is run tick by tick to the next instant where a period
   starts, and there, for every arrival (every demand ``0..C_pes`` of a HI vCPU;
   ``0..C_opt - leftover`` of a LO one, the capped behaviours that
   :mod:`akita.model.exact.abstraction` 2. shows lose no HI miss), no HI
   vCPU's period may end short and the state must again be a member of ``S``.

Every behaviour is a chain of such segments from an initial state, and HI
misses are judged only at period starts, so 1 and 2 prove that no behaviour
in scope misses, for all time.  What the check takes from the search is only
``S``; what it trusts is the tick step (or Z3's encoding), the argument of
:mod:`akita.model.exact.abstraction` (the cap on LO work, and the state's
fields that are dropped), and :func:`~akita.model.exact.abstraction.covers`.
Its cost is the members of ``S`` times the ticks between period starts: it is
a re-check for pCPUs of modest budgets, with its own limit (:class:`CheckLimits`).

:func:`check_intervals` checks the same two conditions for the same members, stepping
each state's members together, as one family cut where the tick reads their work
(its docstring gives the argument); its cost is the families stepped, a few per state
where :func:`check_certificate` steps every member.  ``akita admit`` runs it
(:func:`recheck`); :func:`check_certificate` stays as the plain reference it is
compared with (``tests/proofs/test_exact_intervals.py``).
"""

from __future__ import annotations

import itertools
import time
from typing import Callable, Iterable, Sequence

import attrs
import z3

from akita.model.exact.abstraction import FIELDS, Layout, canonical, covers, layout, members, \
    read_budget, settle
from akita.model.exact.collector import paused
from akita.model.exact.machine import NOBODY, Machine, machine
from akita.model.exact.search import Outcome
from akita.model.exact.tick import TickState, advance, arrive, current, ranks, start
from akita.model.exact.tick import step as tick_step
from akita.model.smt.grid import FixedGrid
from akita.model.smt.named import Constraints, solve
from akita.model.smt.pcpu import Shorts, State, TickPCPU, choose, run_tick, start_periods
from akita.parallel import run_of, run_tasks

__all__ = ["CheckLimits", "CertificateCheck", "check_certificate", "check_intervals",
           "recheck", "z3_step", "shift", "Step", "RECHECK_LIMITS", "PARTS", "PARTS_FROM"]

#: ``step(machine, state, demands) -> (state, who ran, short vCPUs)``: one concrete tick.
Step = Callable[[Machine, TickState, Sequence[int]], tuple[TickState, int, tuple[int, ...]]]


@attrs.frozen
class CheckLimits:
    """The re-check gives up (``checked = False``, with the reason) beyond *members*
    concrete states stepped (:func:`check_certificate`), *families* of them stepped a
    tick (:func:`check_intervals`), or *seconds*."""

    members: int = 5_000_000
    seconds: float = 600.0
    families: int = 5_000_000


@attrs.frozen
class CertificateCheck:
    """The re-check's answer: ``accepted`` (both conditions hold), or the first
    failure in ``reason``; ``checked`` is ``False`` when a limit stopped it first."""

    accepted: bool
    checked: bool
    states: int
    #: Members stepped (:func:`check_certificate`), or families stepped a tick
    #: (:func:`check_intervals`): the count its limit is on.
    members: int
    seconds: float
    reason: str


class _Index:
    """The states of ``S`` by everything but their work intervals, for :func:`covers`."""

    def __init__(self, m: Machine, lay: Layout, states: Iterable[bytes]) -> None:
        self.m, self.lay = m, lay
        self.by_shape: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        for key in states:
            state = lay.unpack(key)
            self.by_shape.setdefault(self._shape(state), []).append(state)

    def _shape(self, state: Sequence[int]) -> tuple[int, ...]:
        out = list(state)
        w = len(FIELDS)
        temps, asks = settle(self.m, self.lay.field(state, "pos"),
                             self.lay.field(state, "temperature"), self.lay.field(state, "asked"))
        for i in range(self.m.n):
            base = 2 + w * i
            out[base + 4], out[base + 5] = temps[i], asks[i]
            runnable = 1 if state[base + 1] > 0 else 0
            out[base + 1] = out[base + 2] = runnable
        return tuple(out)

    def covered(self, concrete: TickState) -> bool:
        runnable = [1 if w > 0 else 0 for w in concrete.work]
        for state in self.by_shape.get(self._concrete_shape(concrete, runnable), ()):
            if covers(self.m, state, concrete):
                return True
        return False

    def _concrete_shape(self, c: TickState, runnable: list[int]) -> tuple[int, ...]:
        m = self.m
        temps, asks = settle(m, c.pos, c.temperature, [int(a) for a in c.asked])
        out = [1 if c.hi_mode else 0,
               c.last + 1 if (m.fifo and c.last != NOBODY and runnable[c.last]) else 0]
        for i in range(m.n):
            if runnable[i]:
                out += (c.pos[i], 1, 1, read_budget(m, i, c.consumed[i]), temps[i], asks[i],
                        c.ins[i] if m.fifo else 0)
            else:
                out += (c.pos[i], 0, 0, 0, temps[i], asks[i], 0)
        return tuple(out)


def _arrivals(m: Machine, after: TickState) -> list[list[int]]:
    """The demands to try at an instant, per vCPU, given the state *after* its period
    starts with no arrival (``[0]`` where no period starts): a HI vCPU ``0..C_pes``, a LO
    one ``0..C_opt - leftover``."""
    options = []
    for i in range(m.n):
        if after.pos[i] != 0:
            options.append([0])
        elif m.hi[i]:
            options.append(list(range(m.full[i] + 1)))
        else:
            options.append(list(range(max(0, m.c_opt[i] - after.work[i]) + 1)))
    return options


def _phases(pcpu: TickPCPU) -> Iterable[tuple[int, ...]]:
    """Every phase vector in scope: fixed phases kept; each VM with an open phase every
    tick of its period, shared by its vCPUs; the earliest 0 when none is fixed."""
    groups: dict[str, list[int]] = {}
    for i, v in enumerate(pcpu.vcpus):
        if v.phase is None:
            groups.setdefault(v.name.split("/")[0], []).append(i)
    open_ = list(groups.values())
    for choice in itertools.product(*[range(pcpu.vcpus[g[0]].period) for g in open_]):
        if open_ and all(v.phase is None for v in pcpu.vcpus) and 0 not in choice:
            continue
        phases = [0 if v.phase is None else v.phase for v in pcpu.vcpus]
        for group, phase in zip(open_, choice):
            for i in group:
                phases[i] = phase
        yield tuple(phases)


#: The re-check's limits when ``akita admit`` runs it on every SAFE answer.
#: The family count decides (decision 321); the seconds are a wall-clock guard, wide
#: enough that a loaded machine does not reach it where a quiet one finishes
#: (decision 121).
RECHECK_LIMITS = CheckLimits(members=5_000_000, seconds=1200.0, families=5_000_000)


#: Certificates of at least this many states are re-checked in :data:`PARTS` parts, which
#: run side by side (decision 359); smaller ones in one, in this process.  Both figures
#: are fixed, not read from the machine, so the answer's words do not depend on it.
PARTS_FROM = 20_000
PARTS = 2


def recheck(pcpu: TickPCPU, outcome: Outcome, workers: int | None = None) -> tuple[bool, str]:
    """The hook :class:`akita.model.exact.admission.ExactTest` takes: re-check a SAFE
    *outcome*'s reachable set with the tick step, interval by interval
    (:func:`check_intervals`), in :data:`PARTS` parts on *workers* processes from
    :data:`PARTS_FROM` states on."""
    assert outcome.reached is not None, "a SAFE outcome carries its reachable set"
    states = outcome.reached.states
    parts = PARTS if len(states) >= PARTS_FROM else 1
    check = check_intervals(pcpu, states, limits=RECHECK_LIMITS, parts=parts, workers=workers)
    return check.accepted, check.reason


def check_certificate(pcpu: TickPCPU, states: Iterable[bytes], *, step: Step = tick_step,
                      limits: CheckLimits = CheckLimits()) -> CertificateCheck:
    """Re-check a SAFE certificate (module docstring)."""
    began = time.perf_counter()
    m = machine(pcpu)
    lay = layout(m)
    keys = list(states)
    index = _Index(m, lay, keys)
    count = 0

    def answer(accepted: bool, reason: str, checked: bool = True) -> CertificateCheck:
        return CertificateCheck(accepted, checked, len(keys), count,
                                time.perf_counter() - began, reason)

    def landed(s: TickState, shorts: Sequence[int], where: str) -> str | None:
        if any(m.hi[i] for i in shorts):
            return f"a HI vCPU is short at {where}"
        if not index.covered(s):
            return f"a state at {where} is in no state of the certificate: {s}"
        return None

    for phases in _phases(pcpu):
        pos0 = [(-p) % T for p, T in zip(phases, m.period)]
        choices = [list(range(m.full[i] + 1)) if pos0[i] == 0 else [0] for i in range(m.n)]
        if not any(p == 0 for p in pos0):
            continue  # nothing starts at 0: idle until a later start (anchoring covers it)
        for demands in itertools.product(*choices):
            s, shorts = start(m, phases, demands)
            failure = landed(s, shorts, f"instant 0 with phases {phases}")
            if failure:
                return answer(False, failure)
    for key in keys:
        state = lay.unpack(key)
        if 0 not in lay.field(state, "pos"):
            continue  # checked as part of the segment that passes through it
        for s in members(m, state):
            count += 1
            if count > limits.members or time.perf_counter() - began > limits.seconds:
                return answer(False, f"re-check limit reached after {count:,} members "
                                     f"({limits.members:,} members or {limits.seconds:g} s)",
                              checked=False)
            failure = _segment(m, s, step, landed)
            if failure:
                return answer(False, failure)
    return answer(True, f"closed under the tick step and miss-free: {len(keys):,} states, "
                        f"{count:,} members stepped")


def _segment(m: Machine, s: TickState, step: Step,
             landed: Callable[[TickState, Sequence[int], str], str | None]) -> str | None:
    """From *s* to the next instant where a period starts, every arrival there."""
    ticks = 0
    while True:
        ticks += 1
        if any((p + 1) % T == 0 for p, T in zip(s.pos, m.period)):
            for after, shorts in _branches(m, s, step):
                failure = landed(after, shorts, f"{ticks} ticks after the state {s}")
                if failure:
                    return failure
            return None
        s, _, shorts = step(m, s, (0,) * m.n)
        if any(m.hi[i] for i in shorts):
            return "a HI vCPU is short between period starts (impossible: a step bug)"


def _branches(m: Machine, s: TickState, step: Step) -> Iterable[tuple[TickState, tuple[int, ...]]]:
    """The tick from *s* into an instant where periods start, with every arrival
    (:func:`_arrivals`).  With the Python step the tick itself is run once
    (:func:`akita.model.exact.tick.advance`) and only the arrivals are varied
    (:func:`~akita.model.exact.tick.arrive`), which is what :func:`~akita.model.exact.tick.step`
    does; any other *step* is called afresh for each arrival."""
    if step is tick_step:
        ran = advance(m, s)
        for demands in itertools.product(*_arrivals(m, arrive(m, ran, (0,) * m.n)[0])):
            yield arrive(m, ran, demands)
        return
    for demands in itertools.product(*_arrivals(m, step(m, s, (0,) * m.n)[0])):
        after, _, shorts = step(m, s, demands)
        yield after, shorts


def z3_step(m: Machine, s: TickState, demands: Sequence[int]) -> tuple[
        TickState, int, tuple[int, ...]]:
    """One tick of the Z3 encoding (:func:`akita.model.smt.pcpu.choose`,
    :func:`~akita.model.smt.pcpu.run_tick`, :func:`~akita.model.smt.pcpu.start_periods`)
    on the concrete state *s*, solved by Z3: the same interface as :func:`.tick.step`.

    The tick is placed at ``t = max T`` with phases ``(t - pos) mod T`` (so that
    every period start at ``t + 1`` ends a period, as the relative state assumes),
    insertion ranks as instants before ``t`` (and the current rank as ``t``).
    """
    pcpu = m.pcpu
    n = m.n
    t = max(m.period)
    grids = [FixedGrid(T, (t - p) % T) for T, p in zip(m.period, s.pos)]
    latest = current(n)

    def instant(rank: int) -> int:
        return t if rank == latest else t - latest + rank

    iv = z3.IntVal
    state = State(tuple(iv(w) for w in s.work), tuple(iv(c) for c in s.consumed),
                  tuple(iv(v) for v in s.served), tuple(iv(o) for o in s.owed),
                  tuple(iv(x) for x in s.temperature), tuple(z3.BoolVal(a) for a in s.asked),
                  tuple(iv(instant(r)) for r in s.ins), z3.BoolVal(s.hi_mode))
    cs = Constraints()
    previous = [i == s.last for i in range(n)]
    run, chosen = choose(pcpu, grids, t, state, previous, cs)
    after = run_tick(pcpu, t, chosen, run)
    jobs = {(i, (t + 1) // m.period[i]): iv(d) for i, d in enumerate(demands)}
    shorts: Shorts = {}
    final = start_periods(pcpu, grids, t + 1, after, jobs, shorts)
    answer = solve(cs, timeout=60)
    assert answer.status == "sat", answer
    model = answer.model
    assert model is not None

    def value(term: z3.ExprRef | bool | int) -> int:
        if isinstance(term, (bool, int)):
            return int(term)
        got = model.eval(term, model_completion=True)
        return int(z3.is_true(got)) if z3.is_bool(got) else got.as_long()

    ran = [i for i in range(n) if value(run[i])]
    work = tuple(value(w) for w in final.work)
    ins = ranks([value(x) for x in final.ins], work, t + 1)
    new = TickState(tuple((p + 1) % T for p, T in zip(s.pos, m.period)), work,
                    tuple(value(c) for c in final.consumed), tuple(value(v) for v in final.served),
                    tuple(value(o) for o in final.owed),
                    tuple(value(x) for x in final.temperature),
                    tuple(bool(value(a)) for a in final.asked), ins, bool(value(final.hi_mode)),
                    ran[0] if ran else NOBODY)
    short = tuple(i for (i, _), c in shorts.items() if value(c))
    return new, (ran[0] if ran else NOBODY), short


# ---------------------------------------------------------------------------------------
# The same re-check, interval by interval (decision 320)
# ---------------------------------------------------------------------------------------

#: A family of concrete states: the lowest member and each vCPU's width (the
#: :func:`shift` of the lowest member by every ``0 <= delta <= width``).
Family = tuple[TickState, tuple[int, ...]]


def shift(m: Machine, s: TickState, delta: Sequence[int]) -> TickState:
    """*s* with ``delta[i]`` more work for each vCPU ``i``, and a HI vCPU owed as much
    more (a member of a certificate state owes its consumption plus its work)."""
    if not any(delta):
        return s
    return TickState(s.pos, tuple([w + d for w, d in zip(s.work, delta)]), s.consumed, s.served,
                     tuple([o + d if h else o for o, d, h in zip(s.owed, delta, m.hi)]),
                     s.temperature, s.asked, s.ins, s.hi_mode, s.last)


def _same(m: Machine, a: TickState, b: TickState, delta: Sequence[int] | None = None) -> bool:
    """*a* equal to *b* :func:`shift`-ed by *delta* (none: *b* itself), but for a LO
    vCPU's service and debt (read by nothing but its own, unjudged, shortfall); the
    shifted state is not built."""
    if (a.pos, a.consumed, a.temperature, a.asked, a.ins, a.hi_mode, a.last) != (
            b.pos, b.consumed, b.temperature, b.asked, b.ins, b.hi_mode, b.last):
        return False
    if delta is None:
        delta = (0,) * m.n
    for i, hi in enumerate(m.hi):
        if a.work[i] != b.work[i] + delta[i]:
            return False
        if hi and (a.served[i] != b.served[i] or a.owed[i] != b.owed[i] + delta[i]):
            return False
    return True


class _Boxes:
    """The certificate's states by everything but their work (:func:`_blank`), each as
    its box of work."""

    def __init__(self, m: Machine, lay: Layout, states: Iterable[bytes]) -> None:
        self.m = m
        self.boxes: dict[tuple[int, ...], list[tuple[tuple[int, ...], tuple[int, ...]]]] = {}
        for key in states:
            state = lay.unpack(key)
            temps, asks = settle(m, lay.field(state, "pos"), lay.field(state, "temperature"),
                                 lay.field(state, "asked"))
            mine = list(state)
            for i in range(m.n):
                base = 2 + len(FIELDS) * i
                mine[base + 4], mine[base + 5] = temps[i], asks[i]
            self.boxes.setdefault(_blank(mine), []).append(
                (lay.field(state, "work"), lay.field(state, "most")))

    def covered(self, family: Family) -> bool:
        """Whether every member of *family* is a member of some certificate state: the
        family's box lies in the union of the boxes of the states it
        :func:`~akita.model.exact.abstraction.matches` (the comparison of ``matches``,
        its work set aside on both sides, done once per family)."""
        low, width = family
        m = self.m
        for i in range(m.n):
            if m.hi[i] and low.work[i] > 0 and (low.served[i] != low.consumed[i] or
                                                low.owed[i] != low.consumed[i] + low.work[i]):
                return False
        shape = canonical(m, low.hi_mode, low.last, low.pos, low.work, low.work, low.consumed,
                          low.temperature, low.asked, low.ins, current(m.n))  # True == 1
        boxes = self.boxes.get(_blank(shape))
        if not boxes:
            return False
        top = tuple(w + d for w, d in zip(low.work, width))
        return _in_union(low.work, top, boxes)


def _blank(state: Sequence[int]) -> tuple[int, ...]:
    """A search state with its work intervals set to 0."""
    out = list(state)
    zeros = [0] * ((len(out) - 2) // len(FIELDS))
    out[3::len(FIELDS)] = out[4::len(FIELDS)] = zeros  # each vCPU's work and most
    return tuple(out)


def _in_union(lo: tuple[int, ...], hi: tuple[int, ...],
              boxes: Sequence[tuple[tuple[int, ...], tuple[int, ...]]]) -> bool:
    """Whether the integer box ``[lo, hi]`` lies in the union of *boxes*: the part of it
    outside the first box that meets it, cut into at most ``2n`` boxes, must lie in the
    union of the others."""
    for k, (blo, bhi) in enumerate(boxes):
        if any(h < a or l > b for l, h, a, b in zip(lo, hi, blo, bhi)):
            continue  # disjoint
        rest = boxes[k + 1:]
        cur_lo, cur_hi = list(lo), list(hi)
        for d in range(len(lo)):
            if cur_lo[d] < blo[d]:
                piece_hi = list(cur_hi)
                piece_hi[d] = blo[d] - 1
                if not _in_union(tuple(cur_lo), tuple(piece_hi), rest):
                    return False
                cur_lo[d] = blo[d]
            if cur_hi[d] > bhi[d]:
                piece_lo = list(cur_lo)
                piece_lo[d] = bhi[d] + 1
                if not _in_union(tuple(piece_lo), tuple(cur_hi), rest):
                    return False
                cur_hi[d] = bhi[d]
        return True
    return False


class _Refused(Exception):
    """The interval re-check cannot vouch for a family (the reason is its message)."""


def _tick(m: Machine, family: Family, step: Step, ends: bool = True) -> list[Family]:
    """One tick of *family* with no period start after it: the successors of its cells
    (:func:`_cells`), each stepped at both ends (at its lowest member alone if not
    *ends*)."""
    out = []
    zeros = (0,) * m.n
    for (low, width), after in _cells(m, family, step, zeros):
        if ends and any(width):
            top_after, _, _ = step(m, shift(m, low, width), zeros)
            if not _same(m, top_after, after, width):
                raise _Refused(f"the tick is not uniform over the family of {low} "
                               f"(width {width}): its top member steps to {top_after}")
        out.append((after, width))
    return out


def _cells(m: Machine, family: Family, step: Step,
           demands: Sequence[int]) -> list[tuple[Family, TickState]]:
    """*family* split so that each part is uniform in every comparison of work the tick
    makes -- the vCPU that runs holds 1 in all members (its job ends: it is then not
    runnable, and R5 on its crossing needs work left) or more than 1 in all; every vCPU
    holds work in all members or in none, by construction -- each part with its lowest
    member's step with *demands*."""
    low, width = family
    after, c, _ = step(m, low, demands)
    if c == NOBODY or width[c] == 0 or low.work[c] != 1:
        return [(family, after)]
    one = tuple(0 if i == c else w for i, w in enumerate(width))
    more = tuple(w - 1 if i == c else w for i, w in enumerate(width))
    unit = tuple(1 if i == c else 0 for i in range(m.n))
    second = shift(m, low, unit)
    return [((low, one), after), ((second, more), step(m, second, demands)[0])]


def _starts(m: Machine, family: Family, step: Step) -> Iterable[Family]:
    """The tick of *family* into an instant where periods start, with every arrival: per
    starting vCPU without work, none or ``1..cap`` (one family, from a job of 1); per
    starting LO vCPU that holds ``[l, h]``, no job and every job within ``C_opt`` at once,
    ``[l, max(h, C_opt)]``.  A HI vCPU short at its period start in the family's top
    member, the one that owes the most, refuses it (no member owes less in a period
    that ends short in none)."""
    zeros = (0,) * m.n
    intos: dict[int, Callable[[Sequence[int]], tuple[TickState, tuple[int, ...]]]] = {}

    def first(m: Machine, s: TickState, demands: Sequence[int]) -> tuple[
            TickState, int, tuple[int, ...]]:
        """*step*, through :func:`_into` kept for the arrivals varied below (one run of
        the tick per member with the Python step)."""
        into = intos[id(s)] = _into(m, s, step)
        after, shorts = into(demands)
        return after, after.last, shorts

    for (low, width), after in _cells(m, family, first, zeros):
        top = shift(m, low, width)
        low_into, top_into = intos[id(low)], _into(m, top, step)
        if any(m.hi[i] for i in top_into(zeros)[1]):
            raise _Refused(f"a HI vCPU is short at its period start after the state {top}")
        options = []
        for i in range(m.n):
            held = after.work[i]
            if (low.pos[i] + 1) % m.period[i] != 0:
                options.append([(0, 0, width[i])])
            elif held == 0 and width[i] == 0:
                cap = m.full[i] if m.hi[i] else m.c_opt[i]
                options.append([(0, 0, 0)] + ([(1, cap, cap - 1)] if cap >= 1 else []))
            elif not m.hi[i] and held >= 1:
                spread = max(held + width[i], m.c_opt[i]) - held
                options.append([(0, max(0, m.c_opt[i] - held - width[i]), spread)])
            else:
                raise _Refused(f"a vCPU holds work at its period start after {top} "
                               "that the interval argument does not cover")
        for choice in itertools.product(*options):
            new_width = tuple(c[2] for c in choice)
            nxt, shorts = low_into(tuple(c[0] for c in choice))
            if any(m.hi[i] for i in shorts):
                raise _Refused(f"a HI vCPU is short at its period start after the state {low}")
            top_next = top_into(tuple(c[1] for c in choice))[0]
            if not _same(m, top_next, nxt, new_width):
                raise _Refused(f"the tick is not uniform over the family of {low} "
                               f"(width {width}): its top member steps to {top_next}")
            yield nxt, new_width


def _into(m: Machine, s: TickState, step: Step) -> Callable[
        [Sequence[int]], tuple[TickState, tuple[int, ...]]]:
    """The tick from *s* into an instant where periods start, for the given arrivals:
    with the Python step, the tick run once and the arrivals varied (as
    :func:`_branches`); any other step is called afresh for each."""
    if step is tick_step:
        ran = advance(m, s)
        return lambda demands: arrive(m, ran, demands)

    def stepped(demands: Sequence[int]) -> tuple[TickState, tuple[int, ...]]:
        after, _, shorts = step(m, s, demands)
        return after, shorts
    return stepped


def check_intervals(pcpu: TickPCPU, states: Iterable[bytes], *, step: Step = tick_step,
                    limits: CheckLimits = CheckLimits(), ends: bool = True, parts: int = 1,
                    workers: int | None = None) -> CertificateCheck:
    """Re-check a SAFE certificate as :func:`check_certificate` does, stepping each
    certificate state's members together, as one family, rather than one by one.

    A *family* is a concrete state (its lowest member) and a width per vCPU: the states
    with ``delta_i`` more work for each vCPU, ``0 <= delta_i <= width_i``, a HI vCPU
    owing ``delta_i`` more with it (:func:`shift`); a certificate state's members are
    one family.  **Uniformity.**  The tick step (:mod:`akita.model.exact.tick`) reads a
    vCPU's work only as "holds work or not" (who runs, R4-R7 and R5 on pick; the
    re-insertion of the vCPU that ran; the insertion ranks), as "the vCPU that ran
    holds work after its tick" (R5 on its crossing; and then whether it is runnable),
    and, at a period start, as "served less than owed" (the shortfall, where a HI
    vCPU's debt grows with its work) and ``min(full budget, work)`` (the new debt);
    it changes work only by taking one tick from the vCPU that ran and adding the
    arrival.  So on a family in which every vCPU holds work in all members or in
    none and the running vCPU holds 1 in all or more than 1 in all -- the family is cut
    there (:func:`_cells`): the threshold R5 reads, which is why no monotonicity in
    work is assumed (decision 277) -- the step of each member is the step of the
    lowest member shifted by the same ``delta``.  At a period start the arrivals of
    a vCPU without work are none or ``1..cap`` (a family from a job of 1, its debt
    ``min(C_pes, d) = d``), and those of a LO vCPU holding ``[l, h]`` make every work
    of ``[l, max(h, C_opt)]`` and nothing else; a HI vCPU's shortfall grows with its
    work, so the top member, the one that owes most, is short if any is.  Both ends of
    every family are stepped by the trusted step and compared (a tick that is not
    uniform refuses the certificate), and a family is accepted where it lands only if
    its box of work lies in the union of the boxes of the certificate states whose
    other fields it :func:`~akita.model.exact.abstraction.matches`.  The families of
    a segment are kept per tick without repeats.

    Hence the same two conditions as :func:`check_certificate`, for the same members,
    with its answers: ``tests/proofs/test_exact_intervals.py`` compares the two on small
    pCPUs and shows the deliberately wrong certificates refused.  ``members`` counts
    the families stepped (one per cell and tick).

    **Parts** (decision 359).  With ``parts > 1`` the certificate's states are dealt
    into *parts* runs (:func:`_dealt`), each
    re-checked as above against the whole certificate by a task of its own
    (:func:`akita.parallel.run_tasks`: a local Dask cluster of *workers* processes,
    default one per core; ``0``: one after the other in this process), and the answers
    are joined by :func:`_joined`.  Each part steps its states' futures itself, so a
    family two parts reach is stepped by both: the count is the sum of the parts', which
    depends on *parts* but not on the workers or on which finishes first.

    Python's cyclic garbage collector is paused while it runs (:func:`akita.model.exact.collector.paused`).
    """
    keys = list(states)
    if parts <= 1:
        return _part((pcpu, keys, 0, 1, step, limits, ends))
    began = time.perf_counter()
    answers: list[CertificateCheck | None] = [None] * parts
    tasks = [(pcpu, keys, k, parts, step, limits, ends) for k in range(parts)]
    run_tasks(_part, tasks, answers.__setitem__, workers=workers, name="akita-recheck")
    return _joined([a for a in answers if a is not None], len(keys), limits,
                   time.perf_counter() - began)


#: A part of the re-check (:func:`_part`): the pCPU, every certificate state, the part's
#: index and the number of parts, the step, the limits, and whether both ends are stepped.
Part = tuple[TickPCPU, Sequence[bytes], int, int, Step, CheckLimits, bool]


def _part(task: Part) -> CertificateCheck:
    """One part of :func:`check_intervals` (a task for :func:`akita.parallel.run_tasks`),
    the collector paused."""
    with paused():
        return _check_intervals(*task)


def _joined(answers: Sequence[CertificateCheck], states: int, limits: CheckLimits,
            seconds: float) -> CertificateCheck:
    """The parts' answers as one, read in the parts' order: the first part that did not
    accept gives the answer (its reason, the families counted over every part); the
    families in all beyond the limit are the limit reached; else accepted."""
    count = sum(a.members for a in answers)
    for answer in answers:
        if not answer.accepted:
            return CertificateCheck(False, answer.checked, states, count, seconds,
                                    answer.reason)
    if count > limits.families:
        return CertificateCheck(False, False, states, count, seconds,
                                f"re-check limit reached after {count:,} families "
                                f"({limits.families:,} families) in {len(answers)} parts")
    return CertificateCheck(True, True, states, count, seconds,
                            f"closed under the tick step and miss-free: {states:,} states, "
                            f"{count:,} families of members stepped in {len(answers)} parts")


def _check_intervals(pcpu: TickPCPU, keys: Sequence[bytes], part: int, parts: int, step: Step,
                     limits: CheckLimits, ends: bool) -> CertificateCheck:
    """:func:`check_intervals` for the states of one part (every state when *parts* is 1),
    against every state of *keys*; the initial states are checked by part 0."""
    began = time.perf_counter()
    m = machine(pcpu)
    lay = layout(m)
    boxes = _Boxes(m, lay, keys)
    seen: set[Family] = set()  # families stepped: each one's future is checked once
    count = 0

    def answer(accepted: bool, reason: str, checked: bool = True) -> CertificateCheck:
        return CertificateCheck(accepted, checked, len(keys), count,
                                time.perf_counter() - began, reason)

    try:
        for phases in _phases(pcpu) if part == 0 else ():
            for family in _initial(m, phases, step):
                if not boxes.covered(family):
                    return answer(False, f"a state at instant 0 with phases {phases} is in "
                                         f"no state of the certificate: {family[0]} "
                                         f"(widths {family[1]})")
        for key in _dealt(keys, part, parts):
            state = lay.unpack(key)
            low = next(members(m, state))
            width = tuple(h - w for w, h in zip(lay.field(state, "work"),
                                                lay.field(state, "most")))
            layer: set[Family] = {(low, width)} - seen
            pos = low.pos
            while layer:
                seen |= layer
                count += len(layer)
                if count > limits.families or time.perf_counter() - began > limits.seconds:
                    return answer(False, f"re-check limit reached after {count:,} families "
                                         f"({limits.families:,} families or "
                                         f"{limits.seconds:g} s)", checked=False)
                if any((p + 1) % T == 0 for p, T in zip(pos, m.period)):
                    for family in layer:
                        for landed in _starts(m, family, step):
                            if not boxes.covered(landed):
                                return answer(False, f"a state after {family[0]} is in no "
                                                     f"state of the certificate: {landed[0]} "
                                                     f"(widths {landed[1]})")
                    break
                pos = tuple((p + 1) % T for p, T in zip(pos, m.period))
                layer = {after for family in layer for after in _tick(m, family, step, ends)
                         if after not in seen and not boxes.covered(after)}
    except _Refused as refused:
        return answer(False, str(refused))
    return answer(True, f"closed under the tick step and miss-free: {len(keys):,} states, "
                        f"{count:,} families of members stepped")


def _dealt(keys: Sequence[bytes], part: int, parts: int) -> Sequence[bytes]:
    """The certificate states of part *part* of *parts*: the certificate's order cut into
    *parts* runs of (nearly) equal length.  Runs, not every ``parts``-th state: states
    the search reached one after the other lead into each other's families, which a part
    then steps once (dealt round-robin, 15% more families were stepped on the mixed
    3,000-tick pCPU, in runs 0.6% more)."""
    return run_of(keys, part, parts)


def _initial(m: Machine, phases: tuple[int, ...], step: Step) -> Iterable[Family]:
    """The states at instant 0 with *phases*, every arrival, as families: per vCPU whose
    period starts at 0, no job or ``1..cap`` (a family from a job of 1)."""
    pos0 = [(-p) % T for p, T in zip(phases, m.period)]
    if not any(p == 0 for p in pos0):
        return
    options = []
    for i in range(m.n):
        cap = m.full[i] if m.hi[i] else m.c_opt[i]
        options.append([(0, 0)] + ([(1, cap)] if pos0[i] == 0 and cap >= 1 else []))
    for choice in itertools.product(*options):
        low, shorts = start(m, phases, [c[0] for c in choice])
        top, top_shorts = start(m, phases, [c[1] for c in choice])
        width = tuple(c[1] - c[0] for c in choice)
        if any(m.hi[i] for i in tuple(shorts) + tuple(top_shorts)):
            raise _Refused(f"a HI vCPU is short at instant 0 with phases {phases}")
        if not _same(m, top, low, width):
            raise _Refused(f"instant 0 is not uniform over the arrivals with phases {phases}")
        yield low, width

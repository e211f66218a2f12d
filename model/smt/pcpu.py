"""One pCPU as a unit-tick transition system in Z3 (rules R2-R10, R13).

The reference scheduler is event-driven; with integer parameters every one
of its events falls on a whole tick, so one pCPU can be unrolled tick by tick
over a horizon of ``H`` ticks.  The *behaviour* is symbolic: for each vCPU
``i`` and each of its periods ``k`` (all vCPUs start in phase at 0, R2), a
job may be released at the period start (``released[i,k]``) with a demand
``demand[i,k]`` in ``1..cap_i`` ticks.  Everything else follows, exactly as
:mod:`akita.reference` decides it:

* **state** at each tick ``t`` (after the events of instant ``t``): work held
  ``w``, budget consumed in the period ``c``, work served in the period,
  temperature, "asked for C_pes in this period", and the pCPU's mode;
* **events of an instant**, in the reference's order: the tick just run
  (work and budget progress; R5 when a HI vCPU's consumption reaches
  ``C_opt`` while it still holds work), then arrivals, then period starts
  (the HI-miss check, budget refill, R8, then R9);
* **the choice** for tick ``[t, t+1)`` (R4, R6, R7): a priority made of a
  tier (eligible, LO background in HI mode, inactive background, never) and
  the ordering key (virtual deadline ``s + x T`` of a HI vCPU in LO mode,
  deadline otherwise), ties to HI then host order -- plus R5 on pick.

Deadlines and virtual deadlines are constants of the tick (the periods are a
fixed grid); keys are scaled by the denominator of ``x`` to stay integers.
Scope: ``wake_preempts = true`` and ``context_switch_cost = 0`` (then the
reference decides afresh at every instant where anything changes, which is
what re-choosing every tick does).
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Sequence

import attrs
import z3

from ..first_fit import Placement
from ..host import Host
from .named import Constraints

__all__ = ["TickVCPU", "TickPCPU", "Unrolling", "unroll", "tick_pcpu"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/test_traceability.py checks every name).
__rules__ = {
    "R2": ("unroll",),
    "R3": ("unroll",),
    "R4": ("unroll",),
    "R5": ("unroll",),
    "R6": ("unroll",),
    "R7": ("unroll",),
    "R8": ("unroll",),
    "R9": ("unroll",),
    "R10": ("unroll",),
    "R13": ("unroll",),
}


@attrs.frozen
class TickVCPU:
    """A vCPU in ticks: ``name`` as ``vm/i``, host ``order`` (the last tie-break)."""

    name: str
    hi: bool
    period: int
    c_opt: int
    c_pes: int | None
    order: int

    @property
    def full(self) -> int:
        """The budget at each period start: ``C_pes`` for HI, ``C_opt`` for LO."""
        return self.c_pes if self.hi else self.c_opt


@attrs.frozen
class TickPCPU:
    """One pCPU's vCPUs (in host order) and how its scheduler is configured.

    :param policy: ``"akita"`` or ``"edf"`` (no modes, no virtual deadlines).
    :param tick: nanoseconds per tick (for reading results back).
    :param test: the host's admission test (it fixed ``x``; a replay host keeps it).
    :param variant: a deliberately wrong rule, for negative controls:
        ``"lo-ahead-in-hi"`` (HI mode runs active LO vCPUs before HI ones),
        ``"never-cool"`` (R8 never lowers a temperature), ``"cold-start"``
        (R5 sets the temperature to 0, so R9 returns to LO at the next HI
        period start), ``"eager-switch"`` (R5 fires when a HI vCPU reaches
        ``C_opt`` even if it then holds no work), ``"no-switch"`` (R5 never
        fires: HI vCPUs spend ``C_pes`` in LO mode); ``None`` for the rules
        as they are.
    """

    vcpus: tuple[TickVCPU, ...]
    x: Fraction = Fraction(1)
    policy: str = "akita"
    initial_temperature: int = 2
    hi_mode_deadline: str = "actual"
    lo_in_hi_mode: bool = True
    tick: int = 1
    test: str = "edf-vd"
    variant: str | None = attrs.field(
        default=None,
        validator=attrs.validators.in_(
            (None, "lo-ahead-in-hi", "never-cool", "cold-start", "eager-switch", "no-switch")
        ),
    )

    def hyperperiod(self) -> int:
        h = 1
        for v in self.vcpus:
            h = h * v.period // gcd(h, v.period)
        return h


def tick_pcpu(host: Host, placement: Placement, cpu: int, policy: str = "akita") -> TickPCPU:
    """The pCPU *cpu* of a first-fit *placement*, scaled to ticks.

    The tick is the gcd of every period and budget on the pCPU, so every
    event of the reference falls on a whole tick.
    """
    load = placement.pcpus[cpu]
    times = [t for v in load.vcpus for t in (v.vm.period, v.vm.c_opt, v.vm.c_pes or v.vm.c_opt)]
    tick = 0
    for t in times:
        tick = gcd(tick, t)
    tick = tick or 1
    order = {vm.name: i for i, vm in enumerate(host.vms)}
    ranked = sorted(load.vcpus, key=lambda v: (order[v.vm.name], v.index))
    vcpus = tuple(
        TickVCPU(v.name, v.vm.is_hi, v.vm.period // tick, v.vm.c_opt // tick,
                 None if v.vm.c_pes is None else v.vm.c_pes // tick, position)
        for position, v in enumerate(ranked)
    )
    options = host.options
    x = load.verdict.x if load.verdict.x is not None else Fraction(1)
    return TickPCPU(vcpus, x, policy, options.initial_temperature, options.hi_mode_deadline,
                    options.lo_in_hi_mode, tick, host.test)


@attrs.frozen
class Unrolling:
    """The unrolled pCPU: its named constraints and the variables to read back."""

    pcpu: TickPCPU
    horizon: int
    constraints: Constraints
    released: dict          # (i, k) -> Bool
    demand: dict            # (i, k) -> Int
    runs: list              # runs[t][i] -> Bool: vCPU i runs in tick [t, t+1)
    misses: dict            # (i, k) -> Bool: HI vCPU i short in period k
    mode: list              # mode[t] -> Bool (HI) used by the choice at t
    work: list              # work[t][i] -> Int: work vCPU i holds when tick t is chosen


def unroll(pcpu: TickPCPU, horizon: int, *, caps: Sequence[int] | None = None) -> Unrolling:
    """Unroll *pcpu* over ``horizon`` ticks with symbolic releases and demands.

    :param caps: the largest demand of each vCPU's jobs, in ticks (default:
        ``C_pes`` for HI, ``C_opt`` for LO: the EDF-VD job model).
    """
    vs = pcpu.vcpus
    n = len(vs)
    akita = pcpu.policy == "akita"
    q, p = pcpu.x.denominator, pcpu.x.numerator
    caps = list(caps) if caps is not None else [v.full for v in vs]
    cs = Constraints()
    # Numbers are integers (linear arithmetic): bit-vectors were tried and were
    # slower on every horizon measured (docs/proofs.rst).
    number, literal = z3.Int, z3.IntVal
    zero, one = literal(0), literal(1)
    released, demand, misses = {}, {}, {}
    for i, v in enumerate(vs):
        for k in range((horizon + v.period - 1) // v.period):
            r = released[i, k] = z3.Bool(f"{v.name} released in period {k}")
            d = demand[i, k] = number(f"{v.name} demand in period {k}")
            cs.add(f"{v.name} period {k}: a job of 1..{caps[i]} ticks or none",
                   z3.If(r, z3.And(d >= 1, d <= caps[i]), d == 0))

    def fresh(kind, name, t):
        return (z3.Bool if kind is bool else number)(f"{name} {t}")

    # state after the events of instant 0
    w = [demand[i, 0] for i in range(n)]
    c = [zero] * n
    served = [zero] * n
    owed = [z3.If(w[i] < v.c_pes, w[i], literal(v.c_pes)) if v.hi else zero for i, v in enumerate(vs)]
    temp = [zero] * n
    asked = [z3.BoolVal(False)] * n
    hi_mode = z3.BoolVal(False)  # R13
    runs, modes, works = [], [], []
    heat = 0 if pcpu.variant == "cold-start" else pcpu.initial_temperature

    for t in range(horizon):
        # -- the choice for [t, t+1): R5 on pick, then R4/R6/R7 --------------------
        works.append(list(w))
        runnable = [fresh(bool, f"{v.name} runnable at", t) for v in vs]
        active = [fresh(bool, f"{v.name} active at", t) for v in vs]
        for i, v in enumerate(vs):
            cs.add(f"{v.name} runnable at {t} iff it holds work", runnable[i] == (w[i] > 0))
            cs.add(f"{v.name} active at {t} iff budget is left", active[i] == (c[i] < v.full))
        starts = [(t // v.period) * v.period for v in vs]
        deadline = [q * (starts[i] + v.period) for i, v in enumerate(vs)]
        virtual = [q * starts[i] + p * v.period for i, v in enumerate(vs)]

        def tie(i):
            return (0 if vs[i].hi else 1, vs[i].order)

        def winners(mode_hi: bool):
            """R4 (LO mode) / R6 (HI mode) and R7: tiers, each in a fixed order this tick."""
            eligible = [z3.And(runnable[i], active[i]) for i in range(n)]
            background = [z3.And(runnable[i], z3.Not(active[i])) for i in range(n)]
            if not akita:
                tiers = [(eligible, deadline), (background, deadline)]
            elif not mode_hi:
                lo_key = [virtual[i] if v.hi else deadline[i] for i, v in enumerate(vs)]
                tiers = [(eligible, lo_key), (background, deadline)]
            else:
                hi_key = [virtual[i] if pcpu.hi_mode_deadline == "virtual" else deadline[i]
                          for i in range(n)]
                off = z3.BoolVal(False)
                his = [eligible[i] if v.hi else off for i, v in enumerate(vs)]
                los = [eligible[i] if (not v.hi and pcpu.lo_in_hi_mode) else off
                       for i, v in enumerate(vs)]
                rest = [background[i] if (v.hi or pcpu.lo_in_hi_mode) else off
                        for i, v in enumerate(vs)]
                first, second = ((los, deadline), (his, hi_key))
                if pcpu.variant != "lo-ahead-in-hi":
                    first, second = second, first
                tiers = [first, second, (rest, deadline)]
            win = [[] for _ in range(n)]
            nobody_above = []
            for members, key in tiers:
                ranked = sorted(range(n), key=lambda i: (key[i], tie(i)))
                for position, i in enumerate(ranked):
                    win[i].append(z3.And(members[i], *nobody_above,
                                         *[z3.Not(members[j]) for j in ranked[:position]]))
                nobody_above.append(z3.Not(z3.Or(*members)) if n else z3.BoolVal(True))
            return [z3.Or(*options) for options in win]

        if akita:
            lo_win = winners(False)
            hot = [z3.And(z3.Not(hi_mode), lo_win[i], c[i] >= v.c_opt)
                   if (v.hi and pcpu.variant != "no-switch") else z3.BoolVal(False)
                   for i, v in enumerate(vs)]
            switch = z3.Or(*hot) if n else z3.BoolVal(False)
            temp = [z3.If(hot[i], heat, temp[i]) for i in range(n)]
            asked = [z3.Or(asked[i], hot[i]) for i in range(n)]
            hi_mode = z3.Or(hi_mode, switch)
        chosen = ([z3.If(hi_mode, h, l) for h, l in zip(winners(True), winners(False))]
                  if akita else winners(False))
        run = [fresh(bool, f"{v.name} runs at tick", t) for v in vs]
        for i, v in enumerate(vs):
            cs.add(f"choice at tick {t}: {v.name}", run[i] == chosen[i])
        runs.append(run)
        mode_var = fresh(bool, "HI mode at tick", t)
        cs.add(f"mode at tick {t}", mode_var == hi_mode)
        modes.append(mode_var)
        hi_mode = mode_var

        # -- instant t+1: the tick run (R3, R5), arrivals, period starts (R2, R8, R9) ----
        nxt = t + 1
        new_w, new_c, new_served, new_temp, new_asked = [], [], [], [], []
        crossings = []
        for i, v in enumerate(vs):
            charged = z3.And(run[i], c[i] < v.full)
            wi = w[i] - z3.If(run[i], one, zero)
            ci = c[i] + z3.If(charged, one, zero)
            si = served[i] + z3.If(run[i], one, zero)
            still_runnable = z3.BoolVal(True) if pcpu.variant == "eager-switch" else wi > 0
            cross = (z3.And(charged, c[i] + 1 == v.c_opt, still_runnable)
                     if (akita and v.hi and pcpu.variant != "no-switch") else z3.BoolVal(False))
            crossings.append(cross)
            new_temp.append(z3.If(cross, heat, temp[i]))
            new_asked.append(z3.Or(asked[i], cross))
            new_w.append(wi)
            new_c.append(ci)
            new_served.append(si)
        mode_next = z3.Or(hi_mode, *crossings) if akita else z3.BoolVal(False)
        hi_release = False
        for i, v in enumerate(vs):
            if nxt % v.period:
                continue
            k = nxt // v.period
            if (i, k) in demand:
                new_w[i] = new_w[i] + demand[i, k]
            if v.hi:
                misses[i, k - 1] = z3.Bool(f"{v.name} short in period {k - 1}")
                cs.add(f"{v.name} period {k - 1}: HI miss iff served < owed",
                       misses[i, k - 1] == (new_served[i] < owed[i]))
                hi_release = True
                owed[i] = z3.If(new_w[i] < v.c_pes, new_w[i], literal(v.c_pes))
                if pcpu.variant != "never-cool":
                    new_temp[i] = z3.If(z3.And(new_temp[i] > 0, z3.Not(new_asked[i])),
                                        new_temp[i] - 1, new_temp[i])
                new_asked[i] = z3.BoolVal(False)
            new_c[i] = zero
            new_served[i] = zero
        if akita and hi_release:
            cool = z3.And(*[new_temp[i] == 0 for i, v in enumerate(vs) if v.hi])
            mode_next = z3.And(mode_next, z3.Not(cool))
        # name the new state
        w, c, served, temp, asked = [], [], [], [], []
        for i, v in enumerate(vs):
            for kind, label, value, store in (
                (int, "work of", new_w[i], w), (int, "consumed by", new_c[i], c),
                (int, "served to", new_served[i], served), (int, "temperature of", new_temp[i], temp),
                (bool, "asked by", new_asked[i], asked),
            ):
                var = fresh(kind, f"{label} {v.name} at", nxt)
                cs.add(f"{label} {v.name} at {nxt}", var == value)
                store.append(var)
        hi_mode = mode_next
    return Unrolling(pcpu, horizon, cs, released, demand, runs, misses, modes, works)

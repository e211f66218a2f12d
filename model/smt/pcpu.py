"""One pCPU as a unit-tick transition system in Z3 (rules R2-R10, R13).

The reference scheduler is event-driven; with integer parameters every one
of its events falls on a whole tick, so one pCPU can be unrolled tick by tick
over a horizon of ``H`` ticks.  The *behaviour* is symbolic: for each vCPU
``i`` and each of its periods ``k`` (all vCPUs start in phase at 0, R2), a
job may be released at the period start (``released[i,k]``) with a demand
``demand[i,k]`` in ``1..cap_i`` ticks.  Everything else follows, exactly as
:mod:`akita.reference` decides it, in three named parts per tick:

* the **state** (:class:`State`) after the events of an instant: work held,
  budget consumed in the period, work served in the period, the work owed
  to a HI vCPU in its period, temperature, "asked for C_pes in this
  period", and the pCPU's mode; it starts in LO mode (R13,
  :func:`initial_state`);
* **the choice** for tick ``[t, t+1)`` (:func:`choose`; R4, R6, R7, and R5
  on pick): a priority made of a tier (eligible, LO background in HI mode,
  inactive background, never) and the ordering key (virtual deadline
  ``s + x T`` of a HI vCPU in LO mode, deadline otherwise), ties to HI then
  host order (:func:`winners`);
* **the tick** just run (:func:`run_tick`; R3, R5): work and budget
  progress; R5 when a HI vCPU's consumption reaches ``C_opt`` while it still
  holds work;
* **the period starts** at the next instant (:func:`start_periods`; R2, R8,
  R9), after the arrivals: the HI-miss check, budget refill, R8, then R9.

:func:`unroll` chains them, deciding afresh at every tick (R10).  Deadlines
and virtual deadlines are constants of the tick (the periods are a fixed
grid); keys are scaled by the denominator of ``x`` to stay integers.
Scope: ``wake_preempts = true`` and ``context_switch_cost = 0`` (then the
reference decides afresh at every instant where anything changes, which is
what re-choosing every tick does).
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Callable, Sequence

import attrs
import z3

from ..first_fit import Placement
from ..host import Host
from .named import Constraints

__all__ = [
    "VARIANTS",
    "TickVCPU",
    "TickPCPU",
    "State",
    "Unrolling",
    "initial_state",
    "winners",
    "choose",
    "run_tick",
    "start_periods",
    "unroll",
    "tick_pcpu",
    "Watch",
]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("start_periods", "deadlines"),
    "R3": ("run_tick",),
    "R4": ("choose", "winners"),
    "R5": ("choose", "run_tick"),
    "R6": ("winners",),
    "R7": ("winners",),
    "R8": ("start_periods",),
    "R9": ("start_periods",),
    "R10": ("unroll",),
    "R13": ("initial_state",),
}

#: The deliberately wrong variants of the rules (:attr:`TickPCPU.variant`),
#: named as the reference mutants of the same wrong idea
#: (:data:`akita.reference.mutants.MUTANTS`), with the rule each breaks.
VARIANTS: dict[str, str] = {
    "lo-first-in-hi-mode": "R6",
    "no-cooling": "R8",
    "premature-hi-to-lo": "R9",
    "eager-mode-switch": "R5",
    "no-mode-switch": "R5",
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
        return self.c_pes if self.hi and self.c_pes is not None else self.c_opt


@attrs.frozen
class TickPCPU:
    """One pCPU's vCPUs (in host order) and how its scheduler is configured.

    :param policy: ``"akita"`` or ``"edf"`` (no modes, no virtual deadlines).
    :param tick: nanoseconds per tick (for reading results back).
    :param test: the host's admission test (it fixed ``x``; a replay host keeps it).
    :param variant: a deliberately wrong rule, for negative controls, or
        ``None`` for the rules as they are.  Each is named as the reference
        mutant (:mod:`akita.reference.mutants`) of the same wrong idea:

        * ``"lo-first-in-hi-mode"`` (breaks R6; formerly ``"lo-ahead-in-hi"``):
          HI mode runs active LO vCPUs before HI ones.
        * ``"no-cooling"`` (R8; formerly ``"never-cool"``): R8 never lowers
          a temperature, so by R9 the pCPU never leaves HI mode.
        * ``"premature-hi-to-lo"`` (R9; formerly ``"cold-start"``, which set
          the temperature R5 gives to 0): a pCPU in HI mode returns to LO at
          the next HI period start, warm or not.  ``cold-start`` was not a
          distinct idea: with every temperature 0, R9 fires at the next HI
          period start, which is all the mutant does; the variant now breaks
          R9 itself, as the mutant does, and leaves the temperatures alone.
        * ``"eager-mode-switch"`` (R5; formerly ``"eager-switch"``): the
          pCPU switches before an overrun is shown -- here when a HI vCPU's
          consumption reaches ``C_opt`` even if it then holds no work (the
          mutant switches at half of ``C_opt``; on ticks the earlier point
          is the end of the tick that reaches ``C_opt``).
        * ``"no-mode-switch"`` (R5; formerly ``"no-switch"``): R5 never
          fires, so HI vCPUs spend ``C_pes`` in LO mode.

        ``no-virtual-deadline`` needs no variant: the ``edf`` admission test
        (``x = 1``) has its effect.  The other mutants (``wrong-tie-break``,
        ``late-mode-switch``, ``budget-overrun``, ``idle-while-runnable``,
        ``no-wake-preempt``, ``last-fit``) have no variant here.
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
        default=None, validator=attrs.validators.in_((None, *VARIANTS))
    )

    @property
    def akita(self) -> bool:
        """Whether the pCPU runs the Akita policy (modes, virtual deadlines)."""
        return self.policy == "akita"

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


#: Per-vCPU Z3 terms, in the pCPU's order.
Terms = tuple[z3.ExprRef, ...]
#: The jobs of a behaviour: ``(vCPU index, period) -> Z3 variable``.
Jobs = dict[tuple[int, int], z3.ExprRef]

_FALSE = z3.BoolVal(False)


@attrs.frozen
class State:
    """The pCPU after the events of an instant: one Z3 term per vCPU, and the mode.

    :param work: work held (ticks).
    :param consumed: budget consumed in the current period.
    :param served: work served in the current period.
    :param owed: for a HI vCPU, ``min(C_pes, work held at the period start)``.
    :param temperature: the R5/R8 temperature.
    :param asked: whether the vCPU asked for ``C_pes`` in this period.
    :param hi_mode: the pCPU's mode (``True``: HI).
    """

    work: Terms
    consumed: Terms
    served: Terms
    owed: Terms
    temperature: Terms
    asked: Terms
    hi_mode: z3.BoolRef


def _owed(v: TickVCPU, work: z3.ArithRef) -> z3.ArithRef:
    """What a HI vCPU is owed in a period that starts with *work*: ``min(C_pes, work)``."""
    return z3.If(work < v.full, work, z3.IntVal(v.full)) if v.hi else z3.IntVal(0)


def initial_state(pcpu: TickPCPU, demand: Jobs) -> State:
    """Instant 0: every vCPU in phase with its first job (R2), the pCPU in LO mode (R13)."""
    n = len(pcpu.vcpus)
    zero = z3.IntVal(0)
    work = tuple(demand[i, 0] for i in range(n))
    return State(work, (zero,) * n, (zero,) * n,
                 tuple(_owed(v, work[i]) for i, v in enumerate(pcpu.vcpus)),
                 (zero,) * n, (_FALSE,) * n, _FALSE)


def deadlines(pcpu: TickPCPU, t: int) -> tuple[list[int], list[int]]:
    """R2 at tick *t*: each vCPU's deadline and virtual deadline ``s + x T``, times ``q``.

    ``x = p/q``; both are scaled by ``q`` so that the keys stay integers.
    """
    q, p = pcpu.x.denominator, pcpu.x.numerator
    starts = [(t // v.period) * v.period for v in pcpu.vcpus]
    deadline = [q * (starts[i] + v.period) for i, v in enumerate(pcpu.vcpus)]
    virtual = [q * starts[i] + p * v.period for i, v in enumerate(pcpu.vcpus)]
    return deadline, virtual


def winners(pcpu: TickPCPU, runnable: Terms, active: Terms, t: int,
            mode_hi: bool) -> list[z3.BoolRef]:
    """Who runs in tick *t* in LO mode (R4) or HI mode (R6), with work conservation (R7).

    The vCPUs form tiers in a fixed order; within a tier they are ranked by
    their key (a constant of the tick), ties to HI then host order.  vCPU
    ``i`` wins iff it is in a tier, no higher tier has a member, and no
    member of its tier ranks above it.
    """
    vs = pcpu.vcpus
    n = len(vs)
    deadline, virtual = deadlines(pcpu, t)
    eligible = [z3.And(runnable[i], active[i]) for i in range(n)]
    background = [z3.And(runnable[i], z3.Not(active[i])) for i in range(n)]
    tiers: list[tuple[list[z3.BoolRef], list[int]]]
    if not pcpu.akita:
        tiers = [(eligible, deadline), (background, deadline)]
    elif not mode_hi:
        lo_key = [virtual[i] if v.hi else deadline[i] for i, v in enumerate(vs)]
        tiers = [(eligible, lo_key), (background, deadline)]
    else:
        hi_key = [virtual[i] if pcpu.hi_mode_deadline == "virtual" else deadline[i]
                  for i in range(n)]
        his = [eligible[i] if v.hi else _FALSE for i, v in enumerate(vs)]
        los = [eligible[i] if (not v.hi and pcpu.lo_in_hi_mode) else _FALSE
               for i, v in enumerate(vs)]
        rest = [background[i] if (v.hi or pcpu.lo_in_hi_mode) else _FALSE
                for i, v in enumerate(vs)]
        first, second = ((los, deadline), (his, hi_key))
        if pcpu.variant != "lo-first-in-hi-mode":
            first, second = second, first
        tiers = [first, second, (rest, deadline)]

    def tie(i: int) -> tuple[int, int]:
        return (0 if vs[i].hi else 1, vs[i].order)

    win: list[list[z3.BoolRef]] = [[] for _ in range(n)]
    nobody_above: list[z3.BoolRef] = []
    for members, key in tiers:
        ranked = sorted(range(n), key=lambda i: (key[i], tie(i)))
        for position, i in enumerate(ranked):
            win[i].append(z3.And(members[i], *nobody_above,
                                 *[z3.Not(members[j]) for j in ranked[:position]]))
        nobody_above.append(z3.Not(z3.Or(*members)) if n else z3.BoolVal(True))
    return [z3.Or(*options) for options in win]


def choose(pcpu: TickPCPU, t: int, state: State,
           cs: Constraints) -> tuple[list[z3.BoolRef], State]:
    """The choice for tick ``[t, t+1)``: R5 on pick, then R4/R6/R7 (:func:`winners`).

    R5 on pick: a HI vCPU that LO mode would run and that has consumed
    ``C_opt`` already switches the pCPU to HI mode before it runs.  Names the
    runnable and active flags, who runs and the mode; returns who runs and
    the state with R5's effects and the named mode.
    """
    vs = pcpu.vcpus
    n = len(vs)
    runnable = tuple(z3.Bool(f"{v.name} runnable at {t}") for v in vs)
    active = tuple(z3.Bool(f"{v.name} active at {t}") for v in vs)
    for i, v in enumerate(vs):
        cs.add(f"{v.name} runnable at {t} iff it holds work", runnable[i] == (state.work[i] > 0))
        cs.add(f"{v.name} active at {t} iff budget is left",
               active[i] == (state.consumed[i] < v.full))
    temperature, asked, hi_mode = state.temperature, state.asked, state.hi_mode
    if pcpu.akita:
        lo_win = winners(pcpu, runnable, active, t, False)
        hot = [z3.And(z3.Not(hi_mode), lo_win[i], state.consumed[i] >= v.c_opt)
               if (v.hi and pcpu.variant != "no-mode-switch") else _FALSE
               for i, v in enumerate(vs)]
        switch = z3.Or(*hot) if n else _FALSE
        temperature = tuple(z3.If(hot[i], pcpu.initial_temperature, temperature[i])
                            for i in range(n))
        asked = tuple(z3.Or(asked[i], hot[i]) for i in range(n))
        hi_mode = z3.Or(hi_mode, switch)
        chosen = [z3.If(hi_mode, h, lo) for h, lo in
                  zip(winners(pcpu, runnable, active, t, True), lo_win)]
    else:
        chosen = winners(pcpu, runnable, active, t, False)
    run = [z3.Bool(f"{v.name} runs at tick {t}") for v in vs]
    for i, v in enumerate(vs):
        cs.add(f"choice at tick {t}: {v.name}", run[i] == chosen[i])
    mode = z3.Bool(f"HI mode at tick {t}")
    cs.add(f"mode at tick {t}", mode == hi_mode)
    return run, attrs.evolve(state, temperature=temperature, asked=asked, hi_mode=mode)


def run_tick(pcpu: TickPCPU, state: State, run: Sequence[z3.BoolRef]) -> State:
    """The tick just run (R3, R5): the running vCPU's work drops and its budget is
    charged while any is left; R5 when a HI vCPU's consumption reaches ``C_opt``
    and it still holds work (unnamed terms; :func:`start_periods` follows)."""
    one, zero = z3.IntVal(1), z3.IntVal(0)
    work, consumed, served, temperature, asked, crossings = [], [], [], [], [], []
    for i, v in enumerate(pcpu.vcpus):
        charged = z3.And(run[i], state.consumed[i] < v.full)
        wi = state.work[i] - z3.If(run[i], one, zero)
        ci = state.consumed[i] + z3.If(charged, one, zero)
        si = state.served[i] + z3.If(run[i], one, zero)
        still_runnable = z3.BoolVal(True) if pcpu.variant == "eager-mode-switch" else wi > 0
        cross = (z3.And(charged, state.consumed[i] + 1 == v.c_opt, still_runnable)
                 if (pcpu.akita and v.hi and pcpu.variant != "no-mode-switch") else _FALSE)
        crossings.append(cross)
        temperature.append(z3.If(cross, pcpu.initial_temperature, state.temperature[i]))
        asked.append(z3.Or(state.asked[i], cross))
        work.append(wi)
        consumed.append(ci)
        served.append(si)
    hi_mode = z3.Or(state.hi_mode, *crossings) if pcpu.akita else _FALSE
    return State(tuple(work), tuple(consumed), tuple(served), state.owed, tuple(temperature),
                 tuple(asked), hi_mode)


def start_periods(pcpu: TickPCPU, at: int, state: State, demand: Jobs, misses: Jobs,
                  cs: Constraints) -> State:
    """Instant *at*: arrivals, then the period starts (R2, R8, R9).

    At each vCPU's period start: its new job's demand arrives; for a HI vCPU
    the period just ended is checked (a *miss* when it was served less than
    it was owed, named in *misses*), the new period's debt is set, and R8
    cools it by one unless it asked for ``C_pes``; budget and service restart
    (R2).  Then R9: the pCPU returns to LO mode when no HI vCPU is warm.
    """
    work, consumed, served = list(state.work), list(state.consumed), list(state.served)
    owed, temperature, asked = list(state.owed), list(state.temperature), list(state.asked)
    zero = z3.IntVal(0)
    hi_release = False
    for i, v in enumerate(pcpu.vcpus):
        if at % v.period:
            continue
        k = at // v.period
        if (i, k) in demand:
            work[i] = work[i] + demand[i, k]
        if v.hi:
            misses[i, k - 1] = z3.Bool(f"{v.name} short in period {k - 1}")
            cs.add(f"{v.name} period {k - 1}: HI miss iff served < owed",
                   misses[i, k - 1] == (served[i] < owed[i]))
            hi_release = True
            owed[i] = _owed(v, work[i])
            if pcpu.variant != "no-cooling":
                temperature[i] = z3.If(z3.And(temperature[i] > 0, z3.Not(asked[i])),
                                       temperature[i] - 1, temperature[i])
            asked[i] = _FALSE
        consumed[i] = zero
        served[i] = zero
    hi_mode = state.hi_mode
    if pcpu.akita and hi_release:
        cool = (z3.BoolVal(True) if pcpu.variant == "premature-hi-to-lo" else
                z3.And(*[temperature[i] == 0 for i, v in enumerate(pcpu.vcpus) if v.hi]))
        hi_mode = z3.And(hi_mode, z3.Not(cool))
    return State(tuple(work), tuple(consumed), tuple(served), tuple(owed), tuple(temperature),
                 tuple(asked), hi_mode)


def _named(pcpu: TickPCPU, at: int, state: State, cs: Constraints) -> State:
    """*state* with each vCPU's work, budget, service, temperature and ask named at *at*."""
    fields: dict[str, list[z3.ExprRef]] = {
        "work": [], "consumed": [], "served": [], "temperature": [], "asked": []}
    for i, v in enumerate(pcpu.vcpus):
        for field, label, fresh in (
            ("work", "work of", z3.Int), ("consumed", "consumed by", z3.Int),
            ("served", "served to", z3.Int), ("temperature", "temperature of", z3.Int),
            ("asked", "asked by", z3.Bool),
        ):
            var = fresh(f"{label} {v.name} at {at}")
            cs.add(f"{label} {v.name} at {at}", var == getattr(state, field)[i])
            fields[field].append(var)
    return attrs.evolve(state, **{field: tuple(terms) for field, terms in fields.items()})


@attrs.frozen
class Unrolling:
    """The unrolled pCPU: its named constraints and the variables to read back."""

    pcpu: TickPCPU
    horizon: int
    constraints: Constraints
    #: ``(i, k) -> Bool``: vCPU ``i`` releases a job in its period ``k``.
    released: Jobs
    #: ``(i, k) -> Int``: the demand of that job in ticks (0 for none).
    demand: Jobs
    #: ``runs[t][i] -> Bool``: vCPU ``i`` runs in tick ``[t, t+1)``.
    runs: list[list[z3.BoolRef]]
    #: ``(i, k) -> Bool``: HI vCPU ``i`` is short in period ``k``.
    misses: Jobs
    #: ``mode[t] -> Bool`` (HI) used by the choice at ``t``.
    mode: list[z3.BoolRef]
    #: ``work[t][i] -> Int``: work vCPU ``i`` holds when tick ``t`` is chosen.
    work: list[list[z3.ExprRef]]


#: ``watch(stage, done, total)``: called by :func:`unroll` before each step of the
#: encoding (``"jobs"``: declaring the job released at tick *done*; ``"encoding"``: building
#: tick *done*; of *total* ticks); it may raise to stop the unrolling
#: (a time limit, :class:`akita.proofs.limits.Deadline`).
Watch = Callable[[str, int, int], None]


def _no_watch(stage: str, done: int, total: int) -> None:
    """The :data:`Watch` that lets the unrolling run to the end."""


def _jobs(pcpu: TickPCPU, horizon: int, caps: Sequence[int],
          cs: Constraints, watch: Watch = _no_watch) -> tuple[Jobs, Jobs]:
    """One job of ``1..cap`` ticks or none at each period start within *horizon*."""
    released: Jobs = {}
    demand: Jobs = {}
    for i, v in enumerate(pcpu.vcpus):
        for k in range((horizon + v.period - 1) // v.period):
            watch("jobs", k * v.period, horizon)
            r = released[i, k] = z3.Bool(f"{v.name} released in period {k}")
            d = demand[i, k] = z3.Int(f"{v.name} demand in period {k}")
            cs.add(f"{v.name} period {k}: a job of 1..{caps[i]} ticks or none",
                   z3.If(r, z3.And(d >= 1, d <= caps[i]), d == 0))
    return released, demand


def unroll(pcpu: TickPCPU, horizon: int, *, caps: Sequence[int] | None = None,
           watch: Watch = _no_watch) -> Unrolling:
    """Unroll *pcpu* over ``horizon`` ticks with symbolic releases and demands,
    choosing afresh at every tick (R10).

    Numbers are integers (linear arithmetic): bit-vectors were tried and were
    slower on every horizon measured (docs/schedule-proofs.rst).

    :param caps: the largest demand of each vCPU's jobs, in ticks (default:
        ``C_pes`` for HI, ``C_opt`` for LO: the EDF-VD job model).
    :param watch: called before each job is declared and each tick is built
        (:data:`Watch`); what it raises stops the unrolling, so that a time
        limit bounds the building of a long horizon as well as the solving.
    """
    cs = Constraints()
    released, demand = _jobs(pcpu, horizon,
                             list(caps) if caps is not None else [v.full for v in pcpu.vcpus], cs,
                             watch)
    misses: Jobs = {}
    runs, modes, works = [], [], []
    state = initial_state(pcpu, demand)
    for t in range(horizon):
        watch("encoding", t, horizon)
        works.append(list(state.work))
        run, state = choose(pcpu, t, state, cs)
        runs.append(run)
        modes.append(state.hi_mode)
        state = start_periods(pcpu, t + 1, run_tick(pcpu, state, run), demand, misses, cs)
        state = _named(pcpu, t + 1, state, cs)
    return Unrolling(pcpu, horizon, cs, released, demand, runs, misses, modes, works)

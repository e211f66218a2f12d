"""One pCPU as a unit-tick transition system in Z3 (rules R2-R10, R13).

The reference scheduler is event-driven; with integer parameters every one
of its events falls on a whole tick, so one pCPU can be unrolled tick by tick
over a horizon of ``H`` ticks.  The *behaviour* is symbolic: each vCPU ``i``
has a phase ``ph_i`` in ``[0, T_i)`` -- a Z3 integer, so every phase of
every vCPU at once, unless the vCPU's phase is fixed (R2; the period grid
is :mod:`.grid`) -- and at each of its period starts ``ph_i + k T_i`` a job
may be released (``released[i,k]``) with a demand ``demand[i,k]`` in
``1..cap_i`` ticks.  Everything else follows, exactly as
:mod:`akita.reference` decides it, in three named parts per tick:

* the **state** (:class:`State`) after the events of an instant: work held,
  budget consumed in the period, work served in the period, the work owed
  in the period, temperature, "asked for C_pes in this period", the
  instant each vCPU was last inserted in the run queue (``queue_order =
  "fifo"``), and the pCPU's mode; it starts idle in LO mode (R13,
  :func:`initial_state`), every vCPU inactive until its first period;
* **the choice** for tick ``[t, t+1)`` (:func:`choose`; R4, R6, R7, and R5
  on pick): tiers in a fixed order (LO mode: eligible, then inactive
  background; HI mode by ``hi_mode_order``), each ordered by its key
  (virtual deadline ``s + x T`` of a HI vCPU in LO mode, deadline
  otherwise) and equal keys by ``queue_order`` (:func:`winners`);
* **the tick** just run (:func:`run_tick`; R3, R5): work and budget
  progress; R5 when a HI vCPU's consumption reaches ``C_opt`` while it still
  holds work; a budget that runs out re-inserts its vCPU;
* **the period starts** at the next instant (:func:`start_periods`; R2, R8,
  R9), after the arrivals: the check of the period that ends (every vCPU;
  a HI miss for a HI one), budget refill, insertion, R8, then R9.

:func:`unroll` chains them, deciding afresh at every tick (R10).  Deadlines
and virtual deadlines are terms of the phases (:meth:`.grid.Grid.deadline`;
constants when the phases are fixed); keys are scaled by the denominator of
``x`` to stay integers.  Scope: ``wake_preempts = true`` and
``context_switch_cost = 0`` (then the reference decides afresh at every
instant where anything changes, which is what re-choosing every tick does);
phases on the tick grid.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Callable, Sequence

import attrs
import z3

from ..edf_vd import virtual_deadline_factor
from ..first_fit import Placement
from ..host import Host
from ..options import HI_MODE_ORDERS, QUEUE_ORDERS, SchedulerOptions
from ..rules import RULE_SETS
from ..variants import wrong_variant
from ..vm import VCPU, VM
from .fold import and_, as_bool, ite, le, lt, not_, or_
from .grid import Cond, Grid, Term, grid
from .keys import Key, before, deadline_key, no_key, virtual_key
from .named import Constraints

__all__ = [
    "VARIANTS",
    "POLICIES",
    "TickVCPU",
    "TickPCPU",
    "State",
    "Unrolling",
    "initial_state",
    "deadlines",
    "winners",
    "choose",
    "run_tick",
    "start_periods",
    "unroll",
    "tick_pcpu",
    "tick_vcpus",
    "Watch",
]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("start_periods", "deadlines", "tick_pcpu"),
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

#: The deliberately wrong variants of the rules (:attr:`TickPCPU.variant`) that the Z3 model
#: carries, with the rule each breaks: the entries of the catalogue of wrong variants
#: (:data:`akita.model.variants.WRONG_VARIANTS`), looked up by name, that the simulator's
#: mutants (:data:`akita.reference.mutants.MUTANTS`) share.
VARIANTS: dict[str, str] = {
    name: wrong_variant(name).rule
    for name in ("lo-first-in-hi-mode", "no-cooling", "premature-hi-to-lo", "eager-mode-switch",
                 "no-mode-switch")
}

#: The rule sets (:data:`akita.model.rules.RULE_SETS`) this model encodes: Akita's, and
#: plain EDF over the same servers (no modes, no virtual deadlines).  ``akita-linux`` is
#: checked by the oracle alone.
POLICIES: tuple[str, ...] = tuple(name for name in RULE_SETS if name in ("akita", "edf"))


@attrs.frozen
class TickVCPU:
    """A vCPU in ticks: ``name`` as ``vm/i``, host ``order`` (the last tie-break), and
    its ``phase`` (the tick its first period starts, ``0 <= phase < period``), or
    ``None`` for every phase (symbolic in :func:`unroll`)."""

    name: str
    hi: bool
    period: int
    c_opt: int
    c_pes: int | None
    order: int
    phase: int | None = None

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
    :param queue_order: equal keys in a tier: ``"fifo"`` (the earlier insertion
        instant first, then host order; a vCPU is inserted when its period
        starts, when its budget runs out, and when it is descheduled while
        runnable) or ``"host"`` (HI before LO, then host order).
    :param hi_mode_order: HI mode's tiers: ``"capped"`` (active HI, active
        LO, inactive LO, inactive HI), ``"hi-first"`` (active HI, inactive
        HI, active LO, inactive LO) or ``"budget-first"`` (active HI, active
        LO, then every inactive vCPU by deadline).
    :param x_rule: how ``x`` was computed (:func:`tick_pcpu`); a replay host keeps it.
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

        The mutants with no variant here (``wrong-tie-break``,
        ``no-virtual-deadline``, ``late-mode-switch``, ``budget-overrun``,
        ``idle-while-runnable``, ``no-wake-preempt``, ``last-fit``) say why in
        the catalogue (:attr:`akita.model.variants.WrongVariant.why`):
        ``wrong-tie-break`` is the other ``queue_order``, ``no-virtual-deadline``
        the ``edf`` admission test (``x = 1``).
    """

    vcpus: tuple[TickVCPU, ...]
    x: Fraction = Fraction(1)
    policy: str = attrs.field(default="akita", validator=attrs.validators.in_(POLICIES))
    initial_temperature: int = 2
    hi_mode_deadline: str = "actual"
    lo_in_hi_mode: bool = True
    tick: int = 1
    test: str = "edf-vd"
    queue_order: str = attrs.field(default="fifo", validator=attrs.validators.in_(QUEUE_ORDERS))
    hi_mode_order: str = attrs.field(default="capped",
                                     validator=attrs.validators.in_(HI_MODE_ORDERS))
    x_rule: str = "eq4"
    variant: str | None = attrs.field(
        default=None, validator=attrs.validators.in_((None, *VARIANTS))
    )

    @property
    def akita(self) -> bool:
        """Whether the pCPU runs the Akita policy (modes, virtual deadlines)."""
        return self.policy == "akita"

    @property
    def options(self) -> SchedulerOptions:
        """The scheduler options this pCPU holds, which decode them (:class:`SchedulerOptions`)."""
        return SchedulerOptions(self.initial_temperature, self.hi_mode_deadline,
                                lo_in_hi_mode=self.lo_in_hi_mode, queue_order=self.queue_order,
                                hi_mode_order=self.hi_mode_order, x_rule=self.x_rule)

    @property
    def fifo(self) -> bool:
        """Whether equal keys are ordered by insertion instant (``queue_order = "fifo"``)."""
        return self.options.fifo

    def hyperperiod(self) -> int:
        h = 1
        for v in self.vcpus:
            h = h * v.period // gcd(h, v.period)
        return h


def _tick_of(load_times: Sequence[int]) -> int:
    """The gcd of *load_times* (1 if there are none)."""
    tick = 0
    for t in load_times:
        tick = gcd(tick, t)
    return tick or 1


def _x(host: Host, placement: Placement, cpu: int) -> Fraction:
    """The scheduler's ``x`` on pCPU *cpu*, by the host's ``x_rule`` (R2;
    :func:`akita.model.edf_vd.virtual_deadline_factor`), not necessarily the verdict's."""
    return Fraction(virtual_deadline_factor(placement.pcpus[cpu].verdict, host.options.x_rule))


def tick_pcpu(host: Host, placement: Placement, cpu: int, policy: str = "akita") -> TickPCPU:
    """The pCPU *cpu* of a first-fit *placement*, scaled to ticks (:func:`tick_vcpus`),
    with the scheduler's ``x`` (:func:`_x`), not necessarily the verdict's."""
    order = {vm.name: i for i, vm in enumerate(host.vms)}
    ranked = sorted(placement.pcpus[cpu].vcpus, key=lambda v: (order[v.vm.name], v.index))
    return tick_vcpus(ranked, host.options, _x(host, placement, cpu), host.test, policy)


def tick_vcpus(vcpus: Sequence[VCPU], options: SchedulerOptions, x: Fraction, test: str,
               policy: str = "akita") -> TickPCPU:
    """One pCPU holding *vcpus* (in host order), scaled to ticks.

    The tick is the gcd of every period, budget and declared phase on the
    pCPU, so every event of the reference falls on a whole tick.  A vCPU's
    phase is its VM's declared one, 0 under ``phases = "synchronous"``, and
    otherwise ``None``: every phase on the tick grid.  (``"seeded"`` draws
    phases on whole microseconds, :mod:`akita.model.phases`; a tick coarser
    than that covers only the drawn phases that fall on it.)
    """
    times = [t for v in vcpus
             for t in (v.vm.period, v.vm.c_opt, v.vm.c_pes or v.vm.c_opt, v.vm.phase or 0)]
    tick = _tick_of(times)
    synchronous = options.synchronous

    def phase(vm: VM) -> int | None:
        return vm.phase // tick if vm.phase is not None else 0 if synchronous else None

    ticked = tuple(
        TickVCPU(v.name, v.vm.is_hi, v.vm.period // tick, v.vm.c_opt // tick,
                 None if v.vm.c_pes is None else v.vm.c_pes // tick, position, phase(v.vm))
        for position, v in enumerate(vcpus)
    )
    return TickPCPU(ticked, x, policy, options.initial_temperature,
                    options.hi_mode_deadline, options.lo_in_hi_mode, tick, test,
                    options.queue_order, options.hi_mode_order, options.x_rule)


#: Per-vCPU Z3 terms, in the pCPU's order.
Terms = tuple[Term, ...]
#: Per-vCPU conditions, in the pCPU's order.
Conds = Sequence[Cond]
#: The jobs of a behaviour: ``(vCPU index, period) -> Z3 variable``.
Jobs = dict[tuple[int, int], z3.ExprRef]
#: ``(vCPU index, instant) -> condition``: a period of the vCPU ends at the instant
#: and it was served less than it was owed in it.
Shorts = dict[tuple[int, int], Cond]
#: The keys of a tick, per vCPU: ``(deadline, virtual deadline)``, times ``q``.
Keys = tuple[list[Key], list[Key]]


@attrs.frozen
class State:
    """The pCPU after the events of an instant: one Z3 term per vCPU, and the mode.

    :param work: work held (ticks).
    :param consumed: budget consumed in the current period (the full budget
        before the first period: inactive).
    :param served: work served in the current period.
    :param owed: ``min(full budget, work held at the period start)``.
    :param temperature: the R5/R8 temperature.
    :param asked: whether the vCPU asked for ``C_pes`` in this period.
    :param ins: the instant it was last inserted in the run queue (``fifo``).
    :param hi_mode: the pCPU's mode (``True``: HI).
    """

    work: Terms
    consumed: Terms
    served: Terms
    owed: Terms
    temperature: Terms
    asked: tuple[Cond, ...]
    ins: Terms
    hi_mode: Cond


def _owed(v: TickVCPU, work: Term) -> Term:
    """What a vCPU is owed in a period that starts with *work*: ``min(full budget, work)``."""
    return ite(lt(work, v.full), work, v.full)


def initial_state(pcpu: TickPCPU) -> State:
    """Before instant 0: no work, every vCPU inactive (its first period has not
    started, R2), the pCPU in LO mode (R13).  :func:`start_periods` at 0 follows."""
    n = len(pcpu.vcpus)
    zero: Terms = (z3.IntVal(0),) * n
    return State(zero, tuple(z3.IntVal(v.full) for v in pcpu.vcpus), zero, zero, zero,
                 (False,) * n, zero, False)


def deadlines(pcpu: TickPCPU, grids: Sequence[Grid], t: int) -> Keys:
    """R2 at tick *t*: each vCPU's deadline and virtual deadline ``s + x T``, times ``q``.

    ``x = p/q``; both are scaled by ``q`` so that the keys stay integers.  The
    deadline is the first period start after *t* (:meth:`.grid.Grid.deadline`;
    before its first period a vCPU's deadline is its phase); ``s`` is the
    deadline less ``T``.  Each is a :class:`.keys.Key`: a piece of the phase.
    """
    q, p = pcpu.x.denominator, pcpu.x.numerator
    return ([deadline_key(g, t, q) for g in grids], [virtual_key(g, t, q, p) for g in grids])


#: ``tie(j, i)``: among equal keys, vCPU ``j`` comes before vCPU ``i``.
Tie = Callable[[int, int], Cond]


def _tie(pcpu: TickPCPU, ins: Terms) -> Tie:
    """``queue_order``: ``(ins, host order)`` for ``fifo``; ``(HI first, host order)`` for
    ``host``."""
    vs = pcpu.vcpus
    if not pcpu.fifo:
        rank = [(0 if v.hi else 1, v.order) for v in vs]
        return lambda j, i: rank[j] < rank[i]
    return lambda j, i: le(ins[j], ins[i]) if vs[j].order < vs[i].order else lt(ins[j], ins[i])


#: A tier: who is in it (per vCPU) and the key that orders it.
Tier = tuple[list[Cond], list[Key]]


def _tiers(pcpu: TickPCPU, eligible: list[Cond], background: list[Cond], keys: Keys,
           mode_hi: bool) -> list[Tier]:
    """The tiers in the order they are served (R4; in HI mode R6, R7 by ``hi_mode_order``).

    HI mode, ``capped``: active HI by HI-mode key, active LO (if
    ``lo_in_hi_mode``) in queue order alone (HI mode ignores LO deadlines: key
    0), inactive LO by deadline, inactive HI by deadline (R3: a HI vCPU past
    its budget only when no LO vCPU is runnable).  ``hi-first``: active HI,
    inactive HI by deadline, active LO in queue order alone, inactive LO by
    deadline.  ``budget-first``: active HI, active LO by deadline, then every
    inactive vCPU by deadline.
    """
    vs = pcpu.vcpus
    deadline, virtual = keys
    if not pcpu.akita:
        return [(eligible, deadline), (background, deadline)]
    if not mode_hi:
        lo_key = [virtual[i] if v.hi else deadline[i] for i, v in enumerate(vs)]
        return [(eligible, lo_key), (background, deadline)]
    hi_key = virtual if pcpu.options.virtual_in_hi else deadline
    lo_ok = pcpu.lo_in_hi_mode

    def only(members: list[Cond], hi: bool) -> list[Cond]:
        return [m if v.hi == hi and (hi or lo_ok) else False for m, v in zip(members, vs)]

    his, his_bg, los, los_bg = (only(eligible, True), only(background, True),
                                only(eligible, False), only(background, False))
    lo_first = pcpu.variant == "lo-first-in-hi-mode"
    if pcpu.options.hi_first:  # LO vCPUs' deadlines are ignored: queue order only
        zero = [no_key() for _ in vs]
        tiers = [(his, hi_key), (his_bg, deadline), (los, zero), (los_bg, deadline)]
    elif pcpu.options.capped:
        zero = [no_key() for _ in vs]
        tiers = [(his, hi_key), (los, zero), (los_bg, deadline), (his_bg, deadline)]
    else:
        tiers = [(his, hi_key), (los, deadline),
                 ([or_(a, b) for a, b in zip(his_bg, los_bg)], deadline)]
    if lo_first:  # LO with budget ahead of everything else, as the mutant picks
        tiers = [tier for tier in tiers if tier[0] is los] + [
            tier for tier in tiers if tier[0] is not los]
    return tiers


def winners(pcpu: TickPCPU, runnable: Conds, active: Conds, keys: Keys, ins: Terms,
            mode_hi: bool) -> list[Cond]:
    """Who runs in a tick in LO mode (R4) or HI mode (R6), with work conservation (R7).

    The vCPUs form tiers in a fixed order (:func:`_tiers`); within a tier
    ``j`` ranks above ``i`` when its key is smaller, or equal with ``j``
    first by ``queue_order`` (:func:`_tie`).  vCPU ``i`` wins iff it is in a
    tier, no higher tier has a member, and no member of its tier ranks
    above it.  Keys are terms of the phases; with fixed phases they are
    constants and every comparison folds.
    """
    n = len(pcpu.vcpus)
    eligible = [and_(runnable[i], active[i]) for i in range(n)]
    background = [and_(runnable[i], not_(active[i])) for i in range(n)]
    tie = _tie(pcpu, ins)
    q = pcpu.x.denominator
    win: list[list[Cond]] = [[] for _ in range(n)]
    nobody_above: list[Cond] = []
    for members, key in _tiers(pcpu, eligible, background, keys, mode_hi):
        for i in range(n):
            if members[i] is False:
                continue
            above = [and_(members[j], before(key[j], key[i], q, tie(j, i)))
                     for j in range(n) if j != i]
            win[i].append(and_(members[i], *nobody_above, *[not_(a) for a in above]))
        nobody_above.append(not_(or_(*members)))
    return [or_(*options) for options in win]


def choose(pcpu: TickPCPU, grids: Sequence[Grid], t: int, state: State, previous: Conds,
           cs: Constraints) -> tuple[list[z3.BoolRef], State]:
    """The choice for tick ``[t, t+1)``: R5 on pick, then R4/R6/R7 (:func:`winners`).

    R5 on pick: a HI vCPU that LO mode would run and that has consumed
    ``C_opt`` already switches the pCPU to HI mode before it runs.  Names the
    runnable and active flags, who runs and the mode; returns who runs and
    the state with R5's effects, the named mode, and -- ``fifo`` -- the vCPU
    that ran in the tick before (*previous*) re-inserted at *t* if it is
    descheduled while runnable.
    """
    vs = pcpu.vcpus
    n = len(vs)
    runnable = tuple(z3.Bool(f"{v.name} runnable at {t}") for v in vs)
    active = tuple(z3.Bool(f"{v.name} active at {t}") for v in vs)
    for i, v in enumerate(vs):
        cs.add(f"{v.name} runnable at {t} iff it holds work", runnable[i] == (state.work[i] > 0))
        cs.add(f"{v.name} active at {t} iff budget is left",
               active[i] == (state.consumed[i] < v.full))
    keys = deadlines(pcpu, grids, t)
    temperature, asked, hi_mode = state.temperature, state.asked, state.hi_mode
    lo_win = winners(pcpu, runnable, active, keys, state.ins, False)
    if pcpu.akita:
        hot = [and_(not_(hi_mode), lo_win[i], state.consumed[i] >= v.c_opt)
               if (v.hi and pcpu.variant != "no-mode-switch") else False
               for i, v in enumerate(vs)]
        temperature = tuple(ite(hot[i], pcpu.initial_temperature, temperature[i])
                            for i in range(n))
        asked = tuple(or_(asked[i], hot[i]) for i in range(n))
        hi_mode = or_(hi_mode, *hot)
        hi_win = winners(pcpu, runnable, active, keys, state.ins, True)
        chosen = [ite(hi_mode, h, lo) for h, lo in zip(hi_win, lo_win)]
    else:
        chosen = lo_win
    run = [z3.Bool(f"{v.name} runs at tick {t}") for v in vs]
    for i, v in enumerate(vs):
        cs.add(f"choice at tick {t}: {v.name}", run[i] == as_bool(chosen[i]))
    mode = z3.Bool(f"HI mode at tick {t}")
    cs.add(f"mode at tick {t}", mode == as_bool(hi_mode))
    ins = state.ins
    if pcpu.fifo:
        ins = tuple(ite(and_(previous[i], runnable[i], not_(run[i])), z3.IntVal(t), ins[i])
                    for i in range(n))
    return run, attrs.evolve(state, temperature=temperature, asked=asked, hi_mode=mode, ins=ins)


def run_tick(pcpu: TickPCPU, t: int, state: State, run: Sequence[z3.BoolRef]) -> State:
    """Tick ``[t, t+1)`` just run (R3, R5): the running vCPU's work drops and its budget is
    charged while any is left; R5 when a HI vCPU's consumption reaches ``C_opt``
    and it still holds work; a budget that runs out at ``t + 1`` re-inserts its
    vCPU then (``fifo``; unnamed terms; :func:`start_periods` follows)."""
    one, zero = z3.IntVal(1), z3.IntVal(0)
    work, consumed, served, temperature, asked, ins, crossings = [], [], [], [], [], [], []
    for i, v in enumerate(pcpu.vcpus):
        charged = z3.And(run[i], state.consumed[i] < v.full)
        wi = state.work[i] - z3.If(run[i], one, zero)
        ci = state.consumed[i] + z3.If(charged, one, zero)
        si = state.served[i] + z3.If(run[i], one, zero)
        still_runnable = z3.BoolVal(True) if pcpu.variant == "eager-mode-switch" else wi > 0
        cross = (z3.And(charged, state.consumed[i] + 1 == v.c_opt, still_runnable)
                 if (pcpu.akita and v.hi and pcpu.variant != "no-mode-switch") else False)
        crossings.append(cross)
        temperature.append(ite(cross, pcpu.initial_temperature, state.temperature[i]))
        asked.append(or_(state.asked[i], cross))
        exhausted = z3.And(charged, state.consumed[i] + 1 == v.full)
        ins.append(ite(exhausted, z3.IntVal(t + 1), state.ins[i]) if pcpu.fifo
                   else state.ins[i])
        work.append(wi)
        consumed.append(ci)
        served.append(si)
    hi_mode = or_(state.hi_mode, *crossings) if pcpu.akita else False
    return State(tuple(work), tuple(consumed), tuple(served), state.owed, tuple(temperature),
                 tuple(asked), tuple(ins), hi_mode)


def start_periods(pcpu: TickPCPU, grids: Sequence[Grid], at: int, state: State, demand: Jobs,
                  shorts: Shorts) -> State:
    """Instant *at*: arrivals, then the period starts (R2, R8, R9).

    A period of vCPU ``i`` starts at *at* when ``ph_i == at mod T_i``
    (:meth:`.grid.Grid.starts`), and it is its period ``at // T_i``.  Then its
    new job's demand arrives; the period just ended, if any (``at >= T_i``:
    the first period start ends none), is checked: *shorts* records when it
    was served less than it was owed (a HI miss for a HI vCPU); the new
    period's debt is set; a HI vCPU's R8 cools it by one unless it asked for
    ``C_pes``; budget and service restart and the vCPU is inserted at *at*
    (R2).  Then R9: the pCPU returns to LO mode when a HI period started and
    no HI vCPU is warm.
    """
    work, consumed, served = list(state.work), list(state.consumed), list(state.served)
    owed, temperature, asked = list(state.owed), list(state.temperature), list(state.asked)
    ins = list(state.ins)
    hi_starts: list[Cond] = []
    for i, v in enumerate(pcpu.vcpus):
        starts = grids[i].starts(at)
        if starts is False:
            continue
        job = demand.get((i, at // v.period))
        if job is not None:
            work[i] = work[i] + ite(starts, job, z3.IntVal(0))
        if at >= v.period:
            shorts[i, at] = and_(starts, served[i] < owed[i])
        owed[i] = ite(starts, _owed(v, work[i]), owed[i])
        if v.hi:
            hi_starts.append(starts)
            if pcpu.variant != "no-cooling":
                cools = and_(starts, temperature[i] > 0, not_(asked[i]))
                temperature[i] = ite(cools, temperature[i] - 1, temperature[i])
            asked[i] = and_(asked[i], not_(starts))
        consumed[i] = ite(starts, z3.IntVal(0), consumed[i])
        served[i] = ite(starts, z3.IntVal(0), served[i])
        if pcpu.fifo:
            ins[i] = ite(starts, z3.IntVal(at), ins[i])
    hi_mode = state.hi_mode
    if pcpu.akita and hi_starts:
        cool = (True if pcpu.variant == "premature-hi-to-lo" else
                and_(*[temperature[i] == 0 for i, v in enumerate(pcpu.vcpus) if v.hi]))
        hi_mode = and_(hi_mode, not_(and_(or_(*hi_starts), cool)))
    return State(tuple(work), tuple(consumed), tuple(served), tuple(owed), tuple(temperature),
                 tuple(asked), tuple(ins), hi_mode)


def _named(pcpu: TickPCPU, at: int, state: State, cs: Constraints) -> State:
    """*state* with each vCPU's work, budget, service, debt, temperature, ask and (``fifo``)
    insertion instant named at *at*."""
    fields: dict[str, list[z3.ExprRef]] = {
        "work": [], "consumed": [], "served": [], "owed": [], "temperature": [], "asked": []}
    labels = [("work", "work of", z3.Int), ("consumed", "consumed by", z3.Int),
              ("served", "served to", z3.Int), ("owed", "owed to", z3.Int),
              ("temperature", "temperature of", z3.Int), ("asked", "asked by", z3.Bool)]
    if pcpu.fifo:
        fields["ins"] = []
        labels.append(("ins", "inserted", z3.Int))
    for i, v in enumerate(pcpu.vcpus):
        for field, label, fresh in labels:
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
    #: Each vCPU's period grid; ``grids[i].phase`` is its phase (a term, or an int).
    grids: tuple[Grid, ...] = ()
    #: ``(i, at) -> condition``: a period of vCPU ``i`` (HI or LO) ends at instant
    #: ``at`` and it was served less than ``min(full budget, work at its start)``.
    shorts: Shorts = attrs.Factory(dict)

    def phase(self, i: int) -> Term:
        """The phase of vCPU *i* in ticks (a Z3 term when symbolic)."""
        return self.grids[i].phase

    def released_by(self, i: int, k: int, t: int) -> Cond:
        """Period *k* of vCPU *i* starts at or before instant *t*."""
        return le(self.grids[i].release(k), t)


#: ``watch(stage, done, total)``: called by :func:`unroll` before each step of the
#: encoding (``"jobs"``: declaring the job released at tick *done*; ``"encoding"``: building
#: tick *done*; of *total* ticks); it may raise to stop the unrolling
#: (a time limit, :class:`akita.proofs.limits.Deadline`).
Watch = Callable[[str, int, int], None]


def _no_watch(stage: str, done: int, total: int) -> None:
    """The :data:`Watch` that lets the unrolling run to the end."""


def _grids(pcpu: TickPCPU, phases: Sequence[int | None] | None, encoding: str,
           cs: Constraints) -> tuple[Grid, ...]:
    """Each vCPU's grid: its phase from *phases* if given, else its own; ``None`` is every
    phase, one symbolic phase per VM (its vCPUs share it, as the simulator's do)."""
    chosen = list(phases) if phases is not None else [v.phase for v in pcpu.vcpus]
    shared: dict[str, Grid] = {}
    grids = []
    for v, phase in zip(pcpu.vcpus, chosen):
        vm = v.name.split("/")[0]
        if phase is not None:
            grids.append(grid(v.period, phase, v.name))
            continue
        if vm not in shared:
            shared[vm] = grid(v.period, None, vm, encoding)
            for j, c in enumerate(shared[vm].constraints()):
                cs.add(f"{vm}: its phase is a tick of its first period ({j})", c)
        grids.append(shared[vm])
    return tuple(grids)


def _anchor(grids: Sequence[Grid], cs: Constraints) -> None:
    """When no phase is fixed: the earliest phase is 0.

    Nothing happens before the earliest phase ``m`` (no vCPU holds work, the
    pCPU idles in LO mode, every temperature is 0), and at ``m`` the state is
    the start's: the behaviour with phases ``ph_i`` is the one with phases
    ``ph_i - m`` delayed by ``m``.  So a violation at tick ``t`` with phases
    ``ph`` is one at ``t - m`` with phases ``ph - m``, within the same
    horizon: phases with a 0 among them cover every phase.
    """
    if any(isinstance(g.phase, int) for g in grids) or not grids:
        return
    distinct = list({id(g): g for g in grids}.values())
    cs.add("the earliest phase is 0 (a shift in time)", z3.Or(*[g.phase == 0 for g in distinct]))


def _jobs(pcpu: TickPCPU, grids: Sequence[Grid], horizon: int, caps: Sequence[int],
          cs: Constraints, watch: Watch = _no_watch) -> tuple[Jobs, Jobs]:
    """One job of ``1..cap`` ticks or none at each period start within *horizon*
    (for a symbolic phase: at each start the phase may give; none at or after the horizon)."""
    released: Jobs = {}
    demand: Jobs = {}
    for i, v in enumerate(pcpu.vcpus):
        for k in range((horizon + v.period - 1) // v.period):
            inside = lt(grids[i].release(k), horizon)
            if inside is False:
                continue
            watch("jobs", k * v.period, horizon)
            r = released[i, k] = z3.Bool(f"{v.name} released in period {k}")
            d = demand[i, k] = z3.Int(f"{v.name} demand in period {k}")
            cs.add(f"{v.name} period {k}: a job of 1..{caps[i]} ticks or none",
                   z3.If(r, z3.And(d >= 1, d <= caps[i]), d == 0))
            if inside is not True:
                cs.add(f"{v.name} period {k}: no job at or after the horizon",
                       z3.Implies(r, inside))
    return released, demand


def _misses(pcpu: TickPCPU, shorts: Shorts, horizon: int, cs: Constraints) -> Jobs:
    """``(i, k) -> Bool``: HI vCPU ``i`` is short in its period ``k``, judged at the start of
    period ``k + 1`` (at ``ph_i + (k+1) T_i``, if within *horizon*)."""
    by_period: dict[tuple[int, int], list[Cond]] = {}
    for (i, at), short in shorts.items():
        if pcpu.vcpus[i].hi:
            by_period.setdefault((i, at // pcpu.vcpus[i].period - 1), []).append(short)
    misses: Jobs = {}
    for (i, k), cases in sorted(by_period.items()):
        name = pcpu.vcpus[i].name
        misses[i, k] = z3.Bool(f"{name} short in period {k}")
        cs.add(f"{name} period {k}: HI miss iff served < owed",
               misses[i, k] == as_bool(or_(*cases)))
    return misses


def unroll(pcpu: TickPCPU, horizon: int, *, caps: Sequence[int] | None = None,
           phases: Sequence[int | None] | None = None, encoding: str = "int",
           anchored: bool = False, watch: Watch = _no_watch) -> Unrolling:
    """Unroll *pcpu* over ``horizon`` ticks with symbolic releases and demands,
    choosing afresh at every tick (R10).

    Numbers are integers (linear arithmetic): bit-vectors were tried and were
    slower on every horizon measured (docs/schedule-proofs.rst).

    :param caps: the largest demand of each vCPU's jobs, in ticks (default:
        ``C_pes`` for HI, ``C_opt`` for LO: the EDF-VD job model).
    :param phases: each vCPU's phase in ticks, or ``None`` for every phase
        (default: the vCPUs' own, :attr:`TickVCPU.phase`): a replay or the
        cross-check fixes them all.
    :param encoding: how a symbolic phase is encoded (:func:`.grid.grid`):
        ``"int"`` (the default, the faster) or ``"one-hot"``.
    :param anchored: when every phase is symbolic, only those whose earliest
        phase is 0 (:func:`_anchor`): sound for a violation that a shift of
        the whole behaviour in time preserves, such as a HI miss.
    :param watch: called before each job is declared and each tick is built
        (:data:`Watch`); what it raises stops the unrolling, so that a time
        limit bounds the building of a long horizon as well as the solving.
    """
    cs = Constraints()
    grids = _grids(pcpu, phases, encoding, cs)
    if anchored:
        _anchor(grids, cs)
    released, demand = _jobs(pcpu, grids, horizon,
                             list(caps) if caps is not None else [v.full for v in pcpu.vcpus],
                             cs, watch)
    shorts: Shorts = {}
    runs, modes, works = [], [], []
    state = _named(pcpu, 0, start_periods(pcpu, grids, 0, initial_state(pcpu), demand, shorts),
                   cs)
    previous: Conds = [False] * len(pcpu.vcpus)
    for t in range(horizon):
        watch("encoding", t, horizon)
        works.append(list(state.work))
        run, state = choose(pcpu, grids, t, state, previous, cs)
        runs.append(run)
        modes.append(state.hi_mode)
        state = start_periods(pcpu, grids, t + 1, run_tick(pcpu, t, state, run), demand, shorts)
        state = _named(pcpu, t + 1, state, cs)
        previous = run
    misses = _misses(pcpu, shorts, horizon, cs)
    return Unrolling(pcpu, horizon, cs, released, demand, runs, misses, modes, works, grids,
                     shorts)

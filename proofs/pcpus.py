"""The pCPUs the schedule claims are stated on (:mod:`.hi_guarantee`, :mod:`.mode_obligations`).

The paper's Fig. 5 and Fig. 7 pCPUs (:func:`example_pcpu`), two hand-made
sets that separate the right rules from the wrong ones (:func:`carry_over`,
:func:`two_hi`), and seeded random pCPUs (:func:`random_pcpu`, the one
generator behind :func:`generated_pcpus` and ``bench/check_scope.py``).
Each is pCPU 0 of a host placed by first fit, scaled to ticks
(:func:`akita.model.smt.pcpu.tick_pcpu`), with every phase symbolic (the
hosts say ``phases = "seeded"``, :func:`every_phase`): a claim on them is a
claim for every phase of every VM on the tick grid.
"""

from __future__ import annotations

import random
from functools import lru_cache
from importlib.resources import as_file, files
from typing import Callable, Sequence

import attrs

from akita.model import VM, Criticality, Host, SchedulerOptions, first_fit, load_host
from akita.model.smt.pcpu import TickPCPU, tick_pcpu

from .support import MS

__all__ = [
    "Budgets",
    "SEEDED",
    "every_phase",
    "synchronous",
    "example_pcpu",
    "pcpu_of",
    "carry_over",
    "two_hi",
    "staggered",
    "random_pcpu",
    "generated_pcpus",
]


#: The scheduler options of the pCPUs here: the defaults, phases not fixed.
SEEDED = SchedulerOptions(phases="seeded")


def every_phase(pcpu: TickPCPU) -> TickPCPU:
    """*pcpu* with every vCPU's phase symbolic (every phase, in a check)."""
    return attrs.evolve(pcpu, vcpus=tuple(attrs.evolve(v, phase=None) for v in pcpu.vcpus))


def synchronous(pcpu: TickPCPU) -> TickPCPU:
    """*pcpu* with every vCPU's first period at 0."""
    return attrs.evolve(pcpu, vcpus=tuple(attrs.evolve(v, phase=0) for v in pcpu.vcpus))


def example_pcpu(name: str, policy: str = "akita") -> TickPCPU:
    """pCPU 0 of a shipped example host (``fig5``, ``fig7``), every phase symbolic."""
    with as_file(files("akita.examples") / f"{name}.toml") as path:
        host = load_host(path)
    return every_phase(tick_pcpu(host, first_fit(host), 0, policy))


def pcpu_of(vms: Sequence[VM], policy: str = "akita", test: str = "edf-vd",
            options: SchedulerOptions = SEEDED) -> TickPCPU:
    """The one pCPU of a host of *vms* admitted by *test*, with scheduler *options*."""
    host = Host(1, tuple(vms), test=test, options=options)
    placement = first_fit(host)
    assert placement.admitted, placement
    return tick_pcpu(host, placement, 0, policy)


def carry_over(policy: str = "akita", test: str = "edf-vd") -> TickPCPU:
    """U1 = 1/2, U2 = 1/20, U3 = 7/8 (x = 1/10): the set where a LO job run first leaves
    the HI job too little time after its switch, unless HI has a virtual deadline."""
    return pcpu_of([
        VM("lo", Criticality.LO, 2 * MS, MS),
        VM("hi", Criticality.HI, 4 * MS, 200_000, 3_500_000),
    ], policy, test=test)


def staggered() -> TickPCPU:
    """hi 1/3/4 ms and lo 3/4 ms, admitted by the plain ``edf`` test (``x = 1``; EDF-VD
    rejects it): safe when the periods start together, not when lo's starts 3 ms later."""
    return pcpu_of([
        VM("hi", Criticality.HI, 4 * MS, MS, 3 * MS),
        VM("lo", Criticality.LO, 4 * MS, 3 * MS),
    ], test="edf")


def cooling() -> TickPCPU:
    """hi 1/2/4 ms beside lo 2/6 ms (U1 = 1/3, U2 = 1/4, U3 = 1/2, x = 3/8): a
    12-tick hyperperiod short enough to check a HI-mode episode and its
    return to LO mode over every phase."""
    return pcpu_of([
        VM("hi", Criticality.HI, 4 * MS, MS, 2 * MS),
        VM("lo", Criticality.LO, 6 * MS, 2 * MS),
    ])


def two_hi(hi_mode_deadline: str = "actual") -> TickPCPU:
    """A LO and two HI vCPUs (x = 2/25) where HI mode must use actual deadlines."""
    return pcpu_of([
        VM("lo0", Criticality.LO, 2 * MS, 500_000),
        VM("hi0", Criticality.HI, 10 * MS, 100_000, 3_300_000),
        VM("hi1", Criticality.HI, 2 * MS, 100_000, 900_000),
    ], options=attrs.evolve(SEEDED, hi_mode_deadline=hi_mode_deadline))


#: ``budgets(rng, period, hi, n) -> (C_opt, C_pes or None)`` in ms, for a vCPU of a pCPU of *n*.
Budgets = Callable[[random.Random, int, bool, int], tuple[int, int | None]]


def random_pcpu(rng: random.Random, n: int, periods: Sequence[int],
                budgets: Budgets) -> TickPCPU | None:
    """One draw: *n* single-vCPU VMs ``v0, v1, ...`` on one pCPU, the first
    ``max(1, n // 2)`` HI, each with a period from *periods* (ms) and budgets
    drawn by *budgets*; the pCPU if first fit admits them all, else ``None``."""
    vms = []
    for i in range(n):
        period = rng.choice(periods)
        hi = i < max(1, n // 2)
        c_opt, c_pes = budgets(rng, period, hi, n)
        vms.append(VM(f"v{i}", Criticality.HI if hi else Criticality.LO, period * MS,
                      c_opt * MS, None if c_pes is None else c_pes * MS))
    host = Host(1, tuple(vms), options=SEEDED)
    placement = first_fit(host)
    return tick_pcpu(host, placement, 0) if placement.admitted else None


def _small_budgets(rng: random.Random, period: int, hi: bool, n: int) -> tuple[int, int | None]:
    """``C_opt`` up to ``T/4``; a HI ``C_pes`` up to ``2T/3``."""
    c_opt = rng.randint(1, max(1, period // 4))
    return c_opt, rng.randint(c_opt, max(c_opt, period * 2 // 3)) if hi else None


@lru_cache(maxsize=4)
def generated_pcpus(count: int = 8, seed: int = 0, hyperperiod: int = 60) -> tuple[TickPCPU, ...]:
    """Seeded admitted pCPUs of 2-5 vCPUs with x < 1 and at most *hyperperiod* ticks."""
    rng = random.Random(seed)
    found: list[TickPCPU] = []
    while len(found) < count:
        pcpu = random_pcpu(rng, rng.randint(2, 5), [10, 12, 15, 20, 24, 30, 40, 60, 120],
                           _small_budgets)
        if pcpu is not None and pcpu.hyperperiod() <= hyperperiod and pcpu.x < 1:
            found.append(pcpu)
    return tuple(found)

"""The pCPUs the schedule claims are stated on (:mod:`.hi_guarantee`, :mod:`.mode_obligations`).

The paper's Fig. 5 and Fig. 7 pCPUs (:func:`example_pcpu`), two hand-made
sets that separate the right rules from the wrong ones (:func:`carry_over`,
:func:`two_hi`), and seeded random pCPUs (:func:`random_pcpu`, the one
generator behind :func:`generated_pcpus` and ``bench/check_scope.py``).
Each is pCPU 0 of a host placed by first fit, scaled to ticks
(:func:`akita.model.smt.pcpu.tick_pcpu`).
"""

from __future__ import annotations

import random
from functools import lru_cache
from importlib.resources import as_file, files
from typing import Callable, Sequence

from akita.model import VM, Criticality, Host, SchedulerOptions, first_fit, load_host
from akita.model.smt.pcpu import TickPCPU, tick_pcpu

from .support import MS

__all__ = [
    "Budgets",
    "example_pcpu",
    "pcpu_of",
    "carry_over",
    "two_hi",
    "random_pcpu",
    "generated_pcpus",
]


def example_pcpu(name: str, policy: str = "akita") -> TickPCPU:
    """pCPU 0 of a shipped example host (``fig5``, ``fig7``)."""
    with as_file(files("akita.examples") / f"{name}.toml") as path:
        host = load_host(path)
    return tick_pcpu(host, first_fit(host), 0, policy)


def pcpu_of(vms: Sequence[VM], policy: str = "akita", test: str = "edf-vd",
            options: SchedulerOptions = SchedulerOptions()) -> TickPCPU:
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


def two_hi(hi_mode_deadline: str = "actual") -> TickPCPU:
    """A LO and two HI vCPUs (x = 2/25) where HI mode must use actual deadlines."""
    return pcpu_of([
        VM("lo0", Criticality.LO, 2 * MS, 500_000),
        VM("hi0", Criticality.HI, 10 * MS, 100_000, 3_300_000),
        VM("hi1", Criticality.HI, 2 * MS, 100_000, 900_000),
    ], options=SchedulerOptions(hi_mode_deadline=hi_mode_deadline))


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
    host = Host(1, tuple(vms))
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

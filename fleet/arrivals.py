"""The VMs that arrive at a fleet: when, what, and for how long.

**Arrivals** form a Bernoulli process on the tick grid: at each tick
``k = 0, 1, ..., horizon/tick - 1`` one VM arrives with probability
``p = rate x tick`` (exactly, :func:`~akita.model.exact_random.bernoulli`),
independently of the other ticks.  The gaps are geometric with mean
``1/p`` ticks, and as the tick shrinks at a fixed rate the process tends to
a Poisson process of that rate (the law of rare events); at ``p <= 1/60``,
say a VM a minute on a one-second grid, the two are close.  No
exponential inter-arrival is drawn: its inversion ``-ln(U)/rate`` is a
float, and a float would make the stream depend on the platform's libm
(decision 42 for the sweep's sets; decision 60 here).

**Each VM** ``i`` (in arrival order) has its own :class:`random.Random`,
seeded from the SHA-256 of ``(seed, i)`` (:func:`vm_random`), and draws, in
this order: its criticality (HI with probability ``p_hi``), its type among
the mix's types of that criticality (by integer weight), its vCPU count
(uniform among the type's choices) and its lifetime on the grid:
``k x tick`` with ``k`` uniform in ``[low/tick, high/tick]`` or ``floor(X)``
for ``X`` log-uniform on ``[low/tick, high/tick + 1)``
(:func:`~akita.model.exact_random.log_uniform_index`).  Log-uniform
lifetimes give many short VMs and a few long ones, over orders of
magnitude, the shape public-cloud traces report (e.g. Cortez et al.,
"Resource Central", SOSP 2017); the range is the spec's to choose.
The arrival stream has its own generator, seeded from
``(seed, "arrivals")``, so a VM's draws depend only on its index.

Every variate comes from :meth:`random.Random.getrandbits` through
:mod:`akita.model.exact_random`: the same VMs on every machine.
"""

from __future__ import annotations

import hashlib
import random
from typing import Iterator

import attrs

from akita.model import PRESETS, VM
from akita.model.exact_random import bernoulli, log_uniform_index, uniform_below

from .spec import FleetSpec, MixType

__all__ = ["Arrival", "arrivals", "arrival_instants", "draw_vm", "vm_random"]


@attrs.frozen
class Arrival:
    """VM *index*: it arrives at *time* and leaves at *departure* (ns)."""

    index: int
    time: int
    departure: int
    vm: VM
    kind: MixType


def vm_random(seed: int, index: int) -> random.Random:
    """The generator of VM *index* of a fleet seeded *seed*."""
    return _random(f"akita-fleet/1/{seed}/vm/{index}")


def _random(key: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest(), "big"))


def arrival_instants(spec: FleetSpec) -> Iterator[int]:
    """The arrival instants, in ns, increasing: at most one per tick."""
    rng = _random(f"akita-fleet/1/{spec.seed}/arrivals")
    p, tick = spec.p_arrival, spec.tick
    if p == 1:
        yield from (k * tick for k in range(spec.ticks))
        return
    for k in range(spec.ticks):
        if bernoulli(rng, p):
            yield k * tick


def draw_vm(spec: FleetSpec, index: int, time: int) -> Arrival:
    """VM *index*, arriving at *time*: its type, vCPUs and lifetime (see the module)."""
    rng = vm_random(spec.seed, index)
    hi = bernoulli(rng, spec.p_hi)
    kinds = spec.types(hi)
    pick = uniform_below(rng, sum(t.weight for t in kinds))
    for kind in kinds:
        if pick < kind.weight:
            break
        pick -= kind.weight
    vcpus = kind.vcpus[uniform_below(rng, len(kind.vcpus))]
    distribution, low, high = spec.lifetime
    tick = spec.tick
    if distribution == "uniform":
        ticks = low // tick + uniform_below(rng, high // tick - low // tick + 1)
    else:
        ticks = log_uniform_index(rng, low // tick, high // tick)
    preset = PRESETS[kind.preset]
    vm = VM(name=f"vm{index}", criticality=preset.criticality, period=preset.period,
            c_opt=preset.c_opt, c_pes=preset.c_pes, vcpus=vcpus, preset=preset.name,
            workload=kind.workload)
    return Arrival(index=index, time=time, departure=time + ticks * tick, vm=vm, kind=kind)


def arrivals(spec: FleetSpec) -> Iterator[Arrival]:
    """Every VM that arrives within the horizon, in arrival order."""
    for index, time in enumerate(arrival_instants(spec)):
        yield draw_vm(spec, index, time)

"""Hypothesis strategies for the exact-admission tests: small tick pCPUs, drawn directly.

Each draw is a :class:`akita.model.smt.pcpu.TickPCPU` of 1-4 vCPUs on a tick grid
(periods 2-12 ticks, budgets in ticks, ``x`` a fraction in ``(0, 1]``) with the
scheduler options drawn too, so that every option the Z3 model has is exercised
(``queue_order``, ``hi_mode_order``, ``hi_mode_deadline``, ``lo_in_hi_mode``,
``initial_temperature``, the policy and the deliberately wrong variants).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from akita.model.smt.pcpu import VARIANTS, TickPCPU, TickVCPU

__all__ = ["tick_pcpus", "tight_pcpus", "demands_for"]


@st.composite
def tick_pcpus(draw, *, max_vcpus: int = 4, periods=(2, 3, 4, 6, 8, 12), variants: bool = True,
               policies=("akita", "edf"), phases: bool = True) -> TickPCPU:
    """One pCPU in ticks; each vCPU its own VM (``v<i>/0``), its phase drawn if *phases*."""
    vcpus = []
    for i in range(draw(st.integers(1, max_vcpus))):
        period = draw(st.sampled_from(periods))
        hi = draw(st.booleans())
        c_opt = draw(st.integers(1, max(1, period // 2)))
        c_pes = draw(st.integers(c_opt, period)) if hi else None
        phase = draw(st.integers(0, period - 1)) if phases else None
        vcpus.append(TickVCPU(f"v{i}/0", hi, period, c_opt, c_pes, i, phase))
    x = Fraction(draw(st.integers(1, 10)), 10)
    return TickPCPU(
        tuple(vcpus), x, draw(st.sampled_from(policies)), draw(st.integers(1, 3)),
        draw(st.sampled_from(["actual", "virtual"])), draw(st.booleans()),
        queue_order=draw(st.sampled_from(["fifo", "host"])),
        hi_mode_order=draw(st.sampled_from(["capped", "hi-first", "budget-first"])),
        variant=draw(st.sampled_from([None, *VARIANTS])) if variants else None,
    )


@st.composite
def tight_pcpus(draw) -> TickPCPU:
    """A pCPU that the ``edf`` test admits (``U1 + U2 <= 1``, ``U3 <= 1``) with a HI vCPU
    whose ``C_pes`` is large beside its ``C_opt`` and a LO vCPU of large ``C_opt``: where
    misses are found (and can be replayed under the ``edf`` test)."""
    vcpus = []
    lo_load = hi_load = Fraction(0)
    for i in range(draw(st.integers(2, 3))):
        period = draw(st.sampled_from((2, 3, 4, 6)))
        hi = i == 0 or draw(st.booleans())
        c_opt = draw(st.integers(1, max(1, period // 2)))
        c_pes = draw(st.integers(c_opt, period)) if hi else None
        if lo_load + Fraction(c_opt, period) > 1 or hi and hi_load + Fraction(c_pes, period) > 1:
            continue
        lo_load += Fraction(c_opt, period)
        hi_load += Fraction(c_pes, period) if hi else 0
        phase = draw(st.one_of(st.none(), st.integers(0, period - 1)))
        vcpus.append(TickVCPU(f"v{i}/0", hi, period, c_opt, c_pes, i, phase))
    if any(v.phase is None for v in vcpus):
        vcpus = [TickVCPU(v.name, v.hi, v.period, v.c_opt, v.c_pes, v.order, None) for v in vcpus]
    x = draw(st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(draw(st.integers(1, 9)), 10)]))
    return TickPCPU(
        tuple(vcpus), x, "akita", draw(st.integers(1, 3)),
        draw(st.sampled_from(["actual", "virtual"])), draw(st.booleans()),
        queue_order=draw(st.sampled_from(["fifo", "host"])),
        hi_mode_order=draw(st.sampled_from(["capped", "hi-first", "budget-first"])),
    )


def demands_for(data, pcpu: TickPCPU, horizon: int) -> dict[tuple[int, int], int]:
    """A demand (0: none, else ``1..full``) for every period start of every vCPU before
    *horizon*, drawn from Hypothesis' *data*."""
    demand = {}
    for i, v in enumerate(pcpu.vcpus):
        for k in range((horizon + v.period - 1) // v.period):
            if (v.phase or 0) + k * v.period < horizon:
                demand[i, k] = data.draw(st.integers(0, v.full), label=f"demand {i},{k}")
    return demand

"""AMC-rtb: response-time analysis for Adaptive Mixed Criticality.

Baruah, Burns and Davis, "Response-Time Analysis for Mixed Criticality
Systems", RTSS 2011, Section IV (AMC-rtb).  Under AMC a processor runs in LO
mode all tasks by fixed priority with their LO budgets; when a HI task runs
for its LO budget without completing, the processor switches to HI mode and
LO tasks are no longer run.  For the vCPUs of one pCPU, with ``C(LO) =
C_opt``, ``C(HI) = C_pes`` (HI vCPUs only) and ``D = T``:

* every vCPU ``i`` (LO mode): ``R_i^LO = C_i(LO) + sum over j in hp(i) of
  ceil(R_i^LO / T_j) C_j(LO) <= T_i``;
* every HI vCPU ``i`` (across the switch): ``R_i^HI = C_i(HI) + sum over j
  in hpH(i) of ceil(R_i^HI / T_j) C_j(HI) + sum over k in hpL(i) of
  ceil(R_i^LO / T_k) C_k(LO) <= T_i``, where ``hpH``/``hpL`` are the HI/LO
  vCPUs of higher priority; LO interference stops at ``R_i^LO``, since LO
  work is dropped at the switch, which happens before then.

Both are iterated exactly in integer nanoseconds (:mod:`.rta`); ``R^HI``
starts from ``R^LO``, which never exceeds it.

**Priorities.**  By Audsley's optimal priority assignment (Audsley, "On
priority assignment in fixed priority scheduling", IPL 79(1), 2001), as the
paper recommends: a vCPU's ``R^LO`` and ``R^HI`` depend on the *set* of
vCPUs above it, not on their order, so the algorithm applies and is optimal
for AMC-rtb -- it passes every set that some fixed-priority order passes,
among them every set that deadline-monotonic (here rate-monotonic) order
passes.  Each priority level, from the lowest, goes to the first vCPU that
passes there, trying the vCPUs in reverse rate-monotonic order (longest
period, then latest added, first); so whenever rate-monotonic order passes,
it is the order found.
"""

from __future__ import annotations

from typing import Iterable

from .rm import braced, rm_order, vcpus_of
from .rta import ceil_div, response_time
from .utilization import UtilizationSums
from .verdict import Capacity, SchedulabilityVerdict
from .vm import VCPU

__all__ = ["amc_response_times", "amc_priorities", "amc_rtb_test", "amc_capacity"]


def amc_response_times(vcpu: VCPU, higher: Iterable[VCPU]) -> tuple[int, int | None]:
    """``(R^LO, R^HI)`` of *vcpu* below the vCPUs *higher* (``R^HI`` is ``None``
    for a LO vCPU, or when ``R^LO`` already exceeds ``T``).  A value ``> T`` is
    a miss, and then only a witness, not the response time itself."""
    higher = tuple(higher)
    vm = vcpu.vm
    t = vm.period
    r_lo = response_time(vm.c_opt, ((h.vm.c_opt, h.vm.period) for h in higher), t)
    if not vm.is_hi or r_lo > t:
        return r_lo, None
    lo_part = sum(ceil_div(r_lo, h.vm.period) * h.vm.c_opt for h in higher if not h.vm.is_hi)
    hi_part = ((h.vm.c_max, h.vm.period) for h in higher if h.vm.is_hi)
    return r_lo, response_time(vm.c_max + lo_part, hi_part, t, start=r_lo)


def _misses(vcpu: VCPU, higher: Iterable[VCPU]) -> tuple[str, int] | None:
    """``None`` if *vcpu* passes below *higher*, else the mode and ``R`` that miss."""
    r_lo, r_hi = amc_response_times(vcpu, higher)
    t = vcpu.vm.period
    if r_lo > t:
        return "LO", r_lo
    if r_hi is not None and r_hi > t:
        return "HI", r_hi
    return None


def _audsley(vcpus: Iterable[VCPU]) -> tuple[tuple[VCPU, ...] | None,
                                             tuple[int, VCPU, str, int] | None]:
    """``(order, None)`` with *order* highest priority first, or ``(None, failure)``
    where *failure* is ``(level, vCPU, mode, R)`` of the first vCPU tried at the
    level no vCPU can take."""
    remaining = list(rm_order(vcpus))
    lowest_first: list[VCPU] = []
    while remaining:
        failure: tuple[int, VCPU, str, int] | None = None
        for k in range(len(remaining) - 1, -1, -1):
            candidate = remaining[k]
            miss = _misses(candidate, remaining[:k] + remaining[k + 1:])
            if miss is None:
                lowest_first.append(remaining.pop(k))
                break
            if failure is None:
                failure = (len(remaining), candidate, *miss)
        else:
            return None, failure
    return tuple(reversed(lowest_first)), None


def amc_priorities(vcpus: Iterable[VCPU]) -> tuple[VCPU, ...] | None:
    """*vcpus* highest priority first, as Audsley's algorithm assigns them for
    AMC-rtb; ``None`` if no fixed-priority order passes."""
    return _audsley(vcpus)[0]


def amc_rtb_test(sums: UtilizationSums) -> SchedulabilityVerdict:
    """Decide one pCPU with AMC-rtb under Audsley's priority assignment."""
    vcpus = vcpus_of(sums, "amc-rtb")
    order, failure = _audsley(vcpus)
    if order is None:
        assert failure is not None  # _audsley gives an order or a failure
        level, vcpu, mode, r = failure
        why = (
            f"AMC-rtb: no vCPU can take priority {level} of {len(vcpus)}; "
            f"{braced(vcpu.name)} (T = {vcpu.vm.period} ns) misses in {mode} mode: "
            f"R^{mode} reaches {r} ns > T"
        )
        return SchedulabilityVerdict("amc-rtb", False, sums, None, why)
    why = (
        f"AMC-rtb: with Audsley's priorities, all {len(vcpus)} vCPUs have R^LO <= T "
        "and every HI vCPU has R^HI <= T"
    )
    return SchedulabilityVerdict("amc-rtb", True, sums, None, why)


def amc_capacity(sums: UtilizationSums) -> Capacity:
    """Necessary bounds.  A pass makes the LO-mode set (``C_opt``) schedulable
    by fixed priority, so ``U1 + U2 <= 1``; and, dropping the LO term of
    ``R^HI``, the HI vCPUs with ``C_pes`` alone too, so ``U3 <= 1``.  A LO vCPU
    of ``u`` thus fits only if ``u <= 1 - U1 - U2``; a HI one of ``C_pes/T = b``
    only if ``b <= 1 - U3``."""
    lo = 1 - sums.lo_mode
    return Capacity(lo=lo if sums.hi_hi <= 1 else min(lo, 0 * lo), hi=1 - sums.hi_hi)

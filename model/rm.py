"""Rate-monotonic admission: Liu and Layland's bound and exact response times.

Liu and Layland, "Scheduling Algorithms for Multiprogramming in a
Hard-Real-Time Environment", JACM 20(1), 1973, Theorem 5: ``n`` implicit-
deadline periodic tasks are schedulable under rate-monotonic priorities if
``U <= n (2^(1/n) - 1)``.  The bound is sufficient, not necessary; the
response-time analysis of :mod:`.rta` is exact for the same model.

**Budgets.**  These are single-criticality tests.  A pCPU's vCPUs are read
as tasks with period ``T`` and cost ``C_opt`` (LO) or ``C_pes`` (HI): the
conservative, criticality-unaware reading, in which every HI vCPU may
always ask for its pessimistic budget and no LO vCPU is ever dropped.  So
``U = U1 + U3``.  A pass guarantees every vCPU its budget each period in
every mode -- the guarantee of plain ``"edf"`` with ``U1 + U3 <= 1``, under
fixed priorities.

**Priorities.**  Rate monotonic: the shorter the period, the higher the
priority; equal periods in the order the vCPUs were added to the pCPU
(host order, under first fit).  With ``D = T`` the order among equal
periods does not change the verdict.

**Exactness.**  ``n (2^(1/n) - 1)`` is irrational for ``n >= 2``.  As both
sides are non-negative, ``U <= n (2^(1/n) - 1)`` iff ``(U/n + 1)^n <= 2``,
which is decided on :class:`~fractions.Fraction` values.  Response times
are iterated in integer nanoseconds.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

from .rta import response_times
from .utilization import UtilizationSums
from .verdict import Capacity, SchedulabilityVerdict
from .vm import VCPU

__all__ = ["fp_budget", "rm_order", "rm_ll_test", "rm_rta_test", "rm_capacity", "vcpus_of", "braced"]


def vcpus_of(sums: UtilizationSums, test: str) -> tuple[VCPU, ...]:
    """The vCPUs behind *sums*; a fixed-priority test cannot work from the sums alone."""
    vcpus = sums.vcpus
    if vcpus is None:
        raise ValueError(
            f"the {test} test needs the vCPUs, not only their sums: "
            "build the sums with UtilizationSums.of(vcpus) or .plus(vcpu)"
        )
    return vcpus


def braced(text: object) -> str:
    """*text* safe inside a :attr:`SchedulabilityVerdict.why` template."""
    return str(text).replace("{", "{{").replace("}", "}}")


def fp_budget(vcpu: VCPU) -> int:
    """The cost of a vCPU in the criticality-unaware reading: ``C_pes`` if HI, else ``C_opt``."""
    return vcpu.vm.c_max


def rm_order(vcpus: Iterable[VCPU]) -> tuple[VCPU, ...]:
    """*vcpus* highest priority first: by period, equal periods in the given order."""
    return tuple(sorted(vcpus, key=lambda vcpu: vcpu.vm.period))


def rm_ll_test(sums: UtilizationSums) -> SchedulabilityVerdict:
    """Liu and Layland's bound on ``U = U1 + U3`` for the ``n`` vCPUs of *sums*."""
    n = len(vcpus_of(sums, "rm-ll"))
    u = sums.lo_lo + sums.hi_hi
    if n == 0:
        return SchedulabilityVerdict("rm-ll", True, sums, None, "no vCPU: nothing to schedule")
    power = (u / n + 1) ** n if u <= 1 else None  # U > 1 fails: (1 + 1/n)^n >= 2
    ok = power is not None and power <= 2
    why = (
        f"U1 + U3 = {u} {'<=' if ok else '>'} n(2^(1/n) - 1) for n = {n}, "
        f"as (U/n + 1)^n {'<= 2' if ok else '> 2'}"
    )
    return SchedulabilityVerdict("rm-ll", ok, sums, None, why)


def rm_rta_test(sums: UtilizationSums) -> SchedulabilityVerdict:
    """Exact response-time analysis under rate-monotonic priorities, ``D = T``."""
    order = rm_order(vcpus_of(sums, "rm-rta"))
    tasks = [(fp_budget(vcpu), vcpu.vm.period) for vcpu in order]
    times = response_times(tasks)
    if len(times) < len(tasks) or any(r > t for r, (_, t) in zip(times, tasks)):
        k = len(times) - 1
        vcpu, (c, t) = order[k], tasks[k]
        why = (
            f"rate-monotonic RTA: {braced(vcpu.name)} (priority {k + 1} of {len(tasks)}, "
            f"C = {c} ns, T = {t} ns) misses: R reaches {times[k]} ns > T"
        )
        return SchedulabilityVerdict("rm-rta", False, sums, None, why)
    why = f"rate-monotonic RTA: all {len(tasks)} vCPUs have R <= T"
    if tasks:
        worst = max(range(len(tasks)), key=lambda i: Fraction(times[i], tasks[i][1]))
        why += f" (tightest {braced(order[worst].name)}: R = {times[worst]} ns of T = {tasks[worst][1]} ns)"
    return SchedulabilityVerdict("rm-rta", True, sums, None, why)


def rm_capacity(sums: UtilizationSums) -> Capacity:
    """A pass needs ``U1 + U3 <= 1`` (for RTA as for the bound), so a vCPU of
    cost ``C/T = u`` fits only if ``u <= 1 - U1 - U3``: a necessary bound,
    for LO and HI vCPUs alike."""
    room = 1 - sums.lo_lo - sums.hi_hi
    return Capacity(lo=room, hi=room)

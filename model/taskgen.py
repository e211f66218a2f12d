"""Random mixed-criticality task sets, on a tick grid, for acceptance-ratio experiments.

A set is ``n`` one-vCPU VMs -- the tasks of the literature -- drawn as in the
evaluation of Baruah, Burns and Davis, "Response-Time Analysis for Mixed
Criticality Systems", RTSS 2011, pp. 34-43: each vCPU is HI with probability
``p_hi`` (their "criticality proportion" CP); the LO-mode utilisations
``u_i = C_opt/T`` come from UUniFast (:mod:`.uunifast`) and sum to the
point's ``U``; periods are drawn log-uniform (or uniform) in a range; a HI
vCPU's pessimistic budget is ``C_pes = factor x C_opt`` (their "criticality
factor" CF).  The draws, per set and in this order: the ``n`` criticalities,
the ``n`` periods, then the utilisation vector (again, for UUniFast-Discard,
while it is discarded).

**The grid.**  Periods and budgets are whole multiples of ``granularity``
``g``, as a hypervisor's timer gives them.  A period is ``k g`` with ``k``
drawn in ``[T_min/g, T_max/g]``: uniformly, or as ``floor(X)`` for ``X``
log-uniform on ``[T_min/g, T_max/g + 1)``, the period draw of Emberson,
Stafford and Davis (WATERS 2010), taken exactly
(:func:`~.exact_random.log_uniform_index`).

**Rounding budgets.**  ``C_opt = g round(u_i k)`` (half up), so each
vCPU's ``C_opt/T`` is within ``g/(2T)`` of ``u_i`` and the set's
``U_LO = sum C_opt/T`` within ``sum g/(2T_i)`` of ``U``; the error is
reported, never hidden (:attr:`TaskSet.u_lo`).  Two budgets leave that
rule, each counted in the :class:`TaskSet`:

* a budget that rounds to 0 ticks is **raised** to one tick (``u_i < g/(2T)``;
  a VM needs ``C_opt > 0``, rule R1).  This can only add utilisation: it adds
  less than ``g/T`` to that vCPU, so ``|U_LO - U| <= sum g/T_i`` always, and
  at low ``U`` with many vCPUs the sets are biased upward;
* ``C_pes = g round(factor C_opt / g)`` may exceed the period.  Under
  ``"uunifast"`` it is **clamped** to the period (that vCPU then asks for a
  whole pCPU in HI mode: the set is as good as unschedulable, as the
  unclamped one was).  Under ``"uunifast-discard"`` the whole utilisation
  vector is **discarded** and drawn again, as Davis and Burns (RTSS 2009)
  discard a vector with some ``u_i > 1`` (here the bound is ``C_pes <= T``);
  after :data:`MAX_DISCARDS` in a row the generator gives up with an error.

``C_opt`` never exceeds ``T``: ``u_i <= U <= 1`` and ``k`` is whole.

**Determinism.**  Each set has its own :class:`random.Random`, seeded from
the SHA-256 of ``(seed, U, index)`` (:func:`set_random`), so a set depends on
nothing else: not on the worker that draws it, the order sets are drawn in,
how they are batched, or the other points of the grid.
"""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction

import attrs

from .criticality import Criticality
from .duration import format_duration
from .errors import ModelError
from .exact_random import bernoulli, log_uniform_index, uniform_below
from .uunifast import uunifast_scaled
from .vm import VCPU, VM

__all__ = ["KINDS", "PERIOD_DISTRIBUTIONS", "MAX_DISCARDS", "TaskSet", "TaskSetGenerator",
           "set_random"]

#: The utilisation generators.
KINDS = ("uunifast", "uunifast-discard")
#: How periods are drawn in their range.
PERIOD_DISTRIBUTIONS = ("log-uniform", "uniform")
#: Vectors ``"uunifast-discard"`` redraws in a row before it gives up.
MAX_DISCARDS = 10_000
#: The largest criticality factor.
MAX_FACTOR = 1000


@attrs.frozen
class TaskSet:
    """One drawn set and what rounding did to it.

    :param vms: the vCPUs, one VM each (``t1``, ``t2``, ...).
    :param raised: budgets that rounded to 0 ticks and were raised to one.
    :param clamped: ``C_pes`` lowered to the period (``"uunifast"``).
    :param discarded: utilisation vectors drawn and discarded (``"uunifast-discard"``).
    """

    vms: tuple[VM, ...]
    raised: int = 0
    clamped: int = 0
    discarded: int = 0

    @property
    def vcpus(self) -> tuple[VCPU, ...]:
        """The vCPUs, in order."""
        return tuple(VCPU(vm, 0) for vm in self.vms)

    @property
    def u_lo(self) -> Fraction:
        """``U_LO = sum C_opt/T``: the set's LO-mode utilisation after rounding."""
        return sum((vm.u_opt for vm in self.vms), Fraction(0))


def set_random(seed: int, utilization: Fraction, index: int) -> random.Random:
    """The generator of set *index* of the point *utilization* of a sweep seeded *seed*."""
    key = f"akita-sweep/1/{seed}/{utilization.numerator}/{utilization.denominator}/{index}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest(), "big"))


def _round(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded to the nearest integer, halves up (both ``>= 0``)."""
    return (2 * numerator + denominator) // (2 * denominator)


@attrs.frozen
class TaskSetGenerator:
    """How sets are drawn; :meth:`draw` draws one.

    :param kind: ``"uunifast"`` or ``"uunifast-discard"``.
    :param vcpus: ``n``, the vCPUs of a set.
    :param periods: ``(T_min, T_max)`` in ns, multiples of *granularity*.
    :param period_distribution: ``"log-uniform"`` or ``"uniform"``.
    :param granularity: the tick ``g`` in ns.
    :param criticality_factor: ``C_pes / C_opt`` of a HI vCPU, ``>= 1``.
    :param p_hi: the probability that a vCPU is HI.
    :raises ModelError: naming the parameter, as a sweep file spells it.
    """

    kind: str
    vcpus: int
    periods: tuple[int, int]
    period_distribution: str = "log-uniform"
    granularity: int = 1000
    criticality_factor: Fraction = Fraction(2)
    p_hi: Fraction = Fraction(1, 2)

    def __attrs_post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ModelError("kind", self.kind, f"one of {', '.join(KINDS)}")
        if self.period_distribution not in PERIOD_DISTRIBUTIONS:
            raise ModelError("period_distribution", self.period_distribution,
                             f"one of {', '.join(PERIOD_DISTRIBUTIONS)}")
        if not isinstance(self.vcpus, int) or self.vcpus < 1:
            raise ModelError("vcpus", self.vcpus, "an integer >= 1")
        g = self.granularity
        if not isinstance(g, int) or g < 1:
            raise ModelError("granularity", g, "a duration > 0")
        low, high = self.periods
        for value in (low, high):
            if value < g or value % g:
                raise ModelError("periods", format_duration(value),
                                 f"a period that is a whole multiple of the granularity "
                                 f"({format_duration(g)}), at least one tick")
        if low > high:
            raise ModelError("periods", [format_duration(low), format_duration(high)],
                             "[shortest, longest] with shortest <= longest")
        if not 1 <= self.criticality_factor <= MAX_FACTOR:
            raise ModelError("criticality_factor", str(self.criticality_factor),
                             f"a factor C_pes/C_opt from 1 to {MAX_FACTOR}")
        if not 0 <= self.p_hi <= 1:
            raise ModelError("p_hi", str(self.p_hi), "a probability from 0 to 1")

    def draw(self, rng: random.Random, utilization: Fraction) -> TaskSet:
        """One set of LO-mode utilisation *utilization* (``0 < U <= 1``) from *rng*."""
        if not 0 < utilization <= 1:
            raise ModelError("utilization", str(utilization), "a utilization in (0, 1]")
        n = self.vcpus
        his = [bernoulli(rng, self.p_hi) for _ in range(n)]
        ticks = [self._period(rng) for _ in range(n)]
        discarded = 0
        while True:
            shares, denominator = uunifast_scaled(rng, n, utilization)
            budgets = [self._budgets(share, denominator, k, hi)
                       for share, k, hi in zip(shares, ticks, his)]
            if self.kind == "uunifast" or all(pes is None or pes <= k
                                              for (_, pes), k in zip(budgets, ticks)):
                break
            discarded += 1
            if discarded >= MAX_DISCARDS:
                raise ModelError(
                    "kind", self.kind,
                    f"a generator that finds a set: {MAX_DISCARDS} vectors in a row at "
                    f"utilization {utilization} gave a HI vCPU C_pes > T (lower "
                    "criticality_factor or the utilization, or use 'uunifast')")
        return self._task_set(ticks, his, budgets, discarded)

    def _period(self, rng: random.Random) -> int:
        """A period in ticks."""
        low, high = (p // self.granularity for p in self.periods)
        if self.period_distribution == "uniform":
            return low + uniform_below(rng, high - low + 1)
        return log_uniform_index(rng, low, high)

    def _budgets(self, share: int, denominator: int, k: int,
                 hi: bool) -> tuple[int, int | None]:
        """``(C_opt, C_pes)`` in ticks for utilisation ``share/denominator`` and period *k*
        ticks, before raising and clamping; ``C_pes`` is ``None`` for a LO vCPU."""
        c_opt = _round(share * k, denominator)
        if not hi:
            return c_opt, None
        factor = self.criticality_factor
        return c_opt, _round(factor.numerator * max(c_opt, 1), factor.denominator)

    def _task_set(self, ticks: list[int], his: list[bool],
                  budgets: list[tuple[int, int | None]], discarded: int) -> TaskSet:
        g = self.granularity
        vms = []
        raised = clamped = 0
        for i, (k, hi, (c_opt, c_pes)) in enumerate(zip(ticks, his, budgets), start=1):
            raised += c_opt == 0
            c_opt = max(c_opt, 1)
            if c_pes is not None:
                clamped += c_pes > k
                c_pes = min(c_pes, k) * g
            vms.append(VM(name=f"t{i}", criticality=Criticality.HI if hi else Criticality.LO,
                          period=k * g, c_opt=c_opt * g, c_pes=c_pes))
        return TaskSet(tuple(vms), raised=raised, clamped=clamped, discarded=discarded)

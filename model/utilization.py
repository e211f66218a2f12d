"""The three utilization sums of one pCPU (rule R11, paper Eq. 1-3).

For the vCPUs placed on one pCPU:

* ``U1 = lo_lo`` -- sum of ``C_opt/T`` over LO vCPUs (LO load in LO mode),
* ``U2 = hi_lo`` -- sum of ``C_opt/T`` over HI vCPUs (HI load in LO mode),
* ``U3 = hi_hi`` -- sum of ``C_pes/T`` over HI vCPUs (HI load in HI mode).

They are exact fractions and are kept incrementally by the CPU picker, so a
test on "this pCPU plus one vCPU" costs O(1) whatever the pCPU holds.

Sums built from vCPUs (:meth:`UtilizationSums.of`, :meth:`~UtilizationSums.plus`)
also remember those vCPUs, in the order added (:attr:`UtilizationSums.vcpus`),
in O(1) per vCPU: the fixed-priority tests (:mod:`akita.model.rm`, :mod:`akita.model.amc`) need the
periods and budgets, not only the sums.  They take no part in equality.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

import attrs

from .vm import VCPU

__all__ = ["UtilizationSums"]

_ZERO = Fraction(0)


#: The vCPUs summed, as a chain ``(last, rest)`` ending in ``()``.
_Chain = tuple[()] | tuple[VCPU, "_Chain"]


def _chain_default(self: "UtilizationSums") -> _Chain | None:
    """Zero sums are the empty set; sums given as bare numbers hold unknown vCPUs."""
    return () if not (self.lo_lo or self.hi_lo or self.hi_hi) else None


@attrs.frozen
class UtilizationSums:
    """Exact ``(U1, U2, U3)`` of a set of vCPUs; ``UtilizationSums()`` is the empty set."""

    lo_lo: Fraction = _ZERO
    hi_lo: Fraction = _ZERO
    hi_hi: Fraction = _ZERO
    #: The vCPUs as a chain ``(last, rest)`` ending in ``()``; ``None`` if unknown.
    _chain: _Chain | None = attrs.field(
        default=attrs.Factory(_chain_default, takes_self=True), eq=False, repr=False
    )

    @classmethod
    def of(cls, vcpus: Iterable[VCPU]) -> "UtilizationSums":
        """The sums over *vcpus*, computed from scratch."""
        sums = cls()
        for vcpu in vcpus:
            sums = sums.plus(vcpu)
        return sums

    def plus(self, vcpu: VCPU) -> "UtilizationSums":
        """The sums with *vcpu* added."""
        vm = vcpu.vm
        chain = None if self._chain is None else (vcpu, self._chain)
        if vm.is_hi:
            return UtilizationSums(self.lo_lo, self.hi_lo + vm.u_opt, self.hi_hi + vm.u_pes, chain)
        return UtilizationSums(self.lo_lo + vm.u_opt, self.hi_lo, self.hi_hi, chain)

    def minus(self, vcpu: VCPU) -> "UtilizationSums":
        """The sums with *vcpu* removed (it must have been added)."""
        vm = vcpu.vm
        chain: _Chain | None = None
        kept = self.vcpus
        if kept is not None:
            drop = len(kept) - 1 - kept[::-1].index(vcpu)
            chain = ()
            for each in kept[:drop] + kept[drop + 1:]:
                chain = (each, chain)
        if vm.is_hi:
            return UtilizationSums(self.lo_lo, self.hi_lo - vm.u_opt, self.hi_hi - vm.u_pes, chain)
        return UtilizationSums(self.lo_lo - vm.u_opt, self.hi_lo, self.hi_hi, chain)

    @property
    def vcpus(self) -> tuple[VCPU, ...] | None:
        """The vCPUs summed, in the order added; ``None`` for sums given as numbers."""
        chain, out = self._chain, []
        if chain is None:
            return None
        while len(chain) == 2:
            out.append(chain[0])
            chain = chain[1]
        return tuple(reversed(out))

    @property
    def lo_mode(self) -> Fraction:
        """``U1 + U2``: the whole load in LO mode."""
        return self.lo_lo + self.hi_lo

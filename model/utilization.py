"""The three utilization sums of one pCPU (rule R11, paper Eq. 1-3).

For the vCPUs placed on one pCPU:

* ``U1 = lo_lo`` -- sum of ``C_opt/T`` over LO vCPUs (LO load in LO mode),
* ``U2 = hi_lo`` -- sum of ``C_opt/T`` over HI vCPUs (HI load in LO mode),
* ``U3 = hi_hi`` -- sum of ``C_pes/T`` over HI vCPUs (HI load in HI mode).

They are exact fractions and are kept incrementally by the CPU picker, so a
test on "this pCPU plus one vCPU" costs O(1) whatever the pCPU holds.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

import attrs

from .vm import VCPU

__all__ = ["UtilizationSums"]

_ZERO = Fraction(0)


@attrs.frozen
class UtilizationSums:
    """Exact ``(U1, U2, U3)`` of a set of vCPUs; ``UtilizationSums()`` is the empty set."""

    lo_lo: Fraction = _ZERO
    hi_lo: Fraction = _ZERO
    hi_hi: Fraction = _ZERO

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
        if vm.is_hi:
            return UtilizationSums(self.lo_lo, self.hi_lo + vm.u_opt, self.hi_hi + vm.u_pes)
        return UtilizationSums(self.lo_lo + vm.u_opt, self.hi_lo, self.hi_hi)

    def minus(self, vcpu: VCPU) -> "UtilizationSums":
        """The sums with *vcpu* removed (it must have been added)."""
        vm = vcpu.vm
        if vm.is_hi:
            return UtilizationSums(self.lo_lo, self.hi_lo - vm.u_opt, self.hi_hi - vm.u_pes)
        return UtilizationSums(self.lo_lo - vm.u_opt, self.hi_lo, self.hi_hi)

    @property
    def lo_mode(self) -> Fraction:
        """``U1 + U2``: the whole load in LO mode."""
        return self.lo_lo + self.hi_lo

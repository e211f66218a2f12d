"""``rm``: rate-monotonic fixed-priority periodic servers.

Liu and Layland, "Scheduling Algorithms for Multiprogramming in a
Hard-Real-Time Environment", JACM 20(1), 1973: on each pCPU, the shorter a
vCPU's period, the higher its fixed priority (equal periods: host order).
Each vCPU is a periodic server (:mod:`.server`) with budget ``C_opt`` (LO)
or ``C_pes`` (HI) -- the criticality-unaware reading of
:mod:`akita.model.rm`, with no modes.  The pCPU runs the active runnable
vCPU of highest priority, with its budget as the slice; when none is
active, the inactive runnable vCPU of highest priority runs as background,
uncharged (work conservation, as ``edf`` does).

Placement is first fit with the exact rate-monotonic response-time test
(``"rm-rta"``) whatever the host's test names, so that each pCPU runs what
the analysis admitted.  The ordering key of a vCPU is its priority rank on
its pCPU (0 is the highest), written as the trace's ``key``: the policy is
``edf`` (:mod:`akita.reference.policies.edf`) with that rank in place of the deadline.
"""

from __future__ import annotations

from akita.model import VCPU, rm_order

from .edf import EDFPolicy
from .fixed_priority import FixedPriorityPolicy

__all__ = ["RMPolicy"]


class RMPolicy(FixedPriorityPolicy, EDFPolicy):
    """Fixed priorities by period over periodic servers: EDF's queues, keyed by rank."""

    name = "rm"
    admission_test = "rm-rta"

    def priority_order(self, vcpus: tuple[VCPU, ...]) -> tuple[VCPU, ...]:
        """Rate monotonic: by period, equal periods in host order."""
        return rm_order(vcpus)

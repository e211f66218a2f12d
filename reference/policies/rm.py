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

import attrs

from akita.model import first_fit, rm_order

from .edf import EDFPolicy

__all__ = ["RMPolicy", "place_with", "ranks"]


def place_with(host, test: str):
    """First fit on *host* under *test*, whatever ``host.test`` says."""
    return first_fit(attrs.evolve(host, test=test))


def ranks(sim, order_of) -> dict:
    """vCPU name -> priority rank on its pCPU (0 highest), *order_of* ordering each pCPU's vCPUs."""
    out = {}
    for load in sim.placement.pcpus:
        for rank, vcpu in enumerate(order_of(load.vcpus)):
            out[vcpu.name] = rank
    return out


class RMPolicy(EDFPolicy):
    """Fixed priorities by period over periodic servers: EDF's queues, keyed by rank."""

    name = "rm"
    test = "rm-rta"

    def place(self, host):
        return place_with(host, self.test)

    def setup_cpus(self, sim) -> None:
        self.rank = ranks(sim, rm_order)
        super().setup_cpus(sim)

    def key_of(self, state, release: int) -> int:
        return self.rank[state.name]

    @staticmethod
    def tie_of(state) -> int:
        """Ranks are distinct; host order only for form."""
        return state.order

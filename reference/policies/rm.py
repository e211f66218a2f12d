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
its pCPU (0 is the highest), written as the trace's ``key``.
"""

from __future__ import annotations

import attrs

from akita.model import first_fit, rm_order

from .server import ServerPolicy

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


class _CPU:
    __slots__ = ("active", "inactive")

    def __init__(self, active, inactive) -> None:
        self.active = active
        self.inactive = inactive


class RMPolicy(ServerPolicy):
    """Fixed priorities by period over periodic servers."""

    name = "rm"
    test = "rm-rta"

    def place(self, host):
        return place_with(host, self.test)

    def setup_cpus(self, sim) -> None:
        self.rank = ranks(sim, rm_order)
        self.cpus = [_CPU(self.new_queue(c), self.new_queue(c)) for c in range(sim.host.pcpus)]

    def budget_of(self, state) -> int:
        return state.vm.c_pes if state.is_hi else state.vm.c_opt

    def key_of(self, state, release: int) -> int:
        return self.rank[state.name]

    def enqueue(self, state) -> None:
        server = state.sched
        cpu = self.cpus[state.cpu]
        queue = cpu.active if server.budget > 0 else cpu.inactive
        queue.push(server.key, state.order, server.stamp, state)

    def pick(self, cpu: int, t: int):
        queues = self.cpus[cpu]
        state = queues.active.peek()
        if state is not None:
            return state, self.slice_end(state, t)
        return queues.inactive.peek(), None

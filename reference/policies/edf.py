"""``edf``: EDF periodic servers with Akita's budgets and no modes.

The baseline that isolates what EDF-VD's modes add.  Each vCPU is a periodic
server (:mod:`.server`) with budget ``C_opt`` (LO) or ``C_pes`` (HI) and
deadline ``release + T``; each pCPU runs the active runnable vCPU with the
earliest deadline (ties: HI first, then host order), with the budget as its
slice, and, when none is active, the inactive runnable vCPU with the
earliest deadline as background (work conservation, as ``akita`` does).
Placement is Akita's first fit with the host's test.
"""

from __future__ import annotations

from .server import ServerPolicy

__all__ = ["EDFPolicy"]


class _CPU:
    __slots__ = ("active", "inactive")

    def __init__(self, active, inactive) -> None:
        self.active = active
        self.inactive = inactive


class EDFPolicy(ServerPolicy):
    """Plain EDF over periodic servers."""

    name = "edf"

    def setup_cpus(self, sim) -> None:
        self.cpus = [_CPU(self.new_queue(c), self.new_queue(c)) for c in range(sim.host.pcpus)]

    def budget_of(self, state) -> int:
        return state.vm.c_pes if state.is_hi else state.vm.c_opt

    def enqueue(self, state) -> None:
        server = state.sched
        cpu = self.cpus[state.cpu]
        queue = cpu.active if server.budget > 0 else cpu.inactive
        queue.push(server.key, self.tie_of(state), server.stamp, state)  # key_of: the deadline

    def pick(self, cpu: int, t: int):
        queues = self.cpus[cpu]
        state = queues.active.peek()
        if state is not None:
            return state, self.slice_end(state, t)
        return queues.inactive.peek(), None

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

from functools import partial
from typing import TYPE_CHECKING, Callable

from .server import ServerPolicy, ServerQueue, ServerState

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["EDFPolicy"]


class _CPU:
    __slots__ = ("active", "inactive")

    def __init__(self, queue: Callable[[], ServerQueue]) -> None:
        self.active = queue()  # active runnable, by key
        self.inactive = queue()  # inactive runnable, by key (background, R7)


class EDFPolicy(ServerPolicy):
    """Plain EDF over periodic servers."""

    name = "edf"

    cpus: list[_CPU]

    def setup_cpus(self, sim: Simulator) -> None:
        self.cpus = [_CPU(partial(self.new_queue, c)) for c in range(sim.host.pcpus)]

    def budget_of(self, state: ServerState) -> int:
        return state.vm.c_max  # C_pes for a HI vCPU, C_opt for a LO one

    def enqueue(self, state: ServerState) -> None:
        server = state.sched
        cpu = self.cpus[state.cpu]
        queue = cpu.active if server.budget > 0 else cpu.inactive
        queue.push(server.key, self.tie_of(state), server.stamp, state)  # key_of: the deadline

    def pick(self, cpu: int, t: int) -> tuple[ServerState | None, int | None]:
        queues = self.cpus[cpu]
        state = queues.active.peek()
        if state is not None:
            return state, self.slice_end(state, t)
        return queues.inactive.peek(), None

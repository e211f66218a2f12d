"""Fixed priorities per pCPU: a server's ordering key is its priority rank.

The fixed-priority policies -- ``rm`` (Liu and Layland, JACM 1973) and
``amc`` (Baruah, Burns and Davis, RTSS 2011) -- order the vCPUs of each pCPU
once, before time 0, highest priority first (:meth:`FixedPriorityPolicy.priority_order`:
by period for ``rm``, by Audsley's assignment for ``amc``).  A vCPU's key
is then its rank on its pCPU, 0 the highest, in every period (it is what the
trace writes as ``key``).  Ranks on one pCPU are distinct, so equal keys
never meet; host order breaks ties only for form.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Callable, Iterable

from akita.model import VCPU, Placement

from .server import ServerPolicy, ServerState

if TYPE_CHECKING:  # pragma: no cover
    from ..simulator import Simulator

__all__ = ["FixedPriorityPolicy", "ranks"]


def ranks(placement: Placement,
          order_of: Callable[[tuple[VCPU, ...]], Iterable[VCPU]]) -> dict[str, int]:
    """vCPU name -> rank on its pCPU (0 highest), *order_of* ordering each pCPU's vCPUs
    highest priority first."""
    out = {}
    for load in placement.pcpus:
        for rank, vcpu in enumerate(order_of(load.vcpus)):
            out[vcpu.name] = rank
    return out


class FixedPriorityPolicy(ServerPolicy):
    """Periodic servers keyed by a fixed priority rank per pCPU (combine with a queue policy)."""

    #: vCPU name -> its priority rank on its pCPU (0 highest), set before time 0.
    rank: dict[str, int]

    @abstractmethod
    def priority_order(self, vcpus: tuple[VCPU, ...]) -> tuple[VCPU, ...]:
        """The vCPUs of one pCPU, highest priority first."""

    def setup(self, sim: Simulator) -> None:
        self.rank = ranks(sim.placement, self.priority_order)
        super().setup(sim)

    def key_of(self, state: ServerState, release: int) -> int:
        """The vCPU's priority rank on its pCPU (0 highest), whatever the period."""
        return self.rank[state.name]

    def tie_of(self, state: ServerState) -> int:
        """Ranks are distinct; host order only for form."""
        return state.order

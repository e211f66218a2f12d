"""The extension point through which a guest operating system drives its vCPUs.

Without a guest, a vCPU runs the jobs of its workload (:mod:`akita.reference.workloads`).
A VM with an SMP guest (:mod:`akita.guest`) has no workload of its own:
the guest's scheduler decides what each of its vCPUs runs, one piece at a
time, and the core tells the guest what the host did.  The core calls
these methods, and nothing else, so that the guest's logic stays out of
it:

``drives(vm)``
    before time 0: whether the guest drives *vm*'s vCPUs (they then start
    with no work and no workload).
``setup(sim)``
    once, after the policy's ``setup``: give the vCPUs their first work,
    arm guest timers (:meth:`.Simulator.set_guest_timer`).
``on_done(vcpu, t) -> demand | None``
    the piece of work *vcpu* held was done at *t* (called while the core
    brings the vCPU's pCPU up to *t*); the answer is the vCPU's next piece
    -- a demand in ns, :data:`.vcpu_state.ENDLESS` for a spin that lasts
    until the guest ends it, or ``None``: nothing, the vCPU halts.
``on_timer(t, payload)``
    a guest timer fired.
``on_switch(cpu, previous, current, t)``
    pCPU *cpu* stopped running *previous* and runs *current* from *t*
    (either may be ``None``, or a vCPU of another VM).
``held(vcpu) -> ns``
    the work *vcpu*'s guest has for it, as of the last time its pCPU was
    brought up to date: what the HI-miss account (:mod:`.misses`) counts as
    the work it holds at a period start.
``as_json() -> dict``
    what the guests measured, for the result (``"guests"``).

The guest changes a vCPU's work at any other time with
:meth:`.Simulator.set_work`.  A host without a guest never reaches any of
this: its runs are those of before, event for event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from .vcpu_state import VCPUState

if TYPE_CHECKING:  # pragma: no cover
    from akita.model import VM

    from .simulator import Simulator

__all__ = ["GuestHook"]


class GuestHook(Protocol):
    """What the core asks of the guests of a host (see the module docstring)."""

    def drives(self, vm: VM) -> bool:
        """Whether the guest drives *vm*'s vCPUs."""

    def setup(self, sim: Simulator) -> None:
        """Before time 0, after the policy's setup."""

    def on_done(self, vcpu: VCPUState[Any], t: int) -> int | None:
        """*vcpu*'s piece of work was done at *t*: its next piece, or ``None``."""

    def on_timer(self, t: int, payload: Any) -> None:
        """A timer armed with :meth:`.Simulator.set_guest_timer` fired at *t*."""

    def on_switch(self, cpu: int, previous: VCPUState[Any] | None,
                  current: VCPUState[Any] | None, t: int) -> None:
        """pCPU *cpu* runs *current* instead of *previous* from *t*."""

    def held(self, vcpu: VCPUState[Any]) -> int:
        """The work *vcpu*'s guest has for it (ns)."""

    def as_json(self) -> dict[str, Any]:
        """What the guests measured."""

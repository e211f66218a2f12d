"""The policy interface of the reference simulator.

The simulator core (:mod:`.simulator`) owns time, work and accounting; a
policy owns every scheduling decision.  The core calls these hooks, and
nothing else, so that a new policy plugs in without touching the core:

``setup(sim)``
    once, before time 0: create per-vCPU state, arm the first timers.
``on_timer(t, payload)``
    a timer the policy armed with :meth:`Simulator.set_timer` fired.
``on_wake(vcpu, t)`` / ``on_block(vcpu, t)``
    the vCPU became runnable (work arrived) / ran out of work.
``charge(vcpu, ran, t)``
    the running vCPU ran ``ran`` ns up to ``t`` (called before
    ``on_block`` when both happen at once).
``pick(cpu, t) -> (vcpu | None, until | None)``
    what pCPU ``cpu`` runs from ``t``: a vCPU and the time at which the
    policy wants to decide again if nothing else happens first (a budget
    running out, a rule's check), or ``None`` to idle.
``describe(vcpu) -> (deadline, key, budget)``
    for the trace only: how the policy sees the vCPU it dispatches.
``place(host) -> Placement``
    before the run: which VMs run and on which pCPU each vCPU starts
    (first fit by default, R12; :func:`.placement.place_all` for policies
    without admission).

*Migration.* ``pick(cpu, t)`` may return a vCPU whose ``cpu`` is another
pCPU: the core moves it (sets its ``cpu``) and dispatches it on *cpu*; if
the old pCPU still shows it running (say it blocked and woke in this
instant), the old pCPU goes idle at once and is asked to decide again.  Policies that place by first fit
never do (HI vCPUs never migrate, R12).

A policy asks the core to decide again on a pCPU with
``Simulator.resched(cpu)`` and writes trace events with
:meth:`Simulator.emit`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from akita.model import Host, Placement

    from .simulator import Simulator
    from .vcpu_state import VCPUState

__all__ = ["Policy"]


class Policy:
    """Base class of simulator policies; see the module docstring for the hooks."""

    #: The name used by ``akita simulate --policy``.
    name = "policy"

    def setup(self, sim: "Simulator") -> None:
        self.sim = sim

    def on_timer(self, t: int, payload: Any) -> None:
        raise NotImplementedError

    def on_wake(self, vcpu: "VCPUState", t: int) -> None:
        raise NotImplementedError

    def on_block(self, vcpu: "VCPUState", t: int) -> None:
        raise NotImplementedError

    def charge(self, vcpu: "VCPUState", ran: int, t: int) -> None:
        raise NotImplementedError

    def pick(self, cpu: int, t: int) -> tuple["VCPUState | None", int | None]:
        raise NotImplementedError

    def describe(self, vcpu: "VCPUState") -> tuple[int, str, int]:
        raise NotImplementedError

    def place(self, host: "Host") -> "Placement":
        """Which VMs run, and where each vCPU starts: first fit under the host's test (R12)."""
        from akita.model import first_fit

        return first_fit(host)

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
``on_deschedule(vcpu, t)``
    after ``pick``: the vCPU that ran on the pCPU until ``t`` is still
    runnable and the pCPU now runs another one (or idles); a no-op unless
    the policy's queue order depends on it.
``describe(vcpu) -> (deadline, key, budget)``
    for the trace only: how the policy sees the vCPU it dispatches.
``place(host) -> Placement``
    before the run: which VMs run and on which pCPU each vCPU starts.  A
    policy does not override it; it declares how it admits:
    :attr:`Policy.admission_test` names the test first fit places by (R12;
    ``None``, the default, is the host's own), and a policy without
    admission sets :attr:`Policy.admits` to false
    (:func:`.placement.place_all`).

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

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from .placement import first_fit_under, place_all
from .vcpu_state import VCPUState

if TYPE_CHECKING:  # pragma: no cover
    from akita.model import Host, Placement

    from .simulator import Simulator

__all__ = ["Policy"]


class Policy(ABC):
    """Base class of simulator policies; see the module docstring for the hooks."""

    #: The name used by ``akita simulate --policy``.
    name: ClassVar[str] = "policy"
    #: The admission test first fit places by (R12), a name of
    #: :data:`akita.model.ADMISSION_TESTS`; ``None``: the host's own test.
    admission_test: ClassVar[str | None] = None
    #: Whether the policy admits by a test at all; if not, every VM runs
    #: (:func:`.placement.place_all`) and :attr:`admission_test` is unused.
    admits: ClassVar[bool] = True

    sim: Simulator

    def setup(self, sim: Simulator) -> None:
        self.sim = sim

    def on_timer(self, t: int, payload: Any) -> None:
        """A timer armed with :meth:`Simulator.set_timer` fired at *t*.  Only a policy
        that arms timers overrides this: with none armed, none fires."""
        raise NotImplementedError(f"{type(self).__name__} armed no timer, yet one fired "
                                  f"at {t} ns: {payload!r}")

    @abstractmethod
    def on_wake(self, vcpu: VCPUState[Any], t: int) -> None:
        """*vcpu* became runnable at *t* (work arrived)."""

    @abstractmethod
    def on_block(self, vcpu: VCPUState[Any], t: int) -> None:
        """*vcpu* ran out of work at *t*."""

    def on_deschedule(self, vcpu: VCPUState[Any], t: int) -> None:
        """*vcpu* ran until *t*, is still runnable, and the pCPU now runs another (or none)."""

    def yield_to(self, vcpu: VCPUState[Any], target: VCPUState[Any], t: int) -> None:
        """The running *vcpu* gives way to the preempted *target* at *t* (a pause-loop
        exit's directed yield, :mod:`akita.guest.kernel`); by default nothing happens."""

    @abstractmethod
    def charge(self, vcpu: VCPUState[Any], ran: int, t: int) -> None:
        """The running *vcpu* ran *ran* ns up to *t*."""

    @abstractmethod
    def pick(self, cpu: int, t: int) -> tuple[VCPUState[Any] | None, int | None]:
        """What pCPU *cpu* runs from *t*, and until when at most (``None``: no limit)."""

    @abstractmethod
    def describe(self, vcpu: VCPUState[Any]) -> tuple[int, str, int]:
        """For the trace: the deadline, key and budget of the *vcpu* dispatched."""

    def place(self, host: Host) -> Placement:
        """Which VMs run, and where each vCPU starts, as the policy declares (see above)."""
        if not self.admits:
            return place_all(host)
        return first_fit_under(host, self.admission_test)

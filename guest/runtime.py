"""The guests of a host, as the simulator's core sees them (:class:`~akita.reference.guest_hook.GuestHook`).

:class:`Guests` builds one :class:`~.kernel.GuestKernel` per VM that has a
guest (``[vm.guest]``), starts its threads at the VM's phase, runs its
controller (ballooning, relaxed co-scheduling) every period, and relays
the core's hooks to the right kernel.

*Re-entrance.*  The core reports a finished piece while it brings a pCPU
up to date, and a guest's reaction may bring other pCPUs up to date, which
may finish other pieces in the same instant.  Those are queued and handled
once the first is, in order; meanwhile their vCPUs hold a spin, so that
they stay runnable as they would have in a real guest, whose vCPU goes on
to its next thread without a pause.  A queued completion whose vCPU was
handed another piece since is stale and dropped.

*Halting.*  A vCPU the guest leaves without work halts; one the host is
not running at that moment cannot block yet (a policy blocks only the vCPU
it runs), so it keeps a piece of :data:`HALT` ns -- the ``hlt`` it will
execute when it next runs -- and halts then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from akita.model import VM, Host
from akita.model.guest import Guest
from akita.reference.vcpu_state import ENDLESS, VCPUState

from .balloon import Balloon
from .costop import CoStop
from .kernel import GuestKernel
from .observe import DoubleScheduling
from .parsec import Program, build

if TYPE_CHECKING:  # pragma: no cover
    from akita.reference.simulator import Simulator

__all__ = ["Guests", "HALT", "program_for"]

#: The piece a waiting vCPU keeps when its guest has nothing for it (ns).
HALT = 1

_NOTHING: Any = object()


def _guest(vm: VM) -> Guest:
    assert vm.guest is not None  # only VMs with a guest are driven
    return vm.guest


def program_for(vm: VM, seed: int) -> Program:
    """The program *vm*'s guest runs in a run of *seed* (each VM's drawn on its own)."""
    guest = _guest(vm)
    return build(guest.program, guest.thread_count(vm.vcpus), guest.work, f"{seed}:{vm.name}")


class Guests:
    """The SMP guests of *host*, their programs drawn from *seed*."""

    def __init__(self, host: Host, seed: int) -> None:
        self.host = host
        self.seed = seed
        self.kernels: dict[str, GuestKernel] = {}
        self.accounts: dict[str, DoubleScheduling] = {}
        self.controllers: dict[str, Balloon | CoStop] = {}
        self._where: dict[VCPUState[Any], tuple[GuestKernel, int]] = {}
        self._pending: list[tuple[VCPUState[Any], int, int]] = []
        self._busy = False
        self._local: VCPUState[Any] | None = None
        self._local_next: int | None = None

    def drives(self, vm: VM) -> bool:
        return vm.guest is not None

    # -- set-up and timers ---------------------------------------------------------------

    def setup(self, sim: Simulator) -> None:
        self.sim = sim
        by_vm: dict[str, list[VCPUState[Any]]] = {}
        for state in sim.vcpus:
            if state.guest is self:
                by_vm.setdefault(state.vm.name, []).append(state)
        for name, states in by_vm.items():
            vm = states[0].vm
            guest = _guest(vm)
            kernel = GuestKernel(name, states, program_for(vm, self.seed), self,
                                 lock_kind=guest.locks, ple_window=sim.host.options.ple_window)
            self.kernels[name] = kernel
            self.accounts[name] = DoubleScheduling(kernel, sim)
            for v, state in enumerate(states):
                self._where[state] = (kernel, v)
            start = vm.phase or 0
            sim.set_guest_timer(start, ("start", name))
            if guest.control == "balloon":
                self.controllers[name] = Balloon(
                    kernel, self.accounts[name], period=guest.control_period,
                    hysteresis=guest.hysteresis, estimator=guest.estimator)
            elif guest.control == "relaxed-co":
                self.controllers[name] = CoStop(kernel, self.accounts[name], start)
            if name in self.controllers:
                sim.set_guest_timer(start + guest.control_period, ("control", name))

    def on_timer(self, t: int, payload: Any) -> None:
        what, name = payload
        kernel = self.kernels[name]
        self._busy = True
        for state in kernel.states:  # every piece that ends by t has ended
            self.sim.sync_vcpu(state, t)
        self._drain()
        self.accounts[name].touch(t)
        if what == "start":
            kernel.start(t)
        elif kernel.finished_at is None:
            self.controllers[name].step(t)
            self.sim.set_guest_timer(t + self._period(name), payload)
        self._drain()
        self._busy = False
        self.accounts[name].touch(t)

    def _period(self, name: str) -> int:
        guest = _guest(self.kernels[name].states[0].vm)
        return guest.control_period

    # -- the core's hooks ------------------------------------------------------------------

    def on_done(self, state: VCPUState[Any], t: int) -> int | None:
        kernel, v = self._where[state]
        if self._busy:
            self._pending.append((state, kernel.gen[v], t))
            return ENDLESS
        self._busy, self._local, self._local_next = True, state, _NOTHING
        kernel.on_done(v, t)
        self._drain()
        self._busy, self._local = False, None
        self.accounts[kernel.name].touch(t)
        demand, self._local_next = self._local_next, None
        return None if demand is _NOTHING else demand

    def _drain(self) -> None:
        pending = self._pending
        while pending:
            state, gen, t = pending.pop(0)
            kernel, v = self._where[state]
            if kernel.gen[v] == gen:
                kernel.on_done(v, t)

    def on_switch(self, cpu: int, previous: VCPUState[Any] | None,
                  current: VCPUState[Any] | None, t: int) -> None:
        if previous is None or current is None:  # a pCPU goes idle or busy: fragmentation
            for account in self.accounts.values():
                account.touch(t)
            return
        for state in (previous, current):
            if state.guest is self:
                self.accounts[state.vm.name].touch(t)

    def held(self, state: VCPUState[Any]) -> int:
        kernel, v = self._where[state]
        return kernel.held(v, state.backlog)

    # -- what kernels ask --------------------------------------------------------------------

    def give(self, state: VCPUState[Any], demand: int | None, t: int) -> int:
        """Hand *state* its next piece (see the module docstring)."""
        if state is self._local:
            self._local_next = demand
            return 0
        if demand is None and state.runnable and self.sim.running[state.cpu] is not state:
            demand = HALT
        return self.sim.set_work(state, demand, t)

    def preempted(self, state: VCPUState[Any]) -> bool:
        """Whether the host holds *state* runnable but not running (KVM's ``vcpu->ready``)."""
        return state.runnable and self.sim.running[state.cpu] is not state

    def yield_to(self, state: VCPUState[Any], target: VCPUState[Any], t: int) -> None:
        """A pause-loop exit of *state*: the host yields its pCPU to *target*."""
        self.sim.yield_to(state, target, t)

    # -- the result --------------------------------------------------------------------------

    def as_json(self) -> dict[str, Any]:
        """Per VM: the program, its completion time, the double-scheduling measures."""
        result: dict[str, Any] = {}
        for name, kernel in self.kernels.items():
            account = self.accounts[name]
            account.touch(self.sim.duration)
            guest = _guest(kernel.states[0].vm)
            result[name] = {
                "program": guest.program,
                "threads": len(kernel.threads),
                "control": guest.control,
                "completion_ns": kernel.finished_at,
                **account.as_json(),
                "locks": guest.locks,
                "ple_exits": kernel.ple_exits,
                "ple_yields": kernel.ple_yields,
                "online_changes": len(kernel.online_log) - 1,
                "online_min": min(count for _, count in kernel.online_log),
                "online_final": kernel.online_count(),
            }
        return result

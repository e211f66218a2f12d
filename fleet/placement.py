"""Where an arriving VM goes in a fleet: Akita's first fit, or spreading.

Both placements use the same exact admission test on every pCPU, so
neither ever places a vCPU where the test fails: they differ only in
*where* they put what fits.  A VM's vCPUs all go to one host (a VM does not
span machines); admission is all or nothing per VM, as on one host
(:mod:`akita.model.first_fit`); a VM that no host takes is rejected.

``first-fit`` -- Akita's CPU picker (paper, Section 3.6: "our CPU picker
    assigns the vCPU to the first CPU core that can accommodate the vCPU"),
    extended to a fleet the way a provider fills machines: the hosts are
    tried in index order and the VM goes to the first host whose
    first-fit picker (:class:`~akita.model.FirstFit`) admits it whole.
    Departures are :meth:`~akita.model.FirstFit.remove`: exact.

``spread`` -- what the load balancers of Xen's credit scheduler and Linux's
    CFS aim at: each vCPU on the least-loaded pCPU.  The host is the one of
    least LO-mode utilisation ``sum C_opt/T`` per pCPU (ties: the lowest
    index) among those that admit the VM; within it each vCPU goes to the
    pCPU of least LO-mode utilisation ``U1 + U2`` (ties: the lowest index)
    among those whose test still passes with it.  The paper: "Akita's
    counterparts ... spread vCPUs as much as possible to raise performance"
    (the discussion of Fig. 9).

Both count the pCPUs **in use** -- holding at least one vCPU, so that a
C-state could not turn them off -- and the hosts in use; each keeps its
counts as it goes, and :meth:`Placer.resident` gives a host's VMs with the
pCPU of each vCPU, for a sampled host's simulation.  Every comparison is of
exact :class:`~fractions.Fraction` values; no float takes part.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction

from akita.model import ADMISSION_TESTS, VM, FirstFit, ModelError, UtilizationSums

__all__ = ["Placer", "FirstFitFleet", "SpreadFleet", "PLACERS", "placer"]


class Placer(ABC):
    """A fleet of *hosts* hosts of *pcpus* pCPUs, each pCPU under the test *test*."""

    def __init__(self, hosts: int, pcpus: int, test: str) -> None:
        self.hosts, self.pcpus, self.test = hosts, pcpus, test
        #: pCPUs (over the fleet) holding at least one vCPU
        self.busy_pcpus = 0
        #: hosts holding at least one VM
        self.busy_hosts = 0
        self._busy_on = [0] * hosts  # busy pCPUs per host
        self._flags = [[False] * pcpus for _ in range(hosts)]  # each pCPU: busy?
        self._where: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._resident: list[dict[str, VM]] = [{} for _ in range(hosts)]

    def offer(self, vm: VM) -> tuple[int, tuple[int, ...]] | None:
        """Place *vm* whole: its host and the pCPU of each vCPU; ``None`` if rejected."""
        if vm.name in self._where:
            raise ModelError("name", vm.name, "a name used by no VM in the fleet", vm=vm.name)
        answer = self._place(vm)
        if answer is not None:
            host, pcpus = answer
            self._where[vm.name] = answer
            if not self._resident[host]:
                self.busy_hosts += 1
            self._resident[host][vm.name] = vm
            self._recount(host, set(pcpus))
        return answer

    def remove(self, name: str) -> None:
        """The VM called *name* leaves: its vCPUs are freed exactly."""
        host, pcpus = self._where.pop(name)
        vm = self._resident[host].pop(name)
        self._free(host, vm, pcpus)
        if not self._resident[host]:
            self.busy_hosts -= 1
        self._recount(host, set(pcpus))

    def resident(self, host: int) -> tuple[tuple[VM, tuple[int, ...]], ...]:
        """The VMs on *host*, in arrival order, each with the pCPU of each vCPU."""
        return tuple((vm, self._where[name][1]) for name, vm in self._resident[host].items())

    def busy_on(self, host: int) -> int:
        """The pCPUs of *host* in use."""
        return self._busy_on[host]

    def load(self, host: int) -> Fraction:
        """The LO-mode utilisation ``sum C_opt/T`` of *host*'s vCPUs."""
        return sum((self._sums(host, c).lo_mode for c in range(self.pcpus)), Fraction(0))

    def _recount(self, host: int, touched: set[int]) -> None:
        """Bring the busy counts up to date after pCPUs *touched* of *host* changed."""
        before = self._busy_on[host]
        now, flags = before, self._flags[host]
        for c in touched:
            busy = self._vcpus_on(host, c) > 0
            if flags[c] != busy:
                now += 1 if busy else -1
                flags[c] = busy
        self._busy_on[host] = now
        self.busy_pcpus += now - before

    @abstractmethod
    def _place(self, vm: VM) -> tuple[int, tuple[int, ...]] | None:
        """Where *vm* goes, its state updated; ``None`` (nothing changed) if nowhere."""

    @abstractmethod
    def _free(self, host: int, vm: VM, pcpus: tuple[int, ...]) -> None:
        """Take *vm*'s vCPUs off pCPUs *pcpus* of *host*."""

    @abstractmethod
    def _sums(self, host: int, pcpu: int) -> UtilizationSums:
        """The exact sums of one pCPU."""

    @abstractmethod
    def _vcpus_on(self, host: int, pcpu: int) -> int:
        """vCPUs on one pCPU."""


class FirstFitFleet(Placer):
    """Akita's first fit, host after host (see the module)."""

    name = "first-fit"

    def __init__(self, hosts: int, pcpus: int, test: str) -> None:
        super().__init__(hosts, pcpus, test)
        self._pickers = [FirstFit(pcpus, test) for _ in range(hosts)]

    def _place(self, vm: VM) -> tuple[int, tuple[int, ...]] | None:
        for host, picker in enumerate(self._pickers):
            answer = picker.offer(vm, record=False)
            if answer.admitted:
                return host, answer.pcpus
        return None

    def _free(self, host: int, vm: VM, pcpus: tuple[int, ...]) -> None:
        self._pickers[host].remove(vm.name)

    def _sums(self, host: int, pcpu: int) -> UtilizationSums:
        return self._pickers[host].sums(pcpu)

    def _vcpus_on(self, host: int, pcpu: int) -> int:
        return self._pickers[host].vcpus_on(pcpu)


class SpreadFleet(Placer):
    """Least-loaded host, then least-loaded pCPU, under the same test (see the module)."""

    name = "spread"

    def __init__(self, hosts: int, pcpus: int, test: str) -> None:
        super().__init__(hosts, pcpus, test)
        self._test = ADMISSION_TESTS[test]
        self._state = [[UtilizationSums()] * pcpus for _ in range(hosts)]
        self._counts = [[0] * pcpus for _ in range(hosts)]
        self._loads = [Fraction(0)] * hosts

    def _place(self, vm: VM) -> tuple[int, tuple[int, ...]] | None:
        order = sorted(range(self.hosts), key=lambda h: (self._loads[h], h))
        for host in order:
            pcpus = self._fit(host, vm)
            if pcpus is not None:
                self._loads[host] += vm.u_opt * vm.vcpus
                return host, pcpus
        return None

    def _fit(self, host: int, vm: VM) -> tuple[int, ...] | None:
        sums, counts, test = self._state[host], self._counts[host], self._test
        chosen: list[int] = []
        for vcpu in vm.all_vcpus():
            for c in sorted(range(self.pcpus), key=lambda c: (sums[c].lo_mode, c)):
                after = sums[c].plus(vcpu)
                if test(after).schedulable:
                    sums[c] = after
                    counts[c] += 1
                    chosen.append(c)
                    break
            else:
                for undo, c in zip(reversed(vm.all_vcpus()[:len(chosen)]), reversed(chosen)):
                    sums[c] = sums[c].minus(undo)
                    counts[c] -= 1
                return None
        return tuple(chosen)

    def _free(self, host: int, vm: VM, pcpus: tuple[int, ...]) -> None:
        sums, counts = self._state[host], self._counts[host]
        for vcpu, c in zip(vm.all_vcpus(), pcpus):
            sums[c] = sums[c].minus(vcpu)
            counts[c] -= 1
        self._loads[host] -= vm.u_opt * vm.vcpus

    def _sums(self, host: int, pcpu: int) -> UtilizationSums:
        return self._state[host][pcpu]

    def _vcpus_on(self, host: int, pcpu: int) -> int:
        return self._counts[host][pcpu]


#: The placements by name (:data:`.spec.PLACEMENTS`).
PLACERS: dict[str, type[Placer]] = {"first-fit": FirstFitFleet, "spread": SpreadFleet}


def placer(name: str, hosts: int, pcpus: int, test: str) -> Placer:
    """A new, empty fleet under the placement *name*."""
    return PLACERS[name](hosts, pcpus, test)

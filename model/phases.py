"""Phases: where each vCPU's period grid starts (rule R2).

The paper: "each vCPU has an internal timer that fires periodically at the
beginning of each period".  A real timer starts when its vCPU is created,
so the periods of different vCPUs are out of phase.  A VM may declare its
phase (``phase = "3ms"`` in a host file: the instant its vCPUs' first period
starts, ``0 <= phase < T``); a VM that declares none takes the host's
default (:attr:`~.options.SchedulerOptions.phases`):

* ``"synchronous"``: 0, every vCPU in phase (the classic critical instant of
  EDF analysis);
* ``"seeded"``: drawn from the run's seed, uniformly over the whole
  microseconds of ``[0, T)`` (whole nanoseconds if ``T`` is not a whole
  number of microseconds), from a stream of its own per VM (so adding a VM
  moves no other VM's phase, and the workloads' random streams are
  untouched).  VMs are created at arbitrary instants; a grid as coarse as
  the VM's budgets (``gcd(T, C_opt, C_pes)``, 25 ms for a Table 1 Type2 VM)
  would allow a handful of phases only.  ``akita check`` proves every phase
  on its own tick (the gcd of the pCPU's periods and budgets); a drawn
  phase between two ticks lies outside that proof, but not outside the
  admission test's, which holds for sporadic releases.

All vCPUs of a VM share its phase.  :func:`with_phases` writes the resolved
phases into the host, which is the host a trace header carries: a checker
reading a trace never has to draw them again.
"""

from __future__ import annotations

import random
from math import gcd

import attrs

from .host import Host
from .vm import VM

__all__ = ["resolve_phases", "with_phases", "drawn_phase"]

_MICROSECOND = 1_000

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("resolve_phases",),
}


def drawn_phase(vm: VM, seed: int) -> int:
    """The phase ``"seeded"`` gives *vm* under *seed*: uniform over the whole µs of ``[0, T)``."""
    grid = gcd(vm.period, _MICROSECOND)
    return grid * random.Random(f"akita-phase:{seed}:{vm.name}").randrange(vm.period // grid)


def resolve_phases(host: Host, seed: int) -> dict[str, int]:
    """Every VM's phase in ns, by name: declared, else the host's default under *seed*."""
    synchronous = host.options.synchronous
    return {
        vm.name: vm.phase if vm.phase is not None else 0 if synchronous else drawn_phase(vm, seed)
        for vm in host.vms
    }


def with_phases(host: Host, phases: dict[str, int]) -> Host:
    """*host* with each VM's ``phase`` set from *phases* (VM name -> ns)."""
    return attrs.evolve(host, vms=tuple(attrs.evolve(vm, phase=phases[vm.name]) for vm in host.vms))

"""SMP guests on the reference simulator: double scheduling and vCPU ballooning.

Source: FlexCore (``../shared/seeds/002``).  A VM with a ``[vm.guest]``
runs the threads of a parallel program (:mod:`.parsec`) under its own
scheduler (:mod:`.kernel`) on its vCPUs, which the host schedules as it
schedules any: two schedulers, neither aware of the other.
:mod:`.observe` measures what that costs; :mod:`.balloon` sizes a VM's
online vCPUs to the CPU it gets (FlexCore's vCPU ballooning);
:mod:`.costop` is relaxed co-scheduling, the prior approach compared.
:mod:`.runtime` ties them to the simulator's core
(:mod:`akita.reference.guest_hook`).
"""

from __future__ import annotations

from .runtime import Guests

__all__ = ["Guests"]

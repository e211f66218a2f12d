"""Running a simulation: placement, policy, trace file and timeline, in one call."""

from __future__ import annotations

import os
from typing import Callable

from akita.model import Host, ParameterError

from .policies import POLICIES
from .guest_hook import GuestHook
from .simulator import Result, Simulator
from .workloads import validate_trace

__all__ = ["simulate", "check_simulation"]


def simulate(
    host: Host,
    policy: str = "akita",
    *,
    duration: int,
    seed: int = 1,
    trace_path: str | None = None,
    timeline_path: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> Result:
    """Simulate *host* under *policy* for *duration* ns and return the result.

    VMs are placed as the policy places them -- by first fit with the
    host's test (R12) for the EDF family; rejected VMs are reported in the
    result and not simulated.  Trace files referenced by
    workloads are checked whole before time 0, so a bad one stops the run
    before anything is written.

    :raises ParameterError: for a *policy* or *duration* out of range
        (:func:`check_simulation`).
    """
    check_simulation(policy, duration)
    for vm in host.vms:
        if vm.workload.path is not None:  # a trace workload (only those have a path)
            validate_trace(vm.workload.path, vm=vm.name)
    scheduler = POLICIES[policy]()
    placement = scheduler.place(host)
    guest = _guests(host, seed)
    keep_trace = trace_path is not None
    if timeline_path is not None and trace_path is None:
        import tempfile  # only for a timeline without a trace: start-up stays light

        handle, trace_path = tempfile.mkstemp(suffix=".jsonl")
        os.close(handle)
    try:
        if trace_path is None:
            return Simulator(host, placement, scheduler, duration=duration, seed=seed,
                             progress=progress, guest=guest).run()
        from akita.atomic import atomic_file

        with atomic_file(trace_path) as trace:
            result = Simulator(host, placement, scheduler, duration=duration, seed=seed,
                               trace=trace, progress=progress, guest=guest).run()
        if timeline_path is not None:
            from akita.trace.timeline import main_timeline

            main_timeline(trace_path, timeline_path)
        return result
    finally:
        if not keep_trace and trace_path is not None:
            os.unlink(trace_path)


def check_simulation(policy: str, duration: int) -> None:
    """Raise :class:`~akita.model.ParameterError`, naming the parameter, unless *policy* is
    one of :data:`.policies.POLICIES` and *duration* an integer number of ns > 0.

    :func:`simulate` calls it first; a caller with other work to do before the
    simulation (``akita verify``'s proof) calls it before that work.
    """
    if policy not in POLICIES:
        raise ParameterError("policy", policy, f"one of {', '.join(POLICIES)}")
    if not isinstance(duration, int) or duration <= 0:
        raise ParameterError("duration", duration, "a duration > 0")


def _guests(host: Host, seed: int) -> GuestHook | None:
    """The SMP guests of *host* (:mod:`akita.guest`), or ``None`` if it has none."""
    if all(vm.guest is None for vm in host.vms):
        return None
    from akita.guest import Guests

    return Guests(host, seed)

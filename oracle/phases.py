"""Where each vCPU's period grid starts, as the oracle learns it (rule R2, issue 11).

A vCPU of a VM with phase ``p`` and period ``T`` starts its periods at
``p, p + T, p + 2T, ...`` (:mod:`akita.model.phases`).  The phase is not a
rule's output: a real hypervisor's timers start when its vCPUs are
created, so any ``0 <= p < T`` is as lawful as any other -- unless the host
*declares* it.  The oracle must therefore be told the phases; it has two
sources:

* **the host file** (:func:`host_phases`): a VM's ``phase = "3ms"``, or 0
  for every VM of a host with ``phases = "synchronous"``.  These are
  declarations: an implementation that starts the VM's periods elsewhere
  does not run the host it is given.  A VM of a host with ``phases =
  "seeded"`` (the default) that declares none leaves its phase open;
* **the trace header** (:func:`trace_phases`): a JSON Lines trace written by
  the simulator carries its host with every phase explicit
  (:func:`akita.model.phases.with_phases`).  This is the implementation's
  claim about its own timers; the oracle then checks every release and
  every decision against that grid, so a claim the schedule does not keep
  is caught (a release off the grid is an R2 finding, a key or deadline
  computed from another grid an R2 or R4 one).

:func:`resolve_oracle_phases` merges them.  Where both give a phase and
they differ, the trace is of another host than the file describes, and it
is refused (:class:`PhaseError`, one line, exit 2 at the command line):
judging it by the file would bury the one cause under a wall of R2
findings, and judging it by the header would pass an implementation that
ignored a declared phase -- a deliberately wrong variant that
``tests/oracle/test_oracle_timing.py`` shows is refused, not passed.  Where neither
gives one (an ftrace trace of a seeded host, or a hand-written JSON Lines
header without a host), the phase is *unknown* and the trace is refused
too, naming the VMs and how to declare them.

The phases are not inferred from the trace.  A schedule fixes them only
where it shows a rule acting at a period start (a refill that lets a vCPU
run, a key that reorders two vCPUs); a vCPU alone on its pCPU, or one that
never exhausts its budget, fits every phase.  A verdict under one phase
among several that fit would be a guess, and an unknown is never a pass.
"""

from __future__ import annotations

from typing import Any, Mapping

from akita.model import Host, format_duration
from akita.trace.jsonl import TraceError

__all__ = ["PhaseError", "host_phases", "trace_phases", "resolve_oracle_phases",
           "PHASE_SOURCES"]

#: Where this module takes each rule's input (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R2": ("resolve_oracle_phases",),
}

#: What :func:`resolve_oracle_phases` reports as the source of the phases.
PHASE_SOURCES = ("host file", "trace header", "host file and trace header")

_HOW = ('declare each VM\'s phase in the host file (phase = "3ms" in its [[vm]] table) '
        'or all of them at once (phases = "synchronous" under [host])')


class PhaseError(TraceError):
    """The oracle cannot know, or is told two different, period grids of a VM.

    A :class:`~akita.trace.jsonl.TraceError` (so a
    :class:`~akita.model.errors.ModelError`): the command line prints it on
    one line and exits with status 2.
    """


class _Shown:
    """A value an error message shows as it is, without quotes."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def host_phases(host: Host) -> dict[str, int | None]:
    """The phase the host file fixes for each VM (ns), ``None`` where it leaves it open.

    A declared ``phase`` is taken as given; under ``phases = "synchronous"``
    an undeclared one is 0; under ``"seeded"`` it is open (drawn per run,
    so not a property of the host).
    """
    synchronous = host.options.synchronous
    return {vm.name: vm.phase if vm.phase is not None else 0 if synchronous else None
            for vm in host.vms}


def trace_phases(header: Mapping[str, Any], host: Host) -> dict[str, int]:
    """The phases a JSON Lines header's host gives, for the VMs of *host* (VM name -> ns).

    A header without a ``host`` gives none; a header VM without ``phase``
    gives none for that VM; a VM *host* does not have is ignored (its
    events are refused as they are read).

    :raises TraceError: the header's host, a VM entry or a phase is not
        shaped as :func:`akita.model.host_json` writes it, or a phase is
        not in ``[0, T)`` of the VM's period in *host*.
    """
    described = header.get("host")
    if described is None:
        return {}
    vms = described.get("vms") if isinstance(described, dict) else None
    if not isinstance(vms, list):
        raise TraceError("host.vms", vms, "the header's host with a list of VMs")
    periods = {vm.name: vm.period for vm in host.vms}
    found: dict[str, int] = {}
    for entry in vms:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise TraceError("host.vms", entry, "a VM object with a name")
        name, phase = entry["name"], entry.get("phase")
        if name not in periods or phase is None:
            continue
        if type(phase) is not int or not 0 <= phase < periods[name]:
            raise TraceError("host.vms.phase", phase,
                             f"a phase in ns with 0 <= phase < period ({periods[name]})",
                             vm=name)
        found[name] = phase
    return found


def resolve_oracle_phases(host: Host, given: Mapping[str, int] | None = None, *,
                          needed: frozenset[str] | None = None) -> tuple[dict[str, int], str]:
    """Every needed VM's phase and where it came from (one of :data:`PHASE_SOURCES`).

    :param given: the phases a trace claims (its header's), by VM name.
    :param needed: the VMs whose phases matter (those first fit admits);
        default: all.
    :raises PhaseError: a needed VM's phase is neither declared by the host
        nor given; or a declared and a given phase differ.
    """
    given = dict(given or {})
    declared = host_phases(host)
    names = [vm.name for vm in host.vms if needed is None or vm.name in needed]
    clash = [f"{n} (host file {_ns(declared[n])}, trace {_ns(given[n])})" for n in names
             if declared[n] is not None and n in given and given[n] != declared[n]]
    if clash:
        raise PhaseError("phase", _Shown("; ".join(clash)),
                         "the trace's phases to be the host file's: the trace is of another "
                         "host (check it against the host file it was made with)")
    unknown = [n for n in names if declared[n] is None and n not in given]
    if unknown:
        raise PhaseError("phase", _Shown(f"none for {', '.join(unknown)}"),
                         "a phase for every VM (the trace gives none and the host's phases = "
                         f'"seeded" draws them per run): {_HOW}')
    phases = {n: _first(declared[n], given.get(n)) for n in names}
    from_file = any(declared[n] is not None for n in names)
    from_trace = any(declared[n] is None for n in names)
    return phases, PHASE_SOURCES[from_trace + (from_file and from_trace)]


def _first(declared: int | None, given: int | None) -> int:
    """The declared phase, else the given one (one of them is known here)."""
    if declared is not None:
        return declared
    assert given is not None  # resolve_oracle_phases refused the VMs with neither
    return given


def _ns(value: int | None) -> str:
    return "none" if value is None else format_duration(value)

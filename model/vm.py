"""VMs and their vCPUs (rule R1).

A VM is a periodic server description: criticality, period ``T`` and an
optimistic budget ``C_opt`` (its average need), plus, for a HI VM, a
pessimistic budget ``C_pes`` (its worst case), with
``0 < C_opt <= C_pes <= T``.  Its vCPUs inherit these parameters (Akita
paper, Section 3.1: "vCPUs inherit these parameters from their corresponding
VMs").  All times are integer nanoseconds; utilizations are exact
:class:`~fractions.Fraction` values.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from .criticality import Criticality
from .duration import format_duration
from .errors import ModelError
from .guest import Guest
from .io_path import IOPath
from .share import Share
from .workload import Workload

__all__ = ["VM", "VCPU"]

#: Where this module implements each rule (read by the traceability table,
#: docs/traceability.rst; tests/docs/test_traceability.py checks every name).
__rules__ = {
    "R1": ("VM", "VCPU"),
}


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _shown(value: object) -> object:
    """A duration as a host file would write it, for error messages."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return format_duration(value)
    return value


@attrs.frozen
class VM:
    """A virtual machine as the provider declares it.

    :param name: unique on its host; vCPUs are named ``name/i``.
    :param criticality: :class:`~.criticality.Criticality`.
    :param period: ``T`` in ns, ``> 0``.
    :param c_opt: optimistic budget in ns, ``0 < c_opt <= period``.
    :param c_pes: pessimistic budget in ns for a HI VM
        (``c_opt <= c_pes <= period``); ``None`` for a LO VM.
    :param vcpus: number of vCPUs, ``>= 1``.
    :param preset: the Table 1 type it was declared from, if any (kept only
        so that a host file reads back as it was written).
    :param workload: what each of its vCPUs asks of the CPU (simulation
        only; admission ignores it).
    :param share: weight, cap, nice and pinning, for the proportional-share
        baselines only (:class:`~.share.Share`).
    :param phase: the instant in ns its vCPUs' first period starts (R2),
        ``0 <= phase < period``; ``None`` for the host's default
        (:attr:`~.options.SchedulerOptions.phases`, :mod:`akita.model.phases`).
    :param guest: the SMP guest it runs instead of its workload
        (:class:`~.guest.Guest`, simulation only), or ``None``.
    :raises ModelError: naming the VM and the field that breaks R1.
    """

    name: str
    criticality: Criticality
    period: int
    c_opt: int
    c_pes: int | None = None
    vcpus: int = 1
    preset: str | None = None
    workload: Workload = Workload()
    share: Share = Share()
    phase: int | None = None
    ioq: int | None = None
    io: IOPath = IOPath()
    guest: Guest | None = None

    def __attrs_post_init__(self) -> None:
        name = self.name
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise ModelError("name", name, "a non-empty name without '/'")
        if not isinstance(self.criticality, Criticality):
            raise ModelError("criticality", self.criticality, "'HI' or 'LO'", vm=name)
        if not _positive_int(self.period):
            raise ModelError("period", _shown(self.period), "a period > 0", vm=name)
        if not _positive_int(self.c_opt) or self.c_opt > self.period:
            raise ModelError(
                "c_opt", _shown(self.c_opt), f"0 < c_opt <= period ({format_duration(self.period)})", vm=name
            )
        if self.criticality is Criticality.LO:
            if self.c_pes is not None:
                raise ModelError("c_pes", _shown(self.c_pes), "no c_pes on a LO VM", vm=name)
        elif self.c_pes is None:
            raise ModelError("c_pes", None, "a pessimistic budget for a HI VM", vm=name)
        elif not _positive_int(self.c_pes) or not self.c_opt <= self.c_pes <= self.period:
            raise ModelError(
                "c_pes",
                _shown(self.c_pes),
                f"c_opt ({format_duration(self.c_opt)}) <= c_pes <= period "
                f"({format_duration(self.period)})",
                vm=name,
            )
        phase = self.phase
        if phase is not None and (not isinstance(phase, int) or isinstance(phase, bool)
                                  or not 0 <= phase < self.period):
            raise ModelError("phase", _shown(phase),
                             f"0 <= phase < period ({format_duration(self.period)})", vm=name)
        if self.ioq is not None and not _positive_int(self.ioq):
            raise ModelError("ioq", _shown(self.ioq), "an IO quality > 0 (a duration)", vm=name)
        if not _positive_int(self.vcpus):
            raise ModelError("vcpus", self.vcpus, "an integer >= 1", vm=name)
        if not isinstance(self.workload, Workload):
            raise ModelError("workload", self.workload, "a Workload", vm=name)
        if not isinstance(self.share, Share):
            raise ModelError("share", self.share, "a Share", vm=name)
        if not isinstance(self.io, IOPath):
            raise ModelError("io", self.io, "an IOPath", vm=name)
        if self.io.via == name:
            raise ModelError("io_via", name, "another VM (a backend of its own is none)", vm=name)
        if self.guest is not None:
            if not isinstance(self.guest, Guest):
                raise ModelError("guest", self.guest, "a Guest", vm=name)
            if self.is_hi and self.guest.control != "none":
                raise ModelError("guest.control", self.guest.control,
                                 "'none' for a HI VM: its vCPUs are the periodic servers "
                                 "admission placed (decision 91)", vm=name)

    @property
    def is_hi(self) -> bool:
        """Whether the VM is of HI criticality."""
        return self.criticality is Criticality.HI

    @property
    def u_opt(self) -> Fraction:
        """``C_opt / T`` of one vCPU, exact."""
        return Fraction(self.c_opt, self.period)

    @property
    def u_pes(self) -> Fraction:
        """``C_pes / T`` of one HI vCPU (``0`` for a LO VM: it has no HI-mode demand)."""
        return Fraction(self.c_pes, self.period) if self.c_pes is not None else Fraction(0)

    @property
    def c_max(self) -> int:
        """The most a vCPU may ask for in a period: ``C_pes`` if HI, ``C_opt`` if LO."""
        return self.c_pes if self.c_pes is not None else self.c_opt

    def vcpu(self, index: int) -> "VCPU":
        """The vCPU ``name/index``."""
        return VCPU(self, index)

    def all_vcpus(self) -> tuple["VCPU", ...]:
        """The VM's vCPUs, in index order."""
        return tuple(VCPU(self, i) for i in range(self.vcpus))


@attrs.frozen
class VCPU:
    """The ``index``-th vCPU of ``vm``: a periodic server with the VM's parameters."""

    vm: VM
    index: int = attrs.field()

    @index.validator
    def _check_index(self, _attribute: attrs.Attribute[int], value: object) -> None:
        if not isinstance(value, int) or not 0 <= value < self.vm.vcpus:
            raise ModelError("vcpu", value, f"an index in [0, {self.vm.vcpus})", vm=self.vm.name)

    @property
    def name(self) -> str:
        """``vm/index``, as traces and placements name the vCPU."""
        return f"{self.vm.name}/{self.index}"

    def __str__(self) -> str:
        return self.name

"""Hypothesis strategies for VMs and hosts with small integer parameters."""

from __future__ import annotations

from hypothesis import strategies as st

from akita.model import VM, Criticality, Host

PERIODS_MS = (2, 3, 4, 5, 6, 10, 12, 20, 25, 50, 100)
MS = 1_000_000


@st.composite
def vms(draw, name: str | None = None, max_vcpus: int = 3) -> VM:
    """A valid VM with a period from :data:`PERIODS_MS` and integer-ms budgets."""
    period = draw(st.sampled_from(PERIODS_MS))
    c_opt = draw(st.integers(1, period))
    hi = draw(st.booleans())
    c_pes = draw(st.integers(c_opt, period)) * MS if hi else None
    return VM(
        name=name if name is not None else draw(st.text("abcdefgh", min_size=1, max_size=6)),
        criticality=Criticality.HI if hi else Criticality.LO,
        period=period * MS,
        c_opt=c_opt * MS,
        c_pes=c_pes,
        vcpus=draw(st.integers(1, max_vcpus)),
    )


@st.composite
def vm_lists(draw, max_size: int = 8, max_vcpus: int = 3) -> list[VM]:
    """Distinctly named VMs ``vm0, vm1, ...``."""
    count = draw(st.integers(0, max_size))
    return [draw(vms(name=f"vm{i}", max_vcpus=max_vcpus)) for i in range(count)]


@st.composite
def hosts(draw, max_pcpus: int = 4, max_vms: int = 8, test: str | None = None) -> Host:
    return Host(
        pcpus=draw(st.integers(1, max_pcpus)),
        vms=draw(vm_lists(max_size=max_vms)),
        test=test if test is not None else draw(st.sampled_from(["edf-vd", "edf"])),
    )


@st.composite
def vcpu_sets(draw, max_size: int = 6):
    """The vCPUs of a few single-vCPU VMs, as for one pCPU."""
    return [vm.vcpu(0) for vm in draw(vm_lists(max_size=max_size, max_vcpus=1))]

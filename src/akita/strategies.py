"""Hypothesis strategies for Akita hosts and workloads, for your own property tests.

An implementation of Akita under test -- a Xen or KVM patch, a ``sched_ext``
program, a simulator -- can draw hosts from here, run them, record a trace
and hand it to the oracle (:mod:`akita.oracle`); this project's own tests
draw from the same strategies.  Every parameter is a small exact integer
(periods of a few ms, budgets in 0.1 ms steps), so a failing example shrinks
to something readable.  Needs ``hypothesis`` (the ``test`` extra)::

    from hypothesis import given
    from akita.strategies import sim_hosts

    @given(sim_hosts())
    def test_my_scheduler_conforms(host):
        ...

``hosts``, ``vms``, ``vm_lists``, ``vcpu_sets``: admission inputs.
``sim_hosts``: hosts with workloads, for short simulations.
``stressed_hosts``: one pCPU where EDF-VD's virtual deadlines matter.
``timing_options``: scheduler options with phases, queue order, HI-mode
order and ``x`` rule drawn.  ``sim_hosts`` and ``stressed_hosts`` draw them,
and a declared phase for some VMs.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from akita.model import VM, Criticality, Host

if TYPE_CHECKING:  # pragma: no cover
    from akita.model import VCPU, SchedulerOptions, Workload

__all__ = ["hosts", "vms", "vm_lists", "vcpu_sets", "workloads", "guaranteed_workloads",
           "sim_hosts", "stressed_hosts", "timing_options", "PERIODS_MS", "SIM_PERIODS_MS", "MS"]

PERIODS_MS = (2, 3, 4, 5, 6, 10, 12, 20, 25, 50, 100)
MS = 1_000_000


@st.composite
def vms(draw: st.DrawFn, name: str | None = None, max_vcpus: int = 3) -> VM:
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
def vm_lists(draw: st.DrawFn, max_size: int = 8, max_vcpus: int = 3) -> list[VM]:
    """Distinctly named VMs ``vm0, vm1, ...``."""
    count = draw(st.integers(0, max_size))
    return [draw(vms(name=f"vm{i}", max_vcpus=max_vcpus)) for i in range(count)]


@st.composite
def hosts(draw: st.DrawFn, max_pcpus: int = 4, max_vms: int = 8, test: str | None = None) -> Host:
    return Host(
        pcpus=draw(st.integers(1, max_pcpus)),
        vms=draw(vm_lists(max_size=max_vms)),
        test=test if test is not None else draw(st.sampled_from(["edf-vd", "edf"])),
    )


@st.composite
def vcpu_sets(draw: st.DrawFn, max_size: int = 6) -> list[VCPU]:
    """The vCPUs of a few single-vCPU VMs, as for one pCPU."""
    return [vm.vcpu(0) for vm in draw(vm_lists(max_size=max_size, max_vcpus=1))]


SIM_PERIODS_MS = (2, 3, 4, 5, 6, 10, 12)


@st.composite
def workloads(draw: st.DrawFn, vm_period: int, c_opt: int, c_pes: int | None) -> Workload:
    """A workload for a VM (times in ns); HI demand may exceed C_opt (mode switches)."""
    from akita.model import Workload

    kind = draw(st.sampled_from(["cpu-bound", "periodic", "sporadic", "duty", "poisson"]))
    top = c_pes if c_pes is not None else c_opt
    if kind == "periodic":
        return Workload("periodic", demand=draw(st.integers(1, top // 100_000)) * 100_000,
                        offset=draw(st.sampled_from([None, 0, MS // 2, MS])))
    if kind == "sporadic":
        return Workload("sporadic", demand=draw(st.integers(1, top // 100_000)) * 100_000,
                        probability=Fraction(draw(st.integers(1, 4)), 4))
    if kind == "duty":
        window = draw(st.sampled_from([MS, 2 * MS, 5 * MS]))
        return Workload("duty", utilization=Fraction(draw(st.integers(0, 8)), 8),
                        window=window, offset=draw(st.sampled_from([None, 0, window // 2])))
    if kind == "poisson":
        return Workload("poisson", rate=Fraction(draw(st.sampled_from([200, 1000, 5000]))),
                        service=draw(st.sampled_from([10_000, 50_000, 200_000])),
                        distribution=draw(st.sampled_from(["fixed", "exponential"])))
    return Workload()


@st.composite
def guaranteed_workloads(draw: st.DrawFn, vm_period: int, c_opt: int,
                         c_pes: int | None) -> Workload:
    """Demand inside the EDF-VD model: jobs at period starts of at most C_pes (HI) / C_opt (LO)."""
    from akita.model import Workload

    top = c_pes if c_pes is not None else c_opt
    demand = draw(st.integers(1, top // 100_000)) * 100_000
    if draw(st.booleans()):
        return Workload("periodic", demand=demand)
    return Workload("sporadic", demand=demand, probability=Fraction(draw(st.integers(1, 4)), 4))


@st.composite
def timing_options(draw: st.DrawFn, /, **fixed: object) -> SchedulerOptions:
    """Scheduler options with every timing choice drawn: phases, queue order, HI-mode
    order, x rule (and the keyword arguments given, as they are)."""
    from akita.model import SchedulerOptions
    from akita.model.options import HI_MODE_ORDERS, PHASES, QUEUE_ORDERS, X_RULES

    drawn: dict[str, Any] = {
        "phases": draw(st.sampled_from(PHASES)),
        "queue_order": draw(st.sampled_from(QUEUE_ORDERS)),
        "hi_mode_order": draw(st.sampled_from(HI_MODE_ORDERS)),
        "x_rule": draw(st.sampled_from(X_RULES)),
    }
    drawn.update(fixed)
    return SchedulerOptions(**drawn)


def phase_in(draw: st.DrawFn, period: int) -> int | None:
    """No declared phase (the host's default) or one on the 0.1 ms grid in ``[0, period)``."""
    if draw(st.booleans()):
        return None
    return draw(st.integers(0, period // 100_000 - 1)) * 100_000


@st.composite
def sim_hosts(draw: st.DrawFn, max_pcpus: int = 2, max_vms: int = 5, guaranteed: bool = False,
              options: SchedulerOptions | None = None) -> Host:
    """Hosts for short simulations: periods of a few ms, budgets in 0.1 ms steps."""
    from akita.model import SchedulerOptions

    count = draw(st.integers(1, max_vms))
    make = guaranteed_workloads if guaranteed else workloads
    vms_ = []
    for i in range(count):
        period = draw(st.sampled_from(SIM_PERIODS_MS)) * MS
        steps = period // 100_000
        c_opt = draw(st.integers(1, steps)) * 100_000
        hi = draw(st.booleans())
        c_pes = draw(st.integers(c_opt // 100_000, steps)) * 100_000 if hi else None
        vms_.append(VM(
            name=f"vm{i}", criticality=Criticality.HI if hi else Criticality.LO, period=period,
            c_opt=c_opt, c_pes=c_pes, vcpus=draw(st.integers(1, 2)),
            workload=draw(make(period, c_opt, c_pes)), phase=phase_in(draw, period),
        ))
    if options is None:
        options = draw(timing_options(
            initial_temperature=draw(st.integers(1, 3)),
            wake_preempts=draw(st.booleans()),
            lo_in_hi_mode=draw(st.booleans()),
        ))
    return Host(pcpus=draw(st.integers(1, max_pcpus)), vms=vms_, options=options,
                test=draw(st.sampled_from(["edf-vd", "edf"])) if not guaranteed else "edf-vd")


@st.composite
def stressed_hosts(draw: st.DrawFn, options: SchedulerOptions | None = None) -> Host:
    """One pCPU where EDF-VD's virtual deadlines matter: LO load high, HI vCPUs with a small
    C_opt and a large C_pes that their jobs use in full (or nearly)."""
    from akita.model import SchedulerOptions, Workload

    vms_ = []
    for i in range(draw(st.integers(1, 2))):
        period = draw(st.sampled_from(SIM_PERIODS_MS[:6])) * MS
        steps = period // 100_000
        c_opt = draw(st.integers(max(1, steps // 4), max(1, steps * 3 // 4))) * 100_000
        load = draw(st.sampled_from(["periodic", "cpu-bound"]))
        workload = Workload("periodic", demand=c_opt) if load == "periodic" else Workload()
        vms_.append(VM(f"lo{i}", Criticality.LO, period, c_opt, workload=workload,
                       phase=phase_in(draw, period)))
    for i in range(draw(st.integers(1, 2))):
        period = draw(st.sampled_from(SIM_PERIODS_MS[:6])) * MS
        steps = period // 100_000
        c_opt = draw(st.integers(1, max(1, steps // 4))) * 100_000
        c_pes = draw(st.integers(max(c_opt // 100_000, steps // 3), steps)) * 100_000
        low = c_opt + 100_000 if c_pes > c_opt else c_pes
        if draw(st.booleans()):
            workload = Workload("periodic", demand=c_pes)
        else:
            workload = Workload(
                "sporadic", demand=c_pes, min_demand=low,
                probability=Fraction(draw(st.integers(1, 4)), 4),
            )
        vms_.append(VM(f"hi{i}", Criticality.HI, period, c_opt, c_pes, workload=workload,
                       phase=phase_in(draw, period)))
    order = draw(st.permutations(vms_))
    if options is None:
        options = draw(timing_options(initial_temperature=draw(st.integers(1, 3))))
    return Host(pcpus=1, vms=order, options=options)

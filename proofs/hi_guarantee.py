"""The HI guarantee, proved per pCPU, with its negative controls.

Theorem (EDF-VD, Baruah et al., ECRTS 2012, Theorem 1; the guarantee the
Akita paper claims for HI VMs, Sections 3.3-3.5): on a pCPU that passes the
EDF-VD test, when every HI job demands at most ``C_pes`` and every LO job at
most ``C_opt``, no HI job misses its deadline -- here: no HI vCPU is served
less than ``min(C_pes, work it holds at a period start)`` in that period --
under the Akita policy, LO background work and mode returns included.

Scope: one pCPU, its vCPUs in phase at time 0, a job or none at each period
start (sporadic releases on the period grid), any demand ``1..cap``, every
behaviour within the horizon stated.
"""

from __future__ import annotations

import random
from functools import lru_cache
from importlib.resources import as_file, files

import attrs
import z3

from akita.model import (
    VM,
    Criticality,
    Host,
    SchedulerOptions,
    first_fit,
    load_host,
)
from akita.model.smt.pcpu import TickPCPU, tick_pcpu

from .obligation import Obligation
from .schedule_check import check_schedule, scope_of
from .verdict import PROVED, REFUTED, ProofVerdict

__all__ = ["OBLIGATIONS", "check_hi_guarantee", "hi_miss", "example_pcpu"]

MS = 1_000_000


def hi_miss(unrolling) -> z3.BoolRef:
    """The violation: some HI vCPU is short in some period."""
    return z3.Or(*unrolling.misses.values()) if unrolling.misses else z3.BoolVal(False)


def check_hi_guarantee(pcpu: TickPCPU, horizon: int, timeout: float, save_to=None) -> ProofVerdict:
    """No HI miss on *pcpu* in any behaviour within *horizon* ticks."""
    return check_schedule(pcpu, horizon, hi_miss, timeout=timeout, what="a HI job misses",
                          save_to=save_to)


def example_pcpu(name: str, policy: str = "akita") -> TickPCPU:
    """pCPU 0 of a shipped example host (``fig5``, ``fig7``)."""
    with as_file(files("akita.examples") / f"{name}.toml") as path:
        host = load_host(path)
    return tick_pcpu(host, first_fit(host), 0, policy)


def _pcpu_of(vms, policy="akita", **options) -> TickPCPU:
    host = Host(1, vms, test=options.pop("test", "edf-vd"), options=SchedulerOptions(**options))
    placement = first_fit(host)
    assert placement.admitted, placement
    return tick_pcpu(host, placement, 0, policy)


def carry_over(policy="akita", test="edf-vd") -> TickPCPU:
    """U1 = 1/2, U2 = 1/20, U3 = 7/8 (x = 1/10): the set where a LO job run first leaves
    the HI job too little time after its switch, unless HI has a virtual deadline."""
    return _pcpu_of([
        VM("lo", Criticality.LO, 2 * MS, MS),
        VM("hi", Criticality.HI, 4 * MS, 200_000, 3_500_000),
    ], policy, test=test)


def two_hi(hi_mode_deadline="actual") -> TickPCPU:
    """A LO and two HI vCPUs (x = 2/25) where HI mode must use actual deadlines."""
    return _pcpu_of([
        VM("lo0", Criticality.LO, 2 * MS, 500_000),
        VM("hi0", Criticality.HI, 10 * MS, 100_000, 3_300_000),
        VM("hi1", Criticality.HI, 2 * MS, 100_000, 900_000),
    ], hi_mode_deadline=hi_mode_deadline)


@lru_cache(maxsize=4)
def generated_pcpus(count: int = 8, seed: int = 0, hyperperiod: int = 60) -> tuple[TickPCPU, ...]:
    """Seeded admitted pCPUs of 2-5 vCPUs with x < 1 and at most *hyperperiod* ticks."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        vms = []
        n = rng.randint(2, 5)
        for i in range(n):
            period = rng.choice([10, 12, 15, 20, 24, 30, 40, 60, 120])
            hi = i < max(1, n // 2)
            c_opt = rng.randint(1, max(1, period // 4))
            c_pes = rng.randint(c_opt, max(c_opt, period * 2 // 3)) if hi else None
            vms.append(VM(f"v{i}", Criticality.HI if hi else Criticality.LO, period * MS,
                          c_opt * MS, None if c_pes is None else c_pes * MS))
        host = Host(1, vms)
        placement = first_fit(host)
        if not placement.admitted:
            continue
        pcpu = tick_pcpu(host, placement, 0)
        if pcpu.hyperperiod() <= hyperperiod and pcpu.x < 1:
            found.append(pcpu)
    return tuple(found)


# -- the obligations ----------------------------------------------------------------

def hi_guarantee_fig5(timeout: float) -> ProofVerdict:
    """On the paper's Fig. 5 pCPU (Type1 memcached beside three Type2 VMs, x = 1), no HI
    job of at most C_pes misses its deadline, whatever the LO jobs of at most C_opt do
    (EDF-VD, Baruah et al. 2012, Thm. 1; Akita paper Sec. 3.3)."""
    pcpu = example_pcpu("fig5")
    return check_hi_guarantee(pcpu, 3 * pcpu.hyperperiod(), timeout)


def hi_guarantee_fig7(timeout: float) -> ProofVerdict:
    """On the paper's Fig. 7 pCPU (Type6 beside three Type2 VMs, x = 2/5), no HI job of at
    most C_pes misses its deadline (EDF-VD, Baruah et al. 2012, Thm. 1)."""
    pcpu = example_pcpu("fig7")
    return check_hi_guarantee(pcpu, 3 * pcpu.hyperperiod(), timeout)


def hi_guarantee_carry_over(timeout: float) -> ProofVerdict:
    """With virtual deadlines (x = 1/10), the carry-over set meets every HI deadline
    (EDF-VD, Baruah et al. 2012: the virtual deadline makes the HI job run first)."""
    pcpu = carry_over()
    return check_hi_guarantee(pcpu, 3 * pcpu.hyperperiod(), timeout)


def hi_guarantee_two_hi(timeout: float) -> ProofVerdict:
    """With actual deadlines in HI mode, the two-HI set meets every HI deadline
    (EDF-VD's HI mode is EDF on actual deadlines, Baruah et al. 2012)."""
    pcpu = two_hi()
    return check_hi_guarantee(pcpu, pcpu.hyperperiod(), timeout)


def hi_guarantee_generated(timeout: float) -> ProofVerdict:
    """On eight seeded admitted pCPUs of 2-5 vCPUs with x < 1 (hyperperiods up to 60
    ticks), no HI job of at most C_pes misses in any behaviour over one hyperperiod
    (EDF-VD, Baruah et al. 2012, Thm. 1, as Akita runs it)."""
    notes = []
    for pcpu in generated_pcpus():
        share = timeout / len(generated_pcpus())
        verdict = check_hi_guarantee(pcpu, pcpu.hyperperiod(), share)
        if verdict.verdict != PROVED:
            return verdict
        notes.append(f"{len(pcpu.vcpus)} vCPUs/{pcpu.hyperperiod()} ticks")
    return ProofVerdict.proved("proved on: " + ", ".join(notes))


def control_no_virtual_deadlines(timeout: float) -> ProofVerdict:
    """Negative control: admitted by the plain EDF test (x = 1, no virtual deadlines), the
    carry-over set lets a HI job miss (EDF-VD's reason to shrink deadlines)."""
    pcpu = carry_over(test="edf")
    return check_hi_guarantee(pcpu, 3 * pcpu.hyperperiod(), timeout)


def control_edf_policy(timeout: float) -> ProofVerdict:
    """Negative control: under the ``edf`` policy (C_pes budgets, no modes, no virtual
    deadlines) the carry-over set lets a HI job miss."""
    pcpu = carry_over(policy="edf")
    return check_hi_guarantee(pcpu, 3 * pcpu.hyperperiod(), timeout)


def control_virtual_deadlines_in_hi_mode(timeout: float) -> ProofVerdict:
    """Negative control: keeping virtual deadlines in HI mode lets hi1 miss on the two-HI
    set (hi0's shrunk deadline runs ahead of hi1's actual one)."""
    pcpu = two_hi("virtual")
    return check_hi_guarantee(pcpu, pcpu.hyperperiod(), timeout)


def control_lo_ahead_in_hi_mode(timeout: float) -> ProofVerdict:
    """Negative control: running active LO vCPUs before runnable HI ones in HI mode lets a
    HI job miss on the carry-over set."""
    pcpu = attrs.evolve(carry_over(), variant="lo-ahead-in-hi")
    return check_hi_guarantee(pcpu, 3 * pcpu.hyperperiod(), timeout)


def _obligation(check, scope_pcpu, horizon, expected=PROVED, timeout=60.0):
    return Obligation(check.__name__, check, scope_of(scope_pcpu, horizon), expected, timeout)


def _obligations():
    fig5, fig7, carry, two = example_pcpu("fig5"), example_pcpu("fig7"), carry_over(), two_hi()
    return [
        _obligation(hi_guarantee_fig5, fig5, 3 * fig5.hyperperiod()),
        _obligation(hi_guarantee_fig7, fig7, 3 * fig7.hyperperiod()),
        _obligation(hi_guarantee_carry_over, carry, 3 * carry.hyperperiod()),
        _obligation(hi_guarantee_two_hi, two, two.hyperperiod()),
        Obligation("hi_guarantee_generated", hi_guarantee_generated,
                   "8 seeded pCPUs of 2-5 vCPUs, x < 1, hyperperiod <= 60 ticks, one "
                   "hyperperiod each, a job of 1..cap or none at each period start",
                   PROVED, 240.0),
        _obligation(control_no_virtual_deadlines, carry, 3 * carry.hyperperiod(), REFUTED),
        _obligation(control_edf_policy, carry, 3 * carry.hyperperiod(), REFUTED),
        _obligation(control_virtual_deadlines_in_hi_mode, two, two.hyperperiod(), REFUTED),
        _obligation(control_lo_ahead_in_hi_mode, carry, 3 * carry.hyperperiod(), REFUTED),
    ]


OBLIGATIONS = _obligations()

#: The rules each obligation checks (see the manifest).  The HI guarantee
#: rests on the whole policy, decided at every tick (R10 at tick granularity).
_POLICY = ("R2", "R3", "R4", "R5", "R6", "R7", "R10", "R13")
RULES = {
    "hi_guarantee_fig5": _POLICY, "hi_guarantee_fig7": _POLICY,
    "hi_guarantee_carry_over": _POLICY, "hi_guarantee_two_hi": _POLICY,
    "hi_guarantee_generated": _POLICY + ("R11",),
    "control_no_virtual_deadlines": ("R2",), "control_edf_policy": ("R2", "R5"),
    "control_virtual_deadlines_in_hi_mode": ("R6",), "control_lo_ahead_in_hi_mode": ("R6", "R7"),
}

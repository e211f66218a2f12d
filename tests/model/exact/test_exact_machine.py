"""The choice's tier table (model/exact/machine.py) against the rule it tabulates.

:func:`akita.model.exact.machine.winner` reads each vCPU's tier and key from
:attr:`~akita.model.exact.machine.Machine.tiers`, made once per pCPU from
:func:`~akita.model.exact.machine._tier` at positions 0 and 1 (its keys are linear in
the position).  The table must give :func:`_tier`'s tier and key at every position of
every vCPU's period, in both modes, active or not, under every option and variant; a
table read at positions 0 and 2 (a slope twice too steep) must fail the same check.
"""

from __future__ import annotations

from fractions import Fraction

import attrs
from hypothesis import given, settings

from exact_pcpus import tick_pcpus

from akita.model.exact.machine import Machine, Placed, _tier, machine
from akita.model.smt.pcpu import TickPCPU, TickVCPU


def disagreements(m: Machine) -> list[tuple[int, bool, bool, int]]:
    """Every ``(vCPU, HI mode, active, position)`` where the table and :func:`_tier` differ."""
    out = []
    for i in range(m.n):
        for mode in (False, True):
            for active in (False, True):
                placed: Placed = m.tiers[mode][i][active]
                for pos in range(m.period[i]):
                    rule = _tier(m, i, mode, active, pos)
                    table = None if placed is None else (placed[0], placed[1] - placed[2] * pos)
                    if table != rule:
                        out.append((i, mode, active, pos))
    return out


@settings(max_examples=80, deadline=None)
@given(tick_pcpus())
def test_the_table_is_the_rule_at_every_position(pcpu: TickPCPU) -> None:
    assert disagreements(machine(pcpu)) == []


def test_a_table_with_the_wrong_slope_is_caught() -> None:
    """Negative control: a table read at positions 0 and 2 differs from the rule wherever
    a key moves with the position (the first vCPU's deadline, here)."""
    pcpu = TickPCPU((TickVCPU("hi/0", True, 6, 1, 3, 0, 0),
                     TickVCPU("lo/0", False, 4, 1, None, 1, 0)), Fraction(1, 2))
    m = machine(pcpu)

    def wrong(i: int, mode: bool, active: bool) -> Placed:
        at0, at2 = _tier(m, i, mode, active, 0), _tier(m, i, mode, active, 2)
        return None if at0 is None or at2 is None else (at0[0], at0[1], at0[1] - at2[1])

    tiers = tuple(tuple((wrong(i, mode, False), wrong(i, mode, True)) for i in range(m.n))
                  for mode in (False, True))
    assert disagreements(m) == []
    assert disagreements(attrs.evolve(m, tiers=tiers))

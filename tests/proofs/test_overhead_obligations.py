"""The overhead obligations' pCPUs are what their claims say, and the bound is the model's."""

import pytest

from akita.model.overheads import switch_ins
from akita.proofs import overhead_obligations as ov

pytestmark = pytest.mark.rule("R11")


def test_the_fitting_pcpu_is_at_the_boundary_of_its_reserved_budgets():
    pcpu, bounds = ov._FIT, ov._FIT_N
    hi, lo = pcpu.vcpus
    assert bounds == (2, 6)
    assert (hi.period, hi.c_opt, hi.c_pes, lo.period, lo.c_opt) == (10, 3, 5, 20, 10)
    # U1 + U3 = 10/20 + 5/10 = 1: plain EDF's branch, exactly full
    assert 2 * lo.c_opt == lo.period and 2 * hi.c_pes == hi.period


def test_the_control_pcpu_reserves_more_than_the_pcpu_holds():
    hi, lo = ov._OVER.vcpus
    assert (hi.c_opt, hi.c_pes, lo.c_opt) == (4, 7, 16)
    assert lo.c_opt * 1 + hi.c_pes * 2 > 20


def test_the_counted_switches_are_the_admissions():
    from akita.model import VM, Criticality
    from akita.proofs.support import MS
    hi = VM("hi", Criticality.HI, 10 * MS, MS, 3 * MS).vcpu(0)
    lo = VM("lo", Criticality.LO, 20 * MS, 4 * MS).vcpu(0)
    assert (switch_ins(hi, [lo]), switch_ins(lo, [hi])) == ov._FIT_N

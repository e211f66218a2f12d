"""One catalogue of wrong variants: the simulator's mutants and the Z3 variants read it by name."""

from __future__ import annotations

import pytest

from akita.model import ModelError
from akita.model.rules import rule_ids
from akita.model.smt.pcpu import VARIANTS
from akita.model.variants import SIDES, SIMULATOR, WRONG_VARIANTS, Z3, wrong_variant
from akita.reference.mutants import MUTANTS

#: The sides each implementation carries, by name.
CARRIED = {SIMULATOR: {m.name: m.rule for m in MUTANTS}, Z3: dict(VARIANTS)}

#: The variants with one side, and why (the catalogue says it in full).
ONE_SIDED = {
    "wrong-tie-break": "Z3 has the other queue_order instead",
    "no-virtual-deadline": "Z3 has the edf admission test (x = 1) instead",
    "late-mode-switch": "1 ms is not a whole number of ticks everywhere",
    "budget-overrun": "1 ms is not a whole number of ticks everywhere",
    "idle-while-runnable": "Z3 has lo_in_hi_mode = false instead",
    "no-wake-preempt": "the Z3 model decides at every tick",
    "last-fit": "placement, not a pCPU's schedule: Z3's packing has its own controls",
}


def test_each_variant_has_exactly_the_sides_it_declares_with_its_rule():
    for variant in WRONG_VARIANTS:
        assert {side for side in SIDES if variant.name in CARRIED[side]} == set(variant.sides)
        assert all(CARRIED[side][variant.name] == variant.rule for side in variant.sides)
        assert variant.rule in rule_ids()


def test_every_side_reads_the_catalogue():
    names = [v.name for v in WRONG_VARIANTS]
    assert len(set(names)) == len(names)
    assert set(CARRIED[SIMULATOR]) | set(CARRIED[Z3]) <= set(names)
    assert [m.name for m in MUTANTS] == [v.name for v in WRONG_VARIANTS if SIMULATOR in v.sides]
    assert all(m.text == wrong_variant(m.name).text for m in MUTANTS)


def test_a_one_sided_variant_says_why_and_a_two_sided_one_does_not():
    one_sided = {v.name for v in WRONG_VARIANTS if len(v.sides) == 1}
    assert one_sided == set(ONE_SIDED)
    assert all(bool(v.why) == (v.name in ONE_SIDED) for v in WRONG_VARIANTS)
    assert all(v.sides == (SIMULATOR,) for v in WRONG_VARIANTS if v.name in ONE_SIDED)


def test_a_variant_that_loses_a_side_is_found():
    lost = {**CARRIED, Z3: {n: r for n, r in VARIANTS.items() if n != "no-cooling"}}
    variant = wrong_variant("no-cooling")
    assert {side for side in SIDES if variant.name in lost[side]} != set(variant.sides)


def test_an_unknown_variant_is_a_model_error():
    with pytest.raises(ModelError, match="no-such"):
        wrong_variant("no-such")

"""One catalogue of wrong variants: the simulator's mutants, the Z3 variants and the Linux
controller's variants read it by name."""

from __future__ import annotations

import pytest

from akita.cli.linux import linux
from akita.linux.controller import VARIANTS as LINUX_VARIANTS
from akita.model import ModelError
from akita.model.rules import rule_ids
from akita.model.smt.pcpu import VARIANTS
from akita.model.variants import (LINUX, MODELS, SIDES, SIMULATOR, WRONG_VARIANTS, Z3,
                                  carried_by, wrong_variant)
from akita.reference.mutants import MUTANTS

#: The Linux controller's own names -> the catalogue's (the controller keeps its names).
LINUX_NAMES = {v.name_on(LINUX): v.name for v in WRONG_VARIANTS}

#: The sides each implementation carries, by name (the controller's variants have no rule of
#: their own: the catalogue's is theirs).
CARRIED = {SIMULATOR: {m.name: m.rule for m in MUTANTS}, Z3: dict(VARIANTS),
           LINUX: {LINUX_NAMES[n]: wrong_variant(LINUX_NAMES[n]).rule
                   for n in LINUX_VARIANTS if n != "correct"}}

#: The variants that lack the simulator's side or Z3's, and why (the catalogue says it in
#: full).
ONE_SIDED = {
    "wrong-tie-break": "Z3 has the other queue_order instead",
    "no-virtual-deadline": "Z3 has the edf admission test (x = 1) instead",
    "late-mode-switch": "1 ms is not a whole number of ticks everywhere",
    "budget-overrun": "1 ms is not a whole number of ticks everywhere",
    "idle-while-runnable": "Z3 has lo_in_hi_mode = false instead",
    "no-wake-preempt": "the Z3 model decides at every tick",
    "last-fit": "placement, not a pCPU's schedule: Z3's packing has its own controls",
    "throttle-past-vd": "the kernel's throttle of a late wake-up: R2 and R4 hold elsewhere",
}


def test_each_variant_has_exactly_the_sides_it_declares_with_its_rule():
    for variant in WRONG_VARIANTS:
        assert {side for side in SIDES if variant.name in CARRIED[side]} == set(variant.sides)
        assert all(CARRIED[side][variant.name] == variant.rule for side in variant.sides)
        assert variant.rule in rule_ids()


def test_every_side_reads_the_catalogue():
    names = [v.name for v in WRONG_VARIANTS]
    assert len(set(names)) == len(names)
    assert set(CARRIED[SIMULATOR]) | set(CARRIED[Z3]) | set(CARRIED[LINUX]) <= set(names)
    assert [m.name for m in MUTANTS] == [v.name for v in WRONG_VARIANTS if SIMULATOR in v.sides]
    assert all(m.text == wrong_variant(m.name).text for m in MUTANTS)


def test_a_one_sided_variant_says_why_and_a_two_sided_one_does_not():
    one_sided = {v.name for v in WRONG_VARIANTS if not set(MODELS) <= set(v.sides)}
    assert one_sided == set(ONE_SIDED)
    assert all(bool(v.why) == (v.name in ONE_SIDED) for v in WRONG_VARIANTS)
    assert all(len(v.sides) == 1 for v in WRONG_VARIANTS if v.name in ONE_SIDED)


def test_the_linux_controller_and_its_command_line_read_the_catalogue():
    """The controller's variants are the catalogue's Linux side, in its order, under the
    names its captures and ``akita linux --variant`` keep; the command line offers exactly
    them."""
    assert LINUX_VARIANTS == ("correct", *(v.name_on(LINUX) for v in carried_by(LINUX)))
    assert LINUX_VARIANTS[1:] == ("no-switch", "no-cooling", "lo-in-deadline",
                                  "throttle-past-vd")
    assert {n: wrong_variant(LINUX_NAMES[n]).rule for n in LINUX_VARIANTS[1:]} == {
        "no-switch": "R5", "no-cooling": "R8", "lo-in-deadline": "R6", "throttle-past-vd": "R4"}
    (choice,) = [p for p in linux.params if p.name == "variant"]
    assert tuple(choice.type.choices) == LINUX_VARIANTS
    assert all(v.name_on(side) == v.name for v in WRONG_VARIANTS for side in MODELS)


def test_a_variant_that_loses_a_side_is_found():
    lost = {**CARRIED, Z3: {n: r for n, r in VARIANTS.items() if n != "no-cooling"}}
    variant = wrong_variant("no-cooling")
    assert {side for side in SIDES if variant.name in lost[side]} != set(variant.sides)


def test_an_unknown_variant_is_a_model_error():
    with pytest.raises(ModelError, match="no-such"):
        wrong_variant("no-such")

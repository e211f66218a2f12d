"""Each proof obligation's budget of Z3's resource count (its ``rlimit``).

The budget is what decides when a check gives up (``unknown``), so that the
verdict does not depend on the machine's load
(:mod:`akita.model.smt.resources`).  Each figure is calibrated from a
measurement: ``akita prove --rlimit 0 --json`` reports what each obligation
spent (``rlimit_used``); the budget is :data:`MARGIN` times that, rounded up
to two significant digits, so that today's verdicts hold with room for
changes in Z3 and in the encodings.  An obligation missing here would
have no budget (0), only its wall-clock guard; every obligation of the
manifest has one (``tests/cli/test_cli_prove.py``).
"""

from __future__ import annotations

__all__ = ["RLIMITS", "MARGIN"]

#: The budget is this many times the measured count.
MARGIN = 4

#: Obligation name -> its budget (units of Z3's ``rlimit count``), with what it spent when
#: measured (``python bench/rlimits.py --shard I/2`` and ``python bench/rlimits.py NAME...``,
#: several processes side by side on a machine loaded by other work: the counts do not
#: depend on the load, only on what ran before in the same process).
RLIMITS: dict[str, int] = {
    "edf_vd_z3_agrees_with_reference": 37_000_000,  # spent 9,148,113
    "negative_control_no_guard": 51_000,  # spent 12,715
    "edf_vd_z3_agrees_on_generated_sets": 10_000,  # spent 0
    "negative_control_strict_boundary": 10_000,  # spent 0
    "negative_control_float_boundary": 10_000,  # spent 0
    "utilization_corollary": 10_000,  # spent 1,274
    "negative_control_corollary_4_5": 10_000,  # spent 1,318
    "utilization_bound_3_4_plus_1_100_fails": 10_000,  # spent 1,340
    "utilization_corollary_is_tight": 10_000,  # spent 199
    "negative_control_tightness_at_eps_0": 10_000,  # spent 216
    "admitted_implies_x_at_most_1": 12_000,  # spent 2,985
    "negative_control_x_below_9_10": 11_000,  # spent 2,611
    "edf_vd_test_is_monotone": 13_000,  # spent 3,118
    "negative_control_x_never_grows": 14_000,  # spent 3,390
    "first_fit_placements_are_valid": 110_000,  # spent 25,634
    "negative_control_first_fit_without_new_vcpu": 55_000,  # spent 13,604
    "first_fit_rejection_is_final": 140_000,  # spent 33,326
    "negative_control_rejection_final_with_rollback": 20_000,  # spent 4,992
    "first_fit_vs_optimum": 56_000_000,  # spent 13,778,133
    "negative_control_unchecked_first_fit_vs_optimum": 1_400_000,  # spent 325,817
    "hi_guarantee_fig5": 110_000_000,  # spent 25,756,441
    "hi_guarantee_fig7": 220_000_000,  # spent 54,768,546
    "hi_guarantee_carry_over": 410_000_000,  # spent 102,354,435
    "hi_guarantee_two_hi": 1_700_000_000,  # spent 401,523,091
    "hi_guarantee_generated": 360_000_000,  # spent 89,083,469
    "control_no_virtual_deadlines": 130_000_000,  # spent 30,161,337
    "control_edf_policy": 80_000_000,  # spent 19,836,012
    "control_virtual_deadlines_in_hi_mode": 570_000_000,  # spent 142,270,705
    "control_lo_ahead_in_hi_mode": 160_000_000,  # spent 37,726,794
    "hi_guarantee_in_phase": 290_000,  # spent 71,106
    "control_out_of_phase": 1_400_000,  # spent 333,325
    "lo_supply_in_lo_mode": 420_000_000,  # spent 104,124,008
    "control_lo_supply_without_r5": 100_000_000,  # spent 24,940,777
    "hi_mode_only_after_overrun": 170_000_000,  # spent 42,251,731
    "control_eager_switch": 54_000_000,  # spent 13,333,867
    "hi_to_lo_within_bound": 58_000_000,  # spent 14,423,956
    "control_never_cool": 6_300_000,  # spent 1,570,169
    "never_idle_while_runnable": 260_000_000,  # spent 63,849,592
    "control_no_lo_in_hi_mode": 50_000_000,  # spent 12,454,569
    "cal_bound_cooling": 5_800_000,  # spent 1,433,037
    "cal_bound_fig5": 320_000_000,  # spent 77,678,524
    "control_cal_virtual_bound_in_hi_mode": 460_000_000,  # spent 113,676,183
    "control_cal_lo_bound_in_hi_mode": 660_000_000,  # spent 164,513,127
    "control_cal_no_virtual_deadlines": 48_000_000,  # spent 11,774,380
}

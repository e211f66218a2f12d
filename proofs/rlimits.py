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
#: measured (``python bench/rlimits.py --shard 0/2`` and ``--shard 1/2`` side by side, on a
#: machine loaded by other work: each obligation discharged alone, in a fresh interpreter, so
#: the count depends neither on the load nor on what ran before it; decision 355).
RLIMITS: dict[str, int] = {
    "edf_vd_z3_agrees_with_reference": 51_000_000,  # spent 12,689,509
    "negative_control_no_guard": 51_000,  # spent 12,715
    "edf_vd_z3_agrees_on_generated_sets": 10_000,  # spent 0
    "negative_control_strict_boundary": 10_000,  # spent 0
    "negative_control_float_boundary": 10_000,  # spent 0
    "utilization_corollary": 10_000,  # spent 1,274
    "negative_control_corollary_4_5": 10_000,  # spent 1,318
    "utilization_bound_3_4_plus_1_100_fails": 10_000,  # spent 1,340
    "utilization_corollary_is_tight": 10_000,  # spent 199
    "negative_control_tightness_at_eps_0": 10_000,  # spent 216
    "admitted_implies_x_at_most_1": 12_000,  # spent 2,982
    "negative_control_x_below_9_10": 11_000,  # spent 2,611
    "edf_vd_test_is_monotone": 13_000,  # spent 3,118
    "negative_control_x_never_grows": 14_000,  # spent 3,390
    "first_fit_placements_are_valid": 93_000,  # spent 23,045
    "negative_control_first_fit_without_new_vcpu": 54_000,  # spent 13,446
    "first_fit_rejection_is_final": 140_000,  # spent 33,276
    "negative_control_rejection_final_with_rollback": 20_000,  # spent 4,992
    "first_fit_vs_optimum": 56_000_000,  # spent 13,929,604
    "negative_control_unchecked_first_fit_vs_optimum": 1_400_000,  # spent 349,257
    "hi_guarantee_fig5": 270_000_000,  # spent 65,877,904
    "hi_guarantee_fig7": 390_000_000,  # spent 97,221,286
    "hi_guarantee_carry_over": 560_000_000,  # spent 137,513,057
    "hi_guarantee_two_hi": 2_300_000_000,  # spent 562,822,038
    "hi_guarantee_generated": 410_000_000,  # spent 100,183,077
    "control_no_virtual_deadlines": 190_000_000,  # spent 46,519,123
    "control_edf_policy": 80_000_000,  # spent 19,836,012
    "control_virtual_deadlines_in_hi_mode": 270_000_000,  # spent 65,946,543
    "control_lo_ahead_in_hi_mode": 200_000_000,  # spent 48,421,196
    "hi_guarantee_in_phase": 280_000,  # spent 69,901
    "control_out_of_phase": 1_400_000,  # spent 339,134
    "lo_supply_in_lo_mode": 430_000_000,  # spent 107,438,987
    "control_lo_supply_without_r5": 85_000_000,  # spent 21,116,864
    "hi_mode_only_after_overrun": 150_000_000,  # spent 37,313,625
    "control_eager_switch": 73_000_000,  # spent 18,089,020
    "hi_to_lo_within_bound": 51_000_000,  # spent 12,578,762
    "control_never_cool": 13_000_000,  # spent 3,106,525
    "never_idle_while_runnable": 300_000_000,  # spent 74,409,163
    "control_no_lo_in_hi_mode": 93_000_000,  # spent 23,055,096
    "cal_bound_cooling": 5_900_000,  # spent 1,472,881
    "cal_bound_fig5": 330_000_000,  # spent 81,713,639
    "control_cal_virtual_bound_in_hi_mode": 560_000_000,  # spent 139,514,399
    "control_cal_lo_bound_in_hi_mode": 200_000_000,  # spent 47,997,758
    "control_cal_no_virtual_deadlines": 46_000_000,  # spent 11,479,861
    "budgets_hold": 11_000_000,  # spent 2,703,728
    "control_hi_first_overruns": 6_200_000,  # spent 1,538,827
    "control_budget_first_overruns": 6_600_000,  # spent 1,633,285
    "switch_count_within_bound": 49_000_000,  # spent 12,247,048
    "control_two_switches_a_job": 25_000_000,  # spent 6,127,940
    "hi_guarantee_with_overheads": 34_000_000,  # spent 8,435,526
    "control_cost_ignored": 19_000_000,  # spent 4,724,276
}

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
    "edf_vd_z3_agrees_with_reference": 47_000_000,  # spent 11,683,452
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
    "first_fit_placements_are_valid": 82_000,  # spent 20,391
    "negative_control_first_fit_without_new_vcpu": 55_000,  # spent 13,604
    "first_fit_rejection_is_final": 140_000,  # spent 33,326
    "negative_control_rejection_final_with_rollback": 20_000,  # spent 4,992
    "first_fit_vs_optimum": 55_000_000,  # spent 13,688,665
    "negative_control_unchecked_first_fit_vs_optimum": 1_400_000,  # spent 325,817
    "hi_guarantee_fig5": 130_000_000,  # spent 30,294,798
    "hi_guarantee_fig7": 740_000_000,  # spent 182,745,465
    "hi_guarantee_carry_over": 650_000_000,  # spent 160,108,079
    "hi_guarantee_two_hi": 2_300_000_000,  # spent 555,253,400
    "hi_guarantee_generated": 380_000_000,  # spent 94,536,819
    "control_no_virtual_deadlines": 230_000_000,  # spent 55,153,836
    "control_edf_policy": 160_000_000,  # spent 38,052,767
    "control_virtual_deadlines_in_hi_mode": 450_000_000,  # spent 110,857,582
    "control_lo_ahead_in_hi_mode": 200_000_000,  # spent 48,483,723
    "hi_guarantee_in_phase": 270_000,  # spent 66,093
    "control_out_of_phase": 1_500_000,  # spent 361,501
    "lo_supply_in_lo_mode": 470_000_000,  # spent 116,231,583
    "control_lo_supply_without_r5": 54_000_000,  # spent 13,276,611
    "hi_mode_only_after_overrun": 150_000_000,  # spent 36,766,816
    "control_eager_switch": 120_000_000,  # spent 28,546,541
    "hi_to_lo_within_bound": 47_000_000,  # spent 11,613,057
    "control_never_cool": 13_000_000,  # spent 3,114,657
    "never_idle_while_runnable": 290_000_000,  # spent 70,054,692
    "control_no_lo_in_hi_mode": 86_000_000,  # spent 21,423,579
    "cal_bound_cooling": 7_800_000,  # spent 1,926,480
    "cal_bound_fig5": 290_000_000,  # spent 71,124,210
    "control_cal_virtual_bound_in_hi_mode": 410_000_000,  # spent 100,426,169
    "control_cal_lo_bound_in_hi_mode": 230_000_000,  # spent 56,828,638
    "control_cal_no_virtual_deadlines": 49_000_000,  # spent 12,231,809
    "budgets_hold": 8_800_000,  # spent 2,186,489
    "control_hi_first_overruns": 8_400_000,  # spent 2,084,863
    "control_budget_first_overruns": 16_000_000,  # spent 3,993,469
    "switch_count_within_bound": 56_000_000,  # spent 13,974,368
    # spent 2,096,269 alone but 8,494,341 after the other admission obligations in one
    # process (Z3's state carries over; the fast tier runs them so): 4x the larger
    "control_two_switches_a_job": 34_000_000,
    "hi_guarantee_with_overheads": 40_000_000,  # spent 9,950,516
    "control_cost_ignored": 31_000_000,  # spent 7,725,339
}

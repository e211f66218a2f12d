"""The exact test in a sweep (docs/sweep.rst, :ref:`exact-admission`): it accepts every
set EDF-VD accepts, a set it cannot decide within the state limit is counted UNKNOWN and
never accepted, and the counts are those of the test run on each set alone."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from akita.model import ADMISSION_TESTS, SchedulerOptions, UtilizationSums
from akita.model.exact.admission import ExactTest
from akita.model.exact.search import Limits
from akita.model.taskgen import TaskSetGenerator, set_random
from akita.sweep.batches import Batch, Job, run_job

MS = 1_000_000
#: Table 1's periods (50 and 100 ms) and budgets (multiples of 5 ms), three vCPUs.
TABLE_1 = TaskSetGenerator("uunifast", 3, (50 * MS, 100 * MS), "uniform", granularity=5 * MS)


def _job(utilization: Fraction, count: int, states: int) -> Job:
    return Job(Batch(0, utilization, 0, count), 7, ("edf-vd", "exact"), TABLE_1, states)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 10**6),
       st.fractions(min_value=Fraction(1, 2), max_value=1, max_denominator=20))
def test_exact_accepts_every_set_edf_vd_accepts(seed, index, u):
    sums = UtilizationSums.of(TABLE_1.draw(set_random(seed, u, index), u).vcpus)
    exact = ExactTest(SchedulerOptions(), Limits(states=200_000, seconds=float("inf")))
    verdict = exact.decide(sums)
    assert verdict.schedulable or not ADMISSION_TESTS["edf-vd"](sums).schedulable
    if verdict.schedulable and verdict.detail is not None:
        assert verdict.detail["answer"] == "SAFE"


def test_a_batch_counts_what_each_set_gets_alone():
    u = Fraction(9, 10)
    result = run_job(_job(u, 12, 200_000))
    expected = [0, 0]
    for index in range(12):
        sums = UtilizationSums.of(TABLE_1.draw(set_random(7, u, index), u).vcpus)
        expected[0] += ADMISSION_TESTS["edf-vd"](sums).schedulable
        exact = ExactTest(SchedulerOptions(), Limits(states=200_000, seconds=float("inf")))
        expected[1] += exact.decide(sums).schedulable
    assert list(result.accepted) == expected
    assert result.accepted[1] >= result.accepted[0]


def test_a_state_limit_reached_is_unknown_and_not_accepted():
    u = Fraction(19, 20)
    generous, starved = run_job(_job(u, 12, 200_000)), run_job(_job(u, 12, 1))
    searched = generous.accepted[1] - generous.accepted[0]
    assert searched > 0, "no set needed the search: the control checks nothing"
    assert starved.unknown > 0
    # a starved search admits nothing beyond EDF-VD's fast path
    assert starved.accepted[1] == starved.accepted[0]
    assert generous.unknown == 0

"""Per drawn set, the tests keep the orders the docs state (docs/sweep.rst): amc-rtb
accepts whatever rm-rta accepts, rm-rta whatever rm-ll does, edf whatever edf-vd does."""

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from akita.model import ADMISSION_TESTS, UtilizationSums
from akita.model.taskgen import TaskSetGenerator, set_random

MS = 1_000_000
GENERATOR = TaskSetGenerator("uunifast", 12, (10 * MS, 1000 * MS), granularity=100_000)
#: (weaker, stronger): every set the first accepts, the second accepts.
ORDERS = (("rm-rta", "amc-rtb"), ("rm-ll", "rm-rta"), ("edf-vd", "edf"))


@given(st.integers(0, 2**32), st.integers(0, 10**6),
       st.fractions(min_value=Fraction(2, 5), max_value=1, max_denominator=40))
def test_each_set_keeps_the_dominance_orders(seed, index, u):
    sums = UtilizationSums.of(GENERATOR.draw(set_random(seed, u, index), u).vcpus)
    names = {name for pair in ORDERS for name in pair}
    verdicts = {name: ADMISSION_TESTS[name](sums).schedulable for name in names}
    for weaker, stronger in ORDERS:
        assert verdicts[stronger] or not verdicts[weaker], (weaker, stronger)

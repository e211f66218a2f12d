"""Hosts shared by tests in several folders."""

from fractions import Fraction

from akita.model import VM, Criticality, Host, Workload

MS = 1_000_000

#: A host on which every mutant's schedule diverges from the reference one
#: (``tests/reference/test_mutants.py``), and the oracle must name each
#: (``tests/oracle/test_oracle.py``).
MUTANT_HOST = Host(2, [
    VM("hi", Criticality.HI, 10 * MS, 2 * MS, 6 * MS,
       workload=Workload("sporadic", demand=6 * MS, min_demand=MS, probability=Fraction(1))),
    VM("io", Criticality.HI, 10 * MS, MS, MS,
       workload=Workload("periodic", demand=MS // 2, offset=7 * MS)),
    VM("lo1", Criticality.LO, 10 * MS, 2 * MS),
    VM("lo2", Criticality.LO, 10 * MS, 2 * MS),
])

#: Fig. 7's pCPU with every VM cpu-bound and in phase: a HI VM owed ``C_pes/T`` = 50%
#: (Type6) beside three LO VMs (Type2) that would each take 25%; 125% of demand.
CPU_BOUND_FIG7 = Host(1, [
    VM("hi", Criticality.HI, 100 * MS, 10 * MS, 50 * MS),
    *(VM(f"lookbusy{i}", Criticality.LO, 100 * MS, 25 * MS) for i in (1, 2, 3)),
])

"""Z3 encodings of the model: the EDF-VD test, one pCPU's schedule, packing.

Every constraint carries a name in domain words (:mod:`.named`), so that a
counterexample or an unsat core reads back as "hi/0 demand in period 2".
"""

"""The whole proof manifest, discharged: every obligation reaches its expected verdict.

The long tier (``pytest -m long``) runs every obligation
:func:`akita.proofs.manifest.load` declares (what ``akita prove`` runs), the
safety claims and their negative controls alike; the fast tier runs the
admission obligations (those of R1, R11 and R12 alone: the arithmetic of
EDF-VD and of first fit, each a few seconds at most), the schedule
obligations unrolling pCPUs tick by tick being most of the manifest's time.
Each is discharged once a session, alone (the ``outcomes`` fixture of
``tests/conftest.py``, in a fresh interpreter, shares an outcome with the
tests that read its counterexample).  In the long tier each obligation is a
test class of its own, the unit that ``--dist loadscope`` schedules, so the
two workers share the manifest, heaviest budget first (decision 354).  A
refutation must carry its counterexample, and a schedule counterexample
names the jobs and the schedule that lead to the miss.
"""

import pytest

from akita.proofs import hi_guarantee, manifest, mode_obligations
from akita.proofs.obligation import Obligation

OBLIGATIONS = manifest.load()
SCHEDULE = {o.name for o in hi_guarantee.OBLIGATIONS + mode_obligations.OBLIGATIONS}
#: The rules of the admission obligations, which the fast tier discharges.
ADMISSION_RULES = {"R1", "R11", "R12"}
ADMISSION = [o for o in OBLIGATIONS if set(o.rules) <= ADMISSION_RULES]


def _rules(test) -> set[str]:
    return {rule for mark in test.pytestmark if mark.name == "rule" for rule in mark.args}


def reaches_its_expected_verdict(outcomes, obligation) -> None:
    outcome = outcomes[obligation.name]
    assert outcome.verdict.verdict == obligation.expected, outcome.verdict.reason
    example = outcome.verdict.counterexample
    assert bool(example) == (obligation.expected == "refuted")  # only a refutation has one
    if example and obligation.name in SCHEDULE:
        assert example["jobs"] and example["schedule"]
        assert any(job["vcpu"].endswith("/0") for job in example["jobs"])


# Every rule has an obligation in the manifest (the union of Obligation.rules).
@pytest.mark.long
@pytest.mark.rule("R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12",
                  "R13", "R14")
class EveryObligation:
    """One obligation of the manifest (:attr:`obligation`); not collected itself, it is
    the base of one ``TestObligation_NAME`` class per obligation, declared below."""

    obligation: Obligation

    def test_reaches_its_expected_verdict(self, outcomes):
        reaches_its_expected_verdict(outcomes, self.obligation)


# Heaviest budget first: the long obligations start early and the short ones fill the end.
for _obligation in sorted(OBLIGATIONS, key=lambda o: -o.rlimit):
    _name = f"TestObligation_{_obligation.name}"
    globals()[_name] = type(_name, (EveryObligation,), {"obligation": _obligation})


@pytest.mark.rule("R1", "R11", "R12")
@pytest.mark.parametrize("obligation", ADMISSION, ids=lambda o: o.name)
def test_admission_obligation_reaches_its_expected_verdict(outcomes, obligation):
    reaches_its_expected_verdict(outcomes, obligation)


def test_the_marks_are_the_manifest_rules():
    assert {r for o in OBLIGATIONS for r in o.rules} == _rules(EveryObligation)
    assert {r for o in ADMISSION for r in o.rules} == _rules(
        test_admission_obligation_reaches_its_expected_verdict) == ADMISSION_RULES
    assert len(ADMISSION) < len(OBLIGATIONS)


def test_each_obligation_is_a_class_of_its_own():
    classes = [value for name, value in globals().items() if name.startswith("TestObligation_")]
    assert sorted(c.obligation.name for c in classes) == sorted(o.name for o in OBLIGATIONS)

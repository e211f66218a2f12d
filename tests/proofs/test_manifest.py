"""The whole proof manifest, discharged: every obligation reaches its expected verdict.

One test runs every obligation :func:`akita.proofs.manifest.load` declares
(what ``akita prove`` runs), the safety claims and their negative controls
alike, each once a session (the ``outcomes`` fixture of ``tests/conftest.py``
shares an outcome with the tests that read its counterexample).  A
refutation must carry its counterexample, and a schedule counterexample
names the jobs and the schedule that lead to the miss.
"""

import pytest

from akita.proofs import hi_guarantee, manifest, mode_obligations

# Every rule has an obligation in the manifest (the union of Obligation.rules).
pytestmark = pytest.mark.rule(
    "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12", "R13",
    "R14")

OBLIGATIONS = manifest.load()
SCHEDULE = {o.name for o in hi_guarantee.OBLIGATIONS + mode_obligations.OBLIGATIONS}


def test_the_marks_are_the_manifest_rules():
    assert {r for o in OBLIGATIONS for r in o.rules} == set(pytestmark.args)


@pytest.mark.parametrize("obligation", OBLIGATIONS, ids=lambda o: o.name)
def test_obligation_reaches_its_expected_verdict(outcomes, obligation):
    outcome = outcomes[obligation.name]
    assert outcome.verdict.verdict == obligation.expected, outcome.verdict.reason
    example = outcome.verdict.counterexample
    assert bool(example) == (obligation.expected == "refuted")  # only a refutation has one
    if example and obligation.name in SCHEDULE:
        assert example["jobs"] and example["schedule"]
        assert any(job["vcpu"].endswith("/0") for job in example["jobs"])

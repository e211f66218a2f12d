"""An obligation discharged alone spends, and concludes, the same whatever ran before it.

:func:`akita.proofs.obligation.discharge_alone` runs the obligation in a fresh
interpreter, so what the calling process ran before -- other obligations,
discharged alone or in the process itself -- cannot move its spend of Z3's
resource count (its ``rlimit``) or its verdict (decision 353).  The wrong
variant, both obligations discharged in one process (as the tests did
before), is measured too: there the spend of the second depends on the
first, which is what the equality below would catch.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from akita.proofs import manifest
from akita.proofs.obligation import Outcome, discharge, discharge_alone

OBLIGATIONS = {o.name: o for o in manifest.load()}
#: (ran before, then discharged): cheap obligations whose spend, discharged in one process,
#: moves with what ran before it there (measured: the wrong variant below).
PAIRS = [
    ("negative_control_no_guard", "first_fit_placements_are_valid"),
    ("first_fit_placements_are_valid", "negative_control_no_guard"),
]


def _what(outcome: Outcome) -> tuple[object, ...]:
    verdict = outcome.verdict
    return (verdict.verdict, verdict.counterexample, verdict.reason, outcome.rlimit,
            outcome.rlimit_used)


def _in_one_process(names: list[str]) -> list[int]:
    """The wrong variant: *names* discharged one after another in one fresh process; what
    each spent."""
    code = ("import json, sys; from akita.proofs import manifest; "
            "from akita.proofs.obligation import discharge; "
            "by_name = {o.name: o for o in manifest.load()}; "
            "print(json.dumps([discharge(by_name[n]).rlimit_used for n in sys.argv[1:]]))")
    done = subprocess.run([sys.executable, "-c", code, *names], capture_output=True,
                          text=True, timeout=600, check=True)
    return list(json.loads(done.stdout))


@pytest.mark.parametrize("before, name", PAIRS)
def test_alone_the_spend_and_verdict_do_not_depend_on_what_ran_before(before, name):
    first = discharge_alone(OBLIGATIONS[name])
    discharge(OBLIGATIONS[before])  # this process's solver state is no longer fresh
    discharge_alone(OBLIGATIONS[before])
    again = discharge_alone(OBLIGATIONS[name])
    assert _what(again) == _what(first)
    assert first.passed and first.rlimit_used > 0
    # and it is what a fresh interpreter spends on this obligation first
    assert _in_one_process([name]) == [first.rlimit_used]


@pytest.mark.parametrize("before, name", PAIRS)
def test_wrong_variant_in_one_process_the_spend_depends_on_what_ran_before(before, name):
    alone = _in_one_process([name])[0]
    after = _in_one_process([before, name])[1]
    assert after != alone


def test_alone_returns_the_obligation_given_and_raises_what_the_check_raises():
    from akita.proofs.obligation import Obligation

    outcome = discharge_alone(OBLIGATIONS["utilization_corollary"])
    assert outcome.obligation is OBLIGATIONS["utilization_corollary"]
    crashing = Obligation("crashes", _crashes, "nothing")
    with pytest.raises(RuntimeError, match="boom"):
        discharge_alone(crashing)


def _crashes(timeout: float) -> object:
    """A check with a bug (fake)."""
    raise RuntimeError("boom")

"""The mutants of ``akita``: each one really schedules differently.

One small host serves every mutant.  Two pCPUs (first fit fills pCPU 0, last
fit pCPU 1); on pCPU 0, with equal periods of 10 ms and x = 1/2:

* ``hi``: HI, C_opt 2 ms, C_pes 6 ms, a job every period of 1 to 6 ms --
  it overruns C_opt in most periods (mode switches, temperatures) but not
  all (cooling, HI -> LO); its virtual deadline is half its period;
* ``io``: HI, a 0.5 ms job 7 ms into each period (a wake that preempts);
* ``lo1``, ``lo2``: LO, cpu-bound, C_opt 2 ms (equal keys, budgets that run
  out, background work).
"""

import io
import os
import tempfile
from fractions import Fraction

import pytest
from hosts import MUTANT_HOST
from strategies import MS

from akita.model import VM, Criticality, Host, ModelError, first_fit
from akita.reference.mutants import MUTANTS, Mutant, last_fit, mutant_named, simulate_mutant
from akita.reference.policies import POLICIES, AkitaPolicy
from akita.reference.run import simulate

DURATION = 200 * MS
HOST = MUTANT_HOST
AKITA = Mutant("akita", "", "the reference itself", AkitaPolicy)


def trace_of(mutant: Mutant, seed: int = 1) -> list[str]:
    out = io.StringIO()
    simulate_mutant(HOST, mutant, duration=DURATION, seed=seed, trace=out)
    return out.getvalue().splitlines()


@pytest.fixture(scope="module")
def reference() -> list[str]:
    return trace_of(AKITA)


def test_the_harness_runs_the_reference_as_simulate_does(reference):
    handle, path = tempfile.mkstemp(suffix=".jsonl")
    os.close(handle)
    try:
        simulate(HOST, "akita", duration=DURATION, trace_path=path)
        with open(path, encoding="utf-8") as trace:
            assert trace.read().splitlines() == reference
    finally:
        os.unlink(path)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_mutant_changes_the_schedule(mutant, reference):
    lines = trace_of(mutant)
    assert lines[0] == reference[0]  # the same header: a mutant claims to be akita
    assert lines != reference, f"{mutant.name} schedules as akita does"


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_mutant_names_the_rule_it_breaks(mutant):
    assert mutant.rule in {f"R{i}" for i in range(2, 13)}
    wrong = mutant.place if mutant.place is not first_fit else mutant.policy
    assert wrong.__doc__.startswith(f"Breaks {mutant.rule}:")
    assert mutant.text.endswith(".")
    assert issubclass(mutant.policy, AkitaPolicy)


def test_names_are_unique_and_resolve():
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names)) == 12
    assert all(mutant_named(name).name == name for name in names)
    assert not set(names) & set(POLICIES)


def test_an_unknown_name_is_a_model_error():
    with pytest.raises(ModelError) as error:
        mutant_named("no-such-mutant")
    assert error.value.field == "name"  # the parameter: no command has a --mutant
    assert "wrong-tie-break" in error.value.expected


def test_last_fit_fills_the_last_pcpu_all_or_nothing():
    placement = last_fit(HOST)
    assert [vm.pcpus for vm in placement.vms] == [(1,), (1,), (1,), (1,)]
    assert placement.pcpus[1].verdict.x == Fraction(1, 2)
    assert placement.pcpus[0].vcpus == ()
    big = VM("big", Criticality.LO, 10 * MS, 6 * MS, vcpus=3)  # the third vCPU fits nowhere
    small = VM("small", Criticality.LO, 10 * MS, 6 * MS)
    placement = last_fit(Host(2, [big, small]))
    assert not placement.of("big").admitted
    assert placement.of("small").pcpus == (1,)
    assert [load.vcpus for load in placement.pcpus] == [(), (small.vcpu(0),)]


def test_every_baseline_mutant_names_a_test_that_exists_and_a_policy_it_corrupts():
    """The baselines' wrong variants (decision 165) are caught by their policies' tests;
    each names its catcher, which must exist, and subclasses the policy it names."""
    from akita.reference.mutants import BASELINE_MUTANTS
    from repo import ROOT

    assert {m.policy for m in BASELINE_MUTANTS} == {"eevdf", "credit2"}
    for mutant in BASELINE_MUTANTS:
        path, function = mutant.caught_by.split("::")
        assert f"def {function}(" in (ROOT / path).read_text(), mutant.name
        assert issubclass(mutant.cls, POLICIES[mutant.policy]), mutant.name
        assert mutant.cls is not POLICIES[mutant.policy]

"""The sweep file (sweep/spec.py): what it reads, its defaults, its digest."""

from fractions import Fraction

import pytest

from akita.model import ADMISSION_TESTS, ModelError
from akita.sweep import load_spec, loads_spec
from akita.sweep.spec import DEFAULT_BATCH, DEFAULT_EXACT_STATES, MAX_POINTS
from repo import SWEEP_EXAMPLES

SPEC = """
[sweep]
seed = 1
sets = 200
utilizations = [0.5, 0.55, 0.6]
tests = ["edf-vd", "amc-rtb"]
[sweep.generator]
kind = "uunifast"
vcpus = 20
periods = ["10ms", "1000ms"]
period_distribution = "log-uniform"
granularity = "100us"
criticality_factor = 2
p_hi = 0.5
"""


def test_the_issue_example_reads_exactly():
    spec = loads_spec(SPEC)
    assert spec.utilizations == (Fraction(1, 2), Fraction(11, 20), Fraction(3, 5))
    assert spec.tests == ("edf-vd", "amc-rtb") and spec.sets == 200 and spec.batch == DEFAULT_BATCH
    g = spec.generator
    assert (g.kind, g.vcpus, g.periods, g.granularity) == ("uunifast", 20, (10**7, 10**9), 10**5)
    assert (g.criticality_factor, g.p_hi) == (2, Fraction(1, 2))


def test_a_range_of_utilizations_is_exact_and_inclusive():
    text = SPEC.replace("[0.5, 0.55, 0.6]", "{ start = 0.05, stop = 0.95, step = 0.05 }")
    points = loads_spec(text).utilizations
    assert points == tuple(Fraction(k, 20) for k in range(1, 20))


def test_defaults_and_a_batch_no_larger_than_the_sets():
    text = SPEC.replace('period_distribution = "log-uniform"\n', "").replace(
        'granularity = "100us"\n', "").replace("sets = 200", "sets = 7")
    spec = loads_spec(text)
    assert spec.generator.period_distribution == "log-uniform"
    assert spec.generator.granularity == 1000 and spec.batch == 7


def test_the_digest_covers_what_the_sets_depend_on_and_nothing_else():
    base = loads_spec(SPEC).digest
    assert loads_spec(SPEC.replace("sets = 200", "sets = 400")).digest == base
    assert loads_spec(SPEC.replace("[0.5, 0.55, 0.6]", "[0.5]")).digest == base
    for change in (("seed = 1", "seed = 2"), ("vcpus = 20", "vcpus = 19"),
                   ('"edf-vd", "amc-rtb"', '"amc-rtb", "edf-vd"'), ("p_hi = 0.5", "p_hi = 0.4")):
        assert loads_spec(SPEC.replace(*change)).digest != base, change


def test_too_many_points_are_refused_before_any_is_made():
    text = SPEC.replace("[0.5, 0.55, 0.6]", "{ start = 0.000001, stop = 1, step = 0.000001 }")
    with pytest.raises(ModelError, match=f"at most {MAX_POINTS} points"):
        loads_spec(text)


def test_an_unknown_test_is_refused_with_the_tests_there_are():
    with pytest.raises(ModelError) as caught:
        loads_spec(SPEC.replace('"edf-vd", "amc-rtb"', '"edf-vd", "later"'))
    message = str(caught.value)
    assert "sweep.tests" in message and f"one of {', '.join(ADMISSION_TESTS)}" in message


def test_exact_takes_a_state_limit_that_enters_the_digest():
    text = SPEC.replace('"edf-vd", "amc-rtb"', '"edf-vd", "exact"')
    default = loads_spec(text)
    assert default.tests == ("edf-vd", "exact")
    assert default.exact_states == DEFAULT_EXACT_STATES
    limited = loads_spec(text.replace("[sweep]\n", "[sweep]\nexact_states = 500\n"))
    assert limited.exact_states == 500 and limited.digest != default.digest
    # without the exact test the limit changes no verdict, so no digest
    assert loads_spec(SPEC.replace("[sweep]\n", "[sweep]\nexact_states = 500\n")).digest \
        == loads_spec(SPEC).digest
    with pytest.raises(ModelError, match="sweep.exact_states"):
        loads_spec(text.replace("[sweep]\n", "[sweep]\nexact_states = 0\n"))


def test_the_shipped_sweep_files_read():
    assert {p.name for p in SWEEP_EXAMPLES} >= {"sweep.toml", "sweep-rtss2011.toml",
                                                "sweep-exact.toml"}
    for path in SWEEP_EXAMPLES:
        spec = load_spec(path)
        assert {"edf-vd", "amc-rtb"} <= set(spec.tests)
        assert spec.generator.vcpus == (4 if path.name == "sweep-exact.toml" else 20)

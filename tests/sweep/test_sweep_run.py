"""A sweep in this process: batches, the store, resuming, the output documents
(sweep/batches.py, store.py, runner.py, results.py, wilson.py)."""

import json
import os
import subprocess
import sys
from fractions import Fraction

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.model import ADMISSION_TESTS, UtilizationSums
from akita.model.taskgen import set_random
from akita.sweep import loads_spec, run_sweep
from akita.sweep.batches import Batch, BatchResult, Job, plan, run_job
from akita.sweep.results import CSV_COLUMNS
from akita.sweep.store import BatchStore
from akita.sweep.wilson import Z95, wilson_interval

SMALL = """
[sweep]
seed = 3
sets = 30
utilizations = [0.4, 0.7, 0.85, 1]
tests = ["edf-vd", "amc-rtb", "edf"]
batch = 7
[sweep.generator]
kind = "uunifast"
vcpus = 8
periods = ["1ms", "100ms"]
granularity = "10us"
criticality_factor = 2
p_hi = 0.5
"""


def _bytes(result):
    return json.dumps(result.as_json()), result.csv()


@pytest.fixture(scope="module")
def reference():
    return _bytes(run_sweep(loads_spec(SMALL), workers=0))


def test_the_json_has_the_documented_shape(reference):
    document = json.loads(reference[0])
    first = document["points"][0]
    assert list(first)[:3] == ["utilization", "sets", "accepted"]
    assert first["utilization"] == 0.4 and first["sets"] == 30
    assert list(first["accepted"]) == ["edf-vd", "amc-rtb", "edf"]
    assert [p["utilization"] for p in document["points"]] == [0.4, 0.7, 0.85, 1.0]
    for point in document["points"]:
        for test, accepted in point["accepted"].items():
            low, high = point["ci95"][test]
            assert low <= accepted / 30 <= high


def test_the_counts_are_those_of_each_set_on_one_pcpu(reference):
    spec = loads_spec(SMALL)
    u = Fraction(7, 10)
    expected = {name: 0 for name in spec.tests}
    for index in range(spec.sets):
        vcpus = spec.generator.draw(set_random(spec.seed, u, index), u).vcpus
        for name in spec.tests:
            expected[name] += ADMISSION_TESTS[name](UtilizationSums.of(vcpus)).schedulable
    assert json.loads(reference[0])["points"][1]["accepted"] == expected


def test_edf_vd_never_accepts_more_than_edf(reference):
    for point in json.loads(reference[0])["points"]:
        assert point["accepted"]["edf-vd"] <= point["accepted"]["edf"]


def test_the_csv_has_a_row_per_point_and_test(reference):
    lines = reference[1].splitlines()
    assert lines[0] == ",".join(CSV_COLUMNS) and len(lines) == 1 + 4 * 3
    assert lines[1].startswith("0.4,edf-vd,30,")


@pytest.mark.parametrize("batch", [1, 30, 11])
def test_the_numbers_do_not_depend_on_the_batch_size(reference, batch):
    spec = attrs.evolve(loads_spec(SMALL), batch=batch)
    assert _bytes(run_sweep(spec, workers=0)) == reference


def test_plan_covers_every_set_once():
    batches = plan((Fraction(1, 2), Fraction(3, 4)), 23, 5)
    for point in (0, 1):
        starts = [(b.start, b.count) for b in batches if b.point == point]
        assert starts == [(0, 5), (5, 5), (10, 5), (15, 5), (20, 3)]


def test_an_interrupted_sweep_resumes_to_the_same_bytes(tmp_path, reference):
    spec = loads_spec(SMALL)
    calls = []

    def stop_after_five(done, total):
        calls.append(done)
        if len(calls) == 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, store=tmp_path, workers=0, progress=stop_after_five)
    stored = sorted((tmp_path / spec.digest[:16]).glob("*.json"))
    assert len(stored) == 5
    resumed = run_sweep(spec, store=tmp_path, workers=0)
    assert (resumed.reused, resumed.computed) == (5, 20 - 5)
    assert _bytes(resumed) == reference
    again = run_sweep(spec, store=tmp_path, workers=0)
    assert (again.reused, again.computed) == (20, 0) and _bytes(again) == reference


def test_deleted_or_damaged_batches_are_computed_again(tmp_path, reference):
    spec = loads_spec(SMALL)
    run_sweep(spec, store=tmp_path, workers=0)
    files = sorted((tmp_path / spec.digest[:16]).glob("*.json"))
    files[0].unlink()
    files[1].write_text("{not json")
    files[2].write_text(files[2].read_text().replace('"accepted": [', '"accepted": [99, '))
    data = json.loads(files[3].read_text())
    data["batch"]["digest"] = "0" * 64
    files[3].write_text(json.dumps(data))
    resumed = run_sweep(spec, store=tmp_path, workers=0)
    assert resumed.computed == 4 and _bytes(resumed) == reference
    assert not list((tmp_path / spec.digest[:16]).glob(".batch-*"))  # no temporary left


def test_another_spec_does_not_reuse_these_batches(tmp_path):
    run_sweep(loads_spec(SMALL), store=tmp_path, workers=0)
    other = run_sweep(loads_spec(SMALL.replace("seed = 3", "seed = 4")), store=tmp_path, workers=0)
    assert other.reused == 0


def test_a_stored_batch_reads_back_as_it_was(tmp_path):
    spec = loads_spec(SMALL)
    store = BatchStore(tmp_path, spec.digest, len(spec.tests))
    batch = Batch(0, Fraction(2, 5), 7, 7)
    result = run_job(Job(batch, spec.seed, spec.tests, spec.generator))
    store.save(batch, result)
    assert store.load(batch) == result
    assert store.load(attrs.evolve(batch, start=14)) is None
    assert BatchStore(tmp_path, spec.digest, 2).load(batch) is None  # another count of tests
    mask = os.umask(0)
    os.umask(mask)
    assert store.path(batch).stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's 0600


@given(st.dictionaries(st.text(max_size=3), st.integers() | st.text() | st.lists(st.integers())))
def test_a_malformed_result_is_refused_not_raised(data):
    assert BatchResult.from_json(data, 3) is None or set(data) >= {"accepted", "u_lo_nano"}


@pytest.mark.parametrize("k, n, low, high", [
    (0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0)])
def test_wilson_interval_known_values(k, n, low, high):
    """The score interval at z = 1.96 as tables print it (4 decimals)."""
    assert wilson_interval(k, n) == pytest.approx((low, high), abs=5e-5)


@given(st.integers(1, 10**6).flatmap(lambda n: st.tuples(st.integers(1, n - 1) if n > 1
                                                         else st.just(0), st.just(n))))
def test_wilson_bounds_are_the_roots_of_the_score_equation(pair):
    """Wilson's bounds are the p with (k/n - p)^2 = z^2 p (1 - p) / n (the score test's edge)."""
    k, n = pair
    z2 = Z95 ** 2
    for bound in wilson_interval(k, n):
        assert (k / n - bound) ** 2 == pytest.approx(z2 * bound * (1 - bound) / n, rel=1e-6,
                                                     abs=1e-15)


@given(st.integers(1, 10**6).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_its_estimate(pair):
    k, n = pair
    low, high = wilson_interval(k, n)
    assert 0 <= low <= k / n <= high <= 1


def test_import_akita_loads_no_dask():
    code = ("import sys, akita, akita.sweep, akita.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

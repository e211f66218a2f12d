"""The workload generators of the reference scheduler (``akita.reference.workloads``)."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
from fractions import Fraction
from itertools import islice, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from akita.model import VM, Criticality, ModelError, Workload, loads_host
from akita.reference.workloads import arrivals, validate_trace
from repo import DOCS

MS = 1_000_000
US = 1_000
WORKLOADS_RST = DOCS / "workloads.rst"


def lo_vm(workload: Workload, *, period: int = 10 * MS, c_opt: int = 2 * MS, vcpus: int = 1,
          name: str = "vm") -> VM:
    return VM(name, Criticality.LO, period, c_opt, vcpus=vcpus, workload=workload)


def first(vm: VM, count: int, *, index: int = 0, seed: int = 0) -> list[tuple[int, int]]:
    return list(islice(arrivals(vm, index, seed), count))


def write_trace(directory, text: str, name: str = "trace.txt") -> str:
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(text)
    return path


# --- cpu-bound ---------------------------------------------------------------


def test_cpu_bound_has_no_arrivals():
    assert arrivals(lo_vm(Workload()), 0, seed=1) is None
    assert arrivals(lo_vm(Workload()), 0, seed=1, horizon=10 * MS) is None


# --- periodic ----------------------------------------------------------------


def test_periodic_with_offset_is_exact():
    vm = lo_vm(Workload(kind="periodic", demand=3 * MS, period=20 * MS, offset=5 * MS))
    assert first(vm, 4) == [(5 * MS, 3 * MS), (25 * MS, 3 * MS), (45 * MS, 3 * MS),
                            (65 * MS, 3 * MS)]


def test_periodic_defaults_to_the_vm_period_and_c_opt():
    vm = lo_vm(Workload(kind="periodic"), period=10 * MS, c_opt=2 * MS)
    assert first(vm, 3) == [(0, 2 * MS), (10 * MS, 2 * MS), (20 * MS, 2 * MS)]


# --- duty --------------------------------------------------------------------


def test_duty_quarter_of_10ms_is_2_5ms_every_10ms():
    vm = lo_vm(Workload(kind="duty", utilization=Fraction(1, 4)))
    assert first(vm, 3) == [(0, 2_500_000), (10 * MS, 2_500_000), (20 * MS, 2_500_000)]


def test_duty_job_is_floored_to_a_whole_ns():
    vm = lo_vm(Workload(kind="duty", utilization=Fraction(1, 3), window=10))
    assert first(vm, 2) == [(0, 3), (10, 3)]


@pytest.mark.parametrize("utilization", [Fraction(0), Fraction(1, 20)])
def test_duty_with_no_whole_ns_of_work_has_no_jobs(utilization):
    vm = lo_vm(Workload(kind="duty", utilization=utilization, window=10))
    assert list(arrivals(vm, 0, seed=0)) == []


# --- sporadic ----------------------------------------------------------------


def test_sporadic_jobs_are_at_period_starts_at_least_a_period_apart():
    period = 5 * MS
    vm = lo_vm(Workload(kind="sporadic", period=period, probability=Fraction(1, 3),
                        min_demand=100 * US, demand=1 * MS))
    jobs = first(vm, 2000)
    starts = [arrival for arrival, _ in jobs]
    assert starts[0] % period == 0
    gaps = [b - a for a, b in pairwise(starts)]
    assert all(gap % period == 0 and gap >= period for gap in gaps)
    assert all(100 * US <= demand <= 1 * MS for _, demand in jobs)
    # Geometric with p = 1/3: the mean gap is 3 periods, and some gaps are longer than one.
    assert statistics.fmean(gaps) == pytest.approx(3 * period, rel=0.1)
    assert any(gap > period for gap in gaps)


def test_sporadic_demands_cover_their_range():
    vm = lo_vm(Workload(kind="sporadic", min_demand=1, demand=4))
    assert {demand for _, demand in first(vm, 500)} == {1, 2, 3, 4}


def test_sporadic_defaults_demand_in_1ns_to_c_opt_and_the_vm_period():
    vm = lo_vm(Workload(kind="sporadic", probability=Fraction(1)), period=10 * MS, c_opt=2 * MS)
    jobs = first(vm, 1000)
    assert all(1 <= demand <= 2 * MS for _, demand in jobs)
    assert max(demand for _, demand in jobs) > 1 * MS
    assert jobs[1][0] == 10 * MS


def test_sporadic_probability_one_is_every_period():
    vm = lo_vm(Workload(kind="sporadic", period=7 * MS, probability=Fraction(1)))
    assert [arrival for arrival, _ in first(vm, 50)] == [k * 7 * MS for k in range(50)]


def test_sporadic_min_demand_above_default_demand_is_refused():
    vm = lo_vm(Workload(kind="sporadic", min_demand=3 * MS), c_opt=2 * MS)
    with pytest.raises(ModelError) as caught:
        arrivals(vm, 0, seed=0)
    assert caught.value.field == "workload.min_demand"
    assert caught.value.vm == "vm"


# --- poisson -----------------------------------------------------------------


def poisson(rate: int = 1000, service: int = 100 * US, distribution: str | None = None,
            vcpus: int = 1) -> VM:
    workload = Workload(kind="poisson", rate=Fraction(rate), service=service,
                        distribution=distribution)
    return lo_vm(workload, vcpus=vcpus)


def test_poisson_is_deterministic_in_the_seed():
    vm = poisson()
    assert first(vm, 1000, seed=42) == first(vm, 1000, seed=42)
    assert first(vm, 1000, seed=42) != first(vm, 1000, seed=43)


def test_poisson_vcpus_and_vms_draw_different_streams():
    assert first(poisson(vcpus=2), 100, index=0) != first(poisson(vcpus=2), 100, index=1)
    renamed = lo_vm(poisson().workload, name="other")
    assert first(poisson(), 100) != first(renamed, 100)


def test_seeding_is_the_same_in_another_process():
    code = (
        "from fractions import Fraction; from itertools import islice\n"
        "from akita.model import VM, Criticality, Workload\n"
        "from akita.reference.workloads import arrivals\n"
        "w = Workload(kind='poisson', rate=Fraction(1000), service=100000,"
        " distribution='exponential')\n"
        "print(list(islice(arrivals(VM('vm', Criticality.LO, 10**7, 2*10**6, workload=w),"
        " 0, 7), 20)))\n"
    )
    environment = dict(os.environ, PYTHONHASHSEED="random")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env=environment)
    assert result.stdout.strip() == str(first(poisson(distribution="exponential"), 20, seed=7))


def test_poisson_mean_gap_is_one_over_the_rate():
    starts = [0] + [arrival for arrival, _ in first(poisson(rate=1000), 20_000, seed=3)]
    gaps = [b - a for a, b in pairwise(starts)]
    assert statistics.fmean(gaps) == pytest.approx(1e9 / 1000, rel=0.05)
    assert all(gap >= 0 for gap in gaps)


def test_poisson_rate_is_split_over_the_vcpus():
    vm = poisson(rate=1000, vcpus=4)
    for index in (0, 3):
        jobs = first(vm, 20_000, index=index, seed=3)
        assert jobs[-1][0] / len(jobs) == pytest.approx(4 * 1e9 / 1000, rel=0.05)


def test_poisson_fixed_service_is_exact():
    assert {demand for _, demand in first(poisson(service=123 * US), 200)} == {123 * US}


def test_poisson_exponential_service_has_the_given_mean():
    demands = [demand for _, demand in first(poisson(distribution="exponential"), 20_000)]
    assert statistics.fmean(demands) == pytest.approx(100 * US, rel=0.05)
    assert min(demands) >= 1
    assert len(set(demands)) > 1000


def test_poisson_exponential_service_of_1ns_never_rounds_to_zero():
    demands = [d for _, d in first(poisson(service=1, distribution="exponential"), 2000)]
    assert min(demands) == 1


def test_poisson_gaps_of_zero_are_allowed():
    jobs = first(poisson(rate=10**10), 1000)  # mean gap 0.1 ns
    starts = [arrival for arrival, _ in jobs]
    assert any(a == b for a, b in pairwise(starts))
    assert starts == sorted(starts)


# --- trace -------------------------------------------------------------------

TRACE = """\
# arrival, demand
0ns, 1ms

10ms, 2ms
  # an indented comment
10ms,500us
1.5s , 3ms
"""


def test_trace_replays_the_file(tmp_path):
    path = write_trace(tmp_path, TRACE)
    vm = lo_vm(Workload(kind="trace", path=path), vcpus=2)
    expected = [(0, MS), (10 * MS, 2 * MS), (10 * MS, 500 * US), (1500 * MS, 3 * MS)]
    assert list(arrivals(vm, 0, seed=0)) == expected
    assert list(arrivals(vm, 1, seed=9)) == expected
    assert validate_trace(path) == 4


def test_empty_trace_has_no_jobs(tmp_path):
    path = write_trace(tmp_path, "# nothing\n\n")
    assert validate_trace(path) == 0
    assert list(arrivals(lo_vm(Workload(kind="trace", path=path)), 0, seed=0)) == []


def test_trace_is_read_lazily(tmp_path):
    path = write_trace(tmp_path, "0ns, 1ms\n1ms, 1ms\nnonsense\n")
    jobs = arrivals(lo_vm(Workload(kind="trace", path=path)), 0, seed=0)
    assert list(islice(jobs, 2)) == [(0, MS), (MS, MS)]
    with pytest.raises(ModelError, match="line 3"):
        next(jobs)


@pytest.mark.parametrize(
    ("text", "line", "value"),
    [
        ("0ns, 1ms\n10ms, 2 lightyears\n", 2, "10ms, 2 lightyears"),  # bad duration
        ("0ns, 1ms\n\n# c\n10ms, 100\n", 4, "10ms, 100"),  # bare number
        ("0ns, 1ms\n5ms, 1ms\n4ms, 1ms\n", 3, "4ms, 1ms"),  # decreasing arrival
        ("1ms, 1ms\n999999ns, 1ms\n", 2, "999999ns, 1ms"),  # 1 ns earlier
        ("# header\n0ns 1ms\n", 2, "0ns 1ms"),  # missing comma
        ("0ns, 1ms, 2ms\n", 1, "0ns, 1ms, 2ms"),  # too many fields
        ("0ns, 1ms\n1ms, 0ms\n", 2, "1ms, 0ms"),  # zero demand
        ("0ns, -1ms\n", 1, "0ns, -1ms"),  # negative demand
    ],
)
def test_bad_trace_line_is_named(tmp_path, text, line, value):
    path = write_trace(tmp_path, text)
    with pytest.raises(ModelError) as caught:
        validate_trace(path, vm="batch")
    error = caught.value
    assert (error.field, error.vm, error.path) == ("workload.path", "batch", path)
    assert error.value == value
    assert f"line {line} " in error.expected
    assert f"line {line} " in str(error) and path in str(error)


def test_decreasing_arrival_names_the_earlier_line(tmp_path):
    path = write_trace(tmp_path, "5ms, 1ms\n# c\n4ms, 1ms\n")
    with pytest.raises(ModelError, match=r"line 3 to arrive no earlier than line 1 \(5ms\)"):
        validate_trace(path)


def test_non_utf8_trace_line_is_named(tmp_path):
    path = os.path.join(tmp_path, "trace.txt")
    with open(path, "wb") as stream:
        stream.write(b"0ns, 1ms\n\xff\xfe, 1ms\n")
    with pytest.raises(ModelError, match="line 2 to be UTF-8"):
        validate_trace(path)


def test_missing_trace_file_is_a_model_error(tmp_path):
    path = os.path.join(tmp_path, "absent.txt")
    with pytest.raises(ModelError) as caught:
        validate_trace(path, vm="v")
    assert (caught.value.field, caught.value.path, caught.value.vm) == ("workload.path", path, "v")
    with pytest.raises(ModelError):
        next(arrivals(lo_vm(Workload(kind="trace", path=path)), 0, seed=0))


# --- laziness, horizon, arguments ---------------------------------------------


def test_generation_is_lazy():
    for workload in (Workload(kind="periodic", period=1, demand=1),
                     Workload(kind="sporadic", period=1, demand=1, probability=Fraction(1))):
        assert len(list(islice(arrivals(lo_vm(workload, period=1, c_opt=1), 0, seed=0), 10))) == 10
    assert len(list(islice(arrivals(poisson(rate=10**12), 0, seed=0), 10))) == 10
    assert len(list(islice(arrivals(lo_vm(Workload(kind="duty", utilization=Fraction(1), window=1),
                                          period=1, c_opt=1), 0, seed=0), 10))) == 10


def test_horizon_stops_strictly_before_it():
    vm = lo_vm(Workload(kind="periodic", period=10 * MS))
    assert [a for a, _ in arrivals(vm, 0, 0, horizon=35 * MS)] == [0, 10 * MS, 20 * MS, 30 * MS]
    assert [a for a, _ in arrivals(vm, 0, 0, horizon=30 * MS)] == [0, 10 * MS, 20 * MS]
    assert list(arrivals(vm, 0, 0, horizon=0)) == []


def test_horizon_cuts_a_random_stream_to_a_prefix():
    vm = poisson(rate=10_000)
    bounded = list(arrivals(vm, 0, seed=5, horizon=1_000 * MS))
    assert bounded and all(arrival < 1_000 * MS for arrival, _ in bounded)
    following = first(vm, len(bounded) + 1, seed=5)
    assert following[:-1] == bounded and following[-1][0] >= 1_000 * MS


@pytest.mark.parametrize(
    ("index", "seed", "horizon", "field"),
    [(2, 0, None, "vcpu"), (-1, 0, None, "vcpu"), (0, "0", None, "seed"),
     (0, True, None, "seed"), (0, 0, -1, "horizon"), (0, 0, 1.5, "horizon")],
)
def test_bad_arguments_are_refused_at_once(index, seed, horizon, field):
    with pytest.raises(ModelError) as caught:
        arrivals(poisson(vcpus=2), index, seed, horizon)
    assert caught.value.field == field


# --- properties over every kind ----------------------------------------------

KIND_WORKLOADS = {
    "periodic": st.builds(
        Workload, kind=st.just("periodic"),
        demand=st.none() | st.integers(1, 10 * MS),
        offset=st.none() | st.integers(0, 10 * MS),
        period=st.none() | st.integers(1, 20 * MS),
    ),
    "sporadic": st.integers(1, 10 * MS).flatmap(lambda high: st.builds(
        Workload, kind=st.just("sporadic"), demand=st.just(high),
        min_demand=st.none() | st.integers(1, high),
        period=st.none() | st.integers(1, 20 * MS),
        probability=st.none() | st.fractions(0, 1).filter(lambda p: p > 0),
    )),
    "poisson": st.builds(
        Workload, kind=st.just("poisson"),
        rate=st.fractions(Fraction(1, 1000), 10**10).filter(lambda r: r > 0),
        service=st.integers(1, 10 * MS),
        distribution=st.sampled_from([None, "fixed", "exponential"]),
    ),
    "duty": st.builds(
        Workload, kind=st.just("duty"),
        utilization=st.fractions(0, 1), window=st.none() | st.integers(1, 100 * MS),
    ),
}


@st.composite
def trace_texts(draw) -> str:
    arrivals_ns = sorted(draw(st.lists(st.integers(0, 10**12), max_size=50)))
    demands = draw(st.lists(st.integers(1, 10**9), min_size=len(arrivals_ns),
                            max_size=len(arrivals_ns)))
    return "".join(f"{a}ns, {d}ns\n" for a, d in zip(arrivals_ns, demands))


@st.composite
def vms_with_workloads(draw, kind: str) -> VM:
    period = draw(st.integers(1, 100 * MS))
    return VM(
        draw(st.sampled_from(["a", "web", "batch"])), Criticality.LO, period,
        draw(st.integers(1, period)), vcpus=draw(st.integers(1, 4)),
        workload=draw(KIND_WORKLOADS[kind]),
    )


def assert_well_formed(jobs: list[tuple[int, int]]) -> None:
    assert all(type(a) is int and type(d) is int for a, d in jobs)
    assert all(a >= 0 and d >= 1 for a, d in jobs)
    assert all(a <= b for (a, _), (b, _) in pairwise(jobs))


@pytest.mark.parametrize("kind", sorted(KIND_WORKLOADS))
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_jobs_are_ordered_positive_and_reproducible(kind, data, seed):
    vm = data.draw(vms_with_workloads(kind))
    index = data.draw(st.integers(0, vm.vcpus - 1))
    jobs = list(islice(arrivals(vm, index, seed), 50))
    assert_well_formed(jobs)
    assert list(islice(arrivals(vm, index, seed), 50)) == jobs


@pytest.mark.parametrize("kind", sorted(KIND_WORKLOADS))
@given(data=st.data(), seed=st.integers(0, 2**32), horizon=st.integers(0, 10**9))
def test_horizon_is_a_prefix(kind, data, seed, horizon):
    vm = data.draw(vms_with_workloads(kind))
    bounded = list(islice(arrivals(vm, 0, seed, horizon=horizon), 50))
    assert all(arrival < horizon for arrival, _ in bounded)
    unbounded = list(islice(arrivals(vm, 0, seed), len(bounded) + 1))
    assert unbounded[: len(bounded)] == bounded
    if len(bounded) < 50 and len(unbounded) > len(bounded):
        assert unbounded[len(bounded)][0] >= horizon


@given(text=trace_texts(), vcpus=st.integers(1, 3))
def test_trace_jobs_are_the_file(text, vcpus):
    with tempfile.TemporaryDirectory() as directory:
        path = write_trace(directory, text)
        vm = lo_vm(Workload(kind="trace", path=path), vcpus=vcpus)
        jobs = list(arrivals(vm, vcpus - 1, seed=0))
        assert_well_formed(jobs)
        assert len(jobs) == validate_trace(path) == text.count("\n")


# --- the examples of docs/workloads.rst ---------------------------------------


def doc_blocks(language: str) -> list[str]:
    """The ``.. code-block:: language`` blocks of the workloads page, dedented."""
    with open(WORKLOADS_RST, encoding="utf-8") as stream:
        text = stream.read()
    pattern = rf"\.\. code-block:: {language}\n\n((?:   .*\n|\n)+)"
    return [re.sub(r"(?m)^   ", "", block) for block in re.findall(pattern, text)]


def test_documented_examples_load_and_behave_as_described(tmp_path):
    blocks = doc_blocks("toml")
    host = loads_host("[host]\npcpus = 1\n" + "\n".join(blocks), base=str(tmp_path))
    vms = {vm.name: vm for vm in host.vms}
    assert {vm.workload.kind for vm in host.vms} == {
        "cpu-bound", "periodic", "sporadic", "poisson", "duty", "trace", "closed", "idle"}
    assert arrivals(vms["hog"], 0, seed=0) is None
    assert first(vms["control"], 3) == [(1 * MS, 3 * MS), (11 * MS, 3 * MS), (21 * MS, 3 * MS)]
    sporadic = [a for a, _ in first(vms["alarms"], 20_000)]
    assert sporadic[-1] / len(sporadic) == pytest.approx(200 * MS, rel=0.05)
    memcached = first(vms["memcached"], 20_000, index=1)
    assert memcached[-1][0] / len(memcached) == pytest.approx(1e9 / 10_000, rel=0.05)
    assert first(vms["lookbusy"], 2) == [(0, 2_500_000), (10 * MS, 2_500_000)]
    assert vms["replay"].workload.path == os.path.join(tmp_path, "traces", "replay.txt")
    assert vms["stream"].io.via == "dom0" and vms["stream"].workload.connections == 256
    assert list(arrivals(vms["dom0"], 0, seed=0)) == []


def test_documented_trace_is_valid(tmp_path):
    (trace,) = doc_blocks("text")
    path = write_trace(tmp_path, trace)
    assert validate_trace(path) == 4
    assert list(arrivals(lo_vm(Workload(kind="trace", path=path)), 0, seed=0)) == [
        (0, 2 * MS), (10 * MS, 2 * MS), (10 * MS, 500 * US), (1500 * MS, 3 * MS)]

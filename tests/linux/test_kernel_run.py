"""akita kernel-run and its arithmetic (akita.linux.kernel_run); no kernel needed here."""

from fractions import Fraction

import pytest

from akita.linux import kernel_run as kr
from akita.model import ParameterError, loads_host
from cli_run import run_cli
from repo import EXAMPLES

TWO = """[host]
pcpus = 2
[[vm]]
name = "a"
type = "Type2"
vcpus = 2
[[vm]]
name = "b"
type = "Type2"
pin = [1]
"""


def test_the_hosts_pcpus_map_to_the_given_linux_cpus():
    where = kr.placement(loads_host(TWO), (3, 5))
    assert where == {("a", 0): 3, ("a", 1): 5, ("b", 0): 5}


def test_too_few_cpus_is_bad_input():
    with pytest.raises(ParameterError, match="parameter 'cpus'"):
        kr.placement(loads_host(TWO), (1,))


def test_the_median_is_a_measured_value_and_the_spread_its_range():
    assert kr.spread([5, 1, 3, None]) == {"median": 3, "min": 1, "max": 5, "n": 3}
    assert kr.spread([4, 1, 3, 2])["median"] == 2  # the lower middle, not 2.5
    assert kr.spread([None]) is None


def test_the_ratio_is_exact_and_refuses_a_zero_kernel_figure():
    assert kr.ratio(0.3, 0.1) == Fraction(3)
    assert kr.ratio(5, 0) is None and kr.ratio(None, 1) is None


def test_compare_says_when_the_model_lies_outside_the_kernels_range():
    kernel = [{"vms": {"m": {"cpu_share": v}}} for v in (0.20, 0.22, 0.25)]
    inside = [{"vms": {"m": {"cpu_share": 0.21}}}]
    outside = [{"vms": {"m": {"cpu_share": 0.30}}}]
    (row,) = kr.compare(kernel, inside)
    assert row["outside_spread"] is False and row["kernel"]["median"] == 0.22
    (row,) = kr.compare(kernel, outside)
    assert row["outside_spread"] is True and row["ratio"] == "1.364"


def test_the_prediction_renames_a_jobs_latency_as_the_kernel_side_names_it():
    host = loads_host((EXAMPLES / "kernel" / "batch-periodic.toml").read_text())
    (one,) = kr.predict(host, policy="cfs", runs=1, seconds=0.2, seed=1)
    periodic = one["vms"]["periodic"]
    assert "response_ns" in periodic and "rtt_ns" not in periodic
    shares = sum(v["cpu_share_of_host"] for v in one["vms"].values())
    assert abs(shares - 1) < 1e-5


def test_not_root_is_one_line_and_status_2(capsys, monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    status, out, err = run_cli(capsys, "kernel-run", EXAMPLES / "kernel" / "weights.toml",
                               "--seconds", "1", "--runs", "1")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "needs root" in err and "weights.toml" in err


def test_no_memcached_is_one_line_and_status_2(capsys, monkeypatch):
    import shutil

    real = shutil.which
    monkeypatch.setattr("shutil.which", lambda name: None if name == "memcached" else real(name))
    monkeypatch.setattr("os.geteuid", lambda: 0)
    status, _, err = run_cli(capsys, "kernel-run", EXAMPLES / "kernel" / "fig5.toml",
                             "--seconds", "1", "--runs", "1")
    assert status == 2 and err.count("\n") == 1 and "memcached is not installed" in err


def test_a_cpu_this_process_may_not_use_is_bad_input(capsys):
    status, _, err = run_cli(capsys, "kernel-run", EXAMPLES / "kernel" / "weights.toml",
                             "--cpus", "4096")
    assert status == 2 and "--cpus" in err and err.count("\n") == 1


from kernel_needs import missing  # noqa: E402


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_the_host_files_nice_reaches_the_kernel(capsys, tmp_path):
    """weights.toml, both VMs started together, on CPU 1 for a second: nice 0 against
    nice 5 must share about 1024 : 335; a run that dropped the nice values would share
    1 : 1."""
    import json

    host = tmp_path / "weights.toml"
    host.write_text((EXAMPLES / "kernel" / "weights.toml").read_text()
                    .replace('phases = "seeded"', 'phases = "synchronous"'))
    status, out, _ = run_cli(capsys, "kernel-run", host, "--seconds", "1", "--runs", "1",
                             "--json")
    assert status == 0
    doc = json.loads(out)
    (run,) = doc["kernel"]
    heavy, light = (run["vms"][vm]["cpu_ns"] for vm in ("heavy", "light"))
    assert 2.5 < heavy / light < 3.7, (heavy, light)
    assert {r["figure"] for r in doc["rows"]} >= {"cpu_share", "cpu_share_of_host"}
    assert doc["policy"] in ("eevdf", "cfs") and len(doc["model"]) == 1


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_a_group_left_by_a_dead_controller_is_removed():
    from akita.linux.workloads import CPU_CGROUP, remove_stale

    dead = 2**22 + 12345  # above pid_max's default: no such process
    stale = CPU_CGROUP / f"akita-kernel-{dead}-1"
    stale.mkdir()
    try:
        assert stale.name in remove_stale()
        assert not stale.exists()
    finally:
        if stale.exists():
            stale.rmdir()

"""``akita simulate``: default host, JSON shape, determinism, trace and timeline, bad input."""

import json

import pytest

from akita.cli import run
from repo import EXAMPLES, ROOT

CPU_BOUND = ROOT / "tests" / "reference" / "golden" / "fig7.toml"



def simulate(capsys, *args):
    status = run(["simulate", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def test_default_host_is_fig5_and_json_has_the_documented_shape(capsys):
    status, out, err = simulate(capsys, "--duration", "300ms", "--json")
    assert status == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) == {"policy", "duration_ns", "seed", "rejected", "phases_ns", "vms", "pcpus",
                        "switching", "hi_mode_order", "promises", "overruns"}
    assert doc["hi_mode_order"] == "capped" and doc["promises"]["verdict"] == "kept"
    assert set(doc["phases_ns"]) == set(doc["vms"])  # fig5 draws them from the seed
    assert all(0 <= phase < 100_000_000 for phase in doc["phases_ns"].values())
    assert (doc["policy"], doc["duration_ns"], doc["seed"], doc["rejected"]) == (
        "akita", 300_000_000, 1, [])
    assert set(doc["vms"]) == {"memcached", "lookbusy1", "lookbusy2", "lookbusy3"}
    memcached = doc["vms"]["memcached"]
    assert set(memcached) >= {"cpu_share", "requests", "hi_misses", "rtt_ns", "cal_ns"}
    assert set(memcached["rtt_ns"]) == {"p50", "p90", "p99", "p999", "max"}
    assert memcached["requests"] > 0 and memcached["hi_misses"] == 0
    assert all(isinstance(v, int) for v in memcached["rtt_ns"].values())
    assert set(doc["pcpus"][0]) == {"index", "mode_switches", "hi_time_ns", "idle_ns",
                                    "context_switches", "switch_ns", "migrations",
                                    "hi_time_overrun_ns", "held_in_hi_by"}
    assert set(memcached["budget"]) == {"periods", "overrun_periods", "past_budget_ns",
                                        "max_past_budget_ns", "ahead_of_budget_ns",
                                        "kept_from_budget_ns"}


def test_switching_is_the_switches_and_their_time_at_the_hosts_cost(capsys, tmp_path):
    """``switching`` counts what the core charges: at a cost c, ns = switches x c exactly,
    and each pCPU's switch_ns is its own count x c; at cost 0 the count stays, the time is 0."""
    host = tmp_path / "fig5-cost.toml"
    text = (EXAMPLES / "fig5.toml").read_text()
    host.write_text(text.replace('phases = "seeded"', 'phases = "seeded"\ncontext_switch_cost = "3us"'))
    docs = []
    for path in (EXAMPLES / "fig5.toml", host):
        status, out, _ = simulate(capsys, path, "--duration", "500ms", "--json")
        assert status == 0
        docs.append(json.loads(out))
    free, paid = (d["switching"] for d in docs)
    assert free["cost_ns"] == 0 and free["ns"] == 0 and free["share"] == 0 and free["switches"] > 0
    cpu = docs[1]["pcpus"][0]
    assert paid["cost_ns"] == 3_000 and paid["ns"] == paid["switches"] * 3_000
    assert cpu["switch_ns"] == cpu["context_switches"] * 3_000 == paid["ns"]
    assert paid["per_s"] == round(paid["switches"] / 0.5, 3)
    assert paid["share"] == round(paid["ns"] / 500_000_000, 6) > 0


def test_same_file_and_seed_same_bytes(capsys, tmp_path):
    outputs = []
    for i in range(2):
        trace = tmp_path / f"t{i}.jsonl"
        status, out, _ = simulate(capsys, EXAMPLES / "fig5.toml", "--duration", "200ms",
                                  "--seed", "7", "--trace", trace, "--json")
        assert status == 0
        outputs.append((out, trace.read_bytes()))
    assert outputs[0] == outputs[1]
    _, other = simulate(capsys, EXAMPLES / "fig5.toml", "--duration", "200ms", "--seed", "8",
                        "--json")[:2]
    assert other != outputs[0][0]  # the seed does matter to Poisson arrivals


def test_timeline_opens_as_chrome_trace_json(capsys, tmp_path):
    timeline = tmp_path / "timeline.json"
    status, _, _ = simulate(capsys, EXAMPLES / "fig7.toml", "--duration", "200ms",
                            "--timeline", timeline, "--policy", "edf")
    assert status == 0
    doc = json.loads(timeline.read_text())
    slices = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    assert slices and {e["name"] for e in slices} <= {"hi/0", "lookbusy1/0", "lookbusy2/0",
                                                      "lookbusy3/0"}


def test_table_for_people(capsys):
    status, out, _ = simulate(capsys, EXAMPLES / "mixed.toml", "--duration", "100ms")
    assert status == 0
    assert "memcached" in out and "mode switches" in out
    assert "Not simulated (rejected by admission): big" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--duration", "10"], "field '--duration'"),
        (["--duration", "0s"], "field '--duration': expected a duration > 0, got '0s'"),
        (["--policy", "nosuch"], "field '--policy': expected one of akita, edf"),
        (["--seed", "x"], "'x' is not a valid integer"),
    ],
)
def test_bad_options_exit_2_with_one_line(capsys, args, message):
    status, out, err = simulate(capsys, EXAMPLES / "fig5.toml", *args)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    "workload, message",
    [
        ('{ kind = "poisson", rate = 100 }', "vm 'a': field 'workload.service'"),
        ('{ kind = "duty", utilization = "125%" }', "field 'workload.utilization'"),
        ('{ kind = "periodic", rate = 5 }', "field 'workload.rate': expected no 'rate'"),
        ('{ kind = "bursty" }', "field 'workload.kind'"),
        ('{ kind = "periodic", demand = "5" }', "field 'workload.demand'"),
        ('{ kind = "trace", path = "absent.csv" }', "field 'workload.path'"),
    ],
)
def test_bad_workloads_exit_2_with_one_line(capsys, tmp_path, workload, message):
    host = tmp_path / "host.toml"
    host.write_text(f'[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type2"\nworkload = {workload}\n')
    status, out, err = simulate(capsys, host, "--duration", "10ms")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err


def test_bad_trace_line_is_named_before_anything_is_written(capsys, tmp_path):
    (tmp_path / "jobs.csv").write_text("0ms, 1ms\n5ms 2ms\n")
    host = tmp_path / "host.toml"
    host.write_text('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type2"\n'
                    'workload = { kind = "trace", path = "jobs.csv" }\n')
    trace = tmp_path / "out.jsonl"
    status, out, err = simulate(capsys, host, "--trace", trace)
    assert status == 2 and out == "" and "line 2" in err
    assert not trace.exists()


@pytest.mark.parametrize("option", ["--trace", "--timeline"])
def test_an_output_path_that_cannot_be_written_is_refused_before_the_run(capsys, tmp_path,
                                                                          option):
    # Before issue 13 (4): a traceback, exit 1 -- for --timeline only after the whole run.
    status, out, err = simulate(capsys, EXAMPLES / "fig5.toml", "--duration", "100ms",
                                option, tmp_path / "absent" / "out.json")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and f"field '{option}'" in err and "Traceback" not in err
    assert "expected a file that can be written" in err


def test_the_timeline_path_is_checked_before_the_simulation_starts(capsys, tmp_path,
                                                                    monkeypatch):
    import sys

    command = sys.modules["akita.cli.simulate"]
    ran = []
    monkeypatch.setattr(command, "run_simulation", lambda *a, **k: ran.append(1))
    status, _, _ = simulate(capsys, "--timeline", tmp_path / "absent" / "x.json")
    assert status == 2 and ran == []


def test_vms_without_requests_show_a_dash_and_null_not_zero(capsys):
    # Fig. 7's pCPU with every VM cpu-bound: none completes a request.
    status, out, _ = simulate(capsys, CPU_BOUND, "--duration", "100ms", "--json")
    assert status == 0
    doc = json.loads(out)
    assert all(v is None for v in doc["vms"]["lookbusy1"]["rtt_ns"].values())
    status, out, _ = simulate(capsys, CPU_BOUND, "--duration", "100ms")
    row = next(line for line in out.splitlines() if "lookbusy1" in line)
    assert "0.000" not in row.split("│")[4] and row.split("│")[4].strip() == "-"


def test_the_table_and_the_help_explain_cal_hi_time_and_hi_misses(capsys):
    status, out, _ = simulate(capsys, "--duration", "100ms")
    assert status == 0
    for term in ("CAL p99:", "HI time:", "HI misses:", "not a CPU share"):
        assert term in " ".join(out.split())
    assert run(["simulate", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    for term in ("CAL p99 =", "HI time =", "HI misses =", "(not a CPU share)", "JSON null"):
        assert term in help_text


def _host_files():
    """The shipped examples that are host files (the others are sweep, fleet and disk specs)."""
    from akita.model import ModelError, load_host

    found = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        try:
            load_host(path)
        except ModelError:
            continue
        found.append(path)
    return found


@pytest.mark.parametrize("policy", ["eevdf", "credit2"])
@pytest.mark.parametrize("path", _host_files(), ids=lambda p: p.name)
def test_todays_defaults_run_every_shipped_host_file(capsys, policy, path):
    status, out, err = simulate(capsys, path, "--policy", policy, "--duration", "300ms", "--json")
    assert status == 0 and err == ""
    doc = json.loads(out)
    assert doc["policy"] == policy and doc["rejected"] == []
    busy = sum(vm["cpu_ns"] for vm in doc["vms"].values())
    assert 0 < busy <= 300_000_000 * len(doc["pcpus"])


def test_the_host_files_are_found():
    assert {p.name for p in _host_files()} >= {"fig5.toml", "fig8.toml", "thread-ex7.toml",
                                                "mixed.toml", "flexcore.toml"}

"""``akita export-rtapp`` and ``akita import-rtapp``: a host to an rt-app use case and back,
notes on stderr, --json, bad input exits 2 with one line."""

import json

from akita.model import load_host
from akita.model.phases import resolve_phases, with_phases
from cli_run import run_cli, spec_file
from repo import EXAMPLES

FIG7 = EXAMPLES / "kernel" / "fig7.toml"
FIG5 = EXAMPLES / "kernel" / "fig5.toml"


def test_export_then_import_gives_the_host_back(tmp_path, capsys):
    use_case, host = tmp_path / "fig7.json", tmp_path / "fig7.toml"
    status, out, err = run_cli(capsys, "export-rtapp", FIG7, "-o", use_case, "--seed", "3")
    assert (status, out, err) == (0, "", "")
    assert sorted(json.loads(use_case.read_text())["tasks"]) == \
        ["hi-0", "lookbusy1-0", "lookbusy2-0", "lookbusy3-0"]
    status, out, err = run_cli(capsys, "import-rtapp", use_case, "-o", host)
    assert (status, out, err) == (0, "", "")
    original = load_host(FIG7)
    assert load_host(host).vms == with_phases(original, resolve_phases(original, 3)).vms


def test_export_notes_what_it_approximates_on_stderr_and_in_json(capsys):
    status, out, err = run_cli(capsys, "export-rtapp", FIG5)
    assert status == 0 and json.loads(out)["tasks"]["memcached-0"]["run"] == 249
    assert err.startswith(f"akita: note: {FIG5}: VM memcached: workload.kind poisson: "
                          "approximated by its mean CPU demand") and err.count("\n") == 1
    status, out, err = run_cli(capsys, "export-rtapp", FIG5, "--json", "--policy", "deadline")
    doc = json.loads(out)
    assert status == 0 and err == "" and doc["policy"] == "deadline"
    assert doc["use_case"]["tasks"]["lookbusy1-0"]["policy"] == "SCHED_DEADLINE"
    assert {(n["vm"], n["field"]) for n in doc["notes"]} == \
        {("memcached", "workload.kind"), ("memcached", "c_pes")}


def test_a_kind_without_an_rt_app_form_exits_2_with_one_line(tmp_path, capsys):
    path = spec_file(tmp_path, '[host]\npcpus = 1\n[[vm]]\nname = "s"\ntype = "Type2"\n'
                     'workload = { kind = "sporadic", probability = "1/2" }\n', "s.toml")
    status, out, err = run_cli(capsys, "export-rtapp", path)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"akita: error: {path}: vm 's': field 'workload.kind'")


def test_import_of_a_foreign_use_case_notes_the_derived_servers(tmp_path, capsys):
    path = spec_file(tmp_path, json.dumps({"tasks": {"t": {"run": 3000, "timer": {
        "ref": "unique", "period": 10000}}}}), "t.json")
    status, out, err = run_cli(capsys, "import-rtapp", path, "--json")
    doc = json.loads(out)
    assert status == 0 and err == ""
    vm = doc["host"]["vms"][0]
    assert (vm["name"], vm["criticality"], vm["period"], vm["c_opt"]) == \
        ("t", "LO", 10_000_000, 3_000_000)
    assert [n["field"] for n in doc["notes"]] == ["server"]


def test_import_of_bad_json_or_a_bad_event_exits_2_with_one_line(tmp_path, capsys):
    bad = spec_file(tmp_path, "{not json", "bad.json")
    status, out, err = run_cli(capsys, "import-rtapp", bad)
    assert status == 2 and out == "" and err.count("\n") == 1 and str(bad) in err
    odd = spec_file(tmp_path, json.dumps({"tasks": {"t": {"run": 10, "mem": 100}}}), "m.json")
    status, out, err = run_cli(capsys, "import-rtapp", odd)
    assert status == 2 and err == (f"akita: error: {odd}: vm 't': field 'mem': expected an "
                                   "event with a host-file form (run, runtime, sleep, timer), "
                                   "got 100\n")

"""R14 on the command line: akita admit names the IOQ of a VM it rejects, akita simulate
--json reports CALs against IOQs, a bad ioq exits 2 with one line."""

import json

import pytest
from cli_run import run_cli, spec_file

from repo import EXAMPLES

pytestmark = pytest.mark.rule("R14")


def test_admit_rejects_the_vm_whose_ioq_no_pcpu_meets(capsys):
    status, out, _ = run_cli(capsys, "admit", EXAMPLES / "ioq.toml", "--json")
    assert status == 1
    doc = json.loads(out)
    rejected = {vm["name"]: vm for vm in doc["vms"] if not vm["admitted"]}
    assert list(rejected) == ["logger"]
    assert "ioq = 50ms" in rejected["logger"]["reason"]


def test_simulate_json_reports_each_ioq(capsys):
    status, out, _ = run_cli(capsys, "simulate", EXAMPLES / "ioq.toml", "--duration", "100ms",
                             "--json")
    assert status == 0
    vms = json.loads(out)["vms"]
    assert vms["memcached"]["ioq"]["ioq_ns"] == 20_000_000
    assert vms["memcached"]["ioq"]["over_ioq"] == 0


def test_a_bad_ioq_exits_2_with_one_line(capsys, tmp_path):
    path = spec_file(tmp_path, '[host]\npcpus = 1\n[[vm]]\nname = "m"\ntype = "Type1"\n'
                     'ioq = "soon"\n', "bad.toml")
    status, out, err = run_cli(capsys, "admit", path)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "bad.toml" in err and "m" in err and "ioq" in err

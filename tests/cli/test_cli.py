"""``akita admit``: the table, the JSON document, exit statuses, one-line errors."""

import json
from fractions import Fraction
import subprocess
import sys

import pytest

from akita.cli import run
from repo import EXAMPLES



def admit(capsys, *args):
    status = run(["admit", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def test_fig5_json_has_the_documented_shape(capsys):
    status, out, err = admit(capsys, EXAMPLES / "fig5.toml", "--json")
    assert status == 0 and err == ""
    assert json.loads(out) == {
        "admitted": True,
        "test": "edf-vd",
        "phases": "seeded",
        "x_rule": "eq4",
        "switch_cost_ns": 0,
        "vms": [
            {"name": name, "admitted": True, "placement": [0], "reason": None, "phase_ns": None}
            for name in ("memcached", "lookbusy1", "lookbusy2", "lookbusy3")
        ],
        "pcpus": [
            {
                "index": 0,
                "vcpus": ["memcached/0", "lookbusy1/0", "lookbusy2/0", "lookbusy3/0"],
                "u_lo_lo": "3/4",
                "u_hi_lo": "1/20",
                "u_hi_hi": "1/4",
                "x": "1",
                "x_used": "1/5",
                "schedulable": True,
            }
        ],
    }


def test_declared_phases_and_the_x_rule_are_shown(capsys, tmp_path):
    path = tmp_path / "host.toml"
    path.write_text((EXAMPLES / "fig5.toml").read_text().replace('phases = "seeded"', 'x_rule = "baruah"')
                    .replace('type = "Type1"', 'type = "Type1"\nphase = "2ms"'))
    status, out, _ = admit(capsys, path, "--json")
    doc = json.loads(out)
    assert doc["phases"] == "synchronous" and doc["x_rule"] == "baruah"
    assert [vm["phase_ns"] for vm in doc["vms"]] == [2_000_000, None, None, None]
    assert doc["pcpus"][0]["x_used"] == "1"
    status, out, _ = admit(capsys, path)
    assert "Periods start: memcached at 2ms; the others at 0 (synchronous)." in out
    assert "x_rule 'baruah'" in " ".join(out.split())


def test_fig7_x_is_two_fifths(capsys):
    status, out, _ = admit(capsys, EXAMPLES / "fig7.toml", "--json")
    assert status == 0
    assert json.loads(out)["pcpus"][0]["x"] == "2/5"


def test_a_rejection_exits_1_and_explains(capsys):
    status, out, _ = admit(capsys, EXAMPLES / "mixed.toml", "--json")
    doc = json.loads(out)
    assert status == 1 and doc["admitted"] is False
    big = next(vm for vm in doc["vms"] if vm["name"] == "big")
    assert big["placement"] == [] and "big/1" in big["reason"]
    assert next(vm for vm in doc["vms"] if vm["name"] == "late")["admitted"]


def test_table_for_people(capsys):
    status, out, _ = admit(capsys, EXAMPLES / "mixed.toml")
    assert status == 1
    assert "Rejected VMs" in out and "big" in out and "3/13" in out
    assert "4 of 5 VMs admitted on 2 pCPUs" in out


BAD_FILES = {
    "malformed": ("[host\npcpus = 1", "field 'toml': expected valid TOML"),
    "unknown_key": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type1"\nwieght = 3',
                    "vm 'a': field 'wieght': expected a known key"),
    "missing_field": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ncriticality = "LO"\nperiod = "1ms"',
                      "vm 'a': field 'c_opt'"),
    "zero": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type2"\nc_opt = "0ms"',
             "vm 'a': field 'c_opt'"),
    "negative": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type2"\nperiod = "-1ms"',
                 "vm 'a': field 'period'"),
    "c_pes_on_lo": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type2"\nc_pes = "30ms"',
                    "vm 'a': field 'c_pes': expected no c_pes on a LO VM, got '30ms'"),
    "c_pes_over_period": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type1"\nc_pes = "1s"',
                          "vm 'a': field 'c_pes'"),
    "c_opt_over_c_pes": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type1"\nc_opt = "50ms"',
                         "vm 'a': field 'c_pes'"),
    "duplicate": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type1"\n[[vm]]\nname = "a"\ntype = "Type2"',
                  "vm 'a': field 'name'"),
    "bare_number": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type2"\nperiod = "100"',
                    "unit (s, ms, us, ns), got '100'"),
    "unknown_preset": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type7"', "field 'type'"),
    "vcpus_zero": ('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type2"\nvcpus = 0',
                   "field 'vcpus': expected an integer >= 1, got 0"),
    "pcpus_zero": ("[host]\npcpus = 0", "field 'host.pcpus': expected an integer >= 1, got 0"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
@pytest.mark.parametrize("as_json", [False, True])
def test_bad_input_exits_2_with_one_line(case, as_json, tmp_path, capsys):
    body, message = BAD_FILES[case]
    path = tmp_path / f"{case}.toml"
    path.write_text(body)
    status, out, err = admit(capsys, path, *(["--json"] if as_json else []))
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(f"akita: error: {path}: ")
    assert message in err
    assert "Traceback" not in err


def test_missing_file_and_missing_argument(tmp_path, capsys):
    status, out, err = admit(capsys, tmp_path / "absent.toml")
    assert (status, out) == (2, "") and "readable file" in err and err.count("\n") == 1
    status, out, err = admit(capsys)
    assert (status, out) == (2, "") and "Missing argument" in err


def test_console_script_end_to_end(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[host]\npcpus = 1\n[[vm]]\nname = "a"\ntype = "Type2"\nc_pes = "30ms"')
    done = subprocess.run(
        [sys.executable, "-m", "akita", "admit", str(bad)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().endswith("expected no c_pes on a LO VM, got '30ms'")
    done = subprocess.run(
        [sys.executable, "-m", "akita", "admit", str(EXAMPLES / "fig7.toml"), "--json"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert done.returncode == 0 and json.loads(done.stdout)["admitted"] is True


def test_counts_of_one_are_singular(capsys, tmp_path):
    """Issue 13, finding 7: admit printed "1 pCPUs" and "1 vCPU(s)"."""
    host = tmp_path / "one.toml"
    host.write_text('[host]\npcpus = 1\n[[vm]]\nname = "web"\ntype = "Type2"\n'
                    '[[vm]]\nname = "big"\ncriticality = "LO"\nperiod = "10ms"\nc_opt = "9ms"\n'
                    'vcpus = 2\n')
    status, out, err = admit(capsys, host)
    assert status == 1 and err == ""
    text = " ".join(out.split())
    assert "1 of 2 VMs admitted on 1 pCPU." in text
    assert "1 pCPUs" not in text and "vCPU(s)" not in text
    status, out, err = admit(capsys, host, "--json")
    reason = json.loads(out)["vms"][1]["reason"]
    assert reason == ("vCPU big/0 (LO, C_opt/T = 9/10) fails the edf-vd test on the host's only "
                      "pCPU")


def test_a_vcpu_taken_back_is_singular():
    from akita.model import VM, Criticality, Host, first_fit
    ms = 1_000_000
    host = Host(pcpus=2, vms=[VM("big", Criticality.LO, 10 * ms, 6 * ms, vcpus=3)])
    reason = first_fit(host).of("big").reason
    assert reason.endswith("on none of the 2 pCPUs; its 2 placed vCPUs were taken back")
    host = Host(pcpus=2, vms=[VM("a", Criticality.LO, 10 * ms, 6 * ms),
                              VM("big", Criticality.LO, 10 * ms, 6 * ms, vcpus=2)])
    assert first_fit(host).of("big").reason.endswith("its 1 placed vCPU was taken back")


def test_the_switch_cost_is_counted_reported_and_inflates_the_sums(capsys):
    """Fig. 5's pCPU (U1 + U3 = 1) at 2,460 ns a switch: EDF-VD's x branch still admits it."""
    status, out, err = admit(capsys, EXAMPLES / "fig5.toml", "--json", "--switch-cost", "2460ns")
    document = json.loads(out)
    assert status == 0 and err == ""
    assert document["switch_cost_ns"] == 2460
    pcpu = document["pcpus"][0]
    assert pcpu["declared"] == {"u_lo_lo": "3/4", "u_hi_lo": "1/20", "u_hi_hi": "1/4"}
    # all four have 100 ms periods: memcached/0 is displaced at most once by each LO
    # period start; a LO vCPU also by memcached's overrun, 2 * 1 + 1
    assert pcpu["switches"] == {"memcached/0": 4, "lookbusy1/0": 6, "lookbusy2/0": 6,
                                "lookbusy3/0": 6}
    assert pcpu["u_hi_hi"] == str(Fraction(25_000_000 + 4 * 2460, 100_000_000))
    assert pcpu["u_lo_lo"] == str(Fraction(3 * (25_000_000 + 6 * 2460), 100_000_000))
    status, out, _ = admit(capsys, EXAMPLES / "fig5.toml", "--switch-cost", "2460ns")
    assert "Each context switch counted as 2.46us" in " ".join(out.split())


def test_a_full_pcpu_loses_a_vm_to_the_switch_cost(capsys, tmp_path):
    path = tmp_path / "host.toml"
    path.write_text('[host]\npcpus = 1\ncontext_switch_cost = "2460ns"\n'
                    '[[vm]]\nname = "a"\ncriticality = "LO"\nperiod = "1ms"\nc_opt = "500us"\n'
                    '[[vm]]\nname = "b"\ncriticality = "LO"\nperiod = "1ms"\nc_opt = "500us"\n')
    status, out, _ = admit(capsys, path, "--json")
    assert status == 1 and [vm["admitted"] for vm in json.loads(out)["vms"]] == [True, False]
    status, out, _ = admit(capsys, path, "--json", "--switch-cost", "0ns")
    assert status == 0 and json.loads(out)["switch_cost_ns"] == 0


def test_a_negative_switch_cost_is_bad_input(capsys):
    status, out, err = admit(capsys, EXAMPLES / "fig5.toml", "--switch-cost", "-1ns")
    assert status == 2 and out == "" and "--switch-cost" in err and len(err.splitlines()) == 1


def test_the_recheck_in_parts_gives_the_same_bytes_for_any_workers(capsys, monkeypatch):
    """``--workers`` (decision 359): with the threshold for parts lowered so that the
    example's certificate is re-checked in two parts, ``--workers 0`` (in this process)
    and ``--workers 2`` (a local Dask cluster) print the same document, which says the
    re-check ran in parts; at the shipped threshold it runs in one, as before."""
    from akita.proofs import exact_certificate

    status, whole, _ = admit(capsys, EXAMPLES / "exact.toml", "--json")
    assert status == 0 and " in 2 parts" not in whole
    monkeypatch.setattr(exact_certificate, "PARTS_FROM", 1)
    outs = []
    for workers in ("0", "2"):
        status, out, err = admit(capsys, EXAMPLES / "exact.toml", "--json", "--workers", workers)
        assert status == 0 and err == ""
        outs.append(out)
    assert outs[0] == outs[1] and "families of members stepped in 2 parts" in outs[0]


def test_workers_below_zero_is_exit_2(capsys):
    status, out, err = admit(capsys, EXAMPLES / "exact.toml", "--workers", "-1")
    assert status == 2 and out == "" and "--workers" in err


def test_a_bar_on_a_terminal_names_the_vm_and_leaves_stdout_as_it_was(capsys, monkeypatch):
    """On a terminal ``akita admit`` draws a bar on stderr while first fit places the VMs
    (an exact test can take minutes a VM), its last frame naming the last VM offered;
    stdout is the same document as off one."""
    from akita.model import load_host

    status, plain, err = admit(capsys, EXAMPLES / "fig5.toml", "--json")
    assert status == 0 and err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status, out, err = admit(capsys, EXAMPLES / "fig5.toml", "--json")
    assert status == 0 and out == plain
    assert f"Placing {load_host(EXAMPLES / 'fig5.toml').vms[-1].name}" in err

"""``[vm.guest]`` in the host file: read back as written, bad values refused on one line."""

import pytest

from akita.model import dumps_host, loads_host
from cli_run import run_cli, spec_file

HEAD = '[host]\npcpus = 2\n[[vm]]\nname = "a"\ncriticality = "LO"\nperiod = "10ms"\nc_opt = "5ms"\n'


def test_round_trip():
    host = loads_host(HEAD + '[vm.guest]\nprogram = "dedup"\nthreads = 6\ncontrol = "balloon"\n'
                      'period = "50ms"\nhysteresis = 3\nestimator = "ran"\nwork = "2s"\n')
    guest = host.vms[0].guest
    assert (guest.program, guest.threads, guest.period, guest.hysteresis, guest.work) == (
        "dedup", 6, 50_000_000, 3, 2_000_000_000)
    assert loads_host(dumps_host(host)) == host


@pytest.mark.parametrize("table, field", [
    ('program = "ferret"', "guest.program"),
    ('threads = 0\nprogram = "dedup"', "guest.threads"),
    ('program = "dedup"\ncontrol = "gang"', "guest.control"),
    ('program = "dedup"\nperiod = "soon"', "guest.period"),
    ('program = "dedup"\nhysteresis = true', "guest.hysteresis"),
    ('program = "dedup"\nestimator = "load"', "guest.estimator"),
    ('program = "dedup"\nwork = "0ms"', "guest.work"),
    ('program = "dedup"\nsize = 3', "guest.size"),
    ('threads = 2', "guest.program"),
])
def test_bad_guest_keys_exit_2_naming_file_vm_and_field(capsys, tmp_path, table, field):
    path = spec_file(tmp_path, HEAD + "[vm.guest]\n" + table + "\n", "bad.toml")
    status, out, err = run_cli(capsys, "simulate", path, "--duration", "1ms")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert str(path) in err and "vm 'a'" in err and repr(field) in err


def test_a_hi_vm_that_balloons_is_refused(capsys, tmp_path):
    text = HEAD.replace('"LO"', '"HI"\nc_pes = "5ms"') + '[vm.guest]\nprogram = "dedup"\n' \
        'control = "balloon"\n'
    status, _, err = run_cli(capsys, "admit", spec_file(tmp_path, text, "hi.toml"))
    assert status == 2 and "'guest.control'" in err and "decision 91" in err


def test_simulate_prints_the_guests_and_json_has_them(capsys, tmp_path):
    path = spec_file(tmp_path, HEAD + 'vcpus = 2\n[vm.guest]\nprogram = "streamcluster"\n'
                     'work = "20ms"\n', "g.toml")
    status, out, _ = run_cli(capsys, "simulate", path, "--duration", "50ms")
    assert status == 0 and "SMP guests" in out
    status, out, _ = run_cli(capsys, "simulate", path, "--duration", "50ms", "--json")
    assert status == 0 and '"guests": {"a": {"program": "streamcluster"' in out

"""The classes of input the command-line fuzzing found, each fixed at its root: a name
that is a table or a list, a count without a ceiling, digits that are not ASCII, a host
with nothing to admit."""

import json

import pytest

from akita.oracle import TraceError
from akita.trace.ftrace import read_ftrace
from cli_run import run_cli, spec_file
from repo import EXAMPLES

FLEET = (EXAMPLES / "fleet.toml").read_text()


def _one_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("value", ["{ a = 1 }", "[1, 2]", "[]", "3"])
@pytest.mark.parametrize("field, old", [
    ("fleet.test", 'test = "edf-vd"'),
    ("fleet.mix.types[0].type", 'type = "Type1"'),
    ("fleet.lifetimes.distribution", 'distribution = "log-uniform"'),
])
def test_a_fleet_name_that_is_not_a_string_is_refused_in_one_line(capsys, tmp_path, field, old,
                                                                  value):
    """Old code: ``TypeError: unhashable type`` (a traceback, exit 1) for a table or list."""
    key = old.split(" = ")[0]
    path = spec_file(tmp_path, FLEET.replace(old, f"{key} = {value}", 1), "fleet.toml")
    status, _, err = run_cli(capsys, "fleet", path, "--out", tmp_path / "out", "--no-plot")
    assert status == 2
    assert f"field '{field}'" in _one_line(err)


def test_a_sweep_generator_kind_that_is_a_table_is_refused(capsys, tmp_path):
    text = (EXAMPLES / "sweep.toml").read_text().replace('kind = "uunifast"', "kind = { a = 1 }")
    path = spec_file(tmp_path, text, "sweep.toml")
    status, _, err = run_cli(capsys, "sweep", path, "--out", tmp_path / "out", "--no-plot")
    assert status == 2 and "field 'sweep.generator.kind'" in _one_line(err)


GUEST = """
[host]
pcpus = 2
[[vm]]
name = "g"
type = "Type1"
vcpus = 2
[vm.guest]
program = "blackscholes"
{line}
"""


@pytest.mark.parametrize("line, field, ceiling", [
    ("threads = 9223372036854775807", "guest.threads", 1024),
    ("threads = 1025", "guest.threads", 1024),
    ("hysteresis = 10001", "guest.hysteresis", 10000),
])
def test_every_count_a_guest_declares_has_a_ceiling(capsys, tmp_path, line, field, ceiling):
    """Old code: ``threads = 2**63-1`` was accepted and simulate ran away (11 GB)."""
    path = spec_file(tmp_path, GUEST.format(line=line), "host.toml")
    status, _, err = run_cli(capsys, "simulate", path, "--duration", "10ms")
    assert status == 2
    message = _one_line(err)
    assert f"vm 'g': field '{field}'" in message and f"at most {ceiling}" in message


def test_a_guest_at_its_ceiling_runs(capsys, tmp_path):
    path = spec_file(tmp_path, GUEST.format(line="threads = 1024"), "host.toml")
    assert run_cli(capsys, "simulate", path, "--duration", "5ms")[0] == 0


def test_closed_loop_connections_have_a_ceiling(capsys, tmp_path):
    text = """
[host]
pcpus = 1
[[vm]]
name = "web"
type = "Type1"
workload = { kind = "closed", connections = 65537, service = "100us", think = "1ms" }
"""
    status, _, err = run_cli(capsys, "simulate", spec_file(tmp_path, text, "h.toml"),
                             "--duration", "10ms")
    assert status == 2 and "workload.connections" in _one_line(err)


SWITCH = ("          <idle>-0       [{cpu}] d..2.  5123.456789: sched_switch: prev_comm=swapper/1"
          " prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=qemu-web next_pid=4242"
          " next_prio=120")


def test_an_ftrace_cpu_in_arabic_indic_digits_is_refused_not_read_as_cpu_1():
    """Old code: ``[\u0660\u0660\u0661]`` matched ``\\d`` and ``int()`` read it as CPU 1."""
    assert [e["cpu"] for e in read_ftrace([SWITCH.format(cpu="001")], {"4242": "web/0"})] == [1]
    with pytest.raises(TraceError, match="expected an ftrace line"):
        list(read_ftrace([SWITCH.format(cpu="\u0660\u0660\u0661")], {"4242": "web/0"}))


def test_admit_on_a_host_with_no_vm_says_nothing_to_admit_like_check(capsys, tmp_path):
    """Old code: exit 0 with ``"admitted": true`` where check and verify exit 4."""
    path = spec_file(tmp_path, "[host]\npcpus = 2\n", "empty.toml")
    status, out, err = run_cli(capsys, "admit", path)
    assert status == 4 and err == "" and "Nothing to admit" in out
    status, out, _ = run_cli(capsys, "admit", path, "--json")
    assert status == 4 and json.loads(out)["vms"] == []
    assert run_cli(capsys, "check", path)[0] == 4


# -- found by the campaign (bench/fuzz.py --cli --seed 2 --formats tracedat): a mutated
# format that gives sched_migrate_task's comm an integer type, and a mutated header_page whose
# commit overlaps the timestamp.  Each input is made again from the campaign's seed.

def _fuzz_input(fmt, seed, number):
    import importlib.util

    from repo import ROOT

    spec = importlib.util.spec_from_file_location("fuzz_cli", ROOT / "bench" / "fuzz_cli.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, module.input_of(fmt, seed, number)


@pytest.mark.parametrize("number, field, expected", [
    (6672, "sched:sched_migrate_task.comm", "expected a string"),
    (7395, "header_page", "expected an 8-byte timestamp, then a 4- or 8-byte commit"),
])
def test_a_mutated_trace_dat_is_refused_in_one_line(capsys, tmp_path, number, field, expected):
    fuzz, data = _fuzz_input("tracedat", 2, number)
    path = tmp_path / "trace.dat"
    path.write_bytes(data)
    status, _, err = run_cli(capsys, *fuzz._command("tracedat", path, tmp_path))
    line = _one_line(err)
    assert status == 2
    assert f"{path}@0x" in line and f"'{field}'" in line and expected in line, line

"""Files written whole or not at all; Ctrl-C exits 130 with one line; write errors are
reported; bare ``akita`` prints the help.

The interrupt tests send a real ``SIGINT`` to an ``akita`` process at a random instant
of its work (after it has started writing, so that there is something to lose) and
check that no partial file is left: the output is absent or whole, and no temporary
stays behind.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from akita.atomic import atomic_file, kept, write_atomic
from cli_run import interruptible, run_cli, spec_file
from repo import EXAMPLES

AKITA = [sys.executable, "-c", "from akita.cli import main; main()"]

#: Seeded, so that a failure can be rerun at the same instants (the work they fall in
#: still depends on the machine's speed).
_INSTANTS = random.Random(33)


def _start(args, cwd):
    return interruptible([*AKITA, *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)


def _wait_for(condition, process, limit=120.0):
    """Wait until *condition()* holds while *process* runs (False if it ended first)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and process.poll() is None:
        if condition():
            return True
        time.sleep(0.02)
    return False


def _interrupt(process, delay):
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


def _temporaries(folder: Path):
    return [p for p in folder.rglob(".*.tmp")]


def _assert_interrupted(status, err):
    assert status == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("akita: interrupted: "), err
    assert "Traceback" not in err


# -- the helper ----------------------------------------------------------------------

def test_a_failed_write_leaves_the_previous_file(tmp_path):
    path = tmp_path / "out.json"
    write_atomic(path, "old\n")
    with pytest.raises(RuntimeError):
        with atomic_file(path) as stream:
            stream.write("new, half")
            raise RuntimeError("stopped")
    assert path.read_text() == "old\n"
    assert _temporaries(tmp_path) == []
    assert str(path) in kept()


def test_a_failed_first_write_leaves_nothing(tmp_path):
    path = tmp_path / "out.bin"
    with pytest.raises(KeyboardInterrupt):
        with atomic_file(path, "wb") as stream:
            stream.write(b"x" * 10_000)
            raise KeyboardInterrupt
    assert not path.exists() and _temporaries(tmp_path) == []


def test_the_file_keeps_the_umask_permissions_not_mkstemps(tmp_path):
    path = tmp_path / "out.txt"
    write_atomic(path, "x")
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask


def test_a_device_is_written_in_place_not_renamed_over(tmp_path):
    write_atomic("/dev/null", "nothing")
    assert Path("/dev/null").is_char_device()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_write_error_names_the_file():
    with pytest.raises(OSError) as error:
        write_atomic("/dev/full", "x" * 100_000)
    assert error.value.filename == "/dev/full"


# -- write errors, bare akita -----------------------------------------------------------

@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", ["simulate", "conform"])
def test_a_timeline_that_cannot_be_written_is_one_line_exit_2(capsys, tmp_path, command):
    trace = tmp_path / "t.jsonl"
    assert run_cli(capsys, "simulate", EXAMPLES / "fig5.toml", "--duration", "50ms",
                   "--trace", trace)[0] == 0
    args = (["simulate", EXAMPLES / "fig5.toml", "--duration", "50ms"] if command == "simulate"
            else ["conform", EXAMPLES / "fig5.toml", trace])
    status, _, err = run_cli(capsys, *args, "--timeline", "/dev/full")
    assert status == 2
    assert err.strip().splitlines() == ["akita: error: /dev/full: No space left on device"]


def test_bare_akita_prints_the_help_with_status_0():
    done = subprocess.run(AKITA, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("Usage: akita [OPTIONS] COMMAND [ARGS]...\n")
    assert "Commands:" in done.stdout and len(done.stdout.splitlines()) > 10


# -- a real Ctrl-C at random instants --------------------------------------------------

@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_during_simulate_trace_leaves_no_partial_trace(tmp_path, attempt):
    trace = tmp_path / "run.jsonl"
    process = _start(["simulate", EXAMPLES / "fig5.toml", "--duration", "10s", "--trace",
                      trace], tmp_path)
    assert _wait_for(lambda: _temporaries(tmp_path), process), "the trace was never begun"
    status, _, err = _interrupt(process, _INSTANTS.uniform(0.0, 1.5))
    _assert_interrupted(status, err)
    assert "no file written" in err
    assert not trace.exists() and _temporaries(tmp_path) == []


SWEEP = """
[sweep]
seed = 3
sets = 400
utilizations = { start = 0.5, stop = 0.95, step = 0.05 }
tests = ["edf-vd", "edf", "amc-rtb", "rm-rta"]

[sweep.generator]
kind = "uunifast"
vcpus = 20
periods = ["10ms", "1000ms"]
granularity = "100us"
criticality_factor = 2
p_hi = 0.5
"""


def _batches_whole(folder: Path):
    for path in folder.rglob("*.json"):
        json.loads(path.read_text())  # a partial file would not parse


# one attempt in the fast tier, the second (another seeded instant) in the long tier
SECOND_ATTEMPT_LONG = [0, pytest.param(1, marks=pytest.mark.long)]


@pytest.mark.parametrize("attempt", SECOND_ATTEMPT_LONG)
def test_ctrl_c_during_a_sweep_keeps_whole_batches_and_says_a_rerun_resumes(tmp_path, attempt):
    spec = spec_file(tmp_path, SWEEP, "s.toml")
    out = tmp_path / "out"
    process = _start(["sweep", spec, "--out", out, "--no-plot", "--workers", "0"], tmp_path)
    assert _wait_for(lambda: any((out / "s-batches").rglob("*.json")), process), \
        "no batch was finished"
    status, _, err = _interrupt(process, _INSTANTS.uniform(0.0, 1.0))
    _assert_interrupted(status, err)
    assert "a rerun with the same spec and --out resumes" in err
    assert _temporaries(out) == [] and not (out / "s.csv").exists()
    _batches_whole(out)
    resumed = subprocess.run([*AKITA, "sweep", str(spec), "--out", str(out), "--no-plot",
                              "--workers", "0", "--json"], capture_output=True, text=True,
                             timeout=600, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "reused" in resumed.stderr and " 0 reused" not in resumed.stderr


@pytest.mark.parametrize("attempt", SECOND_ATTEMPT_LONG)
def test_ctrl_c_during_reproduce_leaves_whole_files_only(tmp_path, attempt):
    out = tmp_path / "out"
    process = _start(["reproduce", "all", "--quick", "--out", out], tmp_path)
    assert _wait_for(out.exists, process), "the output folder was never made"
    status, _, err = _interrupt(process, _INSTANTS.uniform(0.0, 6.0))
    if status == 0:  # finished before the signal: every file whole
        pytest.skip("the run finished before the signal")
    _assert_interrupted(status, err)
    assert _temporaries(out) == []
    for path in out.rglob("*.json"):
        json.loads(path.read_text())

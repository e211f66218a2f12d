"""The Linux runs name their parameters; ``akita`` names its flags (decisions 260, 341).

None of these reaches the kernel: each argument is refused before a cpuset, a
tracing instance or a task is made, so they run on any machine.
"""

from __future__ import annotations

import pytest

from akita.linux import kernel_run as kr
from akita.linux.errors import LinuxError, LinuxParameterError
from akita.linux.run import parse_attach
from akita.model import ParameterError, load_host
from cli_run import run_cli
from repo import EXAMPLES

FIG5 = EXAMPLES / "fig5.toml"


def test_a_bad_attach_names_the_parameter_and_is_both_kinds_of_error():
    with pytest.raises(LinuxParameterError, match="parameter 'attach'") as caught:
        parse_attach(["x=1"], load_host(FIG5))
    assert isinstance(caught.value, ParameterError) and isinstance(caught.value, LinuxError)
    assert caught.value.value == "x=1"


def test_an_unknown_controller_variant_names_the_parameter():
    from akita.linux.controller import Controller

    with pytest.raises(ParameterError, match="parameter 'variant'.*got 'no-such'"):
        Controller([], kernel=None, origin=0, variant="no-such")


def test_the_prediction_check_names_the_policy():
    with pytest.raises(ParameterError, match="parameter 'policy'.*got 'nope'"):
        kr.check_predict("nope", 1.0)
    kr.check_predict(kr.default_policy(), 1.0)


@pytest.mark.parametrize("args, line", [
    (("linux", FIG5, "--attach", "x=1"),
     "field '--attach': expected VM/i=TID with VM/i one of lookbusy1/0, lookbusy2/0, "
     "lookbusy3/0, memcached/0, got 'x=1'"),
    (("linux", FIG5, "--attach", "memcached/0=1"),
     "field '--attach': expected a thread for every vCPU (missing lookbusy1/0, lookbusy2/0, "
     "lookbusy3/0), got 'memcached/0=1'"),
    (("linux", FIG5, "--seconds", "0"),
     "field '--seconds': expected a duration in (0, 3600] seconds, got 0.0"),
    (("kernel-run", EXAMPLES / "kernel" / "weights.toml", "--policy", "nope"),
     "field '--policy': expected one of "),
])
def test_the_command_line_reports_each_under_its_flag(capsys, tmp_path, args, line):
    status, out, err = run_cli(capsys, *args, "--out", tmp_path / "out")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"akita: error: {line}")
    assert not (tmp_path / "out").exists()

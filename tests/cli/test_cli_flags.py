"""Library errors name parameters; the command line names flags (decisions 260, 341)."""

import ast

import pytest
from cli_run import run_cli

from akita.cli import COMMANDS, FLAGS, cli
from akita.model import ParameterError, load_host
from akita.proofs.host_check import check_limits
from akita.reference.mutants import mutant_named
from akita.reference.run import simulate
from repo import EXAMPLES, ROOT

#: The library's packages: every folder installed under ``akita.`` (with the modules of
#: ``akita`` itself) but the command line's.
LIBRARY = ("model", "reference", "proofs", "oracle", "trace", "experiments", "sweep", "fleet",
           "guest", "disk", "linux", "analysis")


def _flags() -> set[str]:
    flags: set[str] = set()
    for name in COMMANDS:
        command = cli.get_command(None, name)
        for param in command.params:
            flags.update(param.opts)
    return flags


def test_every_flag_of_the_table_is_a_flag_of_a_command():
    assert sorted(set(FLAGS.values()) - _flags()) == []


def test_no_flag_is_named_by_the_table_as_a_parameter():
    assert not any(parameter.startswith("-") for parameter in FLAGS)


def _flag_fields(path):
    """The lines of *path* that raise an error whose field (first argument) is a flag."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            field = node.exc.args[0]
            if isinstance(field, ast.Constant) and str(field.value).startswith("--"):
                yield f"{path.relative_to(ROOT)}:{node.lineno}"


def test_no_library_error_names_a_flag():
    paths = [path for package in LIBRARY for path in sorted((ROOT / package).rglob("*.py"))]
    paths += sorted((ROOT / "src" / "akita").glob("*.py"))  # akita.parallel, akita.plotting ...
    found = [where for path in paths for where in _flag_fields(path)]
    assert found == []


@pytest.mark.parametrize("limits, parameter", [
    ({"timeout": 0.0, "max_ticks": 1, "hyperperiods": 1, "memory_mb": None}, "timeout"),
    ({"timeout": 1.0, "max_ticks": 0, "hyperperiods": 1, "memory_mb": None}, "max_ticks"),
    ({"timeout": 1.0, "max_ticks": 1, "hyperperiods": 0, "memory_mb": None}, "hyperperiods"),
    ({"timeout": 1.0, "max_ticks": 1, "hyperperiods": 1, "memory_mb": 0}, "memory_mb"),
])
def test_the_library_names_its_parameter(limits, parameter):
    with pytest.raises(ParameterError) as caught:
        check_limits(**limits)
    assert caught.value.field == parameter
    assert str(caught.value).startswith(f"parameter '{parameter}': expected")
    assert parameter in FLAGS


def test_simulate_names_policy_and_duration():
    host = load_host(EXAMPLES / "fig5.toml")
    for arguments, parameter in ((("nosuch", 1000), "policy"), (("akita", 0), "duration")):
        with pytest.raises(ParameterError) as caught:
            simulate(host, arguments[0], duration=arguments[1])
        assert caught.value.field == parameter


def test_a_mutant_name_is_a_parameter_with_no_flag():
    with pytest.raises(ParameterError) as caught:
        mutant_named("nosuch")
    assert caught.value.field == "name" and "name" not in FLAGS


@pytest.mark.parametrize("args, line", [
    (["simulate", "--duration", "0s"], "field '--duration': expected a duration > 0, got '0s'"),
    (["simulate", "--duration=0ms"], "field '--duration': expected a duration > 0, got '0ms'"),
    (["check", str(EXAMPLES / "fig5.toml"), "--max-ticks", "0"],
     "field '--max-ticks': expected an integer >= 1, got 0"),
])
def test_the_command_line_names_the_flag_and_the_value_as_typed(capsys, args, line):
    status, out, err = run_cli(capsys, *args)
    assert (status, out) == (2, "")
    assert err == f"akita: error: {line}\n"


"""``akita disk``: runs a disk file, the same bytes twice, bad input exits 2 with one line."""

import json

from cli_run import run_cli, spec_file
from repo import DISK_EXAMPLES


def test_disk_runs_every_scheduler_and_repeats_byte_for_byte(capsys):
    args = ("disk", DISK_EXAMPLES[0], "--scheduler", "all", "--duration", "300ms", "--json")
    status, out, err = run_cli(capsys, *args)
    assert status == 0 and err == ""
    runs = json.loads(out)["runs"]
    assert [r["scheduler"] for r in runs] == ["noop", "deadline", "cfq", "as", "pregather"]
    assert run_cli(capsys, *args)[1] == out


def test_disk_prints_a_table(capsys):
    status, out, _ = run_cli(capsys, "disk", DISK_EXAMPLES[0], "--duration", "100ms")
    assert status == 0 and "pregather" in out and "utilisation" in out


def test_the_table_has_per_process_rows_p99_9_and_busy_utilisation(capsys):
    """examples/disk-mixed.toml: a row per process (reader, logger, scan, update), a p99.9
    column, and noop's utilisation as busy time (the drive never idles with four processes
    asking), the transfer time beside it."""
    mixed = next(p for p in DISK_EXAMPLES if p.name == "disk-mixed.toml")
    status, out, _ = run_cli(capsys, "disk", mixed, "--duration", "300ms", "--scheduler", "noop")
    assert status == 0 and "p99.9" in out
    assert all(name in out for name in ("reader", "logger", "scan", "update"))
    assert "busy 100.0%" in out and "transferring 2." in out


def test_a_bad_disk_file_exits_2_with_one_line(tmp_path, capsys):
    path = spec_file(tmp_path, '[[vm]]\nname = "a"\n[[vm.process]]\npattern = "seqread"\n',
                     "bad.toml")
    status, out, err = run_cli(capsys, "disk", path)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err == (f"akita: error: {path}: vm 'a': field 'process.pattern': expected one of "
                   "seqrd, seqwr, rndrd, rndwr, got 'seqread'\n")


def test_a_bad_scheduler_or_duration_exits_2(capsys):
    for option in (("--scheduler", "sstf"), ("--duration", "5")):
        status, out, err = run_cli(capsys, "disk", DISK_EXAMPLES[0], *option)
        assert status == 2 and out == "" and err.count("\n") == 1 and option[0] in err

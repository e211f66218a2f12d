"""The disk file: what it reads, and bad input as one line naming the field."""

import pytest

from akita.disk.diskfile import DiskFileError, load_disk_file, loads_disk_file
from akita.disk.drive import WD_CAVIAR_BLACK_1TB
from repo import DISK_EXAMPLES

GOOD = '[run]\nduration = "2s"\nseed = 4\n[drive]\nrpm = 5400\naverage_seek = "12ms"\n' \
       '[[vm]]\nname = "a"\n[[vm.process]]\nname = "r"\npattern = "seqrd"\nthink = "1ms"\n'


def test_the_shipped_disk_files_load():
    assert DISK_EXAMPLES
    for path in DISK_EXAMPLES:
        run = load_disk_file(path)
        assert run.vms and run.drive == WD_CAVIAR_BLACK_1TB


def test_a_file_sets_the_run_the_drive_and_the_processes():
    run = loads_disk_file(GOOD)
    assert (run.duration_ns, run.seed) == (2 * 10**9, 4)
    assert run.drive.rpm == 5400 and run.drive.average_seek_ns == 12_000_000
    assert run.vms[0].processes[0].think_ns == 1_000_000


@pytest.mark.parametrize("text, field, vm", [
    (GOOD.replace('"seqrd"', '"seqread"'), "process.pattern", "a"),
    (GOOD.replace("think =", "thnk ="), "process.thnk", "a"),
    (GOOD.replace('"1ms"', '"1"'), "process.think", "a"),
    (GOOD.replace("rpm = 5400", "rpm = 0"), "drive.rpm", None),
    (GOOD.replace('"12ms"', '"30ms"'), "drive.average_seek_ns", None),
    (GOOD.replace("[[vm]]", "[[vms]]"), "vms", None),
    ('[run]\nduration = "1s"\n', "vm", None),
    ("[[vm\n", "toml", None),
])
def test_bad_input_names_the_file_the_vm_and_the_field(text, field, vm):
    with pytest.raises(DiskFileError) as caught:
        loads_disk_file(text, path="d.toml")
    error = caught.value
    assert (error.field, error.vm, error.path) == (field, vm, "d.toml")
    assert str(error).startswith("d.toml: ") and "\n" not in str(error)

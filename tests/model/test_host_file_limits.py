"""Every input of a host file has a ceiling, checked before any work (issue 13, finding 10).

Each test here is one crash or hang the fuzzing of issue 13 found, replayed
through the command line in process: the answer is now the one line on
stderr naming the file and the field, with exit status 2.
"""

from __future__ import annotations

import os

import pytest
from akita.model import HostFileError, ModelError, loads_host
from akita.model.limits import (
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    MAX_NESTING,
    MAX_PCPUS,
    MAX_TOTAL_VCPUS,
    MAX_VCPUS_PER_VM,
    MAX_VMS,
)

from akita.cli import run

HOST = "[host]\npcpus = 1\n"
VM = '[[vm]]\nname = "web"\ncriticality = "LO"\nperiod = "10ms"\nc_opt = "1ms"\n'


def admit(capsys, tmp_path, body: str | bytes, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "host.toml"
    if isinstance(body, str):
        path.write_text(body, encoding="utf-8")
    else:
        path.write_bytes(body)
    status = run(["admit", *args, str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys, tmp_path, body: str | bytes, *expected: str) -> str:
    """Assert *body* is refused as one line naming the file; return that line."""
    status, out, err = admit(capsys, tmp_path, body)
    assert status == 2 and out == "", (status, out, err)
    assert err.count("\n") == 1 and err.startswith(f"akita: error: {tmp_path / 'host.toml'}: ")
    for part in expected:
        assert part in err, err
    assert len(err) < 600  # one line a person reads, whatever the size of the value
    return err


@pytest.mark.parametrize("digits", [5000, 4000, 30])
def test_huge_pcpus(capsys, tmp_path, digits):
    """``pcpus = 999...9``: tomllib, then str() of the value, raised ValueError."""
    refused(capsys, tmp_path, f"[host]\npcpus = {'9' * digits}\n", "pcpus")


def test_int64_pcpus_is_refused_before_first_fit(capsys, tmp_path):
    """``pcpus = 2**63 - 1`` crashed in first_fit (a list of that many pCPUs)."""
    refused(capsys, tmp_path, "[host]\npcpus = 9223372036854775807\n", "'host.pcpus'",
            f"at most {MAX_PCPUS}")


def test_int64_vcpus_is_refused_before_first_fit(capsys, tmp_path):
    """``vcpus = 2**63 - 1`` ran past 30 s in admit."""
    refused(capsys, tmp_path, HOST + VM + "vcpus = 9223372036854775807\n", "vm 'web'",
            "'vcpus'", f"at most {MAX_VCPUS_PER_VM}")


def test_total_vcpus_and_vms_are_bounded(capsys, tmp_path):
    many = "".join(f'[[vm]]\nname = "v{i}"\ntype = "Type5"\nvcpus = 256\n'
                   for i in range(MAX_TOTAL_VCPUS // 256 + 1))
    refused(capsys, tmp_path, "[host]\npcpus = 1024\n" + many, f"at most {MAX_TOTAL_VCPUS} vCPUs")
    vms = "".join(f'[[vm]]\nname = "v{i}"\ntype = "Type5"\n' for i in range(MAX_VMS + 1))
    refused(capsys, tmp_path, "[host]\npcpus = 1024\n" + vms, f"at most {MAX_VMS} [[vm]]")


@pytest.mark.parametrize("period, field", [("9" * 5000 + "ms", "'line 6'"),
                                           ("9" * 4000 + "ms", "'period'"),
                                           ("9" * 100 + "ms", "'period'"),
                                           ("1e400ms", "'period'"), ("99999999999s", "'period'")])
def test_huge_durations(capsys, tmp_path, period, field):
    """A period of thousands of digits crashed in Fraction."""
    body = HOST + VM.replace('"10ms"', f'"{period}"')
    refused(capsys, tmp_path, body, field)


@pytest.mark.parametrize("rate", ['"1e99999999"', '"1e400"', "1e300", '"' + "9" * 80 + '"'])
def test_huge_fractions(capsys, tmp_path, rate):
    """A rate of ``1e99999999`` made Fraction compute 10**99999999; ``1e400`` made poisson run
    forever."""
    body = HOST + VM + f'workload = {{ kind = "poisson", rate = {rate}, service = "1ms" }}\n'
    refused(capsys, tmp_path, body, "'workload.rate'")


def test_long_numeric_trace_map_key(capsys, tmp_path):
    """A pid key of thousands of digits crashed in ``str(int(key))``."""
    body = HOST + VM + f'[trace_map]\n"{"4" * 200}" = "web/0"\n'
    refused(capsys, tmp_path, body, "trace_map", "at most 4194304")
    body = HOST + VM + f'[trace_map]\n"{"4" * 4000}" = "web/0"\n'
    refused(capsys, tmp_path, body, "at most 256 characters")


def test_long_vcpu_index_in_trace_map(capsys, tmp_path):
    refused(capsys, tmp_path, HOST + VM + f'[trace_map]\n"42" = "web/{"1" * 200}"\n',
            "a vCPU name 'VM/i'")


@pytest.mark.parametrize("nest", ["[" * 2000, "{a=" * 2000, "[" * (MAX_NESTING + 1)])
def test_deep_nesting_is_refused_before_parsing(capsys, tmp_path, nest):
    """Deeply nested arrays or inline tables crashed inside tomllib (RecursionError)."""
    refused(capsys, tmp_path, HOST + f"x = {nest}\n", "nested at most")


def test_brackets_in_strings_and_comments_are_not_nesting():
    loads_host(HOST + f'# {"[" * 100}\n' + VM.replace('"web"', '"w[[[[[[[[[[[[[[[[[[[[[{{{{"'))


def test_file_size_is_checked_before_reading(capsys, tmp_path):
    body = HOST + "#" + "x" * 100 + "\n"
    refused(capsys, tmp_path, body * (MAX_FILE_BYTES // len(body) + 1),
            f"at most {MAX_FILE_BYTES} bytes")


def test_long_line(capsys, tmp_path):
    refused(capsys, tmp_path, HOST + "#" + "x" * MAX_LINE_CHARS + "\n", "'line 3'",
            f"at most {MAX_LINE_CHARS} characters")


@pytest.mark.parametrize("path", ["/etc/hostname", "../outside.csv", "sub/../../outside.csv",
                                  ".", ""])
def test_trace_path_stays_in_the_host_files_folder(capsys, tmp_path, path):
    """A trace workload's path named any file, and the error quoted its first line."""
    (tmp_path.parent / "outside.csv").write_text("secret line\n")
    body = HOST + VM + f'workload = {{ kind = "trace", path = "{path}" }}\n'
    err = refused(capsys, tmp_path, body, "'workload.path'", "relative to the host file's folder")
    assert "secret" not in err


def test_trace_path_through_a_symlink_out_is_refused(capsys, tmp_path):
    outside = tmp_path.parent / "outside.csv"
    outside.write_text("0ns, 1ms\n")
    os.symlink(outside, tmp_path / "link.csv")
    body = HOST + VM + 'workload = { kind = "trace", path = "link.csv" }\n'
    refused(capsys, tmp_path, body, "'workload.path'")


def test_trace_path_below_the_folder_is_read(tmp_path):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "jobs.csv").write_text("0ns, 1ms\n")
    host = loads_host(HOST + VM + 'workload = { kind = "trace", path = "traces/jobs.csv" }\n',
                      base=str(tmp_path))
    assert host.vms[0].workload.path == str(tmp_path / "traces" / "jobs.csv")


def test_a_byte_order_mark_is_accepted(capsys, tmp_path):
    status, out, err = admit(capsys, tmp_path, b"\xef\xbb\xbf" + (HOST + VM).encode())
    assert status == 0 and err == ""


def test_nul_and_bad_utf8_are_one_line(capsys, tmp_path):
    refused(capsys, tmp_path, (HOST + "x = 1\x00\n").encode(), "valid TOML")
    refused(capsys, tmp_path, HOST.encode() + b"\xff\n", "UTF-8 text")


def test_a_directory_is_named_with_its_field(capsys, tmp_path):
    (tmp_path / "host.toml").mkdir()
    status = run(["admit", str(tmp_path / "host.toml")])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1
    assert str(tmp_path / "host.toml") in err and "is a directory" in err


def test_an_unreadable_file_is_named_with_its_field(tmp_path):
    from akita.model import load_host
    with pytest.raises(HostFileError) as error:
        load_host(tmp_path)  # a folder, past the command line's own check
    assert error.value.field == "file" and error.value.path == str(tmp_path)
    assert "a readable file" in str(error.value)


def test_error_message_of_a_huge_value_is_short():
    """``ModelError(..., 10**5000)`` raised ValueError building its own message."""
    error = ModelError("host.pcpus", 10**5000, "an integer >= 1", path="h.toml")
    assert "an integer of about 5001 digits" in str(error)
    long = ModelError("workload.path", "x" * 10_000, "a line", path="t.csv")
    assert len(str(long)) < 250 and "(10002 characters)" in str(long)


def test_loads_host_refuses_what_load_host_refuses():
    with pytest.raises(HostFileError, match="nested at most"):
        loads_host(HOST + "x = " + "[" * 5000)

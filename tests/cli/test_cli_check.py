"""``akita check`` and ``akita verify``: limits that hold, no silent omissions (issue 13).

Each test names the finding it guards: 2 (limits that do not limit), 4 (an
output path found unwritable only after the work), 6 (silent omissions) and
7 (inconsistent option checks and wording).
"""

import json
import sys

import pytest

from akita.cli import run
from akita.model import load_host
from akita.proofs import host_check
from akita.proofs.host_check import EXIT_NOTHING, check_host
from akita.proofs.limits import memory_limit_mb
from repo import EXAMPLES, ROOT

#: One pCPU whose horizon is 6,000 ticks (two hyperperiods of 300 ms in 100 us ticks).
LONG = ROOT / "bench" / "hosts" / "long-horizon.toml"

#: A HI VM on pCPU 0 and a LO VM that does not fit beside it, alone on pCPU 1.
SPLIT = """\
[host]
pcpus = 2
[[vm]]
name = "hi"
criticality = "HI"
period = "10ms"
c_opt = "2ms"
c_pes = "9ms"
[[vm]]
name = "lo"
criticality = "LO"
period = "10ms"
c_opt = "5ms"
"""

#: LO VMs only: nothing to prove anywhere.
ONLY_LO = """\
[host]
pcpus = 1
[[vm]]
name = "lo"
criticality = "LO"
period = "10ms"
c_opt = "5ms"
"""


def cli(capsys, *args):
    status = run([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def host_file(tmp_path, body, name="host.toml"):
    path = tmp_path / name
    path.write_text(body)
    return path


# -- finding 2: the time limit covers the whole check -------------------------------


def test_the_time_limit_covers_building_the_encoding():
    """Old code: the 6,000-tick unrolling ran to the end (about 50 s) before Z3 got its
    limit, and the reason was Z3's bare ``timeout``."""
    answers = check_host(load_host(LONG), timeout=0.5, max_ticks=6000)
    [answer] = answers
    assert answer.verdict.verdict == "unknown"
    reason = answer.verdict.reason
    assert reason.startswith("wall-clock guard 0.5 s reached while building the encoding")
    assert reason.endswith("of 6000") or "of 6000)" in reason


def test_the_cli_says_unknown_with_the_reason_when_the_limit_is_reached(capsys):
    status, out, err = cli(capsys, "check", LONG, "--max-ticks", 6000, "--timeout", 0.5,
                           "--json")
    assert status == 3 and err == ""
    [pcpu] = json.loads(out)["pcpus"]
    assert pcpu["verdict"] == "unknown"
    assert "wall-clock guard 0.5 s reached while building the encoding" in pcpu["reason"]


def test_the_memory_ceiling_is_reported_and_put_back(tmp_path):
    """Old code had no memory ceiling: Z3 could take the machine (1.6 GB at 580 s)."""
    before = memory_limit_mb()
    [answer] = check_host(load_host(EXAMPLES / "fig5.toml"), memory_mb=1)
    assert answer.verdict.verdict == "unknown"
    assert answer.verdict.reason.startswith("memory limit 1 MB reached while")
    assert memory_limit_mb() == before


def test_progress_is_reported_while_building_and_solving():
    seen = []
    check_host(load_host(EXAMPLES / "fig5.toml"),
               progress=lambda pcpu, stage, done, total: seen.append((pcpu, stage, done, total)))
    stages = [stage for _, stage, _, _ in seen]
    assert stages[0] == "jobs" and "encoding" in stages and stages[-1] == "solving"
    assert {pcpu for pcpu, *_ in seen} == {0}
    assert max(done for _, stage, done, _ in seen if stage == "encoding") == 39


# -- findings 2 and 7: every limit validated the same way ------------------------------

BAD_OPTIONS = {
    "timeout_zero": (["--timeout", "0"], "field '--timeout'", "got 0"),
    "timeout_negative": (["--timeout", "-1"], "field '--timeout'", "got -1"),
    "timeout_nan": (["--timeout", "nan"], "field '--timeout'", "got nan"),
    "timeout_inf": (["--timeout", "inf"], "field '--timeout'", "got inf"),
    "max_ticks_zero": (["--max-ticks", "0"], "field '--max-ticks'", "got 0"),
    "hyperperiods_zero": (["--hyperperiods", "0"], "field '--hyperperiods'", "got 0"),
    "max_memory_zero": (["--max-memory", "0"], "field '--max-memory'", "got 0"),
}


@pytest.mark.parametrize("command", ["check", "verify"])
@pytest.mark.parametrize("case", sorted(BAD_OPTIONS))
def test_a_limit_out_of_range_is_one_line_exit_2(command, case, capsys, monkeypatch):
    """Old code: ``--timeout 0``/``-1`` and ``--max-ticks 0`` were accepted, and
    ``verify`` had no ``--max-ticks``/``--hyperperiods`` at all."""
    monkeypatch.setattr(host_check, "first_fit", _never)
    options, field, got = BAD_OPTIONS[case]
    status, out, err = cli(capsys, command, EXAMPLES / "fig5.toml", *options)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and field in err and err.rstrip().endswith(got)


def _never(*args, **kwargs):
    raise AssertionError("the check started before its options were validated")


# -- finding 4: --save checked before the check starts ---------------------------------


def test_an_unwritable_save_folder_is_one_line_before_the_check(capsys, monkeypatch):
    """Old code: a traceback (exit 1) from inside the check, after Z3 had run."""
    monkeypatch.setattr(sys.modules["akita.cli.check"], "check_host", _never)
    status, out, err = cli(capsys, "check", EXAMPLES / "fig5.toml", "--save", "/proc/nope")
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert "field '--save': expected a folder that can be written" in err


# -- finding 6: no silent omissions -----------------------------------------------------


def test_a_rejected_vm_is_named_and_the_check_is_not_a_pass(capsys):
    """Old code: exit 0 and nothing about ``big``, which is in no proof."""
    status, out, err = cli(capsys, "check", EXAMPLES / "mixed.toml")
    assert status == 1 and err == ""
    assert "VM big: rejected by first fit, in no proof" in out
    assert "1 VM rejected by first fit, in no proof: big." in " ".join(out.split())
    status, out, err = cli(capsys, "check", EXAMPLES / "mixed.toml", "--json")
    document = json.loads(out)
    assert status == 1 and document["status"] == 1
    assert [vm["name"] for vm in document["rejected"]] == ["big"]
    assert {p["verdict"] for p in document["pcpus"]} == {"proved"}


def test_a_pcpu_without_a_hi_vcpu_has_nothing_to_prove(tmp_path, capsys):
    """Old code: pCPU 1 (LO only) was "proved"."""
    path = host_file(tmp_path, SPLIT)
    status, out, err = cli(capsys, "check", path, "--json")
    verdicts = [p["verdict"] for p in json.loads(out)["pcpus"]]
    assert (status, verdicts) == (0, ["proved", "nothing to prove"])
    status, out, err = cli(capsys, "check", path)
    text = " ".join(out.split())
    assert "pCPU 1: nothing to prove: no HI vCPU" in text
    assert "proved on 1 of 2 pCPUs; nothing to prove on 1 of 2 pCPUs." in text


def test_a_host_with_nothing_to_prove_is_not_a_pass(tmp_path, capsys):
    """Old code: exit 0, "proved"."""
    path = host_file(tmp_path, ONLY_LO)
    status, out, err = cli(capsys, "check", path)
    assert status == EXIT_NOTHING == 4
    assert "proved on" not in out
    assert "Nothing proved: no pCPU holds a HI vCPU." in " ".join(out.split())
    status, out, err = cli(capsys, "verify", path, "--duration", "20ms", "--json")
    assert status == 4 and json.loads(out)["status"] == 4


def test_verify_reports_a_rejected_vm(capsys):
    status, out, err = cli(capsys, "verify", EXAMPLES / "mixed.toml", "--duration", "20ms",
                           "--json")
    document = json.loads(out)
    assert status == 1 and document["status"] == 1
    assert [vm["name"] for vm in document["check"]["rejected"]] == ["big"]


def test_verify_passes_max_ticks_and_hyperperiods_through(capsys):
    """Old code: ``verify`` refused both options (no such option), so a host beyond the
    default horizon could never be proved by it."""
    status, out, err = cli(capsys, "verify", "--duration", "20ms", "--json",
                           "--hyperperiods", 1, "--max-ticks", 19)
    [pcpu] = json.loads(out)["check"]["pcpus"]
    assert status == 3 and pcpu["verdict"] == "unknown"
    assert "the horizon is 20 ticks" in pcpu["reason"] and "limit of 19" in pcpu["reason"]
    status, out, err = cli(capsys, "verify", "--duration", "20ms", "--json",
                           "--hyperperiods", 1, "--max-ticks", 20)
    [pcpu] = json.loads(out)["check"]["pcpus"]
    assert status == 0 and pcpu["verdict"] == "proved" and "20 ticks" in pcpu["scope"]


# -- finding 7: wording ----------------------------------------------------------------


def test_verify_reports_the_duration_as_given(capsys):
    """Old code: ``got 0`` (the parsed nanoseconds), where ``simulate`` says ``got '0s'``."""
    status, out, err = cli(capsys, "verify", "--duration", "0s")
    assert (status, out) == (2, "")
    assert err.rstrip().endswith("field '--duration': expected a duration > 0, got '0s'")


def test_one_vcpu_and_one_pcpu_are_singular(tmp_path, capsys):
    """Old code: "1 vCPUs" in the scope."""
    path = host_file(tmp_path, SPLIT.replace("pcpus = 2", "pcpus = 1").split("[[vm]]\nname = \"lo\"")[0])
    status, out, err = cli(capsys, "check", path)
    text = " ".join(out.split())
    assert status == 0
    assert "1 vCPU (hi/0)" in text and "1 vCPUs" not in text
    assert "proved on 1 of 1 pCPU." in text and "1 pCPUs" not in text


# -- deterministic limits: --rlimit decides, --timeout guards the whole command ------------

THREE_PCPUS = """
[host]
pcpus = 3
phases = "synchronous"
""" + "".join(f"""
[[vm]]
name = "hi{i}"
criticality = "HI"
period = "10ms"
c_opt = "4ms"
c_pes = "8ms"
""" for i in range(3))


def test_a_tiny_resource_budget_answers_unknown_naming_the_budget(capsys, tmp_path):
    host = tmp_path / "three.toml"
    host.write_text(THREE_PCPUS)
    status, out, err = cli(capsys, "check", host, "--rlimit", 50, "--json")
    assert status == 3 and err == ""
    pcpus = json.loads(out)["pcpus"]
    assert len(pcpus) == 3
    for pcpu in pcpus:
        assert pcpu["verdict"] == "unknown"
        assert "resource limit reached" in pcpu["reason"] and "of 50 units" in pcpu["reason"]


def test_the_same_budget_proves_each_pcpu(capsys, tmp_path):
    host = tmp_path / "three.toml"
    host.write_text(THREE_PCPUS)
    status, out, _ = cli(capsys, "check", host, "--json")
    assert status == 0
    assert [p["verdict"] for p in json.loads(out)["pcpus"]] == ["proved"] * 3


def test_the_timeout_bounds_the_whole_command_not_each_pcpu():
    """Old code: each pCPU had the whole --timeout, so 100 pCPUs ran 100 times it."""
    host = load_host_text(THREE_PCPUS)
    answers = check_host(host, timeout=0.001, rlimit=0)
    assert [a.verdict.verdict for a in answers] == ["unknown"] * 3
    later = [a.verdict.reason for a in answers[1:]]
    assert all("for the whole host reached before this pCPU's check began" in r for r in later)


def load_host_text(text):
    from akita.model import loads_host

    return loads_host(text)

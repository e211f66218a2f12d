"""``akita conform``: exit status, table, JSON, bad input, and the ftrace path end to end."""

from __future__ import annotations

import io
import json

import pytest

from akita.cli import run
from akita.model import first_fit, load_host
from akita.reference.mutants import mutant_named, simulate_mutant
from akita.reference.policies import POLICIES
from akita.reference.simulator import Simulator

MIXED = "examples/mixed.toml"
FIG5 = "examples/fig5.toml"


def write_trace(tmp_path, host_file: str, policy: str = "akita", mutant: str | None = None,
                duration: int = 500_000_000) -> str:
    host = load_host(host_file)
    out = io.StringIO()
    if mutant is None:
        Simulator(host, first_fit(host), POLICIES[policy](), duration=duration, trace=out).run()
    else:
        simulate_mutant(host, mutant_named(mutant), duration=duration, trace=out)
    path = tmp_path / f"{policy}-{mutant}.jsonl"
    path.write_text(out.getvalue())
    return str(path)


def as_ftrace(jsonl: str, origin: int = 1000 * 10**9) -> tuple[str, list[str]]:
    """Render a JSON Lines trace as the sched_switch / sched_wakeup lines a kernel would write."""
    lines = open(jsonl).read().splitlines()
    pids: dict[str, int] = {}
    current: dict[int, str | None] = {}
    blocked: dict[int, bool] = {}
    out = ["# tracer: nop", "#"]

    def task(name):
        if name is None:
            return "swapper", 0
        pid = pids.setdefault(name, 4000 + len(pids))
        return name.replace("/", "-"), pid

    def stamp(t):
        t += origin
        return f"{t // 10**9}.{t % 10**9:09d}"

    for line in lines[1:]:
        e = json.loads(line)
        cpu = e["cpu"]
        if e["event"] == "block":
            blocked[cpu] = True
        elif e["event"] == "wake":
            comm, pid = task(e["vcpu"])
            out.append(f"          <idle>-0       [{cpu:03d}] dNh4.  {stamp(e['t'])}: "
                       f"sched_wakeup: comm={comm} pid={pid} prio=120 target_cpu={cpu:03d}")
        elif e["event"] in ("dispatch", "idle"):
            (pc, pp), (nc, np) = task(current.get(cpu)), task(e.get("vcpu"))
            state = "S" if blocked.pop(cpu, False) else "R"
            out.append(f"{pc:>16}-{pp:<7} [{cpu:03d}] d..2.  {stamp(e['t'])}: sched_switch: "
                       f"prev_comm={pc} prev_pid={pp} prev_prio=120 prev_state={state} ==> "
                       f"next_comm={nc} next_pid={np} next_prio=120")
            current[cpu] = e.get("vcpu")
    maps = [f"--map={pid}={name}" for name, pid in pids.items()]
    return "\n".join(out) + "\n", maps


def test_a_reference_trace_conforms(tmp_path, capsys):
    assert run(["conform", MIXED, write_trace(tmp_path, MIXED)]) == 0
    assert capsys.readouterr().out.startswith("conformant: ")


def test_violations_exit_1_with_a_table(tmp_path, capsys):
    assert run(["conform", MIXED, write_trace(tmp_path, MIXED, "edf"), "--max", "2"]) == 1
    out = capsys.readouterr().out
    assert "violations (R2 x" in out and "First 2 of" in out and "Trace around the first" in out


def test_json_report(tmp_path, capsys):
    assert run(["conform", MIXED, write_trace(tmp_path, MIXED, "edf"), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "violations"
    assert doc["violations_total"] == sum(doc["counts"].values()) >= len(doc["violations"])
    first = doc["violations"][0]
    assert set(first) == {"rule", "t", "cpu", "allowed", "did", "text", "window"}
    assert doc["unchecked"] == []


def test_ftrace_of_the_reference_conforms(tmp_path, capsys):
    text, maps = as_ftrace(write_trace(tmp_path, FIG5))
    path = tmp_path / "trace.txt"
    path.write_text(text)
    assert run(["conform", FIG5, str(path), "--json", "--origin", "1000.000000000", *maps]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["reports"] == ["dispatch", "idle"] and doc["decisions"] > 100
    assert "temperatures" in doc["unchecked"]


def test_ftrace_of_an_idling_mutant_is_named(tmp_path, capsys):
    text, maps = as_ftrace(write_trace(tmp_path, MIXED, mutant="idle-while-runnable"))
    path = tmp_path / "trace.txt"
    path.write_text(text)
    assert run(["conform", MIXED, str(path), "--json", "--origin", "1000.0", *maps]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["violations"][0]["rule"] == "R7"


@pytest.mark.parametrize("args, message", [
    (["conform", MIXED, "/nonexistent.jsonl"], "field 'TRACE'"),
    (["conform", MIXED, "{trace}", "--tolerance", "20"], "field '--tolerance'"),
    (["conform", MIXED, "{trace}", "--reports", "dispatch"], "field 'reports'"),
    (["conform", MIXED, "{ftrace}", "--map", "4242"], "field '--map'"),
    (["conform", MIXED, "{ftrace}", "--origin", "soon"], "field '--origin'"),
    (["conform", MIXED, "{bad}"], ":2: field 'vcpu'"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, args, message):
    trace = write_trace(tmp_path, MIXED, duration=50_000_000)
    ftrace = tmp_path / "f.txt"
    ftrace.write_text("# tracer: nop\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"akita_trace":1}\n{"t":0,"cpu":0,"event":"wake","vcpu":"ghost/0"}\n')
    args = [a.format(trace=trace, ftrace=ftrace, bad=bad) for a in args]
    assert run(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err

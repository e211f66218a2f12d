"""``akita conform``: exit status, table, JSON, bad input, and the ftrace path end to end."""

from __future__ import annotations

import io
import json

import attrs
import pytest

from akita.cli import run
from akita.model import dumps_host, first_fit, load_host, with_phases
from akita.reference.mutants import mutant_named, simulate_mutant
from akita.reference.policies import POLICIES
from akita.reference.simulator import Simulator
from ftrace_render import render_ftrace
from hosts import MUTANT_HOST

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
    out, maps = render_ftrace(open(jsonl).read().splitlines(), origin)
    return "\n".join(out) + "\n", maps


def test_a_reference_trace_conforms(tmp_path, capsys):
    assert run(["conform", MIXED, write_trace(tmp_path, MIXED)]) == 0
    assert capsys.readouterr().out.startswith("conformant: ")


def test_violations_exit_1_with_a_table(tmp_path, capsys):
    assert run(["conform", MIXED, write_trace(tmp_path, MIXED, "edf"), "--max", "2"]) == 1
    out = capsys.readouterr().out
    assert "violations (R2 x" in out and "First 2 of" in out and "the trace up to it:" in out


def test_json_report(tmp_path, capsys):
    assert run(["conform", MIXED, write_trace(tmp_path, MIXED, "edf"), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "violations"
    assert doc["violations_total"] == sum(doc["counts"].values()) >= len(doc["violations"])
    first = doc["violations"][0]
    assert set(first) == {"rule", "t", "cpu", "line", "allowed", "did", "text", "window"}
    assert doc["unchecked"] == []


def declared_for(tmp_path, host_file: str, jsonl: str) -> str:
    """*host_file* with every VM's phase declared as the header of the trace *jsonl* gives it:
    what a user writes to check an ftrace capture (it has no header)."""
    header = json.loads(open(jsonl).readline())
    phases = {vm["name"]: vm["phase"] for vm in header["host"]["vms"]}
    path = tmp_path / "declared-from-trace.toml"
    path.write_text(dumps_host(with_phases(load_host(host_file), phases)))
    return str(path)


def test_ftrace_of_the_reference_conforms(tmp_path, capsys):
    trace = write_trace(tmp_path, FIG5)
    text, maps = as_ftrace(trace)
    path = tmp_path / "trace.txt"
    path.write_text(text)
    host_file = declared_for(tmp_path, FIG5, trace)
    assert run(["conform", host_file, str(path), "--json", "--origin", "1000.000000000",
                *maps]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["reports"] == ["dispatch", "idle"] and doc["decisions"] > 100
    assert "temperatures" in doc["unchecked"]


def test_ftrace_of_an_idling_mutant_is_named(tmp_path, capsys):
    # the host on which every mutant diverges (tests/hosts.py), with phases drawn: on an
    # example host this mutant may schedule as the reference does (no LO background work)
    seeded = tmp_path / "mutant-host.toml"
    seeded.write_text(dumps_host(attrs.evolve(MUTANT_HOST, options=attrs.evolve(
        MUTANT_HOST.options, phases="seeded"))))
    trace = write_trace(tmp_path, str(seeded), mutant="idle-while-runnable")
    text, maps = as_ftrace(trace)
    path = tmp_path / "trace.txt"
    path.write_text(text)
    host_file = declared_for(tmp_path, str(seeded), trace)
    assert run(["conform", host_file, str(path), "--json", "--origin", "1000.0", *maps]) == 1
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


# -- issue 13: no vacuous pass, evidence in the right place, junk, wording -------------------

SWITCH_TO = ("          <idle>-0       [000] d..2.  5123.456789: sched_switch: prev_comm=swapper/0"
             " prev_pid=0 prev_prio=120 prev_state=R ==> next_comm={comm} next_pid={pid}"
             " next_prio=120\n")


def synchronous_file(tmp_path, host_file: str = FIG5) -> str:
    """*host_file* with ``phases = "synchronous"``: phases known without a trace header, so
    that a test of a junk trace meets the trace's fault, not the unknown phases."""
    host = load_host(host_file)
    path = tmp_path / "synchronous.toml"
    path.write_text(dumps_host(attrs.evolve(host, options=attrs.evolve(
        host.options, phases="synchronous"))))
    return str(path)


def one_line_exit_2(capsys, args: list[str], message: str) -> str:
    assert run(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err, captured.err
    return captured.err


@pytest.mark.parametrize("name, text, extra, message", [
    ("empty.jsonl", "", [], "got 'an empty file'"),
    ("hello.txt", "hello world\n", [], ":1: expected a JSON Lines header or an ftrace line"),
    ("hello.txt", "hello world\n", ["--format", "ftrace", "--map", "42=memcached/0"],
     "none of them a scheduler event"),
    ("json.txt", '{"akita_trace":1}\n', ["--format", "ftrace", "--map", "42=memcached/0"],
     "use --format jsonl or auto"),
    ("unmapped.txt", SWITCH_TO.format(comm="foo", pid=42), ["--map", "4242=memcached/0"],
     "none of a mapped task"),
    ("unmapped.txt", SWITCH_TO.format(comm="foo", pid=42), ["--map", "4242=memcached/0"],
     "the trace's tasks, busiest first: foo-42 (1 event)"),
    ("nomap.txt", SWITCH_TO.format(comm="foo", pid=42), [], "field '--map'"),
    ("nomap.txt", SWITCH_TO.format(comm="foo", pid=42), [], "busiest first: foo-42 (1 event)"),
])
def test_a_trace_with_nothing_to_read_is_bad_input(tmp_path, capsys, name, text, extra, message):
    """Issue 13, finding 1: each of these was 'conformant', exit 0."""
    path = tmp_path / name
    path.write_text(text)
    one_line_exit_2(capsys, ["conform", synchronous_file(tmp_path), str(path), *extra], message)


def test_a_header_only_trace_is_nothing_to_check(tmp_path, capsys):
    """Issue 13, finding 1: '0 decisions over 200ms' was 'conformant', exit 0."""
    path = tmp_path / "header.jsonl"
    path.write_text(open(write_trace(tmp_path, FIG5, duration=200_000_000)).readline())
    assert run(["conform", FIG5, str(path)]) == 3
    assert capsys.readouterr().out.startswith("nothing to check: 0 decisions judged")
    assert run(["conform", FIG5, str(path), "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "nothing to check" and doc["decisions"] == 0
    assert doc["vcpus_seen"] == 0 and doc["vcpus_declared"] == 4 and doc["start_ns"] is None


def test_the_report_states_what_was_checked(tmp_path, capsys):
    fig5 = synchronous_file(tmp_path)  # in phase: every VM starts (and runs) at 0
    trace = write_trace(tmp_path, fig5, duration=20_000_000)
    assert run(["conform", fig5, trace, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["decisions"] > 0 and doc["start_ns"] == 0 and doc["end_ns"] == 20_000_000
    assert doc["vcpus_seen"] == doc["vcpus_declared"] == 4
    assert run(["conform", fig5, trace]) == 0
    assert "judged (" in capsys.readouterr().out and "4 of 4 vCPUs seen"


def edited_fig5(tmp_path) -> tuple[str, int]:
    """The issue's reproduction: a fig5 trace whose dispatch of memcached at ~8 ms names lookbusy1.

    fig5 in phase (its own phases are drawn, and start after the 20 ms traced); checked
    against the same file (:func:`synchronous_file`, which the tests below pass as FIG5S).
    """
    trace = write_trace(tmp_path, synchronous_file(tmp_path), duration=20_000_000)
    lines = open(trace).read().splitlines(keepends=True)
    number = next(i + 1 for i, line in enumerate(lines)
                  if i > 0 and json.loads(line)["t"] > 7_800_000
                  and json.loads(line)["event"] == "dispatch"
                  and json.loads(line)["vcpu"] == "memcached/0")
    lines[number - 1] = lines[number - 1].replace("memcached/0", "lookbusy1/0")
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(lines))
    return str(path), number


def test_the_window_ends_at_the_violating_line(tmp_path, capsys):
    """Issue 13, finding 5: the window showed lines 115-117 for a violation at line 104."""
    path, number = edited_fig5(tmp_path)
    fig5 = synchronous_file(tmp_path)
    assert run(["conform", fig5, path, "--json"]) == 1
    first = json.loads(capsys.readouterr().out)["violations"][0]
    assert first["line"] == number
    assert [e["line"] for e in first["window"]] == list(range(number - 7, number + 1))
    assert run(["conform", fig5, path]) == 1
    out = capsys.readouterr().out
    assert f", line {number}: " in out  # the first of its rule, in full


def test_violations_are_listed_in_the_order_they_began(tmp_path, capsys):
    """Issue 13, finding 5: the consequence (a reported budget, R3) came before its cause."""
    path, number = edited_fig5(tmp_path)
    fig5 = synchronous_file(tmp_path)
    for tolerance in ("0ns", "10us"):
        assert run(["conform", fig5, path, "--json", "--max", "50", "--tolerance", tolerance]) == 1
        violations = json.loads(capsys.readouterr().out)["violations"]
        keys = [(v["t"], v["line"]) for v in violations]
        assert keys == sorted(keys) and keys[0] == (keys[0][0], number)
        if tolerance == "0ns":  # the cause (running lookbusy1), then the values it reported
            at_line = [v["rule"] for v in violations if v["line"] == number]
            assert at_line[0] == "R10" and set(at_line[1:]) <= {"R2", "R3"} and at_line[1:]


def test_the_window_is_printed_unwrapped(tmp_path, capsys):
    """Issue 13, finding 7: the window's JSON lines were folded mid-token at 120 columns."""
    path, number = edited_fig5(tmp_path)
    assert run(["conform", synchronous_file(tmp_path), path]) == 1
    out = capsys.readouterr().out.splitlines()
    start = out.index(next(line for line in out if line.endswith("the trace up to it:"))) + 1
    shown = []
    for line in out[start:]:
        if not line.startswith("    {"):
            break
        shown.append(line)
    assert len(shown) == 8 and any(len(line) > 120 for line in shown)
    assert all(json.loads(line)["line"] <= number for line in shown)


def test_a_json_syntax_error_names_the_problem(tmp_path, capsys):
    """Issue 13, finding 7: it read "field 'line': expected a JSON object"."""
    path = tmp_path / "broken.jsonl"
    path.write_text('{"akita_trace":1}\n{"t":0,"cpu":0,"event":"idle"\n')
    err = one_line_exit_2(capsys, ["conform", synchronous_file(tmp_path), str(path)],
                          ":2: expected a JSON object (Expecting ',' delimiter at column 30)")
    assert "field" not in err


def test_the_reports_help_is_not_split_mid_word(capsys):
    """Issue 13, finding 7: '--reports' help read 'dispat ch' (click broke the long token)."""
    assert run(["conform", "--help"]) == 0
    words = capsys.readouterr().out.split()
    assert "dispatch," in words and "temperature;" in words


@pytest.mark.parametrize("content, message", [
    (b'{"akita_trace":1}\n\xa7\xdc\xa2\x9c junk\n', ":2: expected UTF-8 text"),
    (b"\x00\xff\xfe binary", ":1: expected UTF-8 text"),
    (b'{"akita_trace":1}\n{"t":1' + b"0" * 5000 + b',"cpu":0,"event":"idle"}\n',
     ":2: expected numbers of at most 20 digits"),
    (b'{"akita_trace":1}\n' + b"[" * 100_000 + b"\n", ":2: expected JSON nested at most 32"),
    (b'{"akita_trace":1}\n{"t":0,"cpu":0,"event":{},"vcpu":[]}\n', ":2: field 'event'"),
    (b'{"akita_trace":1}\n{"t":0,"cpu":0,"event":"wake","vcpu":[]}\n', ":2: field 'vcpu'"),
    (b'{"akita_trace":1}\n{"t":0,"cpu":0,"event":"release","vcpu":"memcached/0","key":"'
     + b"1" * 5000 + b'"}\n', ":2: expected numbers of at most 20 digits"),
    (b'{"akita_trace":1}\n{"t":99999999999999999999,"cpu":0,"event":"idle"}\n',
     ":2: field 't': expected a time of at most"),
    (b'{"akita_trace":1,"duration_ns":99999999999999999999}\n{"t":0,"cpu":0,"event":"idle"}\n',
     "field 'end': expected a time of at most"),
    (b'{"akita_trace":1}\n' + b"x" * (1 << 21), ":2: expected a line of at most"),
    (SWITCH_TO.format(comm="qemu", pid=42).replace("[000]", "[" + "9" * 5000 + "]").encode(),
     ":1: field 'cpu'"),
], ids=["binary-line", "binary-file", "digits", "nesting", "event-type", "vcpu-type", "key-digits",
        "huge-t", "huge-duration", "long-line", "ftrace-cpu-digits"])
def test_junk_is_one_line_in_bounded_work(tmp_path, capsys, content, message):
    """Issue 13, finding 10: tracebacks (UnicodeDecodeError, ValueError, TypeError) and hangs."""
    path = tmp_path / "junk.trace"
    path.write_bytes(content)
    one_line_exit_2(capsys, ["conform", synchronous_file(tmp_path), str(path),
                             "--map", "qemu=memcached/0"], message)


# -- issue 11: phases -------------------------------------------------------------------------


def seeded_host_file(tmp_path, host_file: str = MIXED, phases: dict[str, int] | None = None) -> str:
    """*host_file* with ``phases = "seeded"`` (and the VM phases *phases* declared)."""
    host = load_host(host_file)
    host = attrs.evolve(host, options=attrs.evolve(host.options, phases="seeded"))
    if phases is not None:
        host = with_phases(host, phases)
    path = tmp_path / ("declared.toml" if phases is not None else "seeded.toml")
    path.write_text(dumps_host(host))
    return str(path)


def seeded_trace(tmp_path, host_file: str, seed: int = 7) -> tuple[str, dict[str, int]]:
    """A JSON Lines trace of *host_file* under *seed*, and the phases its header carries."""
    host = load_host(host_file)
    out = io.StringIO()
    Simulator(host, first_fit(host), POLICIES["akita"](), duration=300_000_000, seed=seed,
              trace=out).run()
    path = tmp_path / f"seeded-{seed}.jsonl"
    path.write_text(out.getvalue())
    header = json.loads(out.getvalue().splitlines()[0])
    return str(path), {vm["name"]: vm["phase"] for vm in header["host"]["vms"]}


def test_a_jsonl_trace_of_a_seeded_host_is_judged_on_its_header_s_phases(tmp_path, capsys):
    host_file = seeded_host_file(tmp_path)
    trace, phases = seeded_trace(tmp_path, host_file)
    assert any(phases.values())  # the seed moved some grid off 0
    assert run(["conform", host_file, trace, "--json", "--ties", "strict"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["phases_from"] == "trace header"
    admitted = {name for name in phases if name != "big"}  # first fit rejects big
    assert doc["phases_ns"] == {name: phases[name] for name in admitted}
    assert run(["conform", host_file, trace]) == 0
    assert "Phases (trace header): memcached " in capsys.readouterr().out


def test_an_ftrace_of_unknown_phases_is_refused_in_one_line(tmp_path, capsys):
    host_file = seeded_host_file(tmp_path)
    text, maps = as_ftrace(seeded_trace(tmp_path, host_file)[0])
    path = tmp_path / "trace.txt"
    path.write_text(text)
    err = one_line_exit_2(capsys, ["conform", host_file, str(path), "--origin", "1000.0", *maps],
                          "field 'phase': expected a phase for every VM")
    assert "none for memcached, batch, db, late" in err
    assert 'phase = "3ms"' in err and 'phases = "synchronous"' in err


def test_an_ftrace_conforms_once_its_phases_are_declared(tmp_path, capsys):
    trace, phases = seeded_trace(tmp_path, seeded_host_file(tmp_path))
    text, maps = as_ftrace(trace)
    path = tmp_path / "trace.txt"
    path.write_text(text)
    declared = seeded_host_file(tmp_path, phases=phases)
    assert run(["conform", declared, str(path), "--origin", "1000.0", "--json", *maps]) == 0
    assert json.loads(capsys.readouterr().out)["phases_from"] == "host file"
    shifted = {name: (phase + 1_000_000) % load_host(MIXED).vms[i].period
               for i, (name, phase) in enumerate(phases.items())}
    wrong = seeded_host_file(tmp_path, phases=shifted)  # the deliberately wrong declaration
    assert run(["conform", wrong, str(path), "--origin", "1000.0", *maps]) == 1


def test_a_trace_of_another_host_s_phases_is_refused(tmp_path, capsys):
    trace, phases = seeded_trace(tmp_path, seeded_host_file(tmp_path))
    shifted = dict(phases, memcached=(phases["memcached"] + 1_000_000) % 100_000_000)
    declared = seeded_host_file(tmp_path, phases=shifted)
    one_line_exit_2(capsys, ["conform", declared, trace], "the trace is of another host")


# ---------------------------------------------------------------- real captures, as shipped

SCHED_DEADLINE = "tests/data/sched_deadline"
INSTANCE = "tests/data/instance"


@pytest.mark.rule("R7")
def test_shipped_sched_deadline_captures_run_with_no_flags(capsys):
    """Their host files' [conform] tables give the rule set, the placement and the origin."""
    assert run(["conform", f"{SCHED_DEADLINE}/fit.toml", f"{SCHED_DEADLINE}/fit.txt"]) == 0
    assert capsys.readouterr().out.startswith("conformant: 114 decisions judged")
    assert run(["conform", f"{SCHED_DEADLINE}/overrun.toml", f"{SCHED_DEADLINE}/overrun.txt",
                "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["policy"] == "edf" and doc["placement"] == "trace"
    assert set(doc["counts"]) == {"R7"} and doc["lost_events"]["count"] == 2
    assert [item["line"] for item in doc["lost_events"]["instants"]] == [36, 41]


@pytest.mark.rule("R12")
def test_flags_override_the_host_files_conform_table(capsys):
    """--placement first-fit: first fit puts the three tasks on pCPU 0, the kernel on CPU 1."""
    assert run(["conform", f"{SCHED_DEADLINE}/fit.toml", f"{SCHED_DEADLINE}/fit.txt",
                "--placement", "first-fit", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["placement"] == "first-fit" and "R12" in doc["counts"]


@pytest.mark.parametrize("old, new, message", [
    ('policy = "edf"', 'policy = "fifo"',
     "field 'conform.policy': expected one of 'akita', 'edf', 'akita-linux', got 'fifo'"),
    ('origin = "5192.169386558"', "origin = 5.5", "field 'conform.origin'"),
    ('policy = "edf"', 'ties = "any"', "field 'conform.ties': expected a known key"),
])
def test_a_bad_conform_table_is_one_line(tmp_path, capsys, old, new, message):
    text = open(f"{SCHED_DEADLINE}/fit.toml").read()
    assert old in text
    text = text.replace(old, new)
    host = tmp_path / "host.toml"
    host.write_text(text)
    err = one_line_exit_2(capsys, ["conform", str(host), f"{SCHED_DEADLINE}/fit.txt"], message)
    assert str(host) in err


@pytest.mark.rule("R7")
def test_deleted_switches_are_reported_as_lost_events(tmp_path, capsys):
    """fit.txt without the switches that start its jobs: lost events, no R7."""
    lines = open(f"{SCHED_DEADLINE}/fit.txt").read().splitlines(keepends=True)
    kept = [line for line in lines
            if not ("sched_switch" in line and "next_comm=dl_" in line
                    and "prev_comm=dl_" not in line)]
    path = tmp_path / "edited.txt"
    path.write_text("".join(kept))
    # unconfirmed (exit 3): no violation shown, but the holes withheld 40 findings
    assert run(["conform", f"{SCHED_DEADLINE}/fit.toml", str(path), "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "unconfirmed"
    assert doc["counts"] == {} and doc["lost_events"]["count"] == len(lines) - len(kept) == 41
    assert doc["lost_events"]["withheld"] == {"R7": 40}
    assert run(["conform", f"{SCHED_DEADLINE}/fit.toml", str(path)]) == 3
    out = " ".join(capsys.readouterr().out.split())  # as printed, whatever the line width
    assert out.startswith("unconfirmed: no violation shown")
    assert "41 lost events (switches not written; at 1.615442ms on pCPU 1" in out
    assert "findings withheld: R7 x40" in out


def test_compressed_traces_are_read(tmp_path, capsys):
    import gzip
    import lzma
    text = open(f"{SCHED_DEADLINE}/fit.txt", "rb").read()
    (tmp_path / "fit.txt.gz").write_bytes(gzip.compress(text))
    (tmp_path / "dl.v7.dat.xz").write_bytes(lzma.compress(open(f"{INSTANCE}/dl.v7.dat",
                                                               "rb").read()))
    assert run(["conform", f"{SCHED_DEADLINE}/fit.toml", str(tmp_path / "fit.txt.gz")]) == 0
    assert capsys.readouterr().out.startswith("conformant: 114 decisions judged")
    assert run(["conform", f"{INSTANCE}/dl.toml", str(tmp_path / "dl.v7.dat.xz")]) == 0
    assert capsys.readouterr().out.startswith("conformant: 59 decisions judged")
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(gzip.compress(text)[:1000])
    one_line_exit_2(capsys, ["conform", f"{SCHED_DEADLINE}/fit.toml", str(cut)],
                    "expected gzip data that decompresses whole")


def test_zstd_without_a_decoder_is_one_line(tmp_path, capsys):
    from akita.trace.compressed import _zstd
    if _zstd() is not None:
        pytest.skip("this Python has a zstd decoder")
    path = tmp_path / "fit.txt.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 32)
    one_line_exit_2(capsys, ["conform", f"{SCHED_DEADLINE}/fit.toml", str(path)],
                    "no zstd decoder")


def test_an_end_before_the_traces_events_is_refused(capsys):
    err = one_line_exit_2(capsys, ["conform", f"{SCHED_DEADLINE}/fit.toml",
                                   f"{SCHED_DEADLINE}/fit.txt", "--end", "5ms"],
                          "field '--end': expected an end at or after the trace's last event")
    assert "fit.txt" in err and "got '5ms'" in err


def test_the_buffer_of_a_trace_instance(capsys):
    dat = f"{INSTANCE}/dl.v7.dat"
    assert run(["conform", f"{INSTANCE}/dl.toml", dat]) == 0  # the one instance with records
    assert run(["conform", f"{INSTANCE}/dl.toml", dat, "--buffer", "akita_oracle_10424"]) == 0
    capsys.readouterr()
    one_line_exit_2(capsys, ["conform", f"{INSTANCE}/dl.toml", dat, "--buffer", "top"],
                    "0 records, none of them a scheduler event")
    one_line_exit_2(capsys, ["conform", f"{INSTANCE}/dl.toml", f"{SCHED_DEADLINE}/fit.txt",
                             "--buffer", "top"], "field '--buffer'")


def test_the_conform_tables_choices_are_the_oracles():
    """One place per idea: the host file accepts exactly the oracle's rule sets and placements."""
    from akita.model.host_file import CONFORM_CHOICES
    from akita.oracle.oracle import POLICIES
    from akita.oracle.placement import PLACEMENTS
    assert CONFORM_CHOICES == {"policy": tuple(POLICIES), "placement": tuple(PLACEMENTS)}

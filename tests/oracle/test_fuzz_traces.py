"""Fuzzing ``akita conform`` with structure-aware mutations of real traces (issue 13, finding 10).

Each example takes a real trace -- JSON Lines written by the simulator, or
the same schedule as the ftrace text a kernel would write -- mutates it the
way a broken capture, a truncated copy or a hostile file would (truncated,
lines reordered, dropped or repeated, fields of the wrong type, unknown
events and names, binary junk, huge numbers, deep nesting), and runs the
real command line in process (:func:`akita.cli.run`).  Whatever the input:

* no exception escapes ``run``: never a traceback;
* the exit status is one of 0, 1, 3 (a report) or 2 (bad input);
* bad input is one line on stderr and nothing on stdout; a report is on
  stdout (JSON, with ``--json``);
* the work is bounded by the input, not by a clock: the oracle's check
  points (``checks`` in the report) are at most three per period start the
  span may cover (:data:`~akita.oracle.oracle.SPAN_PERIODS` plus
  :data:`~akita.oracle.oracle.PERIODS_PER_EVENT` per event) plus one per
  event -- so a bounded input gives a bounded run.
"""

from __future__ import annotations

import io
import json
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from akita.cli import run
from akita.model import dumps_host, first_fit, load_host, with_phases
from akita.oracle.oracle import PERIODS_PER_EVENT, SPAN_PERIODS
from akita.reference.policies import POLICIES
from akita.reference.simulator import Simulator
from ftrace_render import render_ftrace
from repo import EXAMPLES

HOSTS = (str(EXAMPLES / "fig5.toml"), str(EXAMPLES / "mixed.toml"))
_SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture,
                                            HealthCheck.too_slow], deadline=None)


@lru_cache(maxsize=None)
def jsonl_trace(host_file: str) -> tuple[str, ...]:
    """The reference's JSON Lines trace of *host_file* over 5 ms, line by line."""
    host = load_host(host_file)
    out = io.StringIO()
    Simulator(host, first_fit(host), POLICIES["akita"](), duration=5_000_000, trace=out).run()
    return tuple(out.getvalue().splitlines())


@lru_cache(maxsize=None)
def ftrace_trace(host_file: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The same schedule as kernel ftrace text, and the ``--map`` options that name its tasks."""
    out, maps = render_ftrace(jsonl_trace(host_file))
    return tuple(out), tuple(maps)


_DECLARED = tempfile.TemporaryDirectory(prefix="akita-fuzz-hosts-")


@lru_cache(maxsize=None)
def declared(host_file: str) -> str:
    """*host_file* with every VM's phase declared as its trace's header gives it: an ftrace
    capture has no header, and a host that leaves phases to the seed is refused with it."""
    header = json.loads(jsonl_trace(host_file)[0])
    phases = {vm["name"]: vm["phase"] for vm in header["host"]["vms"]}
    path = Path(_DECLARED.name) / Path(host_file).name
    path.write_text(dumps_host(with_phases(load_host(host_file), phases)))
    return str(path)


# -- what a mutation may put in ------------------------------------------------------------

HUGE = st.sampled_from([2**63, 2**64 + 1, 10**19, 10**20, 10**25, -1, -(2**63)])
NUMBERS = st.one_of(st.integers(0, 10**9), HUGE, st.integers())
JUNK_TEXT = st.text(st.characters(codec="utf-8"), max_size=30)
NAMES = st.sampled_from(["memcached/0", "lookbusy1/0", "db/1", "big/0", "ghost/0", "memcached",
                         "/0", "memcached/99", ""])
KINDS = st.sampled_from(["wake", "block", "complete", "dispatch", "idle", "mode", "temperature",
                         "release", "exhaust", "teleport", "", "DISPATCH"])


def deep(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


JSON_VALUES = st.one_of(
    NUMBERS, st.floats(allow_nan=True), st.booleans(), st.none(), JUNK_TEXT, NAMES, KINDS,
    st.lists(st.integers(), max_size=3), st.dictionaries(JUNK_TEXT, st.integers(), max_size=2),
    st.integers(1, 200).map(deep),
)
FIELDS = st.sampled_from(["t", "cpu", "event", "vcpu", "deadline", "budget", "key", "mode",
                          "temperature", "arrival", "duration_ns", "akita_trace", "line", "extra"])
BINARY = st.binary(min_size=1, max_size=40)


@st.composite
def json_line_mutation(draw, line: str) -> bytes:
    """One JSON line, with a field set to a value of any type, or removed, or the JSON broken."""
    how = draw(st.sampled_from(["field", "drop-field", "cut", "junk", "digits"]))
    if how in ("field", "drop-field"):
        value = json.loads(line)
        name = draw(FIELDS)
        if how == "field":
            value[name] = draw(JSON_VALUES)
        else:
            value.pop(name, None)
        return json.dumps(value, separators=(",", ":")).encode()
    raw = line.encode()
    at = draw(st.integers(0, len(raw)))
    if how == "cut":
        return raw[:at]
    if how == "junk":
        return raw[:at] + draw(BINARY) + raw[at:]
    return raw[:at] + b"9" * draw(st.sampled_from([19, 21, 400, 5000])) + raw[at:]


@st.composite
def ftrace_line_mutation(draw, line: str) -> bytes:
    """One ftrace line with a token replaced: by junk, by huge digits, by another name."""
    tokens = line.split(" ")
    at = draw(st.integers(0, len(tokens) - 1))
    replacement = draw(st.one_of(
        JUNK_TEXT, NUMBERS.map(str), st.sampled_from([
            "[" + "9" * 5000 + "]", "9" * 30 + ".5", "1.0000000001", "sched_switch:",
            "sched_wakeup:", "prev_state=D", "target_cpu=" + "7" * 40, "[LOST 3 EVENTS]",
            "next_pid=0", "==>", "prev_comm="]),
    ))
    tokens[at] = replacement
    return " ".join(tokens).encode("utf-8", "surrogatepass")


@st.composite
def mutated(draw, lines: tuple[str, ...], line_mutation) -> bytes:
    """*lines* with a few structure-aware mutations, as the bytes of a file."""
    out: list[bytes] = [line.encode() for line in lines]
    for _ in range(draw(st.integers(1, 4))):
        if not out:
            break
        i = draw(st.integers(0, len(out) - 1))
        j = draw(st.integers(0, len(out) - 1))
        how = draw(st.sampled_from(["line", "line", "drop", "repeat", "swap", "reverse",
                                    "binary", "truncate"]))
        if how == "line":
            out[i] = draw(line_mutation(lines[i] if i < len(lines) else out[i].decode(
                "utf-8", "replace")))
        elif how == "drop":
            del out[i]
        elif how == "repeat":
            out.insert(j, out[i])
        elif how == "swap":
            out[i], out[j] = out[j], out[i]
        elif how == "reverse":
            lo, hi = min(i, j), max(i, j)
            out[lo:hi + 1] = out[lo:hi + 1][::-1]
        elif how == "binary":
            out.insert(i, draw(BINARY))
        else:
            whole = b"\n".join(out)
            return whole[:draw(st.integers(0, len(whole)))]
    return b"\n".join(out) + b"\n"


def safe_json_line(line: str):
    """A strategy for a mutation of *line*, which may have been mutated already."""
    try:
        if isinstance(json.loads(line), dict):
            return json_line_mutation(line)
    except ValueError:
        pass
    return st.just(line.encode("utf-8", "surrogatepass")[::-1])


def run_on(content: bytes, host_file: str, capsys, *extra: str) -> None:
    """Run ``akita conform`` on *content*; check the contract whatever it answers."""
    capsys.readouterr()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace"
        path.write_bytes(content)
        status = run(["conform", host_file, str(path), "--json", *extra])
    out, err = capsys.readouterr()
    assert status in (0, 1, 2, 3), (status, err)
    if status == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("akita: error: "), err
        return
    assert err == ""
    report = json.loads(out)
    assert report["verdict"] == {0: "conformant", 1: "violations", 3: "nothing to check"}[status]
    allowance = SPAN_PERIODS + PERIODS_PER_EVENT * report["events"]
    assert report["checks"] <= 3 * allowance + report["events"]


@_SETTINGS
@given(st.sampled_from(HOSTS).flatmap(
    lambda host: st.tuples(st.just(host), mutated(jsonl_trace(host), safe_json_line))))
def test_mutated_jsonl_traces_get_a_report_or_one_line(capsys, case):
    host_file, content = case
    run_on(content, host_file, capsys)


@_SETTINGS
@given(st.sampled_from(HOSTS).flatmap(
    lambda host: st.tuples(st.just(host), mutated(ftrace_trace(host)[0], ftrace_line_mutation))))
def test_mutated_ftrace_traces_get_a_report_or_one_line(capsys, case):
    host_file, content = case
    run_on(content, declared(host_file), capsys, *ftrace_trace(host_file)[1])


@_SETTINGS
@given(st.sampled_from(HOSTS), st.binary(max_size=2000),
       st.sampled_from(["auto", "jsonl", "ftrace"]))
def test_binary_junk_gets_one_line(capsys, host_file, content, trace_format):
    run_on(content, host_file, capsys, "--format", trace_format, "--map", "4000=memcached/0")

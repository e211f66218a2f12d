"""The transition tables of :mod:`akita.model.transitions` are the simulator's own.

The reference ``akita`` policy runs, with a trace, on the shipped examples
and on Hypothesis hosts.  Each trace is replayed line by line to derive the
transitions it shows, as ``(source, target, rule)``:

* pCPU mode: a ``mode`` HI line is LO -> HI (R5); a ``temperature`` line
  that re-heats a HI vCPU on a HI-mode pCPU is HI -> HI (R5); after a HI
  vCPU's ``release`` (and its cooling ``temperature`` line) on a HI-mode
  pCPU, a ``mode`` LO line is HI -> LO and its absence HI -> HI (R9).
* vCPU state: ``release`` makes it active (R2), ``exhaust`` inactive (R3);
  ``wake`` and ``block`` move it between blocked and waiting / running
  (R10); a ``dispatch`` makes it running (R4 in LO mode, R6 for a HI vCPU in
  HI mode, R7 for a LO one in HI mode or with budget 0) and the pCPU's
  previous vCPU, if still runnable, waiting (R10), as does an ``idle``.  A
  vCPU that blocks and wakes in one instant stays its pCPU's vCPU: if no
  ``dispatch`` or ``idle`` follows in that instant, the pCPU picked it again
  (no line is written for an unchanged choice), and the replay counts that
  pick as a dispatch.
* temperature: a cooling line after a ``release`` is ``k -> k-1`` (R8), no
  line ``k -> k`` (R8); any other line is ``k -> n``, an ask (R5).

Every observed transition must be in its table, and every transition of
each table must be observed in some run.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from importlib.resources import files
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from akita.model import load_host
from akita.model.transitions import PCPU_MODES, VCPU_STATES, temperature_transitions
from akita.reference.run import simulate
from akita.strategies import sim_hosts, stressed_hosts

MS = 1_000_000
EXAMPLES = ("fig5.toml", "fig7.toml", "mixed.toml")
TEMPERATURES = (1, 2, 3)  # the initial temperatures the strategies draw


def replay(lines: list[dict]) -> dict[str, set[tuple[str, str, str]]]:
    """The transitions a trace shows, by table name (``"temperature-<n>"`` for temperatures)."""
    header, events = lines[0], lines[1:]
    host = header["host"]
    n = host["options"]["initial_temperature"]
    hi_vm = {vm["name"]: vm["criticality"] == "HI" for vm in host["vms"]}
    mode = ["LO"] * host["pcpus"]  # R13
    current: list[str | None] = [None] * host["pcpus"]
    run: dict[str, str] = defaultdict(lambda: "blocked")
    active: dict[str, bool] = defaultdict(bool)
    temperature: dict[str, int] = defaultdict(int)
    cpu_of: dict[str, int] = {}
    seen: dict[str, set] = {"pcpu-modes": set(), "vcpu-states": set(), f"temperature-{n}": set()}

    def is_hi(vcpu: str) -> bool:
        return hi_vm[vcpu.rsplit("/", 1)[0]]

    def state(vcpu: str) -> str:
        return f"{run[vcpu]}-{'active' if active[vcpu] else 'inactive'}"

    def move(vcpu: str, new_run: str, rule: str, new_active: bool | None = None) -> None:
        before = state(vcpu)
        run[vcpu] = new_run
        if new_active is not None:
            active[vcpu] = new_active
        seen["vcpu-states"].add((before, state(vcpu), rule))

    def pick_rule(vcpu: str, cpu: int) -> str:
        if not active[vcpu]:
            return "R7"
        if mode[cpu] == "LO":
            return "R4"
        return "R6" if is_hi(vcpu) else "R7"

    def hi_temperatures(cpu: int) -> list[int]:
        return [temperature[v] for v, c in cpu_of.items() if c == cpu and is_hi(v)]

    def descheduled(cpu: int) -> None:
        previous = current[cpu]
        if previous is not None and run[previous] == "running":
            move(previous, "waiting", "R10")

    def end_of_instant() -> None:
        for cpu, vcpu in enumerate(current):
            if vcpu is None:
                continue
            assert run[vcpu] != "blocked", f"pCPU {cpu} still shows blocked {vcpu}"
            if run[vcpu] == "waiting":  # blocked and woke in this instant: picked again
                move(vcpu, "running", pick_rule(vcpu, cpu))
        for cpu, pcpu_mode in enumerate(mode):
            if pcpu_mode == "LO":
                assert not any(hi_temperatures(cpu)), f"warm HI vCPU on LO pCPU {cpu}"

    i = 0
    while i < len(events):
        line = events[i]
        t, cpu, kind, vcpu = line["t"], line["cpu"], line["event"], line.get("vcpu")
        if vcpu is not None:
            assert cpu_of.setdefault(vcpu, cpu) == cpu, f"{vcpu} migrated"
        nxt = events[i + 1] if i + 1 < len(events) else None
        if kind == "release":
            move(vcpu, run[vcpu], "R2", new_active=True)
            if is_hi(vcpu):
                k = temperature[vcpu]
                if nxt and nxt["event"] == "temperature" and nxt["vcpu"] == vcpu and nxt["t"] == t:
                    assert nxt["temperature"] == k - 1, nxt
                    temperature[vcpu] = k - 1
                    seen[f"temperature-{n}"].add((str(k), str(k - 1), "R8"))
                    i += 1
                    nxt = events[i + 1] if i + 1 < len(events) else None
                else:
                    seen[f"temperature-{n}"].add((str(k), str(k), "R8"))
                if mode[cpu] == "HI":
                    if nxt and nxt["event"] == "mode" and nxt["cpu"] == cpu and nxt["t"] == t:
                        assert nxt["mode"] == "LO" and "vcpu" not in nxt, nxt
                        assert not any(hi_temperatures(cpu)), f"R9 with a warm HI vCPU at {t}"
                        mode[cpu] = "LO"
                        seen["pcpu-modes"].add(("HI", "LO", "R9"))
                        i += 1
                    else:
                        assert any(hi_temperatures(cpu)), f"R9 not applied at {t}"
                        seen["pcpu-modes"].add(("HI", "HI", "R9"))
        elif kind == "temperature":  # not after a release: an ask
            k = temperature[vcpu]
            assert is_hi(vcpu) and line["temperature"] == n > k, line
            temperature[vcpu] = n
            seen[f"temperature-{n}"].add((str(k), str(n), "R5"))
            if mode[cpu] == "HI":
                seen["pcpu-modes"].add(("HI", "HI", "R5"))
        elif kind == "mode":  # not after a release: LO -> HI
            assert line["mode"] == "HI" and mode[cpu] == "LO", line
            assert is_hi(line["vcpu"]) and temperature[line["vcpu"]] == n, line
            mode[cpu] = "HI"
            seen["pcpu-modes"].add(("LO", "HI", "R5"))
        elif kind == "wake":
            move(vcpu, "waiting", "R10")
        elif kind == "block":
            move(vcpu, "blocked", "R10")
        elif kind == "exhaust":
            move(vcpu, run[vcpu], "R3", new_active=False)
        elif kind == "dispatch":
            assert (line["budget"] > 0) == active[vcpu], line
            descheduled(cpu)
            move(vcpu, "running", pick_rule(vcpu, cpu))
            current[cpu] = vcpu
        elif kind == "idle":
            descheduled(cpu)
            current[cpu] = None
        else:
            assert kind == "complete", line
        i += 1
        if (i == len(events) or events[i]["t"] != t) and t < header["duration_ns"]:
            end_of_instant()  # (the final sync at duration_ns is followed by no decision)
    return seen


def observe(host, duration: int, path) -> dict[str, set]:
    simulate(host, "akita", duration=duration, seed=1, trace_path=str(path))
    with open(path, encoding="utf-8") as trace:
        return replay([json.loads(line) for line in trace])


@functools.cache
def runs(tmp: str) -> tuple[tuple[str, dict[str, set]], ...]:
    """(label, observed transitions) of every run: the examples, then Hypothesis hosts."""
    path = Path(tmp) / "trace.jsonl"
    found = []
    for name in EXAMPLES:
        host = load_host(str(files("akita.examples") / name))
        found.append((name, observe(host, 2000 * MS, path)))

    @settings(max_examples=300, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.one_of(stressed_hosts(), sim_hosts()))
    def collect(host):
        found.append((repr(host), observe(host, 100 * MS, path)))

    collect()
    return tuple(found)


def table_of(name: str):
    if name.startswith("temperature-"):
        return temperature_transitions(int(name.rsplit("-", 1)[1]))
    return {"pcpu-modes": PCPU_MODES, "vcpu-states": VCPU_STATES}[name]


def edges(table) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.rule) for e in table.transitions}


def test_every_observed_transition_is_in_its_table(tmp_path_factory):
    for label, seen in runs(str(tmp_path_factory.getbasetemp())):
        for name, observed in seen.items():
            allowed = edges(table_of(name))
            assert observed <= allowed, (label, name, observed - allowed)


def test_every_transition_of_the_tables_is_observed(tmp_path_factory):
    union: dict[str, set] = defaultdict(set)
    for _, seen in runs(str(tmp_path_factory.getbasetemp())):
        for name, observed in seen.items():
            union[name] |= observed
    tables = [PCPU_MODES, VCPU_STATES] + [temperature_transitions(n) for n in TEMPERATURES]
    for table in tables:
        name = table.name if table.name != "temperature" else f"temperature-{len(table.states) - 1}"
        assert edges(table) <= union[name], (name, edges(table) - union[name])


def test_tables_are_well_formed():
    for table in (PCPU_MODES, VCPU_STATES, temperature_transitions(3)):
        assert table.initial in table.states
        assert len(set(table.transitions)) == len(table.transitions)
        for transition in table.transitions:
            assert {transition.source, transition.target} <= set(table.states)
            assert transition.rule in {f"R{k}" for k in range(1, 14)}

"""The real-time baselines rm, amc and edf-vd (reference/policies/{rm,amc,edf_vd}.py)."""

import io
import json
from importlib.resources import files

import jsonschema
import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import MS, sim_hosts, stressed_hosts

from akita.model import SchedulerOptions, VM, Criticality, Host, Workload
from akita.reference.policies import POLICIES
from akita.reference.run import simulate
from akita.reference.simulator import Simulator

HI, LO = Criticality.HI, Criticality.LO
RT = ("rm", "amc", "edf-vd")
SCHEMA = jsonschema.Draft202012Validator(
    json.loads((files("akita.trace") / "trace_schema.json").read_text())
)


def run(host, policy, duration=120 * MS, seed=1):
    """The result as JSON and the trace as a list of events (schema-checked)."""
    out = io.StringIO()
    placement = POLICIES[policy]().place(host)
    result = Simulator(host, placement, POLICIES[policy](), duration=duration, seed=seed,
                       trace=out).run()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    for line in lines:
        SCHEMA.validate(line)
    return result.as_json(), lines[1:], out.getvalue()


def segments(events, duration):
    """``(vcpu, start, end)`` of every stretch a vCPU ran, and the HI-mode intervals."""
    running, since, runs = {}, {}, []
    hi_since, his = {}, []
    for e in events:
        c, t = e["cpu"], e["t"]
        if e["event"] in ("dispatch", "idle"):
            if running.get(c) is not None and t > since[c]:
                runs.append((running[c], since[c], t))
            running[c], since[c] = e.get("vcpu") if e["event"] == "dispatch" else None, t
        elif e["event"] == "mode":
            if e["mode"] == "HI":
                hi_since[c] = t
            elif c in hi_since:
                his.append((hi_since.pop(c), t))
    runs += [(v, since[c], duration) for c, v in running.items() if v is not None]
    his += [(t, duration) for t in hi_since.values()]
    return runs, his


def overlap(runs, his, prefix):
    return sum(max(0, min(b, h1) - max(a, h0))
               for v, a, b in runs if v.startswith(prefix) for h0, h1 in his)


# -- one pCPU, one HI VM that asks for more than C_opt, one cpu-bound LO VM -----------------


def overrun_host(hi_demand=None):
    hi_work = Workload("periodic", demand=hi_demand) if hi_demand else Workload()
    return Host(1, [VM("hi", HI, 100 * MS, 10 * MS, 50 * MS, workload=hi_work),
                    VM("lo", LO, 100 * MS, 40 * MS)])


@pytest.mark.parametrize("policy", ["amc", "edf-vd"])
def test_lo_work_is_dropped_in_hi_mode_and_the_pcpu_returns_to_lo(policy):
    # The HI job (30 ms) passes C_opt (10 ms): HI mode from 10 ms until it completes at 30 ms.
    doc, events, _ = run(overrun_host(hi_demand=30 * MS), policy, duration=1000 * MS)
    runs, his = segments(events, 1000 * MS)
    assert doc["pcpus"][0]["mode_switches"] == 10
    assert his[:2] == [(10 * MS, 30 * MS), (110 * MS, 130 * MS)]
    assert doc["pcpus"][0]["hi_time_ns"] == 10 * 20 * MS
    assert overlap(runs, his, "lo/") == 0  # no LO CPU at all in HI mode
    assert doc["vms"]["lo"]["cpu_ns"] == 10 * 70 * MS  # it runs in LO mode only
    assert doc["vms"]["hi"]["hi_misses"] == 0
    modes = [e for e in events if e["event"] == "mode"]
    assert modes[0] == {"t": 10 * MS, "cpu": 0, "event": "mode", "mode": "HI", "vcpu": "hi/0"}
    assert modes[1] == {"t": 30 * MS, "cpu": 0, "event": "mode", "mode": "LO"}
    # the LO budget left at the switch is dropped (30 ms of 40 remained)
    assert {"t": 10 * MS, "cpu": 0, "event": "exhaust", "vcpu": "lo/0"} in events


@pytest.mark.rule("R3", "R7")
def test_akita_keeps_serving_lo_where_edf_vd_starves_it():
    """The paper's contrast: a HI vCPU that always asks for C_pes.  With ``hi_mode_order =
    "capped"`` (the default: budgets enforced) the HI vCPU gets its C_pes and the LO vCPU
    the rest while it is runnable; with ``"budget-first"`` Akita serves the LO vCPU its
    C_opt in HI mode; with ``"hi-first"`` ("in the high critical mode, Akita ignores
    low-criticality vCPUs") a HI vCPU that is always runnable takes the whole pCPU in HI
    mode, as under EDF-VD."""
    host = overrun_host()

    def under(order):
        return attrs.evolve(host, options=SchedulerOptions(hi_mode_order=order))

    capped, _, _ = run(host, "akita", duration=1000 * MS)
    akita, _, _ = run(under("budget-first"), "akita", duration=1000 * MS)
    hi_first, _, _ = run(under("hi-first"), "akita", duration=1000 * MS)
    edf_vd, events, _ = run(host, "edf-vd", duration=1000 * MS)
    assert capped["vms"]["hi"]["cpu_ns"] == 10 * 50 * MS  # C_pes a period, not a ns more
    assert capped["vms"]["lo"]["cpu_ns"] == 10 * 50 * MS  # C_opt, then the background
    assert akita["vms"]["lo"]["cpu_share"] >= 0.4  # its C_opt/T, in HI mode too
    runs, his = segments(events, 1000 * MS)
    assert overlap(runs, his, "lo/") == 0  # EDF-VD: no LO CPU in HI mode at all
    assert hi_first["vms"]["lo"]["cpu_ns"] == 0  # the HI vCPU comes first in LO mode (x < 1)
    for doc in (capped, akita, hi_first, edf_vd):
        assert doc["vms"]["hi"]["hi_misses"] == 0
    assert sum(1 for e in events if e["event"] == "mode" and e["mode"] == "LO") == 10


def test_amc_priorities_and_keys():
    # Rate monotonic fails (R^HI of "hi" below "lo" is 21 > 20), Audsley puts "hi" first.
    host = Host(1, [VM("lo", LO, 10 * MS, 3 * MS), VM("hi", HI, 20 * MS, 4 * MS, 18 * MS)])
    doc, events, _ = run(host, "amc", duration=20 * MS)
    assert doc["rejected"] == []
    keys = {e["vcpu"]: e["key"] for e in events if e["event"] == "release"}
    assert keys == {"hi/0": "0", "lo/0": "1"}
    assert run(host, "rm", duration=20 * MS)[0]["rejected"] == ["hi"]


def test_rm_runs_by_period_with_pessimistic_hi_budgets():
    host = Host(1, [VM("slow", LO, 12 * MS, 3 * MS, workload=Workload("periodic")),
                    VM("fast", HI, 4 * MS, 1 * MS, 2 * MS),
                    VM("mid", LO, 6 * MS, 1 * MS)], test="edf")
    doc, events, _ = run(host, "rm", duration=12 * MS)
    keys = {e["vcpu"]: e["key"] for e in events if e["event"] == "release"}
    assert keys == {"fast/0": "0", "mid/0": "1", "slow/0": "2"}
    first = [e["vcpu"] for e in events if e["event"] == "dispatch"][:3]
    assert first == ["fast/0", "mid/0", "slow/0"]
    assert {e["budget"] for e in events if e["event"] == "release" and e["vcpu"] == "fast/0"} == {2 * MS}
    assert doc["pcpus"][0]["mode_switches"] == 0


# -- guarantees ---------------------------------------------------------------------------------


@settings(max_examples=150)
@given(st.one_of(sim_hosts(guaranteed=True), stressed_hosts()), st.sampled_from(RT))
def test_no_hi_miss_on_pcpus_the_policy_admitted(host, policy):
    """HI jobs of at most C_pes at period starts meet their period ends under rm (rm-rta),
    amc (AMC-rtb) and edf-vd (EDF-VD), whatever the LO vCPUs do."""
    doc = simulate(host, policy, duration=120 * MS).as_json()
    assert {name: vm["hi_misses"] for name, vm in doc["vms"].items() if vm["hi_misses"]} == {}


@settings(max_examples=15)
@given(sim_hosts(), st.sampled_from(RT), st.integers(0, 3))
def test_same_input_same_bytes(host, policy, seed):
    first = run(host, policy, duration=60 * MS, seed=seed)
    second = run(host, policy, duration=60 * MS, seed=seed)
    assert first[2] == second[2]
    assert json.dumps(first[0]) == json.dumps(second[0])


def test_policies_place_with_their_own_test():
    host = overrun_host()  # host.test is edf-vd
    assert POLICIES["rm"]().place(host).test == "rm-rta"
    assert POLICIES["amc"]().place(host).test == "amc-rtb"
    assert POLICIES["edf-vd"]().place(host).test == "edf-vd"
    doc = simulate(host, "rm", duration=10 * MS, seed=1, trace_path=None).as_json()
    assert doc["policy"] == "rm"

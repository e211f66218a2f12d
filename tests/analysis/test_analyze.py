"""akita.analysis: what a trace shows, on the project's own traces and on real captures."""

import io
import json
from pathlib import Path

import pytest

from akita.analysis import analyze_file, analyze_stream
from akita.model import load_host
from akita.model.host_file import load_conform
from akita.trace.ftrace import parse_seconds
from akita.trace.kernel import KernelTraceError
from akita.reference.run import simulate
from akita.trace.jsonl import TraceError
from kernel_render import RENDERERS
from repo import EXAMPLES, ROOT

DATA = ROOT / "tests" / "data"

#: Every shipped capture the readers accept, with its format (the others are refusals the
#: oracle's own tests check: a TSC clock, zstd, unsorted text, a notes file).
CAPTURES = {
    "tracecmd_v6.dat": "trace.dat", "tracecmd_v7.dat": "trace.dat",
    "trappy_raw_trace.dat": "trace.dat", "instance/dl.v6.dat": "trace.dat",
    "instance/dl.v7.dat": "trace.dat", "tracecmd_v6.report.txt": "ftrace",
    "tracecmd_v7.report.txt": "ftrace", "instance/dl.report.txt": "ftrace",
    "sched_text/tgid_noflags.kernel.txt": "ftrace", "sched_text/trappy_raw_trace.R.txt": "ftrace",
    "sched_text/trappy_raw_trace.report.txt": "ftrace",
    "sched_text/trappy_raw_trace.reportN.txt": "ftrace",
    "sched_text/vcpus.kernel.txt": "ftrace", "sched_text/vcpus.perf.txt": "ftrace",
    "sched_text/vcpus.report.txt": "ftrace", "sched_text/vcpus.reportN.txt": "ftrace",
    "sched_text/vcpus.reportR.txt": "ftrace",
    "sched_text/trappy_trace_legacy_systrace.html": "ftrace",
    "sched_deadline/fit.txt": "ftrace", "sched_deadline/overrun.txt": "ftrace",
    "sched_deadline/reclaim.txt": "ftrace", "sched_deadline/sporadic.txt": "ftrace",
    "xentrace-credit2-excerpt.bin.gz": "xentrace",
}


def _conserved(found):
    """Every CPU's span is its tasks' time, its idle time and its unknown time, exactly."""
    for cpu, figures in found.cpus.items():
        ran = sum(t["per_cpu_ns"].get(str(cpu), 0) for t in found.tasks.values())
        assert ran + figures["idle_ns"] + figures["unknown_ns"] == found.span_ns, cpu
        assert figures["busy_ns"] == ran


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_every_shipped_capture_is_read(name):
    options = {"cpu_hz": 2_400_000_000} if CAPTURES[name] == "xentrace" else {}
    found = analyze_file(DATA / name, **options)
    assert found.trace_format == CAPTURES[name]
    assert found.events > 0 and found.span_ns > 0 and found.tasks
    assert found.modes is None  # kernel formats record no modes
    assert all(t["cpu_ns"] >= 0 for t in found.tasks.values())
    assert any(t["cpu_ns"] > 0 for t in found.tasks.values())
    _conserved(found)
    json.dumps(found.as_json())  # every figure is JSON


def test_a_kernel_trace_names_tasks_by_comm_pid_without_a_host():
    found = analyze_file(DATA / "sched_deadline" / "fit.txt")
    assert {"dl_a-11485", "dl_b-11486", "dl_c-11487"} <= set(found.tasks)
    assert not found.budgets and not found.vms


def test_the_host_names_vcpus_and_measures_budgets_on_its_grid():
    """overrun.txt: dl_c's 6 ms jobs on a 5 ms runtime are throttled by CBS every period."""
    host = load_host(DATA / "sched_deadline" / "overrun.toml")
    found = analyze_file(DATA / "sched_deadline" / "overrun.txt", host=host,
                         origin_ns=parse_seconds(load_conform(DATA / "sched_deadline" /
                                                              "overrun.toml")["origin"]))
    assert {"dl_a/0", "dl_b/0", "dl_c/0"} <= set(found.tasks)
    budget = found.budgets
    assert budget["dl_c/0"]["periods"] >= 10
    assert budget["dl_c/0"]["over_c_opt"] >= budget["dl_c/0"]["periods"] - 2  # throttled late
    assert budget["dl_c/0"]["used_ns"]["p50"] >= 5_000_000 - 50_000  # it used its runtime
    assert budget["dl_a/0"]["over_c_opt"] == 0  # 1.5 ms jobs within 2 ms
    assert 1_400_000 <= budget["dl_a/0"]["used_ns"]["p50"] <= 2_000_000


def test_shares_agree_with_simulate_json_exactly(fig5_run):
    """The same run: each VM's CPU time is simulate's cpu_ns to the ns, and its share
    simulate's cpu_share (both round(cpu_ns / duration, 6))."""
    path, doc = fig5_run
    found = analyze_file(path)
    assert found.span_ns == doc["duration_ns"]
    assert set(found.vms) == set(doc["vms"])
    for vm, figures in doc["vms"].items():
        assert found.vms[vm]["cpu_ns"] == figures["cpu_ns"], vm
        assert found.vms[vm]["share"] == figures["cpu_share"], vm
    assert found.cpus[0]["idle_ns"] == doc["pcpus"][0]["idle_ns"]
    assert found.modes[0]["HI_ns"] == doc["pcpus"][0]["hi_time_ns"]
    assert found.modes[0]["lo_to_hi"] == doc["pcpus"][0]["mode_switches"] == 1
    _conserved(found)


def test_a_trace_missing_one_dispatch_no_longer_agrees(fig5_run):
    """Negative control: drop one dispatch and the shares differ from simulate's."""
    path, doc = fig5_run
    lines = Path(path).read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"dispatch"' in line and i > 1000)
    found = analyze_stream(io.StringIO("".join(lines[:cut] + lines[cut + 1:])))
    assert any(found.vms[vm]["cpu_ns"] != figures["cpu_ns"] for vm, figures in doc["vms"].items())


def test_a_multi_pcpu_host_agrees_too(tmp_path):
    host = load_host(EXAMPLES / "mixed.toml")
    path = tmp_path / "mixed.jsonl"
    doc = simulate(host, "akita", duration=100 * 10**6, seed=3, trace_path=str(path)).as_json()
    found = analyze_file(path, host=host, window=10**7)
    for vm, figures in doc["vms"].items():
        assert found.vms.get(vm, {"cpu_ns": 0})["cpu_ns"] == figures["cpu_ns"], vm
    for cpu in doc["pcpus"]:
        assert found.cpus[cpu["index"]]["idle_ns"] == cpu["idle_ns"]
    for task, sums in found.windows.items():  # the windows add up to the total
        assert sum(sums) == found.tasks[task]["cpu_ns"]
        assert len(sums) == 10


@pytest.mark.parametrize("kind", sorted(RENDERERS))
def test_each_kernel_rendering_of_a_run_gives_the_same_times(fig5_run, kind):
    """The run rendered as a kernel would record it (only switches and wakeups) and read by
    that format's reader: each vCPU's CPU time and the idle time are the JSON Lines trace's,
    over the same span (to its last event)."""
    path, _ = fig5_run
    lines = Path(path).read_text().splitlines()
    header = json.loads(lines[0])
    header["duration_ns"] = json.loads(lines[-1])["t"]  # a kernel trace ends at its last event
    lines[0] = json.dumps(header)
    own = analyze_stream(io.StringIO("\n".join(lines) + "\n"))
    rendering = RENDERERS[kind](lines)
    options = dict(rendering.options)
    found = analyze_stream(io.BytesIO(rendering.data), trace_map=rendering.trace_map,
                           **options)
    assert found.span_ns == own.span_ns
    for task, figures in own.tasks.items():
        assert found.tasks[task]["cpu_ns"] == figures["cpu_ns"], task
    assert found.cpus[0]["idle_ns"] == own.cpus[0]["idle_ns"]


def _jsonl(events, duration, vms=None):
    header = {"akita_trace": 1, "policy": "akita", "seed": 1, "duration_ns": duration,
              "host": {"pcpus": 2, "vms": vms or []}}
    return io.StringIO("\n".join(json.dumps(e) for e in [header] + events) + "\n")


def test_hand_made_trace_latency_migration_windows_budget():
    vms = [{"name": "a", "criticality": "LO", "period": 100, "c_opt": 30, "c_pes": None,
            "vcpus": 1, "phase": 0}]
    events = [
        {"t": 0, "cpu": 0, "event": "release", "vcpu": "a/0", "deadline": 100, "key": "100",
         "budget": 30},
        {"t": 10, "cpu": 0, "event": "wake", "vcpu": "a/0"},
        {"t": 13, "cpu": 0, "event": "dispatch", "vcpu": "a/0", "deadline": 100, "key": "100",
         "budget": 30},
        {"t": 53, "cpu": 0, "event": "block", "vcpu": "a/0"},
        {"t": 53, "cpu": 0, "event": "idle"},
        {"t": 100, "cpu": 1, "event": "release", "vcpu": "a/0", "deadline": 200, "key": "200",
         "budget": 30},
        {"t": 150, "cpu": 1, "event": "wake", "vcpu": "a/0"},
        {"t": 157, "cpu": 1, "event": "dispatch", "vcpu": "a/0", "deadline": 200, "key": "200",
         "budget": 30},
        {"t": 170, "cpu": 1, "event": "mode", "mode": "HI", "vcpu": "a/0"},
        {"t": 190, "cpu": 1, "event": "idle"},
        {"t": 200, "cpu": 1, "event": "release", "vcpu": "a/0", "deadline": 300, "key": "300",
         "budget": 30},
    ]
    found = analyze_stream(_jsonl(events, 250, vms), window=50)
    a = found.tasks["a/0"]
    assert a["cpu_ns"] == 40 + 33
    assert a["per_cpu_ns"] == {"0": 40, "1": 33}
    assert a["wake_to_run_ns"]["max"] == 7 and a["wake_to_run_ns"]["p50"] == 3
    assert a["migrations"] == 1
    assert found.windows["a/0"] == [37, 3, 0, 33, 0]
    assert found.budgets["a/0"]["periods"] == 2  # the third, [200, 300), is not whole
    assert found.budgets["a/0"]["used_ns"]["max"] == 40
    assert found.budgets["a/0"]["over_c_opt"] == 2
    assert found.cpus[0]["idle_ns"] == 250 - 40 and found.cpus[1]["idle_ns"] == 250 - 33
    assert found.modes[1] == {"LO_ns": 170, "HI_ns": 80, "lo_to_hi": 1, "hi_to_lo": 0}
    assert found.modes[0] == {"LO_ns": 250, "HI_ns": 0, "lo_to_hi": 0, "hi_to_lo": 0}


def test_a_lost_switch_is_unknown_time_never_guessed():
    """overrun.txt has two switches the kernel did not write (tests/data/README.md)."""
    found = analyze_file(DATA / "sched_deadline" / "overrun.txt")
    assert found.cpus[1]["unknown_ns"] > 0
    _conserved(found)


def test_bad_input_is_refused_with_the_file_named(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(TraceError, match="empty.jsonl"):
        analyze_file(empty)
    header_only = tmp_path / "header.jsonl"
    header_only.write_text(json.dumps({"akita_trace": 1, "duration_ns": 5}) + "\n")
    with pytest.raises(TraceError, match="no event"):
        analyze_file(header_only)
    text = (DATA / "sched_text" / "vcpus.kernel.txt").read_text().splitlines()
    events = [i for i, line in enumerate(text) if "sched_switch:" in line]
    first, later = events[0], events[-1]
    text[first], text[later] = text[later], text[first]  # the last switch first
    backwards = tmp_path / "back.txt"
    backwards.write_text("\n".join(text) + "\n")
    with pytest.raises(KernelTraceError, match=r"back\.txt:\d+"):
        analyze_file(backwards)


def test_the_rt_app_run_of_the_exported_fig5_host_reads_as_its_threads():
    """``akita analyze`` reads the committed capture of rt-app running the exported Fig. 5
    host (``tests/data/rtapp``, xz-compressed kernel text): the three lookbusy threads and
    memcached's approximation ran on CPU 1 only, and the three equal lookbusy demands got CPU
    times within 5 % of each other."""
    from repo import ROOT

    found = analyze_file(ROOT / "tests" / "data" / "rtapp" / "fig5-trace.txt.xz").as_json()
    threads = {name.rsplit("-", 1)[0]: task for name, task in found["tasks"].items()
               if name.startswith(("lookbusy", "memcached"))}
    assert set(threads) == {"lookbusy1-0", "lookbusy2-0", "lookbusy3-0", "memcached-0"}
    assert all(set(task["per_cpu_ns"]) == {"1"} for task in threads.values())
    busy = [threads[f"lookbusy{k}-0"]["cpu_ns"] for k in (1, 2, 3)]
    assert min(busy) > 0 and 20 * (max(busy) - min(busy)) <= min(busy)

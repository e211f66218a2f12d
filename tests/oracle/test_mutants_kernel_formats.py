"""Mutants through the kernel trace formats: each names what the same JSON Lines events name.

A kernel or hypervisor trace records who runs, who blocks and who wakes, and
nothing else (``trace/kernel.py``).  So the oracle can judge a kernel trace
no better than the JSON Lines trace cut down to the same events,
``strip(lines, {"dispatch", "idle"})`` (``oracle/mutation.py``).  This module
shows it judges it no worse either, in each kernel format: for the reference
and each of the 12 mutants of :mod:`akita.reference.mutants`, on every case,
the set of rules the oracle reports on that stripped trace (tolerance 0,
first fit) *equals* the set it reports on the trace rendered by
``tests/kernel_render.py`` as ftrace text, as trace.dat (version 7) and as
xentrace, read back by :func:`akita.oracle.files.conform_stream` with the
renderer's mapping (and ``cpu_hz``); and the reference is conformant in
every format.  Ties ``"any"`` as asked, and ``"strict"`` as well.  Before
that, each rendering is read back by its format's own reader as the kernel
schedule itself, pCPU by pCPU, at the trace's exact ns.

The cases are :data:`hosts.MUTANT_HOST` in phase with seeds 1 and 2,
:data:`BLOCK_AND_WAKE` (a vCPU that blocks and is woken again at one
instant, which a kernel trace must show switched out *before* its wakeup:
written after it, as ``tests/ftrace_render.py`` writes it from the JSON Lines
order, the reference's own trace draws 44 false R10 alarms), and
:data:`GENERATED` hosts of :func:`strategies.sim_hosts` with the phases their
traces' headers claim declared in the host (a kernel trace has no header).

Named by their own rule through every kernel format (:data:`KERNEL_NAMED`):
``lo-first-in-hi-mode`` (R6), ``budget-overrun`` (R3; on the hosts where
the overrun changes who runs), ``idle-while-runnable`` (R7),
``no-wake-preempt`` (R10) and ``last-fit`` (R12) -- and ``wrong-tie-break``
(R4) under strict ties.

Not named from a kernel trace, and why:

* ``no-virtual-deadline`` (R2), ``no-mode-switch``, ``late-mode-switch``,
  ``eager-mode-switch`` (R5), ``premature-hi-to-lo`` (R9) and ``no-cooling``
  (R8) (:data:`BOOKKEEPING`): their rule concerns what a kernel trace does
  not carry -- a HI vCPU's key (its virtual deadline), the pCPU's mode, the
  temperatures, the releases and exhaustions.  On every case their kernel
  schedule is the reference's, switch for switch
  (:func:`test_the_others_leave_who_runs_as_the_reference_has_it`): they
  differ only in ``mode``, ``temperature``, ``release`` and ``exhaust``
  events and in the key a dispatch reports, so no reader of who runs could
  tell them from Akita on these hosts;
* ``wrong-tie-break`` (R4), under ties ``"any"``: it changes who runs, but
  only among vCPUs of equal key, which ``"any"`` allows (as on JSON Lines).

The stripped trace still carries each dispatch's reported ``deadline`` and
``budget``, which the oracle compares (R2, R3) and a kernel trace lacks; the
equality shows they decided no verdict here.  The whole module takes 13 to
17 s on one core (measured on a shared 2-core machine).
"""

from __future__ import annotations

import io
import json
from collections import defaultdict

import attrs
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fractions import Fraction

from akita.model import VM, Criticality, Host, SchedulerOptions, Workload
from akita.model.phases import with_phases
from akita.oracle.files import FTRACE_REPORTS, conform_stream
from akita.trace.ftrace import sched_events
from akita.trace.kernel import SchedEvent, Task
from akita.oracle.mutation import Check, MutationReport, score_mutants
from akita.oracle.phases import trace_phases
from akita.oracle.report import ConformanceReport
from akita.trace.tracedat import read_tracedat
from akita.trace.xentrace import read_xentrace
from akita.reference.mutants import MUTANTS, Mutant, simulate_mutant
from akita.reference.policies import AkitaPolicy
from hosts import MUTANT_HOST
from kernel_render import (PAGE_RECORDS, RENDERERS, SLOTS, Rendering, Switch,
                           kernel_schedule, render_tracedat)
from strategies import MS, sim_hosts

DURATION = 100 * MS
KERNEL = tuple(RENDERERS)                      # "ftrace", "trace.dat", "xentrace"
FULL, STRIPPED = "jsonl-full", "jsonl-stripped"
VARIANTS = (FULL, STRIPPED, *KERNEL)
GENERATED = 8                                  # hosts drawn from sim_hosts()

#: The mutants the oracle names by their rule through a kernel trace.
KERNEL_NAMED = {"lo-first-in-hi-mode", "budget-overrun", "idle-while-runnable",
                "no-wake-preempt", "last-fit"}
#: Two pCPUs of duty-cycle vCPUs (drawn once by ``sim_hosts()``): with seed 2, vm0/1 ends its
#: job and exhausts its budget at 12.5 ms and is woken again at once, before pCPU 0 decides.
_DUTY = Workload("duty", utilization=Fraction(1, 2), window=2 * MS, offset=MS)
BLOCK_AND_WAKE = Host(2, [
    VM("vm0", Criticality.LO, 12 * MS, MS, vcpus=2, workload=_DUTY, phase=9_500_000),
    VM("vm1", Criticality.LO, 4 * MS, 3_700_000, vcpus=2, workload=_DUTY, phase=2_442_000),
], options=SchedulerOptions(initial_temperature=1, wake_preempts=False, lo_in_hi_mode=False,
                            queue_order="host"))
#: The reference policy, run as a mutant is (first fit).
REFERENCE = Mutant("reference", "-", "Akita itself.", AkitaPolicy)
#: The mutants whose rule concerns what a kernel trace does not carry.
BOOKKEEPING = {"no-virtual-deadline", "no-mode-switch", "late-mode-switch",
               "eager-mode-switch", "premature-hi-to-lo", "no-cooling"}


def synchronous(host: Host) -> Host:
    return attrs.evolve(host, options=attrs.evolve(host.options, phases="synchronous"))


def trace(host: Host, seed: int, mutant: Mutant | None) -> list[str]:
    """The JSON Lines trace of *mutant* (``None``: the reference) on *host* with *seed*."""
    out = io.StringIO()
    simulate_mutant(host, mutant or REFERENCE, duration=DURATION, seed=seed, trace=out)
    return out.getvalue().splitlines()


def declared(host: Host, seed: int) -> Host:
    """*host* with each VM's phase declared as the header of its trace for *seed* claims."""
    header = json.loads(trace(host, seed, None)[0])
    return with_phases(host, trace_phases(header, host))


def _generated() -> list[tuple[Host, int]]:
    drawn: list[tuple[Host, int]] = []

    @settings(max_examples=GENERATED, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(sim_hosts(), st.integers(1, 5))
    def collect(host: Host, seed: int) -> None:
        drawn.append((host, seed))

    collect()
    return [(declared(host, seed), seed) for host, seed in drawn]


@pytest.fixture(scope="module")
def cases() -> list[tuple[Host, int]]:
    """MUTANT_HOST in phase with seeds 1 and 2, BLOCK_AND_WAKE, and generated hosts with
    declared phases."""
    return [(synchronous(MUTANT_HOST), 1), (synchronous(MUTANT_HOST), 2), (BLOCK_AND_WAKE, 2),
            *_generated()]


def kernel_check(trace_format: str, ties: str = "any") -> Check:
    """A ``score_mutants`` check: the trace rendered in *trace_format* and read back."""
    def check(host: Host, lines: list[str]) -> ConformanceReport:
        rendering = RENDERERS[trace_format](lines)
        return conform_stream(host, io.BytesIO(rendering.data), path=f"<{trace_format}>",
                              trace_map=rendering.trace_map, tolerance=0, ties=ties,
                              placement="first-fit", keep=1000,
                              end=json.loads(lines[0])["duration_ns"], **rendering.options)
    return check


def score(case: tuple[Host, int], variant: str, ties: str) -> MutationReport:
    """The mutation report of *case* alone, judged as *variant* says."""
    if variant == FULL:
        return score_mutants([case], duration=DURATION, ties=ties)
    if variant == STRIPPED:
        return score_mutants([case], duration=DURATION, ties=ties, reports=FTRACE_REPORTS)
    return score_mutants([case], duration=DURATION, check=kernel_check(variant, ties))


@pytest.fixture(scope="module", params=["any", "strict"])
def scores(request, cases) -> tuple[str, list[dict[str, MutationReport]]]:
    """The ties, and per case, per variant: the mutation report of that case alone."""
    ties = request.param
    return ties, [{variant: score(case, variant, ties) for variant in VARIANTS} for case in cases]


def _case(case: tuple[Host, int]) -> str:
    host, seed = case
    vms = ", ".join(f"{vm.name} {vm.criticality.name}" for vm in host.vms)
    return f"{host.pcpus} pCPUs [{vms}] seed {seed}"


# -- the renderings are the schedule -----------------------------------------------------------


def _read(rendering: Rendering) -> list[SchedEvent]:
    """The scheduler events the format's own reader finds in *rendering*."""
    fmt, stream = rendering.options["trace_format"], io.BytesIO(rendering.data)
    if fmt == "ftrace":
        return list(sched_events(rendering.data.decode().splitlines()))
    if fmt == "trace.dat":
        return list(read_tracedat(stream, path="<trace.dat>"))
    return list(read_xentrace(stream, path="<xentrace>", cpu_hz=rendering.options["cpu_hz"]))


def _per_cpu(rows: list[tuple]) -> dict[int, list[tuple]]:
    out: dict[int, list[tuple]] = defaultdict(list)
    for row in rows:
        out[row[0]].append(row)
    return dict(out)


def read_back(rendering: Rendering) -> dict[int, list[tuple]]:
    """Per pCPU, the switches and wakeups the reader finds, as vCPU names at trace times."""
    origin, mapping = rendering.options["origin_ns"], rendering.trace_map

    def name(task: Task | None) -> str | None:
        return None if task is None else mapping[task.pid]

    rows = []
    for e in _read(rendering):
        if e.kind == "switch":
            rows.append((e.cpu, e.ns - origin, "switch", name(e.prev), not e.prev_runnable,
                         name(e.next)))
        elif e.kind == "wakeup":
            cpu = e.cpu if e.target_cpu is None else e.target_cpu
            rows.append((cpu, e.ns - origin, "wake", name(e.task)))
        else:  # a pinned vCPU never moves: no migration, derived (xentrace) or not
            raise AssertionError(f"{e.kind} at {e.where}")
    return _per_cpu(rows)


def expected(lines: list[str]) -> dict[int, list[tuple]]:
    """Per pCPU, the records of the trace's kernel schedule, as :func:`read_back` gives them."""
    rows = []
    for r in kernel_schedule(lines).records():
        if isinstance(r, Switch):
            rows.append((r.cpu, r.t, "switch", r.prev, r.blocked, r.next))
        else:
            rows.append((r.cpu, r.t, "wake", r.vcpu))
    return _per_cpu(rows)


def _traces(cases):
    for case in cases:
        host, seed = case
        for mutant in (None, *MUTANTS):
            yield case, mutant, trace(host, seed, mutant)


def test_every_rendering_reads_back_as_the_kernel_schedule_at_exact_times(cases):
    """Each reader finds the schedule's switches and wakeups, pCPU by pCPU, at the trace's ns."""
    for case, mutant, lines in _traces(cases):
        want = expected(lines)
        assert want, _case(case)
        renderings = [render(lines) for render in RENDERERS.values()]
        renderings.append(render_tracedat(lines, version=6))
        for rendering in renderings:
            got = read_back(rendering)
            assert got == want, (_case(case), mutant and mutant.name,
                                 rendering.options["trace_format"])


def _synthetic() -> list[str]:
    """Two pCPUs; a vCPU that blocks and is woken at one instant; a gap of 3 * 2**27 ns; a
    page's worth of switches on pCPU 0; a busy instant on both pCPUs."""
    ev = [(0, 0, "wake", "a/0"), (0, 0, "dispatch", "a/0"), (0, 1, "wake", "b/0"),
          (0, 1, "dispatch", "b/0"),
          (5, 0, "block", "a/0"), (5, 0, "wake", "a/0"), (5, 0, "dispatch", "a/0")]
    t = 3 << 27
    for i in range(PAGE_RECORDS + 5):
        ev.append((t + i, 0, "idle", None) if i % 2 == 0 else (t + i, 0, "dispatch", "a/0"))
    t += 10**9
    for _ in range(10):
        ev += [(t, 0, "idle", None), (t, 1, "idle", None),
               (t, 0, "dispatch", "a/0"), (t, 1, "dispatch", "b/0")]
    lines = [json.dumps({"akita_trace": 1, "host": {"pcpus": 2}})]
    for t, cpu, kind, vcpu in ev:
        lines.append(json.dumps({"t": t, "cpu": cpu, "event": kind}
                                | ({} if vcpu is None else {"vcpu": vcpu})))
    return lines


def test_kernel_order_long_gaps_pages_and_busy_instants():
    lines = _synthetic()
    schedule = kernel_schedule(lines)
    cpu0 = schedule.cpus[0]
    # the block-and-wake at t=5: switched out (blocked) to idle, woken, switched back in
    assert [(r.t, type(r).__name__) for r in cpu0[2:5]] == [(5, "Switch"), (5, "Wakeup"),
                                                              (5, "Switch")]
    assert (cpu0[2].prev, cpu0[2].blocked, cpu0[2].next) == ("a/0", True, None)
    assert (cpu0[4].prev, cpu0[4].blocked, cpu0[4].next) == (None, False, "a/0")
    busy = [r.slot for r in schedule.records() if r.t == (3 << 27) + 10**9]
    assert busy == list(range(40))
    for version in (6, 7):
        data = render_tracedat(lines, version).data
        assert len(data) > 3 * 4096  # pCPU 0 fills more than one page
    for render in (*RENDERERS.values(), lambda x: render_tracedat(x, 6)):
        assert read_back(render(lines)) == expected(lines)


def test_a_vcpu_blocked_and_woken_at_one_instant_is_switched_out_before_its_wakeup():
    """BLOCK_AND_WAKE's reference trace has the case the kernel order exists for."""
    records = kernel_schedule(trace(BLOCK_AND_WAKE, 2, None)).cpus[0]
    pairs = [(a, b) for a, b in zip(records, records[1:])
             if isinstance(a, Switch) and a.blocked and a.next is None
             and not isinstance(b, Switch) and (b.t, b.vcpu) == (a.t, a.prev)]
    assert pairs and pairs[0][0].t == 12_500_000 and pairs[0][0].prev == "vm0/1"


def test_an_instant_of_more_slots_than_the_cycle_grid_holds_is_refused():
    head = json.dumps({"akita_trace": 1})
    lines = [head] + [json.dumps({"t": 0, "cpu": 0, "event": "wake", "vcpu": "a/0"})] * SLOTS
    kernel_schedule(lines)
    with pytest.raises(ValueError, match="more than"):
        kernel_schedule(lines + lines[1:2])


# -- the oracle's verdicts ---------------------------------------------------------------------


def test_kernel_formats_report_exactly_what_the_stripped_trace_reports(scores, cases):
    """Per case and mutant, the rules named through each kernel format are those named on the
    JSON Lines trace cut down to its wakes, blocks, dispatches and idles; the reference passes
    in every format."""
    ties, per_case = scores
    for case, reports in zip(cases, per_case):
        for variant, report in reports.items():
            assert report.reference_passed == 1 and report.false_alarms == [], \
                (variant, ties, _case(case), report.false_alarms)
        base = reports[STRIPPED]
        for fmt in KERNEL:
            for want, got in zip(base.mutants, reports[fmt].mutants):
                assert set(got.rules) == set(want.rules) and got.diverged == want.diverged, (
                    f"mutant {want.name}, format {fmt}, ties {ties}, {_case(case)}: "
                    f"{STRIPPED} reports {sorted(want.rules)}, {fmt} {sorted(got.rules)}")


def _named(per_case: list[dict[str, MutationReport]], variant: str) -> dict[str, int]:
    """Mutant -> the cases on which the oracle named its rule through *variant*."""
    out = {m.name: 0 for m in MUTANTS}
    for reports in per_case:
        for s in reports[variant].mutants:
            out[s.name] += s.named
    return out


def test_which_mutants_are_named_through_a_kernel_trace(scores):
    ties, per_case = scores
    expected_names = KERNEL_NAMED | ({"wrong-tie-break"} if ties == "strict" else set())
    full = {name for name, n in _named(per_case, FULL).items() if n}
    assert full == {m.name for m in MUTANTS} - ({"wrong-tie-break"} if ties == "any" else set())
    for variant in (STRIPPED, *KERNEL):
        named = {name for name, n in _named(per_case, variant).items() if n}
        assert named == expected_names, (variant, ties, sorted(named))


def test_the_others_leave_who_runs_as_the_reference_has_it(cases):
    """The mutants of bookkeeping run the reference's kernel schedule, switch for switch, on
    every case: no kernel trace can tell them apart.  The tie-break alone changes who runs."""
    differs = defaultdict(int)
    for case, mutant, lines in _traces(cases):
        if mutant is None:
            reference = kernel_schedule(lines)
        elif kernel_schedule(lines) != reference:
            differs[mutant.name] += 1
    assert set(differs) == KERNEL_NAMED | {"wrong-tie-break"}
    assert not set(differs) & BOOKKEEPING

"""The replay (fleet/replay.py, fleet/placement.py) against a from-scratch model of each
placement; a placement that ignores departures is caught; nothing unsafe is placed."""

import pytest

import akita.fleet.replay as replay_module
from akita.fleet import loads_spec
from akita.fleet.arrivals import arrivals
from akita.fleet.placement import FirstFitFleet
from akita.fleet.replay import replay
from akita.model import ADMISSION_TESTS, UtilizationSums
from repo import ROOT

SMALL = (ROOT / "tests" / "fleet" / "small.toml").read_text(encoding="utf-8")

SPEC = loads_spec(SMALL)
VMS = list(arrivals(SPEC))


def naive(spec, vms, placement):
    """The series of *placement*, every decision taken from sums computed from scratch."""
    test = ADMISSION_TESTS[spec.test]
    loads = [[[] for _ in range(spec.pcpus)] for _ in range(spec.hosts)]
    where, events, rejected = {}, [], 0
    for a in vms:
        events.append((a.time, 1, a.index, a))
    events.sort()
    pending = sorted(events, key=lambda e: (e[0], e[1], e[2]))
    series = [(0, 0, 0, 0, 0)]

    def fits(host, vm):
        chosen = []
        for vcpu in vm.all_vcpus():
            if placement == "first-fit":
                order = range(spec.pcpus)
            else:
                order = sorted(range(spec.pcpus), key=lambda c: (
                    UtilizationSums.of(loads[host][c]).lo_mode, c))
            for c in order:
                if test(UtilizationSums.of(loads[host][c] + [vcpu])).schedulable:
                    loads[host][c].append(vcpu)
                    chosen.append(c)
                    break
            else:
                for v, c in zip(vm.all_vcpus(), chosen):
                    loads[host][c].remove(v)
                return None
        return tuple(chosen)

    def host_load(h):
        return sum(UtilizationSums.of(load).lo_mode for load in loads[h])

    def snapshot(t):
        busy = sum(1 for h in loads for load in h if load)
        hosts = sum(1 for h in loads if any(h))
        point = (t, busy, hosts, len(where), rejected)
        if point[1:] != series[-1][1:]:
            series.append(point)

    queue = list(pending)
    while queue:
        t = queue[0][0]
        now = [e for e in queue if e[0] == t]
        queue = [e for e in queue if e[0] != t]
        for _, kind, index, a in sorted(now, key=lambda e: (e[1], e[2])):
            if kind == 0:
                host, pcpus = where.pop(a.vm.name)
                for v, c in zip(a.vm.all_vcpus(), pcpus):
                    loads[host][c].remove(v)
                continue
            hosts = range(spec.hosts) if placement == "first-fit" else \
                sorted(range(spec.hosts), key=lambda h: (host_load(h), h))
            for h in hosts:
                pcpus = fits(h, a.vm)
                if pcpus is not None:
                    where[a.vm.name] = (h, pcpus)
                    if a.departure < spec.horizon:
                        queue.append((a.departure, 0, index, a))
                        queue.sort(key=lambda e: (e[0], e[1], e[2]))
                    break
            else:
                rejected += 1
        snapshot(t)
    return series


def points(run):
    return [(p.time, p.pcpus, p.hosts, p.vms, p.rejected) for p in run.series]


@pytest.mark.parametrize("placement", ["first-fit", "spread"])
def test_the_replay_is_the_from_scratch_model(placement):
    run = replay(SPEC, placement, VMS)
    assert points(run) == naive(SPEC, VMS, placement)
    assert run.rejected > 0 and run.departed > 0  # the small fleet is full at times
    assert run.admitted + run.rejected == run.offered == len(VMS)


class Hoarding(FirstFitFleet):
    """Deliberately wrong: a departing VM is forgotten, but its vCPUs keep their pCPUs."""

    def _free(self, host, vm, pcpus):
        pass


def test_a_placement_that_ignores_departures_is_caught(monkeypatch):
    honest = replay(SPEC, "first-fit", VMS)
    monkeypatch.setattr(replay_module, "placer", lambda name, *args: Hoarding(*args))
    hoarding = replay(SPEC, "first-fit", VMS)
    assert points(hoarding) != naive(SPEC, VMS, "first-fit")
    assert hoarding.rejected > honest.rejected


@pytest.mark.parametrize("placement", ["first-fit", "spread"])
def test_every_pcpu_of_every_peak_passes_the_test(placement):
    test = ADMISSION_TESTS[SPEC.test]
    run = replay(SPEC, placement, VMS)
    assert run.peaks
    for peak in run.peaks:
        loads = [[] for _ in range(SPEC.pcpus)]
        for vm, pcpus in peak.vms:
            assert len(pcpus) == vm.vcpus
            for vcpu, c in zip(vm.all_vcpus(), pcpus):
                loads[c].append(vcpu)
        assert all(test(UtilizationSums.of(load)).schedulable for load in loads)
        assert peak.load == sum(UtilizationSums.of(load).lo_mode for load in loads)


def test_first_fit_fills_low_hosts_first_and_spread_uses_them_all():
    first = replay(SPEC, "first-fit", VMS).series
    spread = replay(SPEC, "spread", VMS).series
    # the first arrival: first fit puts it on host 0; after two, spread has used two hosts
    assert first[1].hosts == 1 and spread[2].hosts == min(2, spread[2].vms)
    assert max(p.hosts for p in spread) == SPEC.hosts


def test_the_means_are_exact_time_averages():
    run = replay(SPEC, "first-fit", VMS)
    series = run.series
    ends = [p.time for p in series[1:]] + [SPEC.horizon]
    area = sum(p.pcpus * (end - p.time) for p, end in zip(series, ends))
    assert run.mean("pcpus") * SPEC.horizon == area
    assert 0 < run.mean("pcpus") <= run.peak_pcpus <= SPEC.hosts * SPEC.pcpus


def test_one_policy_simulates_both_placements_sampled_hosts_under_it():
    """The wrong variant (each placement its own policy) is what the spec without
    ``policy`` does: first fit under akita, spread under credit."""
    from akita.fleet.runner import sample_jobs

    small = (ROOT / "tests" / "fleet" / "small.toml").read_text(encoding="utf-8")
    for text, expected in ((small, {"first-fit": {"akita"}, "spread": {"credit"}}),
                           (small.replace('duration = "100ms"',
                                          'duration = "100ms"\npolicy = "akita"'),
                            {"first-fit": {"akita"}, "spread": {"akita"}})):
        spec = loads_spec(text)
        vms = list(arrivals(spec))
        jobs = sample_jobs(spec, {name: replay(spec, name, vms) for name in spec.placements})
        found = {name: {j.policy for j in jobs if j.placement == name}
                 for name in spec.placements}
        assert found == expected

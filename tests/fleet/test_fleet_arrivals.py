"""The VMs of a fleet (fleet/arrivals.py): on the grid, in range, each VM's draws its own."""

import attrs

from akita.fleet import loads_spec
from akita.fleet.arrivals import arrival_instants, arrivals, draw_vm
from repo import ROOT

SMALL = (ROOT / "tests" / "fleet" / "small.toml").read_text(encoding="utf-8")

SPEC = loads_spec(SMALL)


def test_arrivals_are_on_the_grid_within_the_horizon_at_most_one_a_tick():
    times = list(arrival_instants(SPEC))
    assert all(t % SPEC.tick == 0 and 0 <= t < SPEC.horizon for t in times)
    assert times == sorted(set(times))
    # 3600 ticks at p = 1/15: 240 expected, standard deviation 15
    assert 165 <= len(times) <= 315


def test_lifetimes_are_on_the_grid_and_in_range():
    _, low, high = SPEC.lifetime
    lives = [a.departure - a.time for a in arrivals(SPEC)]
    assert all(life % SPEC.tick == 0 and low <= life <= high for life in lives)
    assert min(lives) < 4 * low and max(lives) > high // 4  # log-uniform: both ends drawn


def test_a_vm_depends_on_its_index_only():
    faster = attrs.evolve(SPEC, rate=SPEC.rate * 2)
    one, other = list(arrivals(SPEC))[:50], list(arrivals(faster))[:50]
    assert [a.time for a in one] != [a.time for a in other]
    for a, b in zip(one, other):
        assert (a.vm, a.departure - a.time, a.kind) == (b.vm, b.departure - b.time, b.kind)
        assert draw_vm(SPEC, a.index, a.time) == a


def test_the_mix_follows_p_hi_and_the_types_criticality():
    vms = [a.vm for a in arrivals(SPEC)]
    hi = [vm for vm in vms if vm.is_hi]
    assert {vm.preset for vm in hi} == {"Type1", "Type6"}
    assert {vm.preset for vm in vms if not vm.is_hi} == {"Type2", "Type3"}
    assert 0.15 < len(hi) / len(vms) < 0.45
    assert all(vm.vcpus == 1 for vm in vms if vm.preset in ("Type6", "Type3"))


def test_every_tick_when_p_is_one():
    spec = attrs.evolve(SPEC, rate=SPEC.rate * 15, horizon=100 * SPEC.tick)
    assert list(arrival_instants(spec)) == [k * SPEC.tick for k in range(100)]

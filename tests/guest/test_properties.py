"""Any small host of SMP guests runs under any host policy and keeps the measures' bounds."""

from hypothesis import given, settings
from hypothesis import strategies as st

from akita.model.guest import CONTROLS, PROGRAMS
from akita.reference.run import simulate
from guest_hosts import host, vm

MS = 1_000_000


@settings(max_examples=30, deadline=None)
@given(pcpus=st.integers(1, 3), policy=st.sampled_from(["cfs", "credit", "akita"]),
       guests=st.lists(st.tuples(st.sampled_from(PROGRAMS), st.integers(1, 4),
                                 st.sampled_from(CONTROLS), st.integers(1, 4)),
                       min_size=1, max_size=3),
       hog=st.booleans(), seed=st.integers(1, 5))
def test_small_hosts_run_within_bounds(pcpus, policy, guests, hog, seed):
    tables = [vm(f"g{i}", vcpus, program=program, work=f"{work * 5}ms", control=control,
                 budget="2ms")
              for i, (program, vcpus, control, work) in enumerate(guests)]
    if hog:
        tables.append(vm("hog", 1, budget="2ms"))
    doc = simulate(host(pcpus, *tables), policy, duration=60 * MS, seed=seed).as_json()
    for name, g in doc.get("guests", {}).items():
        vcpus = dict((f"g{i}", v) for i, (_, v, _, _) in enumerate(guests))[name]
        assert 0 <= g["spin_preempted_holder_ns"] <= g["spin_ns"]
        assert 0 <= g["barrier_wait_descheduled_ns"] <= g["barrier_wait_ns"]
        assert 0 <= g["stacked_ns"] <= g["steal_ns"] <= vcpus * 60 * MS
        assert 1 <= g["online_min"] <= g["online_final"] <= vcpus
        assert g["spin_ns"] <= doc["vms"][name]["cpu_ns"]
        if g["completion_ns"] is not None:
            assert g["completion_ns"] <= 60 * MS

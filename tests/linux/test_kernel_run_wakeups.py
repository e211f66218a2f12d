"""The wake-up diagnostic's reading of a trace (akita.linux.wakeups); no kernel needed."""

from akita.linux.wakeups import bands, waits

TRACE = """\
 client-10 [000] d.s2. 100.000000: sched_wakeup: comm=mc-worker pid=7 prio=120 target_cpu=001
 python-20 [001] d.h2. 100.003900: local_timer_entry: vector=236
 python-20 [001] d..2. 100.003920: sched_switch: prev_comm=python prev_pid=20 prev_prio=120 prev_state=R ==> next_comm=mc-worker next_pid=7 next_prio=120
 client-10 [000] d.s2. 100.010000: sched_wakeup: comm=mc-worker pid=7 prio=120 target_cpu=001
 python-20 [000] d.h2. 100.010020: local_timer_entry: vector=236
 python-20 [001] d..2. 100.010030: sched_switch: prev_comm=python prev_pid=20 prev_prio=120 prev_state=R ==> next_comm=mc-worker next_pid=7 next_prio=120
"""


def test_a_wait_ended_by_the_tick_on_its_cpu_is_told_from_one_that_was_not():
    found = waits(TRACE, {7}, cpu=1)
    assert [w["wait_ns"] for w in found] == [3_920_000, 30_000]
    assert [w["after_timer"] for w in found] == [True, False]  # the second timer was on CPU 0
    assert found[0]["ran"] == {"python": 1}


def test_the_wrong_cpu_sees_no_dispatch():
    assert waits(TRACE, {7}, cpu=0) == []


def test_bands_count_each_wait_once():
    rows = bands(waits(TRACE, {7}, cpu=1))
    assert [r["count"] for r in rows] == [1, 0, 0, 1]
    assert rows[3]["after_timer"] == 1


def test_a_cpu_in_other_digits_is_not_that_cpu():
    """CPU ``[٠٠١]`` (Arabic-Indic) is no CPU 1: the line is not read, so no dispatch is."""
    other = TRACE.replace("[001] d..2.", "[\u0660\u0660\u0661] d..2.")
    assert waits(other, {7}, cpu=1) == []

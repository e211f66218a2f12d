"""Pregather's memory as C structures (decision 303), its elevator order (decision 304), and
vNavigator's waits that fail when thinks are drawn (decision 301)."""

import pytest

from akita.disk import ProcessSpec, VMSpec, WD_CAVIAR_BLACK_1TB, simulate
from akita.disk.request import Request
from akita.disk.schedulers import Pregather
from akita.disk.schedulers.layout import (LIST_HEAD, QUEUED, RB_NODE, SCHEDULER, VM, ZONE,
                                          size_of)
from akita.disk.vdisk import IMAGE_SECTORS, lay_out

S = 10**9


@pytest.mark.parametrize("fields, size, packed", [
    ((("a", 4, 4), ("b", 8, 8)), 16, 12),            # b aligned to 8
    ((("a", 8, 8), ("b", 4, 4)), 16, 12),            # the size rounded up to 8
    ((("a", 4, 4), ("b", 8, 8), ("c", 4, 4)), 24, 16),
    ((("a", 4, 4), ("b", 4, 4)), 8, 8),
])
def test_a_structure_is_laid_out_as_the_x86_64_abi_says(fields, size, packed):
    assert size_of(fields) == size
    assert sum(f[1] for f in fields) == packed  # the wrong variant, no padding


def test_the_kernel_pieces_and_pregather_structures_have_their_sizes():
    assert size_of(RB_NODE) == 24 and size_of(LIST_HEAD) == 16
    assert (size_of(ZONE), size_of(VM), size_of(QUEUED), size_of(SCHEDULER)) == (56, 112, 40, 112)


def _pregather(vms=2):
    images = lay_out([(f"v{i}", IMAGE_SECTORS) for i in range(vms)], WD_CAVIAR_BLACK_1TB.sectors)
    return Pregather(WD_CAVIAR_BLACK_1TB, images), images


def test_memory_is_the_structures_it_holds_zone_by_zone_and_request_by_request():
    scheduler, images = _pregather()
    empty = scheduler.memory_bytes()
    assert empty == 112 + 2 * 112
    scheduler.add(Request(0, 0, 0, images[0].start + 10, 32, False, 0), 0)
    assert scheduler.memory_bytes() == empty + 56 + 40       # a zone and a queued request
    scheduler.add(Request(1, 0, 0, images[0].start + 20, 32, False, 1), 1)
    assert scheduler.memory_bytes() == empty + 56 + 2 * 40   # the same zone
    scheduler.add(Request(2, 1, 1, images[1].start + 5000, 32, False, 2), 2)
    assert scheduler.memory_bytes() == empty + 2 * 56 + 3 * 40
    zones = 2 * -(-IMAGE_SECTORS // 2000)
    assert scheduler.full_table_bytes() == 112 + 2 * 112 + zones * 56


class _NearestFirst(Pregather):
    """The wrong variant: nearest request either way (decision 88 before decision 304)."""

    name = "pregather-nearest-first"

    def dispatch(self, now, head):
        if self.current is None:
            self._rotate(now)
        request = self.queues[self.current].nearest(head)
        return self._take(request) if request is not None else None


@pytest.mark.parametrize("scheduler, ahead", [(Pregather, True), (_NearestFirst, False)])
def test_pregather_serves_ahead_of_the_head_before_a_nearer_request_just_behind(scheduler, ahead):
    """With the head at sector H, a request 100 sectors behind and one 150 ahead: the
    elevator goes ahead (the one behind counts double, 200); nearest first goes back, a
    revolution late on the same cylinder."""
    s, images = _pregather(1)
    s.__class__ = scheduler
    h = images[0].start + 1_000_000
    s.add(Request(0, 0, 0, h - 100, 32, False, 0), 0)
    s.add(Request(1, 0, 0, h + 150, 32, False, 0), 0)
    chosen = s.dispatch(0, h)
    assert isinstance(chosen, Request) and (chosen.lba > h) is ahead


def _success(think_draw):
    vm = VMSpec("seq", (ProcessSpec("r", "seqrd", think_draw=think_draw),
                        ProcessSpec("w", "seqwr", think_draw=think_draw)))
    other = VMSpec("rnd", (ProcessSpec("x", "rndrd"),))
    one = simulate([vm, other], "pregather", duration_ns=2 * S).as_json()["vms"]["seq"]
    return one["wait_successes"], one["waits"]


def test_a_wait_fails_when_thinks_are_drawn_and_never_when_they_are_fixed():
    """vNavigator predicts the mean interval; with thinks drawn from the exponential law a
    think longer than the wait makes it fail (at most 1 - e^-1 of waits of the mean can
    succeed on the think alone). Fixed thinks, the wrong variant for the claim, never fail."""
    ok, waits = _success("exponential")
    assert waits > 100 and ok < waits * 9 // 10
    ok, waits = _success("fixed")
    assert waits > 100 and ok >= waits - 2

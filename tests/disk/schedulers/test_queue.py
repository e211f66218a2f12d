"""The pending-request index answers as a scan of every request would."""

from hypothesis import given, strategies as st

from akita.disk.request import Request
from akita.disk.schedulers.queue import SortedQueue

SECTORS = st.lists(st.integers(0, 10_000), min_size=0, max_size=30)


def _queue(sectors):
    queue = SortedQueue()
    requests = [Request(i, 0, 0, lba, 8, False, i) for i, lba in enumerate(sectors)]
    for request in requests:
        queue.add(request)
    return queue, requests


@given(SECTORS, st.integers(0, 10_000))
def test_nearest_and_at_or_after_match_a_scan(sectors, head):
    queue, requests = _queue(sectors)
    nearest = queue.nearest(head)
    if not requests:
        assert nearest is None and queue.oldest() is None
        return
    best = min(abs(r.lba - head) for r in requests)
    assert abs(nearest.lba - head) == best
    ahead = [r for r in requests if r.lba >= head]
    after = queue.at_or_after(head)
    assert (after is None) == (not ahead)
    if ahead:
        assert after.lba == min(r.lba for r in ahead)
    assert queue.oldest() is requests[0]


@given(SECTORS, st.integers(0, 10_000))
def test_choose_prefers_ahead_unless_behind_is_less_than_half_as_far(sectors, head):
    queue, requests = _queue(sectors)
    chosen = queue.choose(head, max_back=2_000, back_penalty=2)
    if not requests:
        assert chosen is None
        return
    ahead = [r.lba - head for r in requests if r.lba >= head]
    behind = [head - r.lba for r in requests if head - 2_000 <= r.lba < head]
    if ahead and behind and 2 * min(behind) < min(ahead):
        assert head - chosen.lba == min(behind)
    elif ahead:
        assert chosen.lba - head == min(ahead)
    elif behind:
        assert head - chosen.lba == min(behind)
    else:
        assert chosen.lba == min(sectors)  # wrap to the lowest


@given(SECTORS)
def test_remove_keeps_both_orders(sectors):
    queue, requests = _queue(sectors)
    for request in requests[::2]:
        queue.remove(request)
    left = requests[1::2]
    assert len(queue) == len(left) and list(queue) == left

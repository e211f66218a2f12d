"""The drive's cache (decision 302): segments read ahead after a read, hits skip the medium.

Each behaviour is checked against the drive without its cache (``NO_CACHE``,
the model before decision 302), for which the same assertion fails.
"""

import pytest

from akita.disk import ProcessSpec, VMSpec, WD_CAVIAR_BLACK_1TB, simulate
from akita.disk.cache import NO_CACHE, SEGMENTS, WD1001FALS_CACHE, CacheSpec, DriveCache
from akita.model import ModelError

D = WD_CAVIAR_BLACK_1TB
MS = 10**6


def _cache(spec=WD1001FALS_CACHE):
    return DriveCache(D, spec)


def test_the_sheet_figures_make_2048_sectors_a_segment():
    assert WD1001FALS_CACHE.bytes == 32 * 2**20 and SEGMENTS == 16
    assert WD1001FALS_CACHE.segment_sectors == 4096


@pytest.mark.parametrize("spec, hit", [(WD1001FALS_CACHE, True), (NO_CACHE, False)])
def test_a_read_of_what_the_drive_read_ahead_during_an_idle_gap_is_a_hit(spec, hit):
    cache = _cache(spec)
    seek, rotation, transfer = cache.serve(10_000_000, 32, False, 0)
    done = seek + rotation + transfer
    # 5 ms idle: the drive reads ahead 5 ms at 106 MB/s (about 1,035 sectors); a read of
    # sectors 64 ahead of the last one is then in the buffer
    later = cache.serve(10_000_000 + 64, 32, False, done + 5 * MS)
    if hit:
        assert later == (0, 0, 32 * 512 * 10**9 // 300_000_000) and cache.hits == 1
    else:
        assert later[1] > 0 and cache.hits == 0  # it waits for the sector to come round


def test_a_read_beyond_what_was_read_ahead_continues_from_the_head_without_a_revolution():
    cache = _cache()
    seek, rotation, transfer = cache.serve(10_000_000, 32, False, 0)
    done = seek + rotation + transfer
    gap = 100_000  # 0.1 ms: about 20 sectors read ahead
    answer = cache.serve(10_000_000 + 32, 64, False, done + gap)
    assert answer[0] == answer[1] == 0 and cache.partial == 1
    assert answer[2] < D.transfer_ns(64)  # only what was not yet read comes from the medium


def test_a_write_clears_the_segment_it_overlaps():
    cache = _cache()
    seek, rotation, transfer = cache.serve(10_000_000, 32, False, 0)
    at = seek + rotation + transfer + 5 * MS
    w = cache.serve(10_000_000 + 64, 8, True, at)
    at += sum(w) + MS
    assert cache.serve(10_000_000 + 40, 8, False, at)[0:2] != (0, 0) or cache.hits == 0


def test_the_least_recently_used_segment_goes_when_a_seventeenth_stream_starts():
    cache = _cache()
    at = 0
    starts = [i * 50_000_000 for i in range(SEGMENTS + 1)]
    for lba in starts:
        at += sum(cache.serve(lba, 32, False, at)) + MS
    assert len(cache.segments) == SEGMENTS
    assert cache.serve(starts[-1] + 32, 32, False, at)[0:2] == (0, 0)  # the newest: a hit
    before = cache.hits
    cache.serve(starts[0] + 32, 32, False, at + MS)                    # the first: gone
    assert cache.hits == before


def test_interleaved_sequential_readers_gain_from_the_cache():
    """Two sequential readers of one VM far apart, each thinking 20 ms: the drive reads
    ahead for one while it is idle, seeks to the other's request, and the first reader's
    next request is then in the buffer; without the cache it is a seek back and a rotation."""
    vms = [VMSpec("a", (ProcessSpec("a0", "seqrd", think_ns=20 * MS),
                        ProcessSpec("a1", "seqrd", think_ns=20 * MS)))]
    with_cache = simulate(vms, "noop", duration_ns=10**9 // 2, cache=WD1001FALS_CACHE).as_json()
    without = simulate(vms, "noop", duration_ns=10**9 // 2, cache=NO_CACHE).as_json()
    assert with_cache["cache_hits"] > 0 and without["cache_hits"] == 0
    assert with_cache["bytes_per_s"] > without["bytes_per_s"]
    assert with_cache["seek_ns"] < without["seek_ns"]


@pytest.mark.parametrize("field, spec", [
    ("cache.segments", lambda: CacheSpec(bytes=1024, segments=4, interface_bytes_per_s=1)),
    ("cache.bytes", lambda: CacheSpec(bytes=-1, segments=0, interface_bytes_per_s=0)),
    ("cache.interface_bytes_per_s", lambda: CacheSpec(bytes=2**20, segments=2,
                                                      interface_bytes_per_s=0)),
])
def test_a_bad_cache_is_a_model_error_naming_its_field(field, spec):
    with pytest.raises(ModelError) as caught:
        spec()
    assert field in str(caught.value)

"""What the KV caches hand out cannot change, or change the cache, behind the reader's back.

KVCache.keys / .values are read-only views (writing into one is an error; a view kept
across clear() and the next append keeps its numbers); the sliding-window cache and the
paged cache hand out copies (writing into one leaves the cache as it was). Every kind of
write into them, in both languages: tests/core/test_silent_cases.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import qkv_helpers as qk
from qkv_helpers import KVCache, PagedKVCache
from qkv_helpers.kv_cache import SlidingWindowKVCache


def tokens(n, value, heads=2, dim=3, dtype=np.float32):
    return np.full((heads, n, dim), value, dtype)


@pytest.mark.parametrize("which", ["keys", "values"])
def test_kv_cache_view_is_read_only(which):
    cache = KVCache(2, 3, capacity=8)
    cache.append(tokens(3, 1.0), tokens(3, 1.0))
    view = getattr(cache, which)
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0, 0] = 99.0
    assert (getattr(cache, which) == 1.0).all()


@pytest.mark.parametrize("which", ["keys", "values"])
def test_kv_cache_view_kept_across_clear_and_append_keeps_its_numbers(which):
    cache = KVCache(2, 3, capacity=8)
    cache.append(tokens(3, 1.0), tokens(3, 1.0))
    kept = getattr(cache, which)
    cache.clear()
    cache.append(tokens(2, 7.0), tokens(2, 7.0))
    assert (kept == 1.0).all() and kept.shape == (2, 3, 3)
    assert (getattr(cache, which) == 7.0).all() and len(cache) == 2


def test_kv_cache_view_kept_across_appends_and_growth_keeps_its_numbers():
    cache = KVCache(2, 3, capacity=2)
    cache.append(tokens(2, 1.0), tokens(2, 1.0))
    kept = cache.keys
    for i in range(5):  # past the capacity: the storage grows
        cache.append(tokens(1, 2.0 + i), tokens(1, 2.0 + i))
    assert (kept == 1.0).all()
    np.testing.assert_array_equal(cache.keys[:, :2], kept)


@pytest.mark.parametrize("which", ["keys", "values"])
def test_sliding_window_cache_hands_out_copies(which):
    cache = SlidingWindowKVCache(2, 3, window=3)
    cache.append(tokens(1, 1.0, dtype=np.float64), tokens(1, 1.0, dtype=np.float64))
    cache.append(tokens(1, 2.0, dtype=np.float64), tokens(1, 2.0, dtype=np.float64))
    kept = getattr(cache, which)
    kept[...] = 99.0  # writing into the copy leaves the cache alone
    np.testing.assert_array_equal(getattr(cache, which)[0, :, 0], [1.0, 2.0])
    kept = getattr(cache, which)
    for value in (3.0, 4.0, 5.0):  # the window slides: slots 0 and 1 are reused
        cache.append(tokens(1, value, dtype=np.float64), tokens(1, value, dtype=np.float64))
    np.testing.assert_array_equal(kept[0, :, 0], [1.0, 2.0])
    np.testing.assert_array_equal(getattr(cache, which)[0, :, 0], [3.0, 4.0, 5.0])


@pytest.mark.parametrize("which", ["keys", "values"])
def test_paged_cache_hands_out_copies(which):
    cache = PagedKVCache(2, 3, block_size=2, n_blocks=4)
    seq = cache.new_sequence()
    cache.append(seq, tokens(3, 1.0, dtype=np.float64), tokens(3, 1.0, dtype=np.float64))
    kept = getattr(cache, which)(seq)
    kept[...] = 99.0
    assert (getattr(cache, which)(seq) == 1.0).all()


def test_a_kv_cache_view_is_otherwise_a_numpy_array():
    """CacheView changes only what a write says: arithmetic gives plain arrays, slices stay
    read-only views, it prints and pickles as numpy's array, a copy is writable."""
    import pickle

    from qkv_helpers.kv_cache.plain import CacheView

    cache = KVCache(2, 3, capacity=8)
    cache.append(tokens(3, 1.0), tokens(3, 2.0))
    keys = cache.keys
    assert isinstance(keys, CacheView) and not keys.flags.writeable
    for result in (keys * 2, keys @ keys.swapaxes(-1, -2), keys.sum(axis=0),
                   np.concatenate([keys, keys], axis=1), np.einsum("hnd->hn", keys)):
        assert type(result) is np.ndarray and result.flags.writeable
    for view in (keys[0], keys.T, keys[:, ::2], cache.values[np.newaxis]):
        assert isinstance(view, CacheView) and not view.flags.writeable
        assert np.shares_memory(view, cache.values if view.part == "values" else keys)
    assert repr(keys[0, :1]) == "array([[1., 1., 1.]], dtype=float32)"
    assert str(keys[0, :1]) == "[[1. 1. 1.]]"
    again = pickle.loads(pickle.dumps(keys))
    np.testing.assert_array_equal(again, keys)
    again[0] = 5.0  # an unpickled array owns its memory: writable
    mine = keys.copy()
    mine += 1.0
    assert (mine == 2.0).all() and (cache.keys == 1.0).all()


def test_the_decoder_computes_on_plain_arrays():
    """block.project hands the cache's keys and values to attention as plain numpy arrays
    (np.asarray: no copy, still read-only), so CacheView's Python hook is not on a decoding
    step's path, and the fast path's exact type check keeps its unchecked route."""
    from qkv_helpers import block as block_module

    cache = KVCache(1, 4, capacity=4, dtype=np.float64)
    attention = qk.MultiHeadAttention(4, 1, seed=0)
    x = np.ones((2, 4))
    _, k, v = block_module.project(attention, x, x, kv_cache=cache)
    for got, kept in ((k, cache.keys), (v, cache.values)):
        assert type(got) is np.ndarray and not got.flags.writeable
        assert np.shares_memory(got, kept)
        np.testing.assert_array_equal(got, kept)

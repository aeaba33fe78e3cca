"""KVCache: what it keeps equals the concatenation of what was appended, appending does not
copy what is kept, storage grows geometrically, nbytes follows the formula, errors are clear.

The reference is np.concatenate of every appended block: the slow, obvious cache.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qkv_helpers import KVCache


def blocks(n_heads, head_dim, sizes, dtype=np.float32, seed=0):
    """Random (k, v) blocks of shape (n_heads, size, head_dim), one per size."""
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(n_heads, n, head_dim)).astype(dtype),
             rng.normal(size=(n_heads, n, head_dim)).astype(dtype)) for n in sizes]


# --- small cases -----------------------------------------------------------------------


def test_empty_cache():
    cache = KVCache(n_heads=3, head_dim=5, capacity=4)
    assert len(cache) == 0
    assert cache.keys.shape == (3, 0, 5)
    assert cache.values.shape == (3, 0, 5)
    assert cache.nbytes == 0
    assert cache.capacity == 4
    assert cache.allocated_nbytes == 2 * 4 * 3 * 5 * 4


def test_prompt_then_single_tokens_by_hand():
    cache = KVCache(n_heads=2, head_dim=3, capacity=10)
    # Token i's key is filled with i, its value with -i: easy to read back.
    prompt_k = np.zeros((2, 3, 3), np.float32)  # (n_heads, 3 tokens, head_dim)
    prompt_k[:, 1], prompt_k[:, 2] = 1, 2
    cache.append(prompt_k, -prompt_k)
    for i in (3, 4):
        k = np.full((2, 1, 3), i, np.float32)
        cache.append(k, -k)
    assert len(cache) == 5
    assert cache.keys[:, :, 0].tolist() == [[0, 1, 2, 3, 4]] * 2
    assert cache.values[:, :, 2].tolist() == [[0, -1, -2, -3, -4]] * 2
    assert cache.nbytes == 2 * 5 * 2 * 3 * 4


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nbytes_formula_and_dtype(dtype):
    n_heads, head_dim = 4, 8
    cache = KVCache(n_heads, head_dim, capacity=3, dtype=dtype)
    for k, v in blocks(n_heads, head_dim, [2, 1, 5, 1], dtype=dtype):
        cache.append(k, v)
        tokens = len(cache)
        itemsize = np.dtype(dtype).itemsize
        assert cache.nbytes == 2 * tokens * n_heads * head_dim * itemsize
        assert cache.nbytes == cache.keys.nbytes + cache.values.nbytes
        assert cache.allocated_nbytes == 2 * cache.capacity * n_heads * head_dim * itemsize
        assert cache.keys.dtype == dtype and cache.values.dtype == dtype


def test_keys_and_values_are_views_of_the_storage():
    cache = KVCache(2, 4, capacity=8)
    (k, v), = blocks(2, 4, [3])
    cache.append(k, v)
    keys = cache.keys
    assert not keys.flags.owndata
    assert np.shares_memory(keys, cache.keys)
    assert not np.shares_memory(keys, k)  # the cache holds its own copy of what was given


def test_append_within_capacity_keeps_the_same_storage():
    """Appending writes the new tokens only: the kept tokens stay where they were."""
    cache = KVCache(2, 4, capacity=8)
    parts = blocks(2, 4, [3, 1, 1, 2])
    cache.append(*parts[0])
    before = cache.keys
    for k, v in parts[1:]:
        cache.append(k, v)
        # The earlier view still looks at the same memory as the start of the new one.
        assert np.shares_memory(before, cache.keys)
        np.testing.assert_array_equal(before, cache.keys[:, :3])
    assert cache.capacity == 8


def test_growth_is_geometric_and_keeps_the_contents():
    cache = KVCache(1, 2, capacity=1)
    parts = blocks(1, 2, [1] * 100)
    capacities = []
    for k, v in parts:
        cache.append(k, v)
        capacities.append(cache.capacity)
    grown = sorted(set(capacities))
    assert grown == [1, 2, 4, 8, 16, 32, 64, 128]  # doubles: 7 copies for 100 tokens
    np.testing.assert_array_equal(cache.keys, np.concatenate([k for k, _ in parts], axis=1))
    np.testing.assert_array_equal(cache.values, np.concatenate([v for _, v in parts], axis=1))


def test_a_large_append_grows_to_fit():
    cache = KVCache(2, 3, capacity=2)
    (k, v), = blocks(2, 3, [9])
    cache.append(k, v)
    assert len(cache) == 9
    assert cache.capacity >= 9
    np.testing.assert_array_equal(cache.keys, k)


def test_clear_forgets_the_tokens_but_keeps_the_storage():
    cache = KVCache(2, 3, capacity=4)
    cache.append(*blocks(2, 3, [3])[0])
    cache.clear()
    assert len(cache) == 0 and cache.nbytes == 0 and cache.capacity == 4
    (k, v), = blocks(2, 3, [2], seed=1)
    cache.append(k, v)
    np.testing.assert_array_equal(cache.values, v)


def test_repr_names_the_sizes():
    assert repr(KVCache(2, 3, 4)) == (
        "KVCache(n_heads=2, head_dim=3, len=0, capacity=4, dtype=float32)")


# --- property: the cache equals the concatenation of what was appended -------------------


@given(
    n_heads=st.integers(1, 4),
    head_dim=st.integers(1, 6),
    capacity=st.integers(1, 8),
    sizes=st.lists(st.integers(0, 5), min_size=1, max_size=12),
    seed=st.integers(0, 2**16),
)
def test_cache_equals_concatenation(n_heads, head_dim, capacity, sizes, seed):
    cache = KVCache(n_heads, head_dim, capacity)
    parts = blocks(n_heads, head_dim, sizes, seed=seed)
    for i, (k, v) in enumerate(parts):
        cache.append(k, v)
        want_k = np.concatenate([k for k, _ in parts[: i + 1]], axis=1)
        want_v = np.concatenate([v for _, v in parts[: i + 1]], axis=1)
        np.testing.assert_array_equal(cache.keys, want_k)
        np.testing.assert_array_equal(cache.values, want_v)
        assert len(cache) == want_k.shape[1] <= cache.capacity
        assert cache.nbytes == want_k.nbytes + want_v.nbytes


# --- errors name the argument and the shapes ------------------------------------------


@pytest.fixture
def cache():
    return KVCache(n_heads=2, head_dim=4, capacity=8)


def test_wrong_number_of_heads(cache):
    k = np.zeros((3, 1, 4), np.float32)
    with pytest.raises(ValueError, match=r"k must have shape .*\(2, new_tokens, 4\).*\(3, 1, 4\)"):
        cache.append(k, k)


def test_wrong_head_dim_in_v(cache):
    k = np.zeros((2, 1, 4), np.float32)
    with pytest.raises(ValueError, match=r"v must have shape .*\(2, new_tokens, 4\).*\(2, 1, 5\)"):
        cache.append(k, np.zeros((2, 1, 5), np.float32))


def test_missing_token_axis(cache):
    with pytest.raises(ValueError, match=r"k must have shape .* got \(2, 4\)"):
        cache.append(np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32))


def test_k_and_v_disagree_on_tokens(cache):
    with pytest.raises(ValueError, match=r"k has shape \(2, 2, 4\), v has shape \(2, 1, 4\)"):
        cache.append(np.zeros((2, 2, 4), np.float32), np.zeros((2, 1, 4), np.float32))


def test_wrong_dtype(cache):
    k = np.zeros((2, 1, 4))  # float64
    with pytest.raises(TypeError, match=r"k must have the cache's dtype float32, got float64"):
        cache.append(k, k.astype(np.float32))


def test_not_an_array(cache):
    with pytest.raises(TypeError, match=r"v must be a numpy array .* got list"):
        cache.append(np.zeros((2, 1, 4), np.float32), [[[0.0] * 4]] * 2)


def test_a_failed_append_changes_nothing(cache):
    cache.append(np.ones((2, 1, 4), np.float32), np.ones((2, 1, 4), np.float32))
    with pytest.raises(ValueError):
        cache.append(np.ones((2, 1, 4), np.float32), np.ones((2, 2, 4), np.float32))
    assert len(cache) == 1


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_heads=0, head_dim=4, capacity=8), "n_heads must be a positive integer, got 0"),
    (dict(n_heads=2, head_dim=2.5, capacity=8), "head_dim must be a positive integer"),
    (dict(n_heads=2, head_dim=4, capacity=0), "capacity must be a positive integer, got 0"),
    (dict(n_heads=2, head_dim=4, capacity=8, dtype=np.int32), "dtype must be a numpy float dtype"),
])
def test_bad_construction(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        KVCache(**kwargs)


@pytest.mark.parametrize("k_kind, v_kind, error, match", [
    ("ok", "list", TypeError, r"v must be a numpy array of shape \(2, 'new_tokens', 4\), got list"),
    ("list", "ok", TypeError, r"k must be a numpy array"),
    ("ok", "float64", TypeError, r"v must have the cache's dtype float32, got float64"),
    ("two", "ok", ValueError, r"k and v must have the same shape .* k has shape \(2, 2, 4\), "
                              r"v has shape \(2, 1, 4\)"),
])
def test_the_checked_append_names_what_is_wrong(cache, k_kind, v_kind, error, match):
    """append's usual path is a few comparisons; each failure still gets its own message."""
    arrays = {
        "ok": np.zeros((2, 1, 4), np.float32),
        "two": np.zeros((2, 2, 4), np.float32),
        "list": np.zeros((2, 1, 4)).tolist(),
        "float64": np.zeros((2, 1, 4)),
    }
    with pytest.raises(error, match=match):
        cache.append(arrays[k_kind], arrays[v_kind])
    assert len(cache) == 0


def test_append_takes_one_token_or_many_and_no_other_attributes():
    cache = KVCache(2, 4, capacity=2)
    cache.append(np.ones((2, 1, 4), np.float32), np.ones((2, 1, 4), np.float32))
    cache.append(np.ones((2, 3, 4), np.float32), np.ones((2, 3, 4), np.float32))  # grows
    cache.append(np.ones((2, 0, 4), np.float32), np.ones((2, 0, 4), np.float32))  # nothing
    assert len(cache) == 4 and cache.capacity >= 4
    with pytest.raises(AttributeError):
        cache.note = "slots: a misspelt attribute is an error, not a new attribute"


def test_one_token_appends_take_views_and_grow_like_many():
    # One-token appends go through the token-by-token view of the storage; feed them
    # strided views across several growths.
    rng = np.random.default_rng(5)
    wide = rng.normal(size=(2, 10, 8)).astype(np.float32)
    k_all, v_all = wide[..., ::2], wide[..., 1::2]  # (2, 10, 4) each, not contiguous
    cache = KVCache(2, 4, capacity=1)
    for t in range(10):
        k, v = k_all[:, t : t + 1], v_all[:, t : t + 1]
        assert not k.flags.c_contiguous
        cache.append(k, v)
        np.testing.assert_array_equal(cache.keys, k_all[:, : t + 1])
        np.testing.assert_array_equal(cache.values, v_all[:, : t + 1])
    assert cache.capacity == 16  # 1 -> 2 -> 4 -> 8 -> 16


def test_subclasses_and_equal_dtypes_take_the_checked_path_and_are_kept():
    class Sub(np.ndarray):
        pass

    cache = KVCache(2, 3, capacity=4)
    k = np.arange(6, dtype=np.float32).reshape(2, 1, 3)
    same_dtype = np.dtype(np.float32, metadata={"note": "equal, not the same object"})
    assert same_dtype == cache.dtype and same_dtype is not cache.dtype
    cache.append(k.view(Sub), (2 * k).view(Sub))
    cache.append(k.astype(same_dtype), (2 * k).astype(same_dtype))
    np.testing.assert_array_equal(cache.keys, np.concatenate([k, k], axis=1))
    np.testing.assert_array_equal(cache.values, np.concatenate([2 * k, 2 * k], axis=1))


@pytest.mark.parametrize("bad", [(1, 2, 4), (2, 2, 2), (4, 1, 2)])  # 8 numbers, like (2, 1, 4)
def test_wrong_shapes_of_one_token_s_size_are_clear_errors_and_change_nothing(cache, bad):
    good = np.ones((2, 1, 4), np.float32)
    cache.append(good, good)
    wrong = np.zeros(bad, np.float32)
    for k, v, name in ((wrong, good, "k"), (good, wrong, "v")):
        with pytest.raises(ValueError, match=rf"{name} must have shape .*\(2, new_tokens, 4\)"):
            cache.append(k, v)
        assert len(cache) == 1
        np.testing.assert_array_equal(cache.keys, good)
        np.testing.assert_array_equal(cache.values, good)

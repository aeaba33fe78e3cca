"""Lesson 13's package pieces against plain attention and simple references.

sliding_window_mask, grouped_query_attention, tiled_attention and PagedKVCache: exact small
cases, hypothesis properties (float32 and float64, masks, batches) and bad input.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qkv_helpers import (
    PagedKVCache,
    causal_mask,
    grouped_query_attention,
    scaled_dot_product_attention,
    sliding_window_mask,
    tiled_attention,
)
from qkv_helpers.tiled import online_softmax_start, online_softmax_update, tiled_attention_with_work

DTYPES = st.sampled_from([np.float32, np.float64])
TOL = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-10, atol=1e-12)}


def normal(seed, shape, dtype=np.float64, scale=1.0):
    return (np.random.default_rng(seed).normal(size=shape) * scale).astype(dtype)


# --- sliding_window_mask ---------------------------------------------------------------


def naive_window_mask(n_q, n_k, window):
    return np.array([[0 <= (n_k - n_q + i) - j < window for j in range(n_k)]
                     for i in range(n_q)], dtype=bool)


def test_window_mask_by_hand():
    expected = np.array([[1, 0, 0, 0],
                         [1, 1, 0, 0],
                         [0, 1, 1, 0],
                         [0, 0, 1, 1]], dtype=bool)
    np.testing.assert_array_equal(sliding_window_mask(4, window=2), expected)
    np.testing.assert_array_equal(sliding_window_mask(1, 5, window=2), [[0, 0, 0, 1, 1]])
    np.testing.assert_array_equal(sliding_window_mask(3, window=1), np.eye(3, dtype=bool))


@given(n_q=st.integers(1, 12), extra=st.integers(0, 12), window=st.integers(1, 30))
def test_window_mask_matches_definition(n_q, extra, window):
    n_k = n_q + extra
    got = sliding_window_mask(n_q, n_k, window=window)
    np.testing.assert_array_equal(got, naive_window_mask(n_q, n_k, window))
    assert got.dtype == np.bool_ and got.any(axis=-1).all()  # every query sees itself
    assert (got <= causal_mask(n_q, n_k)).all()  # never sees the future
    if window >= n_k:
        np.testing.assert_array_equal(got, causal_mask(n_q, n_k))


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(n_q=3), TypeError, "window"),
    (dict(n_q=3, window=0), ValueError, "window"),
    (dict(n_q=3, window=2.5), TypeError, "window"),
    (dict(n_q=3, n_k=2, window=2), ValueError, "n_k"),
    (dict(n_q=0, window=2), ValueError, "n_q"),
])
def test_window_mask_bad_input(kwargs, error, words):
    with pytest.raises(error, match=words):
        sliding_window_mask(**kwargs)


# --- grouped_query_attention --------------------------------------------------------------


@given(seed=st.integers(0, 2**16), dtype=DTYPES, n_kv=st.integers(1, 3), group=st.integers(1, 3),
       n_q=st.integers(1, 6), n_k=st.integers(1, 6), batch=st.sampled_from([(), (2,)]),
       masked=st.booleans())
def test_gqa_head_h_uses_kv_head_h_div_group(seed, dtype, n_kv, group, n_q, n_k, batch, masked):
    n_heads = n_kv * group
    q = normal(seed, (*batch, n_heads, n_q, 4), dtype)
    k = normal(seed + 1, (*batch, n_kv, n_k, 4), dtype)
    v = normal(seed + 2, (*batch, n_kv, n_k, 3), dtype)
    mask = causal_mask(n_q, max(n_q, n_k))[:, -n_k:] if masked else None
    if mask is not None and not mask.any(axis=-1).all():
        mask = None
    out, w = grouped_query_attention(q, k, v, mask=mask)
    assert out.shape == (*batch, n_heads, n_q, 3) and w.shape == (*batch, n_heads, n_q, n_k)
    assert out.dtype == dtype
    for h in range(n_heads):  # the reference: one plain attention per query head
        ref = scaled_dot_product_attention(q[..., h, :, :], k[..., h // group, :, :],
                                           v[..., h // group, :, :], mask=mask)
        np.testing.assert_allclose(out[..., h, :, :], ref.output, **TOL[dtype])
        np.testing.assert_allclose(w[..., h, :, :], ref.weights, **TOL[dtype])


def test_gqa_equals_multihead_when_every_head_has_its_own_kv():
    q, k, v = normal(0, (4, 5, 8)), normal(1, (4, 5, 8)), normal(2, (4, 5, 8))
    got = grouped_query_attention(q, k, v, mask=causal_mask(5))
    ref = scaled_dot_product_attention(q, k, v, mask=causal_mask(5))
    np.testing.assert_array_equal(got.output, ref.output)


def test_gqa_mqa_one_kv_head_differs_from_other_head_layouts():
    q, k, v = normal(0, (4, 3, 8)), normal(1, (2, 3, 8)), normal(2, (2, 3, 8))
    out = grouped_query_attention(q, k, v).output
    # heads 0, 1 use K/V head 0 and heads 2, 3 use K/V head 1 (not 0, 1, 0, 1)
    alt = scaled_dot_product_attention(q[1], k[1], v[1]).output
    assert not np.allclose(out[1], alt)


@pytest.mark.parametrize("shapes, words", [
    (((3, 2, 4), (2, 2, 4), (2, 2, 4)), "multiple of n_kv_heads"),
    (((4, 2, 4), (2, 2, 4), (1, 2, 4)), "same number of K/V heads"),
    (((2, 4), (2, 4), (2, 4)), "at least 3"),
    (((4, 2, 4), (2, 2, 5), (2, 2, 4)), "d_k"),
])
def test_gqa_bad_shapes(shapes, words):
    q, k, v = (np.ones(s) for s in shapes)
    with pytest.raises(ValueError, match=words):
        grouped_query_attention(q, k, v)


# --- tiled_attention ------------------------------------------------------------------------


@st.composite
def attention_case(draw):
    seed = draw(st.integers(0, 2**16))
    dtype = draw(DTYPES)
    batch = draw(st.sampled_from([(), (2,), (2, 3)]))
    n_q, n_k = draw(st.integers(1, 20)), draw(st.integers(1, 20))
    d_k, d_v = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    scale = draw(st.sampled_from([0.1, 1.0, 5.0]))  # 5.0: large scores, the max must move
    q = normal(seed, (*batch, n_q, d_k), dtype, scale)
    k = normal(seed + 1, (*batch, n_k, d_k), dtype, scale)
    v = normal(seed + 2, (*batch, n_k, d_v), dtype)
    kind = draw(st.sampled_from(["none", "causal", "window", "random"]))
    mask = None
    if kind == "causal" and n_k >= n_q:
        mask = causal_mask(n_q, n_k)
    elif kind == "window" and n_k >= n_q:
        mask = sliding_window_mask(n_q, n_k, window=draw(st.integers(1, 5)))
    elif kind == "random":
        mask = np.random.default_rng(seed).random((*batch[-1:], n_q, n_k)) < 0.5
        mask[..., 0] = True  # each row sees key 0 at least
    return q, k, v, mask, draw(st.integers(1, 8))


@given(attention_case(), st.booleans())
def test_tiled_equals_plain_attention(case, skip):
    q, k, v, mask, block = case
    ref = scaled_dot_product_attention(q, k, v, mask=mask).output
    got = tiled_attention_with_work(q, k, v, mask=mask, block_size=block, skip_hidden_blocks=skip)
    assert got.output.shape == ref.shape and got.output.dtype == ref.dtype
    np.testing.assert_allclose(got.output, ref, **TOL[ref.dtype.type])
    np.testing.assert_array_equal(tiled_attention(q, k, v, mask, block, None, skip), got.output)
    assert got.tiles <= got.tiles_total
    if mask is None or not skip:
        assert got.tiles == got.tiles_total
        n_q, d_k, n_k, d_v = *q.shape[-2:], *v.shape[-2:]
        assert got.scores == n_q * n_k  # every score once, as plain attention
        assert got.flops == 2 * n_q * n_k * d_k + 2 * n_q * n_k * d_v  # the same FLOPs


def test_tiled_block_larger_than_sequence_and_block_one():
    q, k, v = normal(0, (5, 3)), normal(1, (7, 3)), normal(2, (7, 2))
    ref = scaled_dot_product_attention(q, k, v).output
    for block in (1, 7, 100):
        np.testing.assert_allclose(tiled_attention(q, k, v, block_size=block), ref, rtol=1e-12)


def test_tiled_causal_skips_the_hidden_tiles_exactly():
    x = normal(0, (64, 8))
    full = tiled_attention_with_work(x, x, x, causal_mask(64), 16, skip_hidden_blocks=False)
    skip = tiled_attention_with_work(x, x, x, causal_mask(64), 16)
    # 4 × 4 tiles; those above the diagonal (6) are hidden entirely
    assert (full.tiles, skip.tiles, full.tiles_total) == (16, 10, 16)
    assert skip.scores == 10 * 16 * 16
    np.testing.assert_allclose(skip.output, full.output, rtol=1e-12)


def test_online_update_rescales_when_the_maximum_grows():
    # by hand: scores [0, 1] then [3]; after the second block m = 3 and the first block's
    # sum 1 + e is rescaled by exp(1 - 3)
    s = online_softmax_update(online_softmax_start((1,), 1), np.array([[0.0, 1.0]]),
                              np.array([[10.0], [20.0]]))
    assert s.m[0, 0] == 1.0 and np.isclose(s.l[0, 0], np.exp(-1) + 1)
    s = online_softmax_update(s, np.array([[3.0]]), np.array([[30.0]]))
    assert s.m[0, 0] == 3.0
    assert np.isclose(s.l[0, 0], (np.exp(-1) + 1) * np.exp(-2) + 1)
    assert np.isclose(s.l[0, 0], np.exp([0.0, 1.0, 3.0]).sum() / np.exp(3.0))


def test_online_update_with_a_fully_masked_first_block_gives_no_nan():
    s = online_softmax_update(online_softmax_start((1,), 1), np.array([[-np.inf, -np.inf]]),
                              np.array([[1.0], [2.0]]))
    assert np.isneginf(s.m[0, 0]) and s.l[0, 0] == 0 and s.o[0, 0] == 0
    s = online_softmax_update(s, np.array([[0.5]]), np.array([[7.0]]))
    assert (s.o / s.l)[0, 0] == 7.0


def test_tiled_large_scores_do_not_overflow():
    q = np.array([[1000.0, 0.0]])
    k = np.array([[1.0, 0.0], [1.1, 0.0], [0.9, 0.0]])
    v = np.array([[1.0], [2.0], [3.0]])
    ref = scaled_dot_product_attention(q, k, v).output
    np.testing.assert_allclose(tiled_attention(q, k, v, block_size=1), ref)


@pytest.mark.parametrize("n_k, value", [(70_000, 1.0), (1_000, 100.0)])
def test_tiled_float16_keeps_its_running_sums_in_float32(n_k, value):
    """Equal scores make l = n_k and o = n_k · value: past 65,504, float16's largest, the
    running sums would overflow (70,000 keys gave NaN, values of about 100 over 1,000
    keys gave inf). Kept in float32 as in FlashAttention, float16 matches float32 within
    float16's precision."""
    rng = np.random.default_rng(0)
    q = np.zeros((3, 4))  # every score 0: every key weighs the same
    k = rng.normal(size=(n_k, 4))
    v = value + rng.uniform(-1, 1, size=(n_k, 2))
    want = scaled_dot_product_attention(*(a.astype(np.float32) for a in (q, k, v))).output
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning either
        got = tiled_attention(*(a.astype(np.float16) for a in (q, k, v)), block_size=8192)
    assert got.dtype == np.float16
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2 * 2.0**-10)


def test_tiled_bad_input_is_a_clear_error():
    x = np.ones((4, 3))
    with pytest.raises(ValueError, match="no key for query row 1"):
        tiled_attention(x, x, x, mask=np.array([[1, 0, 0, 0], [0] * 4, [1] * 4, [1] * 4], bool))
    with pytest.raises(ValueError, match=r"same d_k.*\(4, 3\)"):
        tiled_attention(x, np.ones((4, 2)), x)
    with pytest.raises(ValueError, match="same number of tokens"):
        tiled_attention(x, x, np.ones((5, 3)))
    with pytest.raises(ValueError, match="block_size"):
        tiled_attention(x, x, x, block_size=0)
    with pytest.raises(TypeError, match="mask must be a boolean"):
        tiled_attention(x, x, x, mask=np.ones((4, 4)))
    with pytest.raises(ValueError, match="q must hold finite"):
        tiled_attention(np.full((4, 3), np.nan), x, x)
    with pytest.raises(ValueError, match="overflowed"):
        tiled_attention(np.full((1, 3), 1e30, np.float32), np.full((2, 3), 1e30, np.float32),
                        np.ones((2, 1), np.float32))
    with pytest.raises(ValueError, match="do not broadcast"):
        tiled_attention(np.ones((2, 4, 3)), np.ones((3, 4, 3)), np.ones((3, 4, 3)))


# --- PagedKVCache -----------------------------------------------------------------------------


@given(seed=st.integers(0, 2**16), dtype=st.sampled_from([np.float32, np.float64]),
       block=st.integers(1, 5), ops=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 6),
                                                        st.booleans()), max_size=25))
def test_paged_cache_equals_a_list_of_arrays(seed, dtype, block, ops):
    """Random appends and frees over 4 sequences against lists of appended arrays."""
    heads, dim = 2, 3
    cache = PagedKVCache(heads, dim, block, n_blocks=12, dtype=dtype)
    rng = np.random.default_rng(seed)
    ids, ref = [], {}  # ref: id -> (list of k, list of v)
    for which, new, free in ops:
        if len(ids) < 4 and which >= len(ids):
            ids.append(cache.new_sequence())
            ref[ids[-1]] = ([], [])
            continue
        seq = ids[which % len(ids)]
        if free:
            before = cache.free_blocks
            held = len(cache.block_table(seq))
            cache.free(seq)
            assert cache.free_blocks == before + held
            ids.remove(seq)
            del ref[seq]
            if not ids:
                continue
            continue
        k, v = rng.normal(size=(2, heads, new, dim))
        free_before, table_before = cache.free_blocks, cache.block_table(seq)
        try:
            cache.append(seq, k, v)
        except MemoryError:
            assert cache.free_blocks == free_before and cache.block_table(seq) == table_before
        else:
            ref[seq][0].append(k)
            ref[seq][1].append(v)
        for s in ids:  # every sequence still holds exactly what was appended to it
            want_k = np.concatenate([np.zeros((heads, 0, dim))] + ref[s][0], axis=1)
            want_v = np.concatenate([np.zeros((heads, 0, dim))] + ref[s][1], axis=1)
            np.testing.assert_array_equal(cache.keys(s), want_k.astype(dtype))
            np.testing.assert_array_equal(cache.values(s), want_v.astype(dtype))
            assert cache.keys(s).dtype == dtype and cache.length(s) == want_k.shape[1]
            assert len(cache.block_table(s)) == -(-want_k.shape[1] // block)
    tables = [b for s in ids for b in cache.block_table(s)]
    assert len(tables) == len(set(tables))  # no block is held twice
    assert len(tables) + cache.free_blocks == 12
    tokens = sum(cache.length(s) for s in ids)
    item = np.dtype(dtype).itemsize
    assert cache.used_nbytes == 2 * heads * dim * tokens * item
    assert cache.reserved_nbytes == 2 * heads * dim * block * len(tables) * item
    assert cache.used_nbytes <= cache.reserved_nbytes


def test_paged_blocks_are_reused_after_free():
    cache = PagedKVCache(1, 2, block_size=2, n_blocks=3)
    a, b = cache.new_sequence(), cache.new_sequence()
    cache.append(a, np.ones((1, 3, 2)), np.ones((1, 3, 2)))
    cache.append(b, np.ones((1, 1, 2)), np.ones((1, 1, 2)))
    assert cache.free_blocks == 0
    cache.free(a)
    c = cache.new_sequence()
    cache.append(c, 5 * np.ones((1, 4, 2)), np.ones((1, 4, 2)))
    assert sorted(cache.block_table(c)) == [0, 1]  # a's old blocks
    np.testing.assert_array_equal(cache.keys(c), 5 * np.ones((1, 4, 2)))


def test_paged_running_out_is_a_clear_error_that_loses_nothing():
    cache = PagedKVCache(1, 2, block_size=2, n_blocks=2)
    a = cache.new_sequence()
    cache.append(a, np.ones((1, 3, 2)), 2 * np.ones((1, 3, 2)))
    with pytest.raises(MemoryError, match=r"needs 1 more block.*only 0 of 2 are free.*Nothing"):
        cache.append(a, np.ones((1, 2, 2)), np.ones((1, 2, 2)))
    assert cache.length(a) == 3
    np.testing.assert_array_equal(cache.values(a), 2 * np.ones((1, 3, 2)))
    cache.append(a, 3 * np.ones((1, 1, 2)), np.ones((1, 1, 2)))  # the last free slot still works
    assert cache.length(a) == 4 and cache.keys(a)[0, 3, 0] == 3


def test_paged_bad_input():
    cache = PagedKVCache(2, 3, block_size=4, n_blocks=2)
    a = cache.new_sequence()
    with pytest.raises(ValueError,
                       match=r"k must have shape .*\(2, new_tokens, 3\), got \(3, 1, 3\)"):
        cache.append(a, np.ones((3, 1, 3)), np.ones((2, 1, 3)))
    with pytest.raises(ValueError, match="same shape"):
        cache.append(a, np.ones((2, 1, 3)), np.ones((2, 2, 3)))
    with pytest.raises(TypeError, match="real numbers"):
        cache.append(a, np.array([["a"]]), np.ones((2, 1, 3)))
    with pytest.raises(ValueError, match="finite"):
        cache.append(a, np.full((2, 1, 3), np.nan), np.ones((2, 1, 3)))
    with pytest.raises(KeyError, match="seq_id 7"):
        cache.keys(7)
    with pytest.raises(KeyError, match="seq_id"):
        cache.append("0", np.ones((2, 1, 3)), np.ones((2, 1, 3)))
    cache.free(a)
    with pytest.raises(KeyError, match="seq_id 0"):
        cache.free(a)
    with pytest.raises(ValueError, match="block_size"):
        PagedKVCache(2, 3, block_size=0, n_blocks=2)
    with pytest.raises(TypeError, match="dtype"):
        PagedKVCache(2, 3, 4, 2, dtype=np.int32)
    assert cache.keys(cache.new_sequence()).shape == (2, 0, 3)


def test_gqa_matches_torch_enable_gqa():
    """PyTorch's convention (enable_gqa=True), when torch is installed (make bench installs it)."""
    torch = pytest.importorskip("torch")
    q, k, v = normal(0, (2, 8, 5, 4)), normal(1, (2, 2, 7, 4)), normal(2, (2, 2, 7, 3))
    mask = causal_mask(5, 7)
    ref = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v),
        attn_mask=torch.from_numpy(mask), enable_gqa=True).numpy()
    np.testing.assert_allclose(grouped_query_attention(q, k, v, mask=mask).output, ref,
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tiled_attention(q, np.repeat(k, 4, axis=1),
                                               np.repeat(v, 4, axis=1), mask, block_size=3),
                               ref, rtol=1e-10, atol=1e-12)

"""measure.long_context: lesson 13's measurements, against formulas and independent counts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qkv_helpers import (
    KVCache,
    causal_mask,
    scaled_dot_product_attention,
    sliding_window_mask,
    softmax,
    tiled_attention,
)
from qkv_helpers import long_context as sc


def test_attention_flops_formula():
    assert sc.attention_flops(2, 3, 4) == 2 * 2 * 3 * 4 * 2
    assert sc.attention_flops(2, 3, 4, 5) == 2 * 2 * 3 * 4 + 2 * 2 * 3 * 5


def test_peak_memory_sees_the_score_matrix_and_tiled_does_not():
    q, k, v = sc.attention_inputs(1024, d=32)
    plain = sc.measure_peak_memory(sc.plain_attention_output, q, k, v)
    tiled = sc.measure_peak_memory(tiled_attention, q, k, v)
    scores = 1024 * 1024 * 4  # one float32 (n, n) matrix
    assert plain >= scores  # the weights exist
    assert tiled < scores / 8  # only tiles, the output and a scaled copy of q
    assert tiled >= 1024 * 32 * 4  # the output itself is counted


def test_peak_memory_excludes_inputs_and_nests():
    big = np.ones(1_000_000)
    assert sc.measure_peak_memory(lambda: big.sum()) < 100_000
    assert sc.measure_peak_memory(np.zeros, 250_000) >= 2_000_000


def test_measure_time_is_a_positive_minimum():
    assert 0 < sc.measure_time(sum, range(1000), repeats=2) < 1


@given(a=st.floats(0.1, 10), p=st.floats(-3, 3))
def test_loglog_slope_recovers_a_power(a, p):
    x = np.array([1.0, 2.0, 5.0, 10.0])
    assert sc.loglog_slope(x, a * x**p) == pytest.approx(p, abs=1e-9)


def test_loglog_slope_bad_input():
    with pytest.raises(ValueError, match="> 0"):
        sc.loglog_slope([1, 2], [0, 1])
    with pytest.raises(ValueError, match="same length"):
        sc.loglog_slope([1, 2, 3], [1, 2])


@given(seed=st.integers(0, 1000), n=st.integers(1, 12), block=st.integers(1, 5))
def test_online_trace_ends_at_softmax_times_v(seed, n, block):
    rng = np.random.default_rng(seed)
    scores, v = rng.normal(size=n) * 3, rng.normal(size=(n, 2))
    steps = sc.online_softmax_trace(scores, v, block)
    assert [s.keys_seen for s in steps] == [min(b + block, n) for b in range(0, n, block)]
    np.testing.assert_allclose(steps[-1].output, softmax(scores) @ v, rtol=1e-10, atol=1e-12)
    for s in steps:  # after each block: the max and sum of the keys so far
        seen = scores[: s.keys_seen]
        assert s.m == seen.max()
        assert s.l == pytest.approx(np.exp(seen - seen.max()).sum())
        np.testing.assert_allclose(s.output, softmax(seen) @ v[: s.keys_seen], rtol=1e-10,
                                   atol=1e-12)
        assert 0 <= s.rescale <= 1


@given(seed=st.integers(0, 1000), n=st.integers(1, 15), window=st.integers(1, 20),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_windowed_decoding_equals_the_window_mask(seed, n, window, dtype):
    q, k, v = np.random.default_rng(seed).normal(size=(3, 2, n, 4)).astype(dtype)
    run = sc.windowed_decoding(q, k, v, window)
    ref = scaled_dot_product_attention(q, k, v, mask=sliding_window_mask(n, window=window))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(run.output, ref.output, rtol=tol, atol=tol)
    item = np.dtype(dtype).itemsize
    assert run.cache_nbytes == [2 * 2 * window * 4 * item] * n  # bounded by the window
    assert run.full_cache_nbytes == [2 * 2 * (t + 1) * 4 * item for t in range(n)]
    if window >= n:  # the window covers everything: full causal attention
        full = scaled_dot_product_attention(q, k, v, mask=causal_mask(n)).output
        np.testing.assert_allclose(run.output, full, rtol=tol, atol=tol)


def test_sliding_cache_keeps_the_last_window_in_order():
    cache = sc.SlidingWindowKVCache(1, 1, window=4)
    for t in range(10):
        cache.append(np.full((1, 1, 1), t), np.full((1, 1, 1), -t))
        kept = list(range(max(0, t - 3), t + 1))
        assert cache.keys.ravel().tolist() == kept
        assert cache.values.ravel().tolist() == [-x for x in kept]
    with pytest.raises(ValueError, match=r"k must have shape .*\(1, 1, 1\), got \(1, 2, 1\)"):
        cache.append(np.ones((1, 2, 1)), np.ones((1, 1, 1)))


@given(n=st.integers(1, 40), window=st.integers(1, 8), layers=st.integers(1, 6))
def test_receptive_field_formula_against_the_mask_product(n, window, layers):
    assert sc.receptive_field_by_masks(n, window, layers) == min(n, sc.receptive_field(window,
                                                                                      layers))


@given(lengths=st.lists(st.integers(1, 100), min_size=1, max_size=10),
       block=st.integers(1, 32), chunk=st.integers(1, 40))
def test_serving_memory_against_formulas(lengths, block, chunk):
    m = sc.serve_requests(lengths, max_len=100, block_size=block, n_heads=2, head_dim=4,
                          tokens_per_step=chunk)
    token = 2 * 2 * 4 * 4  # K and V, 2 heads, head_dim 4, float32
    assert m.used == sum(lengths) * token
    assert m.paged_reserved == sum(-(-n // block) for n in lengths) * block * token
    assert m.max_len_reserved == len(lengths) * 100 * token
    assert m.used <= m.paged_reserved <= m.used + len(lengths) * (block - 1) * token
    assert 0 <= m.paged_waste < 1 and 0 <= m.max_len_waste < 1
    assert m.max_len_reserved == len(lengths) * KVCache(2, 4, 100).allocated_nbytes
    blocks = [b for table in m.block_tables.values() for b in table]
    assert sorted(blocks) == list(range(len(blocks)))  # the pool is used without gaps


def test_serving_bad_input():
    with pytest.raises(ValueError, match="max_len"):
        sc.serve_requests([5, 200], max_len=100)


def test_llama_2_7b_parameter_count():
    # 6.74 B parameters in all; the matrix products use all but the input embedding
    total = sc.LLAMA_2_7B.matmul_params + 32000 * 4096 + 32 * 2 * 4096 + 4096  # + norms
    assert total == 6_738_415_616  # Llama-2-7b-hf's parameter count


def test_step_cost_by_hand_and_intensity():
    tiny = sc.ModelShape("tiny", layers=1, d_model=2, n_heads=1, kv_heads=1, head_dim=2,
                         d_ff=3, vocab=5)
    assert tiny.matmul_params == 2 * 4 + 2 * 4 + 3 * 2 * 3 + 2 * 5
    c = sc.step_cost(tiny, new_tokens=1, context=4, batch=2, bytes_per_value=2)
    assert c.flops == 2 * tiny.matmul_params * 2 + 4 * 1 * 1 * 2 * 1 * 5 * 2
    assert c.weight_bytes == tiny.matmul_params * 2
    assert c.kv_bytes == 2 * 1 * 1 * 2 * 4 * 2 * 2
    assert c.intensity == c.flops / (c.weight_bytes + c.kv_bytes)


def test_prefill_is_compute_bound_and_decode_memory_bound():
    prefill = sc.step_cost(sc.LLAMA_2_7B, new_tokens=2048)
    decode = sc.step_cost(sc.LLAMA_2_7B, new_tokens=1, context=2048)
    for gpu in (sc.A100_80GB, sc.H100_SXM):
        assert prefill.bound(gpu) == "compute" and decode.bound(gpu) == "memory"
        assert 100 < gpu.ridge < 400
    assert decode.intensity == pytest.approx(1.0, abs=0.05)  # 2 FLOPs per 2-byte weight
    # batching shares the weights: intensity grows almost with the batch (short contexts)
    batched = sc.step_cost(sc.LLAMA_2_7B, new_tokens=1, context=16, batch=64)
    assert 55 < batched.intensity < 64
    assert decode.seconds(sc.A100_80GB) == pytest.approx(decode.bytes_read / 2039e9)


def test_causal_tile_work_halves_roughly():
    full, skip, flops_full, flops_skip = sc.causal_tile_work(1024, 64, d=8)
    n = 1024 // 64
    assert full == n * n and skip == n * (n + 1) // 2
    assert flops_full == sc.attention_flops(1024, 1024, 8)
    assert flops_skip / flops_full == pytest.approx((n + 1) / (2 * n))


def test_peak_memory_turns_garbage_collection_off_while_it_measures_and_back_as_it_was():
    import gc

    seen = []
    assert gc.isenabled()
    sc.measure_peak_memory(lambda: seen.append(gc.isenabled()))
    assert seen == [False] and gc.isenabled()
    with pytest.raises(ZeroDivisionError):  # also when fn raises
        sc.measure_peak_memory(lambda: 1 / 0)
    assert gc.isenabled()
    gc.disable()
    try:
        sc.measure_peak_memory(lambda: None)
        assert not gc.isenabled()
    finally:
        gc.enable()

"""MultiHeadAttention: against a naive per-head loop, by hand, and its properties.

The reference slices each head's columns out of W_Q, W_K, W_V
(``h*head_dim:(h+1)*head_dim``), runs plain attention on each head with Python floats,
concatenates the heads and applies W_O. Error paths are in test_errors.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from qkv_helpers import MultiHeadAttention, Projection, causal_mask

E = math.e


def naive_attention(q, k, v, mask=None):
    """2-D attention, one query at a time, math.exp; returns (output, weights) arrays."""
    scale = 1.0 / math.sqrt(q.shape[1])
    output, weights = [], []
    for i in range(q.shape[0]):
        allowed = [j for j in range(k.shape[0]) if mask is None or mask[i, j]]
        scores = {j: scale * math.fsum(float(a) * float(b) for a, b in zip(q[i], k[j]))
                  for j in allowed}
        top = max(scores.values())
        exps = {j: math.exp(s - top) for j, s in scores.items()}
        total = math.fsum(exps.values())
        w_i = [exps.get(j, 0.0) / total for j in range(k.shape[0])]
        output.append([math.fsum(w_i[j] * float(v[j, c]) for j in range(k.shape[0]))
                       for c in range(v.shape[1])])
        weights.append(w_i)
    return np.array(output), np.array(weights)


def naive_mha(n_heads, w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o, x_q, x_kv, mask=None):
    """Multi-head attention of 2-D x_q (n_q, d_model), x_kv (n_k, d_model), head by head."""
    d_model = w_q.shape[0]
    head_dim = d_model // n_heads
    b_q, b_k, b_v, b_o = (np.zeros(d_model) if b is None else b for b in (b_q, b_k, b_v, b_o))
    heads, weights = [], []
    for h in range(n_heads):
        cols = slice(h * head_dim, (h + 1) * head_dim)
        q_h = x_q @ w_q[:, cols] + b_q[cols]  # (n_q, head_dim)
        k_h = x_kv @ w_k[:, cols] + b_k[cols]  # (n_k, head_dim)
        v_h = x_kv @ w_v[:, cols] + b_v[cols]  # (n_k, head_dim)
        out_h, w_h = naive_attention(q_h, k_h, v_h, mask)
        heads.append(out_h)
        weights.append(w_h)
    concat = np.concatenate(heads, axis=1)  # (n_q, d_model)
    return concat @ w_o + b_o, np.stack(weights)  # (n_q, d_model), (n_heads, n_q, n_k)


def params(mha):
    return (mha.w_q, mha.w_k, mha.w_v, mha.w_o, mha.b_q, mha.b_k, mha.b_v, mha.b_o)


# --- strategies -------------------------------------------------------------------


@st.composite
def mha_and_inputs(draw, with_mask=False, cross=True):
    n_heads = draw(st.integers(1, 3))
    head_dim = draw(st.integers(1, 3))
    d_model = n_heads * head_dim
    mha = MultiHeadAttention(d_model, n_heads, seed=draw(st.integers(0, 2**16)),
                             bias=draw(st.booleans()))
    n_q = draw(st.integers(1, 4))
    n_k = draw(st.integers(1, 4)) if cross else n_q
    el = st.floats(-2, 2)
    x_q = draw(hnp.arrays(np.float64, (n_q, d_model), elements=el))
    x_kv = draw(hnp.arrays(np.float64, (n_k, d_model), elements=el)) if cross else None
    mask = None
    if with_mask:
        mask = draw(hnp.arrays(np.bool_, (n_q, n_k)))
        for i in range(n_q):
            mask[i, draw(st.integers(0, n_k - 1))] = True
    return mha, x_q, x_kv, mask


# --- by hand ------------------------------------------------------------------------


def test_identity_weights_two_heads_by_hand():
    """d_model 2, two heads of width 1, every weight the identity, no bias.

    Head 0 sees column 0 of x = [1, 0]: scores [[1, 0], [0, 0]] (scale 1/sqrt(1)).
    Head 1 sees column 1 = [0, 1]: scores [[0, 0], [0, 1]].
    """
    mha = MultiHeadAttention.from_weights(2, *[np.eye(2)] * 4)
    x = np.eye(2)  # (tokens, d_model)
    out, w = mha(x)
    big, small = E / (1 + E), 1 / (1 + E)
    np.testing.assert_allclose(w, [[[big, small], [0.5, 0.5]],
                                   [[0.5, 0.5], [small, big]]], rtol=1e-15)
    # head 0's output: weights @ [1, 0]; head 1's: weights @ [0, 1]
    np.testing.assert_allclose(out, [[big, 0.5], [0.5, big]], rtol=1e-15)


def test_one_head_is_plain_attention_on_the_projections():
    rng = np.random.default_rng(4)
    w_q, w_k, w_v, w_o = rng.normal(size=(4, 3, 3))
    x = rng.normal(size=(5, 3))
    mha = MultiHeadAttention.from_weights(1, w_q, w_k, w_v, w_o)
    out, w = mha(x)
    ref_out, ref_w = naive_attention(x @ w_q, x @ w_k, x @ w_v)
    np.testing.assert_allclose(w[0], ref_w, rtol=1e-12)
    np.testing.assert_allclose(out, ref_out @ w_o, rtol=1e-10, atol=1e-12)


def test_zero_input_without_bias_gives_zero():
    out, w = MultiHeadAttention(6, 3, bias=False)(np.zeros((4, 6)))
    np.testing.assert_array_equal(out, np.zeros((4, 6)))
    np.testing.assert_array_equal(w, np.full((3, 4, 4), 0.25))


# --- against the naive per-head loop ---------------------------------------------------


@given(mha_and_inputs(with_mask=True), st.booleans())
def test_matches_the_naive_per_head_loop(case, use_mask):
    mha, x_q, x_kv, mask = case
    mask = mask if use_mask else None
    out, w = mha(x_q, x_kv, mask=mask)
    ref_out, ref_w = naive_mha(mha.n_heads, *params(mha), x_q, x_kv, mask)
    assert w.shape == (mha.n_heads, x_q.shape[0], x_kv.shape[0])
    np.testing.assert_allclose(w, ref_w, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(out, ref_out, rtol=1e-9, atol=1e-12)


@given(mha_and_inputs(cross=False))
def test_self_attention_matches_the_naive_loop(case):
    mha, x, _, _ = case
    out, w = mha(x)
    ref_out, ref_w = naive_mha(mha.n_heads, *params(mha), x, x)
    np.testing.assert_allclose(w, ref_w, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(out, ref_out, rtol=1e-9, atol=1e-12)


@given(mha_and_inputs())
def test_project_gives_each_heads_columns(case):
    mha, x_q, x_kv, _ = case
    proj = mha.project(x_q, x_kv)
    assert isinstance(proj, Projection)
    hd = mha.head_dim
    b = [np.zeros(mha.d_model) if b is None else b for b in (mha.b_q, mha.b_k, mha.b_v)]
    for h in range(mha.n_heads):
        cols = slice(h * hd, (h + 1) * hd)
        np.testing.assert_allclose(proj.q[h], x_q @ mha.w_q[:, cols] + b[0][cols], rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(proj.k[h], x_kv @ mha.w_k[:, cols] + b[1][cols], rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(proj.v[h], x_kv @ mha.w_v[:, cols] + b[2][cols], rtol=1e-12,
                                   atol=1e-12)
    # project(x) is self-attention's projection
    np.testing.assert_array_equal(mha.project(x_q).k, mha.project(x_q, x_q).k)


def test_split_and_merge_heads_are_inverse():
    mha = MultiHeadAttention(6, 3)
    x = np.arange(2 * 4 * 6, dtype=float).reshape(2, 4, 6)  # (batch, tokens, d_model)
    split = mha.split_heads(x)
    assert split.shape == (2, 3, 4, 2)
    np.testing.assert_array_equal(split[1, 2, 3], x[1, 3, 4:6])  # head 2 = columns 4:6
    np.testing.assert_array_equal(mha.merge_heads(split), x)


# --- properties -------------------------------------------------------------------------


@given(mha_and_inputs(cross=False, with_mask=True), st.booleans())
def test_self_attention_is_cross_attention_with_itself(case, use_mask):
    mha, x, _, mask = case
    mask = mask if use_mask else None
    out, w = mha(x, mask=mask)
    out2, w2 = mha(x, x, mask=mask)
    np.testing.assert_array_equal(out, out2)
    np.testing.assert_array_equal(w, w2)


@given(mha_and_inputs(with_mask=True))
def test_weights_are_probabilities_and_the_mask_holds_in_every_head(case):
    mha, x_q, x_kv, mask = case
    _, w = mha(x_q, x_kv, mask=mask)  # mask (n_q, n_k) broadcasts over the heads
    assert (w >= 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    for h in range(mha.n_heads):
        assert (w[h][~mask] == 0.0).all()
    # the same as the mask written out for each head
    out3, w3 = mha(x_q, x_kv, mask=np.broadcast_to(mask, (mha.n_heads, *mask.shape)))
    np.testing.assert_array_equal(w3, w)


@given(mha_and_inputs(cross=False), st.randoms(use_true_random=False))
def test_permuting_the_tokens_permutes_the_output(case, rnd):
    mha, x, _, _ = case
    perm = list(range(x.shape[0]))
    rnd.shuffle(perm)
    out, w = mha(x)
    out_p, w_p = mha(x[perm])
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w_p, w[:, perm][:, :, perm], rtol=1e-10, atol=1e-300)


@given(st.integers(2, 6), st.integers(0, 2**16), st.data())
def test_causal_mask_hides_the_future(n, seed, data):
    """Changing token t's x changes no output before t."""
    mha = MultiHeadAttention(4, 2, seed=seed)
    x = data.draw(hnp.arrays(np.float64, (n, 4), elements=st.floats(-2, 2)))
    t = data.draw(st.integers(1, n - 1))
    x2 = x.copy()
    x2[t:] = data.draw(hnp.arrays(np.float64, (n - t, 4), elements=st.floats(-2, 2)))
    out, w = mha(x, mask=causal_mask(n))
    out2, w2 = mha(x2, mask=causal_mask(n))
    np.testing.assert_array_equal(w2[:, :t], w[:, :t])
    np.testing.assert_allclose(out2[:t], out[:t], rtol=1e-12, atol=1e-14)


def test_batch_dimensions_broadcast():
    mha = MultiHeadAttention(6, 2, seed=5)
    rng = np.random.default_rng(5)
    x_q = rng.normal(size=(3, 4, 6))  # (batch, n_q, d_model)
    x_kv = rng.normal(size=(5, 6))  # (n_k, d_model), shared by the batch
    mask = rng.random((3, 1, 4, 5)) < 0.6  # (batch, 1 for the heads, n_q, n_k)
    mask[..., 0] = True
    out, w = mha(x_q, x_kv, mask=mask)
    assert out.shape == (3, 4, 6) and w.shape == (3, 2, 4, 5)
    for b in range(3):
        ref_out, ref_w = naive_mha(2, *params(mha), x_q[b], x_kv, mask[b, 0])
        np.testing.assert_allclose(w[b], ref_w, rtol=1e-10, atol=1e-300)
        np.testing.assert_allclose(out[b], ref_out, rtol=1e-9, atol=1e-12)
        single_out, single_w = mha(x_q[b], x_kv, mask=mask[b, 0])
        np.testing.assert_allclose(out[b], single_out, rtol=1e-12, atol=1e-14)


# --- construction ---------------------------------------------------------------------


def test_attributes_and_shapes():
    mha = MultiHeadAttention(d_model=8, n_heads=4, seed=3)
    assert (mha.d_model, mha.n_heads, mha.head_dim) == (8, 4, 2)
    for w in (mha.w_q, mha.w_k, mha.w_v, mha.w_o):
        assert w.shape == (8, 8) and w.dtype == np.float64
    for b in (mha.b_q, mha.b_k, mha.b_v, mha.b_o):
        assert b.shape == (8,)
    assert "d_model=8" in repr(mha) and "n_heads=4" in repr(mha)


def test_seed_decides_the_weights():
    a, b, c = MultiHeadAttention(8, 2, seed=1), MultiHeadAttention(8, 2, seed=1), \
        MultiHeadAttention(8, 2, seed=2)
    for name in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_o"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert not np.array_equal(getattr(a, name), getattr(c, name))
    # the four projections are not the same matrix
    assert not np.array_equal(a.w_q, a.w_k) and not np.array_equal(a.w_v, a.w_o)


def test_default_weights_have_standard_deviation_one_over_sqrt_d_model():
    mha = MultiHeadAttention(64, 4, seed=0)
    w = np.stack([mha.w_q, mha.w_k, mha.w_v, mha.w_o])  # 16384 draws
    assert abs(w.std() * math.sqrt(64) - 1) < 0.03
    assert abs(w.mean()) < 0.01


def test_bias_false_has_no_biases():
    mha = MultiHeadAttention(6, 3, seed=1, bias=False)
    assert (mha.b_q, mha.b_k, mha.b_v, mha.b_o) == (None, None, None, None)
    x = np.random.default_rng(6).normal(size=(4, 6))
    out, w = mha(x)
    ref_out, ref_w = naive_mha(3, mha.w_q, mha.w_k, mha.w_v, mha.w_o, None, None, None, None,
                               x, x)
    np.testing.assert_allclose(out, ref_out, rtol=1e-9, atol=1e-12)
    # with bias=True the same seed adds biases and changes the output
    biased = MultiHeadAttention(6, 3, seed=1, bias=True)
    assert all(b is not None for b in (biased.b_q, biased.b_k, biased.b_v, biased.b_o))
    assert not np.allclose(biased(x).output, out)


@given(mha_and_inputs(with_mask=True))
def test_from_weights_round_trip(case):
    mha, x_q, x_kv, mask = case
    copy = MultiHeadAttention.from_weights(mha.n_heads, *params(mha))
    assert (copy.d_model, copy.n_heads, copy.head_dim) == (mha.d_model, mha.n_heads,
                                                           mha.head_dim)
    out, w = mha(x_q, x_kv, mask=mask)
    out2, w2 = copy(x_q, x_kv, mask=mask)
    np.testing.assert_array_equal(w2, w)
    np.testing.assert_array_equal(out2, out)


def test_from_weights_copies_and_allows_some_biases():
    rng = np.random.default_rng(7)
    w_q, w_k, w_v, w_o = rng.normal(size=(4, 4, 4))
    b_v = rng.normal(size=4)
    mha = MultiHeadAttention.from_weights(2, w_q, w_k, w_v, w_o, b_v=b_v)
    assert mha.b_q is None and mha.b_k is None and mha.b_o is None
    np.testing.assert_array_equal(mha.b_v, b_v)
    x = rng.normal(size=(3, 4))
    ref_out, _ = naive_mha(2, w_q, w_k, w_v, w_o, None, None, b_v, None, x, x)
    np.testing.assert_allclose(mha(x).output, ref_out, rtol=1e-9, atol=1e-12)


# --- dtype -------------------------------------------------------------------------------


@given(mha_and_inputs(with_mask=True))
def test_float32_stays_float32(case):
    mha64, x_q, x_kv, mask = case
    mha = MultiHeadAttention.from_weights(
        mha64.n_heads, *[None if p is None else p.astype(np.float32) for p in params(mha64)])
    assert mha.dtype == np.float32 and mha.w_q.dtype == np.float32
    out, w = mha(x_q.astype(np.float32), x_kv.astype(np.float32), mask=mask)
    assert out.dtype == np.float32 and w.dtype == np.float32
    for a in mha.project(x_q.astype(np.float32), x_kv.astype(np.float32)):
        assert a.dtype == np.float32
    ref_out, ref_w = naive_mha(mha.n_heads, *params(mha64), x_q, x_kv, mask)
    np.testing.assert_allclose(w, ref_w, atol=1e-4)
    np.testing.assert_allclose(out, ref_out, atol=1e-4)


def test_dtype_float32_constructor():
    mha = MultiHeadAttention(8, 2, seed=0, dtype=np.float32)
    assert all(p.dtype == np.float32 for p in params(mha))
    x = np.random.default_rng(8).normal(size=(2, 5, 8)).astype(np.float32)
    out, w = mha(x, mask=causal_mask(5))
    assert out.dtype == np.float32 and w.dtype == np.float32
    ref = MultiHeadAttention(8, 2, seed=0)(x.astype(np.float64), mask=causal_mask(5))
    np.testing.assert_allclose(out, ref.output, atol=1e-5)


# --- torch's multi-head attention, when installed --------------------------------------------


@given(mha_and_inputs(with_mask=True), st.booleans())
def test_matches_torch_multihead_attention(case, use_mask):
    torch = pytest.importorskip("torch")

    mha, x_q, x_kv, mask = case
    mask = mask if use_mask else None
    d = mha.d_model
    ref = torch.nn.MultiheadAttention(d, mha.n_heads, bias=mha.b_q is not None,
                                      batch_first=True, dtype=torch.float64)
    # torch computes x @ W.T + b with W (out, in): our weights transposed
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.from_numpy(np.concatenate([mha.w_q, mha.w_k, mha.w_v],
                                                                 axis=1).T))
        ref.out_proj.weight.copy_(torch.from_numpy(mha.w_o.T))
        if mha.b_q is not None:
            ref.in_proj_bias.copy_(torch.from_numpy(np.concatenate([mha.b_q, mha.b_k, mha.b_v])))
            ref.out_proj.bias.copy_(torch.from_numpy(mha.b_o))
        xq, xkv = torch.from_numpy(x_q[None]), torch.from_numpy(x_kv[None])
        # nn.MultiheadAttention's boolean attn_mask is the opposite: True = may NOT attend
        out, w = ref(xq, xkv, xkv, attn_mask=None if mask is None else torch.from_numpy(~mask),
                     need_weights=True, average_attn_weights=False)
    ours_out, ours_w = mha(x_q, x_kv, mask=mask)
    np.testing.assert_allclose(ours_out, out[0].numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours_w, w[0].numpy(), rtol=1e-9, atol=1e-300)

"""scaled_dot_product_attention(q, k, v, mask=None, scale=None).

Small cases worked by hand, hypothesis properties, a naive reference (one query at a
time, Python floats and math.exp) and, when torch is installed, torch's own attention.
Error paths are in test_errors.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from qkv_helpers import AttentionResult, causal_mask, scaled_dot_product_attention

E = math.e


def naive_attention(q, k, v, mask=None, scale=None):
    """Attention of 2-D q, k, v, one query at a time, in Python floats.

    Returns (output, weights) as nested lists.
    """
    q, k, v = (np.asarray(a, dtype=np.float64).tolist() for a in (q, k, v))
    d_k = len(q[0])
    scale = 1.0 / math.sqrt(d_k) if scale is None else float(scale)
    output, weights = [], []
    for i, q_i in enumerate(q):
        allowed = [j for j in range(len(k)) if mask is None or mask[i][j]]
        scores = {j: scale * math.fsum(a * b for a, b in zip(q_i, k[j])) for j in allowed}
        top = max(scores.values())
        exps = {j: math.exp(s - top) for j, s in scores.items()}
        total = math.fsum(exps.values())
        w_i = [exps[j] / total if j in exps else 0.0 for j in range(len(k))]
        output.append([math.fsum(w_i[j] * v[j][c] for j in range(len(k)))
                       for c in range(len(v[0]))])
        weights.append(w_i)
    return output, weights


# --- strategies -------------------------------------------------------------------


@st.composite
def masks(draw, n_q, n_k):
    """A boolean (n_q, n_k) mask with at least one True in every row."""
    mask = draw(hnp.arrays(np.bool_, (n_q, n_k)))
    for i in range(n_q):
        mask[i, draw(st.integers(0, n_k - 1))] = True
    return mask


@st.composite
def qkv(draw, dtype=np.float64, max_side=5, with_mask=False):
    """(q, k, v, mask): q (n_q, d_k), k (n_k, d_k), v (n_k, d_v); mask None or (n_q, n_k)."""
    side = st.integers(1, max_side)
    n_q, n_k, d_k, d_v = draw(side), draw(side), draw(side), draw(side)
    elements = st.floats(-3, 3, width=np.dtype(dtype).itemsize * 8)
    q = draw(hnp.arrays(dtype, (n_q, d_k), elements=elements))
    k = draw(hnp.arrays(dtype, (n_k, d_k), elements=elements))
    v = draw(hnp.arrays(dtype, (n_k, d_v), elements=elements))
    mask = draw(masks(n_q, n_k)) if with_mask else None
    return q, k, v, mask


# --- small cases worked by hand ----------------------------------------------------


def test_one_query_two_keys_by_hand():
    q = np.array([[1.0, 0.0]])  # (1, 2)
    k = np.array([[1.0, 0.0], [0.0, 1.0]])  # (2, 2)
    v = np.array([[10.0], [20.0]])  # (2, 1)
    # scores [1, 0] / sqrt(2)
    a = math.exp(1 / math.sqrt(2))
    w = [a / (a + 1), 1 / (a + 1)]
    out, weights = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(weights, [w], rtol=1e-15)
    np.testing.assert_allclose(out, [[10 * w[0] + 20 * w[1]]], rtol=1e-15)


def test_two_by_two_by_hand():
    q = np.eye(2)
    k = math.sqrt(2) * np.eye(2)  # with scale 1/sqrt(2) the scores are the identity
    v = np.array([[1.0, 2.0], [3.0, 4.0]])
    out, weights = scaled_dot_product_attention(q, k, v)
    big, small = E / (1 + E), 1 / (1 + E)
    np.testing.assert_allclose(weights, [[big, small], [small, big]], rtol=1e-14)
    np.testing.assert_allclose(out, [[big * 1 + small * 3, big * 2 + small * 4],
                                     [small * 1 + big * 3, small * 2 + big * 4]], rtol=1e-14)


def test_explicit_scale_replaces_one_over_sqrt_d_k():
    q = np.array([[1.0, 1.0]])
    k = np.array([[1.0, 1.0], [0.0, 0.0]])  # raw scores [2, 0]
    v = np.array([[1.0], [0.0]])
    _, w = scaled_dot_product_attention(q, k, v, scale=0.5)  # scores [1, 0]
    np.testing.assert_allclose(w, [[E / (1 + E), 1 / (1 + E)]], rtol=1e-15)
    _, w = scaled_dot_product_attention(q, k, v)  # scores [2 / sqrt(2), 0]
    a = math.exp(math.sqrt(2))
    np.testing.assert_allclose(w, [[a / (a + 1), 1 / (a + 1)]], rtol=1e-15)


def test_causal_mask_by_hand():
    q = np.zeros((2, 1))  # all scores 0: weights uniform over the allowed keys
    k = np.zeros((2, 1))
    v = np.array([[4.0], [8.0]])
    out, w = scaled_dot_product_attention(q, k, v, mask=causal_mask(2))
    np.testing.assert_array_equal(w, [[1.0, 0.0], [0.5, 0.5]])
    np.testing.assert_array_equal(out, [[4.0], [6.0]])


def test_returns_a_named_tuple():
    result = scaled_dot_product_attention(np.ones((3, 2)), np.ones((4, 2)), np.ones((4, 5)))
    assert isinstance(result, AttentionResult) and isinstance(result, tuple)
    out, w = result
    assert out is result.output and w is result.weights
    assert out.shape == (3, 5) and w.shape == (3, 4)


def test_inputs_are_not_changed():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    mask = causal_mask(3, 4)
    copies = [a.copy() for a in (q, k, v, mask)]
    scaled_dot_product_attention(q, k, v, mask=mask, scale=0.7)
    for a, b in zip((q, k, v, mask), copies):
        np.testing.assert_array_equal(a, b)


# --- comparison with the naive reference ---------------------------------------------


@given(qkv(with_mask=True), st.booleans(), st.floats(0.1, 3.0))
def test_matches_the_naive_reference(inputs, use_mask, scale):
    q, k, v, mask = inputs
    mask = mask if use_mask else None
    for s in (None, scale):
        out, w = scaled_dot_product_attention(q, k, v, mask=mask, scale=s)
        ref_out, ref_w = naive_attention(q, k, v, mask=mask, scale=s)
        np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)


def reference_softmax_attention(q, k, v, mask, scale):
    """Batched attention in float64 with the textbook max-shifted softmax (numpy, no tricks)."""
    scores = scale * (q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64))
    scores = np.where(mask, scores, -np.inf) if mask is not None else scores
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v.astype(np.float64), w


@given(
    size=st.sampled_from([0.01, 1.0, 10.0, 40.0, 300.0]),
    shift=st.sampled_from([0.0, -200.0, 200.0]),
    n_q=st.integers(1, 9),
    n_k=st.integers(1, 9),
    use_mask=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**16),
)
def test_scores_far_beyond_exp_s_range_still_give_the_softmax(size, shift, n_q, n_k,
                                                             use_mask, dtype, seed):
    """Scores are first exponentiated without the max shift; when a row sum overflows or
    underflows, the whole computation is redone with it. Either way: the true softmax."""
    rng = np.random.default_rng(seed)
    q = (size * rng.normal(size=(2, n_q, 4))).astype(dtype)
    k = (size * rng.normal(size=(2, n_k, 4))).astype(dtype)
    q[..., 0], k[..., 0] = 1.0, shift  # adds `shift / 2` (scale 1/2) to every score
    v = rng.normal(size=(2, n_k, 3)).astype(dtype)
    mask = None
    if use_mask:
        mask = rng.random((n_q, n_k)) < 0.6
        mask[np.arange(n_q), rng.integers(0, n_k, n_q)] = True
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no warning escapes
        out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    ref_out, ref_w = reference_softmax_attention(q, k, v, mask, 0.5)
    # a score q·k/2 rounded to the dtype is off by up to eps·Σ|q_i k_i|/2 (about 1e-3 at
    # size 40 in float32), and a weight moves by up to that much: numpy's own matmul and exp
    # differ between versions in these last bits (numpy 2.0 against 2.4: 2.6e-5 at size 40)
    score_rounding = np.finfo(dtype).eps * (np.abs(q) @ np.swapaxes(np.abs(k), -1, -2)).max() / 2
    tol = (1e-5 if dtype == np.float32 else 1e-12) + 2 * score_rounding
    assert out.dtype == w.dtype == dtype
    np.testing.assert_allclose(w, ref_w, atol=tol, rtol=0)
    np.testing.assert_allclose(out, ref_out, atol=10 * tol * max(1.0, np.abs(v).max()), rtol=0)
    if mask is not None:
        assert (w[:, ~mask] == 0).all()


@pytest.mark.parametrize("use_mask", [False, True])
@pytest.mark.parametrize("size", [1.0, 30.0])
def test_large_scores_one_head_at_a_time_match_the_reference(use_mask, size):
    # 2 heads of 380 x 380 scores each: large enough to be done a head at a time
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(2, 380, 8)).astype(np.float32) for _ in range(3))
    q *= size
    k *= size
    mask = causal_mask(380) if use_mask else None
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    ref_out, ref_w = reference_softmax_attention(q, k, v, mask, 1 / math.sqrt(8))
    tol = 1e-5 * size**2  # float32 scores of size² carry rounding errors of about size²·1e-7
    np.testing.assert_allclose(w, ref_w, atol=tol, rtol=0)
    np.testing.assert_allclose(out, ref_out, atol=10 * tol, rtol=0)


# --- properties -------------------------------------------------------------------


@given(qkv(with_mask=True))
def test_weight_rows_are_probabilities_and_masked_weights_are_exactly_zero(inputs):
    q, k, v, mask = inputs
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    assert w.shape == mask.shape and out.shape == (q.shape[0], v.shape[1])
    assert (w >= 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    assert (w[~mask] == 0.0).all()


@given(qkv(with_mask=True), st.booleans())
def test_outputs_are_convex_combinations_of_the_values(inputs, use_mask):
    q, k, v, mask = inputs
    mask = mask if use_mask else np.ones((q.shape[0], k.shape[0]), dtype=bool)
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    np.testing.assert_allclose(out, w @ v, rtol=1e-12, atol=1e-12)
    tol = 1e-12 * (1 + np.abs(v).max())
    for i in range(q.shape[0]):
        allowed = v[mask[i]]  # only the keys this query may see
        assert (out[i] >= allowed.min(axis=0) - tol).all()
        assert (out[i] <= allowed.max(axis=0) + tol).all()


@given(qkv(with_mask=True), st.booleans(), st.randoms(use_true_random=False))
def test_permuting_keys_and_values_together_changes_nothing(inputs, use_mask, rnd):
    q, k, v, mask = inputs
    mask = mask if use_mask else None
    perm = list(range(k.shape[0]))
    rnd.shuffle(perm)
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    out_p, w_p = scaled_dot_product_attention(
        q, k[perm], v[perm], mask=None if mask is None else mask[:, perm])
    np.testing.assert_allclose(out_p, out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w_p, w[:, perm], rtol=1e-12, atol=1e-300)


@given(qkv(with_mask=True), st.booleans(), st.randoms(use_true_random=False))
def test_permuting_queries_permutes_the_output(inputs, use_mask, rnd):
    q, k, v, mask = inputs
    mask = mask if use_mask else None
    perm = list(range(q.shape[0]))
    rnd.shuffle(perm)
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    out_p, w_p = scaled_dot_product_attention(
        q[perm], k, v, mask=None if mask is None else mask[perm])
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w_p, w[perm], rtol=1e-12, atol=1e-300)


@given(st.integers(2, 6), st.integers(1, 4), st.data())
def test_causal_mask_hides_the_future(n, d, data):
    """Changing token t's q, k and v rows changes no output before t."""
    arrays = hnp.arrays(np.float64, (n, d), elements=st.floats(-3, 3))
    q, k, v = data.draw(arrays), data.draw(arrays), data.draw(arrays)
    t = data.draw(st.integers(1, n - 1))
    new = data.draw(hnp.arrays(np.float64, (3, n - t, d), elements=st.floats(-3, 3)))
    q2, k2, v2 = q.copy(), k.copy(), v.copy()
    q2[t:], k2[t:], v2[t:] = new
    out, w = scaled_dot_product_attention(q, k, v, mask=causal_mask(n))
    out2, w2 = scaled_dot_product_attention(q2, k2, v2, mask=causal_mask(n))
    np.testing.assert_array_equal(w2[:t], w[:t])
    np.testing.assert_allclose(out2[:t], out[:t], rtol=1e-13, atol=0)
    assert (w[np.triu_indices(n, k=1)] == 0).all()


@given(qkv(), st.floats(0.1, 3.0))
def test_scale_multiplies_the_scores(inputs, c):
    q, k, v, _ = inputs
    d_k = q.shape[1]
    out, w = scaled_dot_product_attention(q, k, v, scale=c)
    out2, w2 = scaled_dot_product_attention(q * (c * math.sqrt(d_k)), k, v)
    np.testing.assert_allclose(w, w2, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(out, out2, rtol=1e-9, atol=1e-12)


# --- broadcasting -------------------------------------------------------------------


def test_leading_dimensions_broadcast():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(2, 1, 3, 4))  # (2, 1, n_q, d_k)
    k = rng.normal(size=(5, 6, 4))  # (5, n_k, d_k)
    v = rng.normal(size=(6, 2))  # (n_k, d_v)
    out, w = scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 5, 3, 2) and w.shape == (2, 5, 3, 6)
    for a in range(2):
        for b in range(5):
            ref_out, ref_w = naive_attention(q[a, 0], k[b], v)
            np.testing.assert_allclose(w[a, b], ref_w, rtol=1e-12)
            np.testing.assert_allclose(out[a, b], ref_out, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "mask",
    [
        np.array([True, False, True]),  # (n_k,): the same keys for every query
        np.array([[True, False, True]]),  # (1, n_k)
        np.array([[True], [True]]),  # (n_q, 1): everything
        np.True_,  # a scalar
    ],
    ids=["n_k", "1,n_k", "n_q,1", "scalar"],
)
def test_masks_broadcast(mask):
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(2, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 2))
    full = np.broadcast_to(mask, (2, 3))
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    ref_out, ref_w = naive_attention(q, k, v, mask=full)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)


def test_a_mask_with_batch_dimensions_adds_them():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    masks = np.stack([causal_mask(2, 4), np.ones((2, 4), bool), np.eye(2, 4, k=2, dtype=bool)])
    out, w = scaled_dot_product_attention(q, k, v, mask=masks)  # mask (3, n_q, n_k)
    assert out.shape == (3, 2, 2) and w.shape == (3, 2, 4)
    for b in range(3):
        ref_out, ref_w = naive_attention(q, k, v, mask=masks[b])
        np.testing.assert_allclose(w[b], ref_w, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(out[b], ref_out, rtol=1e-10, atol=1e-12)


# --- dtypes -----------------------------------------------------------------------


@given(qkv(dtype=np.float32, with_mask=True), st.booleans())
def test_float32_stays_float32(inputs, use_mask):
    q, k, v, mask = inputs
    mask = mask if use_mask else None
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    assert out.dtype == np.float32 and w.dtype == np.float32
    ref_out, ref_w = naive_attention(q, k, v, mask=mask)
    np.testing.assert_allclose(w, ref_w, atol=1e-5)
    np.testing.assert_allclose(out, ref_out, atol=1e-4)


@pytest.mark.parametrize("scale", [np.float64(0.3), np.float32(0.3), 0.3, 2])
def test_float32_stays_float32_with_any_scale_type(scale):
    """numpy 2 promotion: float32 array times an np.float64 scalar is float64."""
    q, k, v = (np.ones((2, 2), np.float32) for _ in range(3))
    out, w = scaled_dot_product_attention(q, k, v, mask=causal_mask(2), scale=scale)
    assert out.dtype == np.float32 and w.dtype == np.float32


def test_mixed_and_integer_inputs_promote():
    f32, f64, ints = np.ones((2, 2), np.float32), np.ones((2, 2)), np.ones((2, 2), int)
    assert scaled_dot_product_attention(f32, f32, f64).output.dtype == np.float64
    assert scaled_dot_product_attention(ints, ints, ints).output.dtype == np.float64
    assert scaled_dot_product_attention([[1, 0]], [[1, 0]], [[2]]).output.dtype == np.float64


# --- torch's attention, when installed ----------------------------------------------


@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5), st.integers(1, 5),
       st.booleans(), st.data())
def test_matches_torch(n_q, n_k, d_k, d_v, use_mask, data):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F  # noqa: N812

    el = st.floats(-3, 3)
    q = data.draw(hnp.arrays(np.float64, (2, 3, n_q, d_k), elements=el))
    k = data.draw(hnp.arrays(np.float64, (2, 3, n_k, d_k), elements=el))
    v = data.draw(hnp.arrays(np.float64, (2, 3, n_k, d_v), elements=el))
    mask = data.draw(masks(n_q, n_k)) if use_mask else None
    scale = data.draw(st.none() | st.floats(0.1, 3.0))
    out, w = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    # torch's boolean attn_mask has the same convention: True = may attend
    expected = F.scaled_dot_product_attention(
        torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v),
        attn_mask=None if mask is None else torch.from_numpy(mask), scale=scale,
    ).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
    # torch gives no weights; its softmax of the masked, scaled scores does
    s = 1 / math.sqrt(d_k) if scale is None else scale
    scores = torch.from_numpy(q) @ torch.from_numpy(k).transpose(-1, -2) * s
    if mask is not None:
        scores = scores.masked_fill(~torch.from_numpy(mask), -math.inf)
    np.testing.assert_allclose(w, torch.softmax(scores, dim=-1).numpy(), rtol=1e-10, atol=1e-300)

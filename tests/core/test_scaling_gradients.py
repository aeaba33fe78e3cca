"""score_scale.query_gradient_spread (lesson 03): the gradient that reaches each query,
checked against finite differences, and the spread the lesson shows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qkv_helpers import score_scale


def numeric_gradient_norm(q: np.ndarray, k: np.ndarray, c: float, h: float = 1e-6) -> float:
    """‖∂p/∂q‖ by central differences on p = softmax(c · K q), written out independently."""
    def weights(x):
        s = c * (k @ x)
        e = np.exp(s - s.max())
        return e / e.sum()

    columns = []
    for i in range(q.size):
        step = np.zeros_like(q)
        step[i] = h
        columns.append((weights(q + step) - weights(q - step)) / (2 * h))
    return float(np.linalg.norm(np.stack(columns, axis=1)))


@settings(max_examples=25, deadline=None)
@given(d_k=st.integers(1, 12), n_keys=st.integers(1, 6), seed=st.integers(0, 10_000))
def test_matches_finite_differences(d_k, n_keys, seed):
    g = score_scale.query_gradient_spread(d_k, n_keys=n_keys, n_queries=3, seed=seed)
    rng = np.random.default_rng(seed)  # the same draws as the function: queries, then keys
    q = rng.standard_normal((3, d_k))
    k = rng.standard_normal((n_keys, d_k))
    for i in range(3):
        assert g.raw[i] == pytest.approx(numeric_gradient_norm(q[i], k, 1.0), abs=1e-6)
        assert g.scaled[i] == pytest.approx(
            numeric_gradient_norm(q[i], k, 1 / math.sqrt(d_k)), abs=1e-6)


def test_exact_small_case():
    """One key: its weight is 1 whatever q is, so the gradient is exactly 0."""
    g = score_scale.query_gradient_spread(1, n_keys=1, n_queries=4)
    np.testing.assert_array_equal(g.raw, 0.0)
    np.testing.assert_array_equal(g.scaled, 0.0)


def test_with_d_k_one_scaling_changes_nothing():
    g = score_scale.query_gradient_spread(1, n_keys=5, n_queries=50, seed=2)
    np.testing.assert_allclose(g.raw, g.scaled)


def test_unscaled_spread_at_d_k_1024_most_vanish_a_few_blow_up():
    g = score_scale.query_gradient_spread(1024)
    assert g.raw.shape == g.scaled.shape == (2000,)
    assert np.median(g.raw) < 0.01 < 0.3 < np.median(g.scaled)   # most vanish
    assert np.mean(g.raw) > 2 * np.mean(g.scaled)                # yet the mean is larger
    assert g.raw.max() > 20 * g.scaled.max()                     # because a few blow up
    assert (g.raw < 0.01).mean() > 0.5
    # scaled: every query gets about the same size
    assert g.scaled.max() < 2 * np.median(g.scaled)


def test_scaled_spread_does_not_depend_on_d_k():
    medians = [np.median(score_scale.query_gradient_spread(d, n_queries=500).scaled)
               for d in (16, 256, 1024)]
    assert max(medians) < 1.5 * min(medians)


@pytest.mark.parametrize("bad", [0, -3, 2.5, "8"])
def test_bad_d_k_is_named(bad):
    with pytest.raises((ValueError, TypeError), match="d_k"):
        score_scale.query_gradient_spread(bad)


@pytest.mark.parametrize("block_values", [1, 7, 64, 1 << 20])
def test_dot_product_variance_in_blocks_is_the_variance_of_all_the_pairs(monkeypatch,
                                                                         block_values):
    """Computed a block at a time (to keep lesson 03's kernel small), it is the variance of
    exactly the pairs random_queries_keys gives, bit for bit, wherever the blocks split."""
    from qkv_helpers import score_scale

    monkeypatch.setattr(score_scale, "_BLOCK_VALUES", block_values)
    for d_k, n, seed in [(1, 5, 0), (3, 10, 1), (16, 33, 2)]:
        q, k = score_scale.random_queries_keys(d_k, n, seed)
        dots = np.einsum("nd,nd->n", q, k)
        expected = (float(dots.var()), float((dots / np.sqrt(d_k)).var()))
        assert score_scale.dot_product_variance(d_k, n, seed) == expected

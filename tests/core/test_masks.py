"""causal_mask(n_q, n_k=None): True where a query may attend. Errors are in test_errors.py."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from qkv_helpers import causal_mask


def naive_causal_mask(n_q, n_k):
    """Query i sits at position n_k - n_q + i and sees keys 0 .. that position."""
    return np.array([[j <= n_k - n_q + i for j in range(n_k)] for i in range(n_q)], dtype=bool)


def test_square_mask_by_hand():
    expected = np.array([[True, False, False],
                         [True, True, False],
                         [True, True, True]])
    got = causal_mask(3)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, expected)


def test_one_query_after_a_cache_sees_everything():
    np.testing.assert_array_equal(causal_mask(1, 4), [[True, True, True, True]])


def test_queries_are_the_last_positions_when_n_k_is_larger():
    # 4 positions, queries at positions 2 and 3
    expected = np.array([[True, True, True, False],
                         [True, True, True, True]])
    np.testing.assert_array_equal(causal_mask(2, 4), expected)


def test_one_token():
    np.testing.assert_array_equal(causal_mask(1), [[True]])


def test_numpy_integers_are_accepted():
    np.testing.assert_array_equal(causal_mask(np.int64(2), np.int32(3)), naive_causal_mask(2, 3))


@given(st.integers(1, 12), st.integers(0, 12))
def test_matches_the_position_rule(n_q, extra):
    n_k = n_q + extra
    mask = causal_mask(n_q, n_k)
    assert mask.shape == (n_q, n_k) and mask.dtype == np.bool_
    np.testing.assert_array_equal(mask, naive_causal_mask(n_q, n_k))
    assert mask.any(axis=-1).all()  # every query sees at least one key (itself)
    assert mask[-1].all()  # the newest query sees every key


@given(st.integers(1, 12))
def test_default_n_k_is_n_q_and_the_future_is_hidden(n):
    mask = causal_mask(n)
    np.testing.assert_array_equal(mask, causal_mask(n, n))
    np.testing.assert_array_equal(mask, np.tril(np.ones((n, n), dtype=bool)))
    assert not mask[np.triu_indices(n, k=1)].any()  # nothing above the diagonal
    assert mask.diagonal().all()  # each token sees itself


@given(st.integers(1, 12), st.data())
def test_the_last_rows_of_the_full_mask_are_the_cached_mask(n_k, data):
    """A decoder with a cache feeding its last n_q tokens sees what the full pass sees."""
    n_q = data.draw(st.integers(1, n_k))
    np.testing.assert_array_equal(causal_mask(n_q, n_k), causal_mask(n_k)[n_k - n_q:])


def test_each_call_returns_a_fresh_array():
    a = causal_mask(3)
    a[0, 2] = True
    assert not causal_mask(3)[0, 2]

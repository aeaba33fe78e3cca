"""float_limits: where exp overflows (float16 too) and underflows, naive softmax in the given
dtype, and masking by a fill value (lessons 04 and 07)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qkv_helpers as qk
from qkv_helpers import float_limits

FLOATS = [np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", FLOATS)
def test_exp_limit_is_where_exp_overflows(dtype):
    limit = float_limits.exp_limit(dtype)
    below = np.nextafter(dtype(limit), dtype(0))   # the float just below, in that dtype
    with np.errstate(over="ignore"):
        assert np.isfinite(np.exp(dtype(below)))
        assert np.isinf(np.exp(dtype(limit) * dtype(1.01)))


def test_float16_limit_value():
    assert float_limits.exp_limit(np.float16) == pytest.approx(np.log(65504.0))
    assert 11.0 < float_limits.exp_limit(np.float16) < 11.1


@pytest.mark.parametrize("dtype", FLOATS)
def test_exp_underflow_limit_is_where_exp_becomes_zero(dtype):
    limit = float_limits.exp_underflow_limit(dtype)
    with np.errstate(under="ignore"):
        assert np.exp(dtype(limit - 0.05)) == 0
        assert np.exp(dtype(limit + 0.05)) > 0


def test_underflow_values():
    assert float_limits.exp_underflow_limit(np.float32) == pytest.approx(-103.97, abs=0.01)
    assert float_limits.exp_underflow_limit(np.float64) == pytest.approx(-745.13, abs=0.01)


def test_a_score_104_below_the_max_gets_exactly_zero_weight_in_float32():
    w = qk.softmax(np.array([0.0, -50.0, -104.0], dtype=np.float32))
    assert w.dtype == np.float32
    assert w[2] == 0 and w[1] > 0


@pytest.mark.parametrize("dtype", FLOATS)
def test_naive_softmax_keeps_the_dtype_and_overflows_at_its_limit(dtype):
    limit = float_limits.exp_limit(dtype)
    ok = float_limits.naive_softmax(np.array([0.0, limit * 0.9], dtype=dtype))
    assert ok.dtype == dtype and np.isfinite(ok).all()
    bad = float_limits.naive_softmax(np.array([0.0, limit * 1.01], dtype=dtype))
    assert np.isnan(bad).any()


def test_naive_softmax_of_integers_is_float64():
    assert float_limits.naive_softmax([1, 2, 3]).dtype == np.float64


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=2, max_size=8), st.data())
def test_fill_and_softmax_equals_the_package_where_a_key_is_visible(row, data):
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(row), max_size=len(row))))
    mask[data.draw(st.integers(0, len(row) - 1))] = True     # at least one visible key
    scores = np.array(row)[None, :]
    got = float_limits.fill_and_softmax(scores, mask[None, :])
    # reference: softmax over the visible keys only, 0 elsewhere
    visible = np.array(row)[mask]
    ref = np.zeros(len(row))
    ref[mask] = np.exp(visible - visible.max()) / np.exp(visible - visible.max()).sum()
    np.testing.assert_allclose(got[0], ref, atol=1e-12)
    big = float_limits.fill_and_softmax(scores, mask[None, :], fill=-1e9)
    np.testing.assert_allclose(big[0], ref, atol=1e-12)


def test_a_fully_masked_row_is_nan_with_minus_infinity_and_uniform_with_a_finite_fill():
    s = np.array([[0.3, -1.2, 2.0]], dtype=np.float32)
    nothing = np.zeros((1, 3), dtype=bool)
    assert np.isnan(float_limits.fill_and_softmax(s, nothing)).all()
    big = float_limits.fill_and_softmax(s, nothing, fill=np.finfo(np.float32).min)
    np.testing.assert_allclose(big, 1 / 3)
    with pytest.raises(ValueError):          # the package itself refuses such a row
        qk.scaled_dot_product_attention(np.ones((1, 2)), np.ones((3, 2)), np.ones((3, 2)),
                                        mask=nothing)


def test_fill_and_softmax_bad_input_is_named():
    with pytest.raises(TypeError, match="mask"):
        float_limits.fill_and_softmax(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="mask of shape"):
        float_limits.fill_and_softmax(np.ones((2, 2)), np.ones((3, 3), dtype=bool))

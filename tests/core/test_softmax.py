"""softmax(x, axis=-1, temperature=1.0, *, out=None): small cases worked by hand, then properties.

Expected numbers are formulas (``e / (1 + e)``), not copies of the function's output.
Error paths are in test_errors.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from qkv_helpers import softmax

E = math.e


def naive_softmax(row, temperature=1.0):
    """Softmax of one row with Python floats and math.exp; -inf entries get 0."""
    finite = [x / temperature for x in row if x != -math.inf]
    top = max(finite)
    exps = [0.0 if x == -math.inf else math.exp(x / temperature - top) for x in row]
    total = math.fsum(exps)
    return [e / total for e in exps]


# --- small cases worked by hand ----------------------------------------------------


def test_two_scores_by_hand():
    np.testing.assert_allclose(softmax([0.0, 1.0]), [1 / (1 + E), E / (1 + E)], rtol=1e-15)


def test_three_scores_by_hand():
    total = E + E**2 + E**3
    np.testing.assert_allclose(softmax([1.0, 2.0, 3.0]), [E / total, E**2 / total, E**3 / total],
                               rtol=1e-15)


def test_equal_scores_give_a_uniform_row():
    np.testing.assert_array_equal(softmax(np.full(4, 7.5)), np.full(4, 0.25))


def test_temperature_divides_the_scores():
    # softmax([0, 2] / 2) = softmax([0, 1])
    np.testing.assert_allclose(softmax([0.0, 2.0], temperature=2.0), [1 / (1 + E), E / (1 + E)],
                               rtol=1e-15)
    # T = 0.5 doubles them: softmax([0, 2])
    np.testing.assert_allclose(softmax([0.0, 1.0], temperature=0.5),
                               [1 / (1 + E**2), E**2 / (1 + E**2)], rtol=1e-15)


def test_axis_zero_normalises_the_columns():
    x = np.array([[0.0, 5.0], [1.0, 5.0]])  # (2, 2)
    expected = np.array([[1 / (1 + E), 0.5], [E / (1 + E), 0.5]])
    np.testing.assert_allclose(softmax(x, axis=0), expected, rtol=1e-15)
    np.testing.assert_allclose(softmax(x, axis=-2), expected, rtol=1e-15)


def test_minus_inf_is_a_masked_score_with_weight_exactly_zero():
    w = softmax([0.0, -np.inf, 0.0])
    assert w[1] == 0.0
    np.testing.assert_array_equal(w, [0.5, 0.0, 0.5])
    w = softmax([[1.0, -np.inf], [-np.inf, 3.0]])
    np.testing.assert_array_equal(w, [[1.0, 0.0], [0.0, 1.0]])


def test_large_logits_do_not_overflow():
    # exp(1e4) is inf in float64 and float32; the max-subtraction fix makes it exp(0).
    for dtype in (np.float64, np.float32):
        x = np.array([1e4, 1e4 - 1.0], dtype=dtype)
        w = softmax(x)
        assert w.dtype == dtype
        np.testing.assert_allclose(w, [E / (1 + E), 1 / (1 + E)], rtol=1e-6)
        w = softmax(np.array([-1e4, -1e4 - 1.0], dtype=dtype))  # exp(-1e4) underflows to 0
        np.testing.assert_allclose(w, [E / (1 + E), 1 / (1 + E)], rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_widest_finite_spread_does_not_overflow(dtype):
    """Any finite logits: here x - max(x) is below the most negative float.

    The answer is exactly one-hot; no overflow warning (RuntimeWarning is an error in
    this suite, see pyproject.toml).
    """
    big = np.finfo(dtype).max * 0.9
    w = softmax(np.array([big, -big], dtype=dtype))
    assert w.dtype == dtype
    np.testing.assert_array_equal(w, [1.0, 0.0])


def test_integers_become_float64_and_float32_stays_float32():
    assert softmax([1, 2, 3]).dtype == np.float64
    assert softmax(np.array([1.0, 2.0], np.float32)).dtype == np.float32
    # numpy 2 promotion: an np.float64 temperature must not promote float32 scores
    w = softmax(np.array([1.0, 2.0], np.float32), temperature=np.float64(0.5))
    assert w.dtype == np.float32
    assert softmax(np.array([1.0, 2.0], np.float16)).dtype == np.float16


def test_the_input_is_not_changed():
    x = np.array([[1.0, 2.0, -np.inf], [0.0, 0.0, 0.0]])
    before = x.copy()
    softmax(x, temperature=0.3)
    np.testing.assert_array_equal(x, before)


def test_out_receives_the_probabilities_and_out_x_overwrites_the_scores():
    x = np.array([[0.0, 1.0], [2.0, -np.inf]])
    expected = np.array([[1 / (1 + E), E / (1 + E)], [1.0, 0.0]])
    out = np.full((2, 2), 7.0)
    assert softmax(x, out=out) is out
    np.testing.assert_allclose(out, expected, rtol=1e-15)
    assert x[1, 0] == 2.0  # x untouched
    assert softmax(x, out=x) is x  # what attention does with its scores
    np.testing.assert_allclose(x, expected, rtol=1e-15)
    # with a temperature, whose division makes a float64 copy, the result still lands in out
    y = np.array([1.0, 3.0], np.float32)
    got = softmax(y, temperature=2.0, out=y)
    assert got is y and y.dtype == np.float32
    np.testing.assert_allclose(y, [1 / (1 + E), E / (1 + E)], rtol=1e-6)


@pytest.mark.parametrize("out,message", [
    ([0.0, 0.0], "out must be a numpy array of x's shape (2,) and dtype float64, got list"),
    (np.zeros(3), "out must have x's shape (2,) and dtype float64, got shape (3,)"),
    (np.zeros(2, np.float32), "and dtype float64, got shape (2,) and dtype float32"),
    (np.broadcast_to(0.0, (2,)), "out must be writable; got a read-only array of shape (2,)"),
])
def test_a_wrong_out_is_named(out, message):
    with pytest.raises((TypeError, ValueError)) as err:
        softmax(np.array([0.0, 1.0]), out=out)
    assert message in str(err.value)


def test_temperature_extremes():
    x = [1.0, 3.0, 2.0]
    np.testing.assert_array_equal(softmax(x, temperature=1e-300), [0.0, 1.0, 0.0])
    np.testing.assert_allclose(softmax(x, temperature=1e12), np.full(3, 1 / 3), rtol=1e-11)
    # a tie under T -> 0 shares the probability equally
    np.testing.assert_array_equal(softmax([1.0, 3.0, 3.0], temperature=1e-300), [0.0, 0.5, 0.5])


# --- properties -------------------------------------------------------------------

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
small = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)


@given(hnp.arrays(np.float64, shapes, elements=finite))
def test_rows_sum_to_one_and_are_nonnegative(x):
    w = softmax(x)
    assert w.shape == x.shape and w.dtype == np.float64
    assert (w >= 0).all() and (w <= 1).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    # the largest score gets the largest probability
    np.testing.assert_array_equal(w.max(axis=-1), np.take_along_axis(
        w, x.argmax(axis=-1)[..., None], axis=-1)[..., 0])


@given(hnp.arrays(np.float64, shapes, elements=finite), st.data())
def test_any_axis_sums_to_one(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    w = softmax(x, axis=axis)
    np.testing.assert_allclose(w.sum(axis=axis), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(w, np.moveaxis(softmax(np.moveaxis(x, axis, -1)), -1, axis))


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=5),
                  elements=small),
       st.floats(0.05, 20.0))
def test_matches_a_naive_reference(x, temperature):
    w = softmax(x, temperature=temperature)
    expected = [naive_softmax(row.tolist(), temperature) for row in x]
    np.testing.assert_allclose(w, expected, rtol=1e-12, atol=1e-300)


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=6),
                  elements=small), st.data())
def test_masked_entries_are_exactly_zero(x, data):
    mask = data.draw(hnp.arrays(np.bool_, x.shape))
    mask[np.arange(x.shape[0]), data.draw(st.integers(0, x.shape[1] - 1))] = True  # >= 1 per row
    w = softmax(np.where(mask, x, -np.inf))
    assert (w[~mask] == 0.0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    expected = [naive_softmax([v if m else -math.inf for v, m in zip(row, mrow)])
                for row, mrow in zip(x.tolist(), mask.tolist())]
    np.testing.assert_allclose(w, expected, rtol=1e-12, atol=1e-300)


@given(hnp.arrays(np.float64, shapes, elements=small), st.floats(-100, 100))
def test_adding_a_constant_to_a_row_changes_nothing(x, c):
    np.testing.assert_allclose(softmax(x + c), softmax(x), rtol=1e-9, atol=1e-300)


@given(hnp.arrays(np.float64, shapes, elements=small), st.floats(0.01, 100.0))
def test_temperature_is_division_of_the_scores(x, temperature):
    np.testing.assert_allclose(softmax(x, temperature=temperature), softmax(x / temperature),
                               rtol=1e-9, atol=1e-300)


@given(hnp.arrays(np.float64, st.integers(2, 6), elements=st.floats(-10, 10), unique=True))
def test_temperature_to_zero_approaches_one_hot_on_the_argmax(x):
    ordered = np.sort(x)
    assume(ordered[-1] - ordered[-2] > 1e-2)  # no (near) tie for the largest score
    one_hot = np.eye(len(x))[x.argmax()]
    previous = 0.0
    for temperature in (10.0, 1.0, 0.1, 0.01, 1e-3, 1e-4):
        top = softmax(x, temperature=temperature)[x.argmax()]
        assert top >= previous - 1e-12  # sharper as T falls
        previous = top
    # gap / T >= 100 here, so the rest is below n·e^-100
    np.testing.assert_allclose(softmax(x, temperature=1e-4), one_hot, atol=1e-40)


@given(hnp.arrays(np.float32, shapes, elements=st.floats(-1e4, 1e4, width=32)),
       st.floats(0.1, 10.0))
def test_float32_stays_float32(x, temperature):
    w = softmax(x, temperature=temperature)
    assert w.dtype == np.float32
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(w, softmax(x.astype(np.float64), temperature=temperature),
                               atol=1e-6)


@given(hnp.arrays(np.float64, shapes, elements=finite), st.floats(0.1, 10.0))
def test_out_gives_what_a_new_array_gives(x, temperature):
    expected = softmax(x, temperature=temperature)
    out = np.empty_like(x)
    np.testing.assert_array_equal(softmax(x, temperature=temperature, out=out), expected)
    np.testing.assert_array_equal(softmax(x, temperature=temperature, out=x), expected)

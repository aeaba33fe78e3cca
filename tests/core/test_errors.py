"""Bad input gives a ValueError or TypeError that names the argument, the shape it got
and the shape it needed, in the lesson's terms; never a NaN and never a bare numpy error.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from qkv_helpers import (
    MultiHeadAttention,
    causal_mask,
    scaled_dot_product_attention,
    softmax,
)

ONES = np.ones


def sdpa(q=None, k=None, v=None, **kw):
    """Attention with fine defaults: q (2, 3), k (4, 3), v (4, 5)."""
    q = ONES((2, 3)) if q is None else q
    k = ONES((4, 3)) if k is None else k
    v = ONES((4, 5)) if v is None else v
    return scaled_dot_product_attention(q, k, v, **kw)


def esc(text: str) -> str:
    return re.escape(text)


# --- shapes ---------------------------------------------------------------------------


def test_d_k_of_q_and_k_differ():
    with pytest.raises(ValueError, match=esc("q and k must have the same d_k") + ".*"
                       + esc("q has shape (2, 3)") + ".*" + esc("k has shape (4, 5)") + ".*"
                       + esc("needed (..., n_k, 3)")):
        sdpa(k=ONES((4, 5)))


def test_n_k_of_k_and_v_differ():
    with pytest.raises(ValueError, match=esc("k and v must have the same number of tokens n_k")
                       + ".*" + esc("k has shape (4, 3)") + ".*" + esc("v has shape (6, 5)")
                       + ".*" + esc("needed (..., 4, d_v)")):
        sdpa(v=ONES((6, 5)))


@pytest.mark.parametrize("name", ["q", "k", "v"])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_attention_inputs_need_two_dimensions(name, shape):
    with pytest.raises(ValueError, match=esc(f"{name} must have at least 2 dimension") + ".*"
                       + esc(f"got shape {shape}")):
        sdpa(**{name: ONES(shape)})


def test_batch_dimensions_that_do_not_broadcast():
    with pytest.raises(ValueError, match=esc("the leading (batch) dimensions of q (2, 2, 3), "
                                             "k (3, 4, 3) and v (4, 5)")):
        sdpa(q=ONES((2, 2, 3)), k=ONES((3, 4, 3)))


@pytest.mark.parametrize("name", ["x_q", "x_kv"])
def test_mha_inputs_need_d_model_columns_and_two_dimensions(name):
    mha = MultiHeadAttention(8, 2)
    args = {"x_q": ONES((3, 8)), "x_kv": ONES((4, 8))}
    args[name] = ONES((3, 6))
    with pytest.raises(ValueError, match=esc(f"{name} must have shape (..., tokens, d_model) = "
                                             "(..., tokens, 8), got (3, 6)")):
        mha(**args)
    args[name] = ONES(8)
    with pytest.raises(ValueError, match=esc(f"{name} must have at least 2 dimension") + ".*"
                       + esc("got shape (8,)")):
        mha(**args)


# --- masks --------------------------------------------------------------------------------


@pytest.mark.parametrize("mask", [ONES((2, 4), int), ONES((2, 4)), [[1, 0, 1, 1]] * 2],
                         ids=["int", "float", "list of 0/1"])
def test_mask_must_be_boolean(mask):
    with pytest.raises(TypeError, match=esc("mask must be a boolean array (True = may attend), "
                                            "got dtype")):
        sdpa(mask=mask)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3), (3,), (2, 1, 3), (5, 3, 1)])
def test_mask_must_broadcast_to_the_scores(shape):
    with pytest.raises(ValueError, match=esc(f"mask of shape {shape} does not broadcast to the "
                                             "scores' shape (..., n_q, n_k) = (2, 4)")):
        sdpa(mask=np.ones(shape, bool))


def test_mha_mask_must_broadcast_to_the_heads_scores():
    with pytest.raises(ValueError, match=esc("mask of shape (3, 4) does not broadcast to the "
                                             "scores' shape (..., n_q, n_k) = (2, 3, 3)")):
        MultiHeadAttention(8, 2)(ONES((3, 8)), mask=np.ones((3, 4), bool))


def test_a_query_row_with_no_key_is_an_error_not_nan():
    mask = np.array([[True, False, False, False], [False, False, False, False]])
    with pytest.raises(ValueError, match=esc("mask allows no key for query row 1") + ".*"
                       + esc("mask shape (2, 4)") + ".*0/0 = NaN"):
        sdpa(mask=mask)


def test_a_query_row_with_no_key_in_one_batch_is_named():
    mask = np.ones((3, 2, 4), bool)
    mask[2, 0] = False
    with pytest.raises(ValueError, match=esc("mask allows no key for query row 0 (mask index "
                                             "(2,), mask shape (3, 2, 4))")):
        sdpa(mask=mask)


def test_a_column_mask_that_hides_everything():
    with pytest.raises(ValueError, match=esc("mask allows no key for query row 0")):
        sdpa(mask=np.zeros((2, 1), bool))


def test_a_scalar_false_mask_hides_everything():
    """A scalar mask broadcasts to every score (np.True_ works); False hides every key."""
    with pytest.raises(ValueError, match=esc("mask allows no key")):
        sdpa(mask=np.False_)


def test_mha_query_row_with_no_key():
    mask = causal_mask(3)
    mask[1] = False
    with pytest.raises(ValueError, match=esc("mask allows no key for query row 1")):
        MultiHeadAttention(4, 2)(ONES((3, 4)), mask=mask)


# --- numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_nan_or_inf_in_attention_inputs(name, bad):
    shapes = {"q": (2, 3), "k": (4, 3), "v": (4, 5)}
    a = ONES(shapes[name])
    a[1, 0] = bad
    with pytest.raises(ValueError, match=esc(f"{name} must hold finite numbers; got {bad} at "
                                             f"index (1, 0) of an array of shape "
                                             f"{shapes[name]}")):
        sdpa(**{name: a})


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("name", ["x_q", "x_kv"])
def test_nan_or_inf_in_mha_inputs(name, bad):
    args = {"x_q": ONES((3, 4)), "x_kv": ONES((5, 4))}
    args[name][2, 3] = bad
    with pytest.raises(ValueError, match=esc(f"{name} must hold finite numbers; got {bad} at "
                                             f"index (2, 3) of an array of shape "
                                             f"{args[name].shape}")):
        MultiHeadAttention(4, 2)(**args)


def test_nan_in_self_attention_input_names_x_q():
    x = ONES((3, 4))
    x[0, 0] = np.nan
    with pytest.raises(ValueError, match=esc("x_q must hold finite numbers")):
        MultiHeadAttention(4, 2)(x)


@pytest.mark.parametrize("name", ["w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"])
def test_nan_or_inf_in_from_weights(name):
    args = {n: np.eye(4) for n in ("w_q", "w_k", "w_v", "w_o")}
    if name.startswith("b"):
        args[name] = np.zeros(4)
    index = (1, 2) if name.startswith("w") else (3,)
    args[name][index] = np.nan if name.endswith(("q", "v")) else np.inf
    with pytest.raises(ValueError, match=esc(f"{name} must hold finite numbers") + ".*"
                       + esc(f"at index {index} of an array of shape {args[name].shape}")):
        MultiHeadAttention.from_weights(2, **args)


@pytest.mark.parametrize("scale", [0, -1.0, np.nan, np.inf])
def test_scale_must_be_positive_and_finite(scale):
    with pytest.raises(ValueError, match=esc("scale must be a finite number > 0, got")):
        sdpa(scale=scale)


@pytest.mark.parametrize("scale", ["0.5", [0.5], True, 1j])
def test_scale_must_be_a_number(scale):
    with pytest.raises(TypeError, match=esc("scale must be a real number > 0, got")):
        sdpa(scale=scale)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scores_that_overflow_are_a_clear_error(dtype):
    """Finite but huge inputs: q·k is beyond the largest float.

    The result cannot be computed, so a ValueError saying so, with no RuntimeWarning
    first (RuntimeWarning is an error in this suite, see pyproject.toml).
    """
    big = np.sqrt(np.finfo(dtype).max)  # big·big·d_k overflows
    q = np.full((2, 3), big, dtype)
    with pytest.raises(ValueError, match="overflow"):
        sdpa(q=q, k=q.copy(), v=ONES((2, 5), dtype))


def test_non_numeric_inputs():
    with pytest.raises(TypeError, match=esc("q must be an array of real numbers, got dtype")):
        sdpa(q=np.array([["a", "b", "c"]]))
    with pytest.raises(TypeError, match=esc("v must be an array of real numbers, got dtype "
                                            "complex128")):
        sdpa(v=ONES((4, 5)) * 1j)


# --- softmax ------------------------------------------------------------------------------


@pytest.mark.parametrize("temperature", [0, 0.0, -0.0, -1, -1e-300, np.nan, np.inf])
def test_temperature_must_be_positive_and_finite(temperature):
    with pytest.raises(ValueError, match=esc("temperature must be a finite number > 0, got")):
        softmax([1.0, 2.0], temperature=temperature)


@pytest.mark.parametrize("temperature", ["1.0", None, True, [1.0], 1 + 0j])
def test_temperature_must_be_a_number(temperature):
    with pytest.raises(TypeError, match=esc("temperature must be a real number > 0, got")):
        softmax([1.0, 2.0], temperature=temperature)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_softmax_rejects_nan_and_plus_inf(bad):
    with pytest.raises(ValueError, match=esc("x must not hold NaN or +inf; got x of shape (2, 3)")):
        softmax(np.array([[0.0, 1.0, 2.0], [0.0, bad, 1.0]]))


def test_softmax_rejects_a_row_that_is_all_minus_inf():
    x = np.array([[0.0, 1.0], [-np.inf, -np.inf]])
    with pytest.raises(ValueError, match=esc("every entry of x along axis -1 is -inf at index "
                                             "(1,) (x has shape (2, 2))")):
        softmax(x)
    softmax(x, axis=0)  # along the columns every slice has a finite entry


def test_softmax_rejects_scalars_bad_axes_and_non_numbers():
    with pytest.raises(ValueError, match=esc("x must have at least 1 dimension, got a scalar")):
        softmax(3.0)
    with pytest.raises(ValueError, match=esc("axis 2 is out of range for x of shape (2, 3)")):
        softmax(ONES((2, 3)), axis=2)
    with pytest.raises(ValueError, match=esc("axis -3 is out of range for x of shape (2, 3)")):
        softmax(ONES((2, 3)), axis=-3)
    with pytest.raises(TypeError, match=esc("x must be an array of real numbers, got dtype <U")):
        softmax(["a", "b"])


# --- multi-head construction ---------------------------------------------------------------


@pytest.mark.parametrize("d_model, n_heads", [(6, 4), (8, 3), (3, 6)])
def test_d_model_must_be_divisible_by_n_heads(d_model, n_heads):
    with pytest.raises(ValueError, match=esc("d_model must be divisible by n_heads") + ".*"
                       + esc(f"d_model = {d_model}, n_heads = {n_heads}")):
        MultiHeadAttention(d_model, n_heads)
    eye = np.eye(d_model)
    with pytest.raises(ValueError, match=esc(f"d_model = {d_model}, n_heads = {n_heads}")):
        MultiHeadAttention.from_weights(n_heads, eye, eye, eye, eye)


@pytest.mark.parametrize("name, value, error", [
    ("d_model", 0, ValueError), ("d_model", -8, ValueError), ("d_model", 8.0, TypeError),
    ("n_heads", 0, ValueError), ("n_heads", 2.0, TypeError), ("n_heads", True, TypeError),
])
def test_sizes_must_be_positive_integers(name, value, error):
    args = {"d_model": 8, "n_heads": 2, name: value}
    with pytest.raises(error, match=esc(f"{name} must be a positive integer, got")):
        MultiHeadAttention(**args)


@pytest.mark.parametrize("name, shape", [
    ("w_k", (4, 3)), ("w_v", (3, 4)), ("w_o", (5, 5)), ("w_q", (4, 4, 4)),
])
def test_from_weights_rejects_wrong_weight_shapes(name, shape):
    args = {n: np.eye(4) for n in ("w_q", "w_k", "w_v", "w_o")}
    args[name] = ONES(shape)
    with pytest.raises(ValueError, match=esc(f"{name} must have shape (d_model, d_model) = "
                                             f"(4, 4)") + ".*" + esc(f"got {shape}")):
        MultiHeadAttention.from_weights(2, **args)


def test_from_weights_rejects_a_one_dimensional_weight():
    eye = np.eye(4)
    with pytest.raises(ValueError, match=esc("w_q must have at least 2 dimension") + ".*"
                       + esc("got shape (4,)")):
        MultiHeadAttention.from_weights(2, ONES(4), eye, eye, eye)


@pytest.mark.parametrize("name", ["b_q", "b_k", "b_v", "b_o"])
@pytest.mark.parametrize("shape", [(3,), (4, 1), (1, 4)])
def test_from_weights_rejects_wrong_bias_shapes(name, shape):
    eye = np.eye(4)
    with pytest.raises(ValueError, match=esc(f"{name} must have shape (d_model,) = (4,), "
                                             f"got {shape}")):
        MultiHeadAttention.from_weights(2, eye, eye, eye, eye, **{name: ONES(shape)})


# --- causal mask ---------------------------------------------------------------------------


def test_causal_mask_needs_n_k_at_least_n_q():
    with pytest.raises(ValueError, match=esc("n_k must be at least n_q") + ".*"
                       + esc("got n_q = 3, n_k = 2: a mask of shape (3, 2)")):
        causal_mask(3, 2)


@pytest.mark.parametrize("args, error, name", [
    ((0,), ValueError, "n_q"), ((-1,), ValueError, "n_q"), ((2.0,), TypeError, "n_q"),
    ((True,), TypeError, "n_q"), ((2, 0), ValueError, "n_k"), ((2, "3"), TypeError, "n_k"),
])
def test_causal_mask_needs_positive_integers(args, error, name):
    with pytest.raises(error, match=esc(f"{name} must be a positive integer, got")):
        causal_mask(*args)

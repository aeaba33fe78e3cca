"""Bad input to the core math: a clear error naming the argument, or a right result.

For every public entry point of attention.py, masks.py, float_limits.py, kv_cache.py,
decoding.py and fast.py (and, at the end, lessons 11-13's positions, grouped-query and tiled
attention, the online softmax, the paged cache, erf and gelu), one argument at a time is
replaced by anything hypothesis can draw: arrays of every dtype (float16/32/64, integers,
bool, complex, object, strings),
every kind of shape (empty, 0-d, 1-d, batched), special values (NaN, ±inf, 1e308,
subnormals) and plain Python objects. The property: the call either

- raises TypeError or ValueError whose message names the argument as the learner
  passed it (no numpy or Python message, no other exception, no RuntimeWarning), or
- returns a result that is right: finite, and equal to an independent float64
  reference computed here from the same input.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import qkv_helpers as qk
from qkv_helpers import fast, float_limits, tiled
from qkv_helpers.layer_norm import layer_norm
from qkv_helpers.positions import sinusoidal_positions

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

SPECIAL = [np.nan, np.inf, -np.inf, 1e308, -1e308, 1e200, 5e-324, 1e-310, 0.0, -0.0, 1.0,
           -2.5, 3.0]
SHAPES = [(), (0,), (3,), (1,), (0, 4), (2, 0), (2, 3), (3, 4), (2, 3, 4), (1, 2, 3, 4),
          (2, 2, 5, 4)]
DTYPES = [np.float16, np.float32, np.float64, np.int64, np.int8, np.uint8, np.bool_,
          np.complex128, np.object_, np.str_]

PY_OBJECTS = st.sampled_from([
    None, "abc", "", 3, -1, 0, 2.5, True, False, 1 + 2j, [1, [2, 3]], [[1, 2], [3]], {},
    {"a": 1}, object(), (), [], [[]], ["a", "b"], [None, 1.0], b"xy", Ellipsis, np.nan,
    float("inf"), 10**400, -(10**30), np.float32(1e-45), np.int64(7),
])


@st.composite
def arrays(draw, shapes=SHAPES):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(st.sampled_from(shapes))
    if dtype.kind == "f":
        elements = st.one_of(st.sampled_from(SPECIAL), st.floats(-10, 10))
        values = draw(hnp.arrays(np.float64, shape, elements=elements))
        with np.errstate(over="ignore"):
            return values.astype(dtype)
    if dtype.kind == "O":
        return draw(hnp.arrays(object, shape,
                               elements=st.sampled_from([1.0, None, "a", 2, [1]])))
    if dtype.kind == "U":
        return np.full(shape, "x")
    return draw(hnp.arrays(dtype, shape))


ANYTHING = st.one_of(arrays(), PY_OBJECTS, arrays().map(lambda a: a.tolist()))


def clear_or_right(call, name: str, check) -> None:
    """Run ``call``: an error must name ``name``; a result must pass ``check``."""
    try:
        result = call()
    except (TypeError, ValueError) as err:
        message = str(err)
        assert re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message), (
            f"the error does not name {name!r}: {type(err).__name__}: {message}")
        return
    check(result)


def as_float64(x):
    return np.asarray(x).astype(np.float64)


def tolerance(dtype) -> float:
    return {np.dtype(np.float16): 2e-2, np.dtype(np.float32): 2e-5}.get(np.dtype(dtype), 1e-9)


# --- references (independent of the package) --------------------------------------------


def ref_softmax(x, axis=-1, temperature=1.0):
    x = as_float64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        z = (x - x.max(axis=axis, keepdims=True)) / temperature
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def ref_attention(q, k, v, mask=None, scale=None):
    q, k, v = as_float64(q), as_float64(k), as_float64(v)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else float(scale)
    s = np.einsum("...qd,...kd->...qk", q, k) * scale
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return w @ v, w


def close(got, want, dtype):
    tol = tolerance(dtype)
    got = as_float64(got)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, atol=tol * max(1.0, np.abs(want).max(initial=0)),
                               rtol=tol)


# --- softmax ------------------------------------------------------------------------------


@SETTINGS
@given(x=ANYTHING)
def test_softmax_x(x):
    def check(w):
        arr = np.asarray(x)
        assert w.dtype == (arr.dtype if arr.dtype.kind == "f" else np.float64)
        close(w, ref_softmax(arr), w.dtype)

    clear_or_right(lambda: qk.softmax(x), "x", check)


@SETTINGS
@given(temperature=st.one_of(PY_OBJECTS, st.sampled_from(
    [1e-300, 1e-45, 1e-38, 1e-8, 1e-3, 0.5, 1e8, 1e38, 1e300, 5e-324, -1.0, 0.0])),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]))
def test_softmax_temperature_in_every_dtype(temperature, dtype):
    """A tiny temperature in float16/32 used to round to 0 and give NaN."""
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0], [2.0, 2.0, -np.inf]], dtype)

    def check(w):
        assert w.dtype == dtype
        close(w, ref_softmax(x, temperature=float(temperature)), dtype)

    clear_or_right(lambda: qk.softmax(x, temperature=temperature), "temperature", check)


@SETTINGS
@given(axis=st.one_of(PY_OBJECTS, st.integers(-4, 4)))
def test_softmax_axis(axis):
    x = np.arange(6.0).reshape(2, 3)
    clear_or_right(lambda: qk.softmax(x, axis=axis), "axis",
                   lambda w: close(w, ref_softmax(x, axis=axis), np.float64))


# --- scaled_dot_product_attention and the fast paths --------------------------------------


def valid_qkv(dtype=np.float64):
    rng = np.random.default_rng(0)
    return (rng.normal(size=(2, 3, 4)).astype(dtype), rng.normal(size=(2, 5, 4)).astype(dtype),
            rng.normal(size=(2, 5, 2)).astype(dtype))


ATTENTION_ARGS = ["q", "k", "v", "mask", "scale"]


@st.composite
def attention_args(draw):
    q, k, v = valid_qkv(draw(st.sampled_from([np.float16, np.float32, np.float64])))
    args = dict(q=q, k=k, v=v, mask=None, scale=None)
    name = draw(st.sampled_from(ATTENTION_ARGS))
    if name == "mask":
        args[name] = draw(st.one_of(ANYTHING, hnp.arrays(np.bool_, st.sampled_from(
            [(3, 5), (5,), (), (2, 3, 5), (1, 5), (3, 1), (4, 5)]))))
    elif name == "scale":
        args[name] = draw(st.one_of(PY_OBJECTS, st.sampled_from(
            [1e-300, 1e300, 1e30, 0.0, -1.0, 0.5, np.float16(2.0)])))
    else:
        args[name] = draw(ANYTHING)
    return name, args


def attention_check(args):
    def check(result):
        output = result if isinstance(result, np.ndarray) else result.output
        want_out, want_w = ref_attention(**args)
        close(output, want_out, output.dtype)
        if not isinstance(result, np.ndarray):
            close(result.weights, want_w, output.dtype)
    return check


@SETTINGS
@given(case=attention_args())
def test_scaled_dot_product_attention(case):
    name, args = case
    clear_or_right(lambda: qk.scaled_dot_product_attention(**args), name,
                   attention_check(args))


@SETTINGS
@given(case=attention_args())
def test_blocked_attention(case):
    name, args = case
    clear_or_right(lambda: fast.blocked_attention(**args), name, attention_check(args))


@SETTINGS
@given(case=attention_args())
def test_one_query_attention(case):
    name, args = case
    if name == "mask":
        return
    args.pop("mask")
    if name != "q":
        args["q"] = args["q"][:, :1]
    clear_or_right(lambda: fast.one_query_attention(**args), name, attention_check(args))


def test_the_issue_s_silent_cases_are_errors_now():
    q, k, v = valid_qkv()
    with pytest.raises(ValueError, match=r"k must not be empty: got shape \(0, 4\)"):
        qk.scaled_dot_product_attention(q[0], np.zeros((0, 4)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match=r"q must not be empty: got shape \(0, 4\)"):
        qk.scaled_dot_product_attention(np.zeros((0, 4)), k[0], v[0])
    with pytest.raises(ValueError, match=r"q must not be empty: got shape \(3, 0\)"):
        qk.scaled_dot_product_attention(np.zeros((3, 0)), np.zeros((5, 0)), v[0])
    with pytest.raises(ValueError, match=r"x must have at least one entry along axis -1"):
        qk.softmax([])
    with pytest.raises(TypeError, match=r"axis must be an integer \(one axis\), got NoneType"):
        qk.softmax([1.0, 2.0], axis=None)
    with pytest.raises(TypeError, match=r"dtype must be a numpy float dtype .* got int64"):
        qk.MultiHeadAttention(4, 2, dtype=np.int64)
    with pytest.raises(TypeError, match=r"dtype must be .* got 'banana'"):
        qk.MultiHeadAttention(4, 2, dtype="banana")
    with pytest.raises(ValueError, match=r"seed must be an integer >= 0, got -1"):
        qk.MultiHeadAttention(4, 2, seed=-1)
    with pytest.raises(ValueError, match=r"seed must be an integer >= 0, got -3"):
        qk.TinyTransformer(10, 4, 2, 1, seed=-3)
    with pytest.raises(ValueError, match=r"w_q must not be empty: got shape \(0, 0\)"):
        qk.MultiHeadAttention.from_weights(1, *[np.zeros((0, 0))] * 4)
    bad = np.eye(4)
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"w_q must hold finite numbers; got nan at index "
                                         r"\(1, 2\)"):
        qk.MultiHeadAttention.from_weights(2, bad, np.eye(4), np.eye(4), np.eye(4))
    for dtype in (np.float16, np.float32):
        w = qk.softmax(np.array([1.0, 2.0, 3.0], dtype), temperature=1e-30)
        assert w.dtype == dtype
        np.testing.assert_array_equal(w, [0, 0, 1])


# --- masks, float_limits, layer norm, positions ---------------------------------------------


SIZES = st.one_of(PY_OBJECTS, st.integers(-3, 40))


@SETTINGS
@given(n_q=SIZES, n_k=st.one_of(st.none(), SIZES), which=st.sampled_from(["n_q", "n_k"]))
def test_causal_mask(n_q, n_k, which):
    args = {"n_q": 3, "n_k": None, which: n_q if which == "n_q" else n_k}

    def check(m):
        rows, cols = m.shape
        assert m.dtype == np.bool_ and rows == args["n_q"]
        offset = cols - rows
        want = np.arange(cols)[None, :] <= np.arange(rows)[:, None] + offset
        np.testing.assert_array_equal(m, want)

    clear_or_right(lambda: qk.causal_mask(**args), which, check)


@SETTINGS
@given(x=ANYTHING)
def test_float_limits_x(x):
    def naive_check(w):
        # the formula as written, in x's own float dtype (lesson 04 shows float16 overflow)
        given = np.asarray(x)
        dtype = given.dtype if given.dtype.kind == "f" else np.dtype(np.float64)
        assert w.dtype == dtype
        arr = as_float64(x).astype(dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(arr)
            want = e / e.sum(-1, keepdims=True)
        np.testing.assert_allclose(w, want, rtol=1e-12, equal_nan=True)  # NaN shown on purpose

    clear_or_right(lambda: float_limits.naive_softmax(x), "x", naive_check)

    def steps_check(steps):
        arr = np.asarray(x)
        close(steps.weights, ref_softmax(arr), steps.weights.dtype)
        assert (as_float64(steps.shifted) <= 0).all()

    clear_or_right(lambda: float_limits.max_subtraction_steps(x), "x", steps_check)


DTYPE_LIKE = st.one_of(PY_OBJECTS, st.sampled_from(
    [np.float16, np.float32, np.float64, "float32", "f8", np.int64, np.complex64, bool,
     object, "banana", np.dtype("U3"), float, int]))


@SETTINGS
@given(dtype=DTYPE_LIKE)
def test_exp_limit_and_positions_dtype(dtype):
    def limit_check(value):
        assert value == pytest.approx(np.log(float(np.finfo(dtype).max)))

    clear_or_right(lambda: float_limits.exp_limit(dtype), "dtype", limit_check)
    clear_or_right(lambda: sinusoidal_positions(3, 4, dtype), "dtype",
                   lambda pe: (pe.dtype == np.dtype(dtype)) or pytest.fail("dtype"))


@SETTINGS
@given(x=ANYTHING, eps=st.one_of(st.just(1e-5), PY_OBJECTS, st.sampled_from([1e-300, 1e300])))
def test_layer_norm(x, eps):
    def check(y):
        arr = as_float64(x)
        e = float(eps)
        want = (arr - arr.mean(-1, keepdims=True)) / np.sqrt(arr.var(-1, keepdims=True) + e)
        close(y, want, y.dtype)

    name = "x" if eps == 1e-5 else "eps"
    if name == "eps":
        x = np.arange(6.0).reshape(2, 3)
    clear_or_right(lambda: layer_norm(x, eps), name, check)


# --- MultiHeadAttention -------------------------------------------------------------------


@SETTINGS
@given(name=st.sampled_from(["d_model", "n_heads", "seed", "bias", "dtype"]),
       value=st.one_of(SIZES, DTYPE_LIKE))
def test_multi_head_attention_construction(name, value):
    args = dict(d_model=8, n_heads=2, seed=0, bias=True, dtype=np.float64)
    args[name] = value

    def check(mha):
        assert mha.dtype.kind == "f" and mha.d_model % mha.n_heads == 0
        x = np.random.default_rng(1).normal(size=(3, mha.d_model))
        out, w = mha(x)
        assert np.isfinite(out).all()
        np.testing.assert_allclose(w.astype(float).sum(-1), 1, atol=tolerance(mha.dtype) * 10)

    clear_or_right(lambda: qk.MultiHeadAttention(**args), name, check)


@SETTINGS
@given(name=st.sampled_from(["w_q", "w_k", "w_v", "w_o", "b_q", "b_o", "n_heads"]),
       value=st.one_of(ANYTHING, SIZES))
def test_from_weights(name, value):
    eye = np.eye(4)
    args = dict(n_heads=2, w_q=eye, w_k=eye, w_v=eye, w_o=eye)
    args[name] = value

    def check(mha):
        x = np.random.default_rng(1).normal(size=(3, 4))
        out, w = mha(x)
        assert np.isfinite(out).all()
        q = x @ mha.w_q + (0 if mha.b_q is None else mha.b_q)
        assert np.isfinite(q).all()

    clear_or_right(lambda: qk.MultiHeadAttention.from_weights(**args), name, check)


@SETTINGS
@given(name=st.sampled_from(["x_q", "x_kv", "mask"]), value=ANYTHING)
def test_multi_head_attention_call(name, value):
    mha = qk.MultiHeadAttention(4, 2, seed=0)
    x = np.random.default_rng(1).normal(size=(3, 4))
    args = dict(x_q=x, x_kv=None, mask=None)
    args[name] = value

    def check(result):
        out, w = result
        x_kv = args["x_q"] if args["x_kv"] is None else args["x_kv"]
        q, k, v = mha.project(args["x_q"], x_kv)
        want_heads, want_w = ref_attention(q, k, v, args["mask"])
        want = mha.merge_heads(want_heads) @ mha.w_o + mha.b_o
        close(out, want, out.dtype)
        close(w, want_w, out.dtype)

    clear_or_right(lambda: mha(**args), name, check)


def test_huge_inputs_to_multi_head_attention_name_x_q():
    mha = qk.MultiHeadAttention(4, 2, seed=0)
    with pytest.raises(ValueError, match=r"x_q"):
        mha(np.full((2, 4), 1e200))
    with pytest.raises(ValueError, match=r"x_q and x_kv hold numbers too large"):
        mha(np.full((2, 4), 1e160), np.full((3, 4), 1e160))


# --- KVCache ------------------------------------------------------------------------------


@SETTINGS
@given(name=st.sampled_from(["n_heads", "head_dim", "capacity", "dtype"]),
       value=st.one_of(SIZES, DTYPE_LIKE))
def test_kv_cache_construction(name, value):
    args = dict(n_heads=2, head_dim=4, capacity=3, dtype=np.float32)
    args[name] = value

    def check(cache):
        k = np.ones((cache.n_heads, 5, cache.head_dim), cache.dtype)
        cache.append(k, 2 * k)
        np.testing.assert_array_equal(cache.values, 2 * k)

    clear_or_right(lambda: qk.KVCache(**args), name, check)


@SETTINGS
@given(name=st.sampled_from(["k", "v"]), value=ANYTHING)
def test_kv_cache_append(name, value):
    cache = qk.KVCache(2, 4, capacity=2)
    good = np.ones((2, 1, 4), np.float32)
    cache.append(good, good)
    args = dict(k=good, v=good)
    args[name] = value

    def check(_):
        n = np.asarray(value).shape[1]
        np.testing.assert_array_equal(cache.keys[:, 1:], args["k"])
        np.testing.assert_array_equal(cache.values[:, 1:], args["v"])
        assert len(cache) == 1 + n

    clear_or_right(lambda: cache.append(**args), name, check)
    if len(cache) == 1:  # refused: nothing changed
        np.testing.assert_array_equal(cache.keys, good)


# --- TinyTransformer ----------------------------------------------------------------------


@SETTINGS
@given(name=st.sampled_from(["vocab_size", "d_model", "n_heads", "n_layers", "seed", "d_ff",
                             "dtype", "fast_attention"]),
       value=st.one_of(SIZES, DTYPE_LIKE))
def test_tiny_transformer_construction(name, value):
    args = dict(vocab_size=10, d_model=4, n_heads=2, n_layers=1, seed=0, d_ff=None,
                dtype=np.float32, fast_attention=False)
    args[name] = value

    def check(model):
        gen = model.generate([0, model.vocab_size - 1], 3)
        again = model.generate([0, model.vocab_size - 1], 3, use_cache=False)
        np.testing.assert_array_equal(gen.ids, again.ids)
        assert np.isfinite(gen.logits).all()

    clear_or_right(lambda: qk.TinyTransformer(**args), name, check)


@pytest.fixture(scope="module")
def model():
    return qk.TinyTransformer(10, 4, 2, 1, seed=0)


IDS = st.one_of(ANYTHING, st.lists(st.integers(-2, 12), max_size=4))


@SETTINGS
@given(name=st.sampled_from(["prompt_ids", "max_new_tokens", "source_ids", "use_cache"]),
       value=st.one_of(IDS, SIZES))
def test_generate(model, name, value):
    args = dict(prompt_ids=[1, 2], max_new_tokens=2, source_ids=None, use_cache=True)
    args[name] = value

    def check(gen):
        other = model.generate(**{**args, "use_cache": not args["use_cache"]})
        np.testing.assert_array_equal(gen.ids, other.ids)
        assert np.isfinite(gen.logits).all()
        assert ((0 <= gen.ids) & (gen.ids < 10)).all()

    clear_or_right(lambda: model.generate(**args), name, check)


@SETTINGS
@given(name=st.sampled_from(["prompt_ids", "source_ids", "capacity", "token_id", "state"]),
       value=st.one_of(IDS, SIZES))
def test_start_and_step(model, name, value):
    args = dict(prompt_ids=[1, 2], source_ids=None, capacity=None)
    if name in args:
        args[name] = value
        clear_or_right(lambda: model.start(**args), name,
                       lambda s: np.testing.assert_allclose(
                           s.logits, model.forward(s.ids, args["source_ids"])[-1], atol=1e-4))
        return
    state = model.start([1, 2])
    call = ((lambda: model.step(state, value)) if name == "token_id"
            else (lambda: model.step(value, 3)))
    clear_or_right(call, name, lambda s: np.testing.assert_allclose(
        s.logits, model.forward(s.ids)[-1], atol=1e-4))


@SETTINGS
@given(ids=IDS)
def test_forward_and_encode(model, ids):
    def check(logits):
        assert logits.shape == (len(ids), 10) and np.isfinite(logits).all()

    clear_or_right(lambda: model.forward(ids), "ids", check)
    clear_or_right(lambda: model.encode(ids), "source_ids",
                   lambda m: np.isfinite(m).all() or pytest.fail("not finite"))


# --- lessons 11-13: positions, grouped-query and tiled attention, paged cache, erf ----------
# (their plots and widgets, and the rest of long_context and pretrained, are in the battery of
# tools/bad_inputs_lessons.py, run by tests/classroom/test_bad_input_lessons.py)

from qkv_helpers import grouped_query, long_context, positions  # noqa: E402
from qkv_helpers.kv_cache.paged import PagedKVCache  # noqa: E402
from qkv_helpers.masks import sliding_window_mask  # noqa: E402
from qkv_helpers.measure.kv_cache_experiments import is_increasing  # noqa: E402
from qkv_helpers.pretrained import erf, gelu  # noqa: E402

POSITIONS = st.one_of(PY_OBJECTS, st.lists(st.one_of(st.integers(-2, 40), st.floats(-1, 9),
                                                     st.booleans()), max_size=4), arrays())


def ref_rope(x, positions, base=10000.0):
    """RoPE one pair at a time: pair (i, i + d/2) of token t turned by positions[t]·θ_i."""
    x = as_float64(x)
    out = np.empty_like(x)
    half = x.shape[-1] // 2
    for t, m in enumerate(positions):
        for i in range(half):
            a = m * base ** (-2 * i / x.shape[-1])
            x1, x2 = x[..., t, i], x[..., t, i + half]
            out[..., t, i] = x1 * np.cos(a) - x2 * np.sin(a)
            out[..., t, i + half] = x2 * np.cos(a) + x1 * np.sin(a)
    return out


@SETTINGS
@given(x=ANYTHING)
def test_apply_rope_x(x):
    def check(out):
        n = np.shape(x)[-2]
        close(out, ref_rope(x, range(n)), out.dtype)

    clear_or_right(lambda: positions.apply_rope(x), "x", check)


@SETTINGS
@given(pos=POSITIONS)
def test_apply_rope_positions(pos):
    x = np.arange(12.0).reshape(3, 4) / 7

    def check(out):
        as_list = [0, 1, 2] if pos is None else np.atleast_1d(np.asarray(pos)).tolist()
        assert all(float(p) == int(p) >= 0 for p in as_list) and len(as_list) == 3
        close(out, ref_rope(x, [int(p) for p in as_list]), out.dtype)

    clear_or_right(lambda: positions.apply_rope(x, pos), "positions", check)


@SETTINGS
@given(pos=POSITIONS, d=st.one_of(SIZES, st.sampled_from([2, 4, 8])),
       which=st.sampled_from(["positions", "d"]))
def test_rope_angles(pos, d, which):
    args = {"positions": [0, 3, 1], "d": 4, which: pos if which == "positions" else d}

    def check(angles):
        as_list = np.atleast_1d(np.asarray(args["positions"])).tolist()
        dim = args["d"]
        want = [[m * 10000.0 ** (-2 * i / dim) for i in range(dim // 2)] for m in as_list]
        assert angles.shape == (len(as_list), dim // 2)
        np.testing.assert_allclose(angles, np.reshape(want, angles.shape), rtol=1e-12)

    clear_or_right(lambda: positions.rope_angles(**args), which, check)


@SETTINGS
@given(position=st.one_of(PY_OBJECTS, st.integers(-2, 50)))
def test_rope_rotation_matrix(position):
    def check(r):
        assert type(position) is int or isinstance(position, np.integer)
        row = np.array([[0.3, -1.2, 0.7, 2.0]])
        close(row @ r, ref_rope(row, [int(position)]), np.float64)

    clear_or_right(lambda: positions.rope_rotation_matrix(position, 4), "position", check)


@SETTINGS
@given(vectors=ANYTHING)
def test_cosine_similarity_matrix(vectors):
    def check(sim):
        v = as_float64(vectors)
        v = v / np.abs(v).max(axis=1, keepdims=True)  # cosines do not change with the scale
        want = [[a @ b / math.sqrt((a @ a) * (b @ b)) for b in v] for a in v]
        close(sim, np.array(want), sim.dtype)

    clear_or_right(lambda: positions.cosine_similarity_matrix(vectors), "vectors", check)


@SETTINGS
@given(name=st.sampled_from(["q", "k", "v"]), value=ANYTHING)
def test_grouped_query_attention(name, value):
    rng = np.random.default_rng(0)
    args = dict(q=rng.normal(size=(4, 3, 2)), k=rng.normal(size=(2, 5, 2)),
                v=rng.normal(size=(2, 5, 3)))
    args[name] = value

    def check(result):
        q, k, v = (as_float64(args[n]) for n in "qkv")
        group = q.shape[-3] // k.shape[-3]
        want_out, want_w = ref_attention(q, np.repeat(k, group, -3), np.repeat(v, group, -3))
        close(result.output, want_out, result.output.dtype)
        close(result.weights, want_w, result.output.dtype)

    clear_or_right(lambda: grouped_query.grouped_query_attention(**args), name, check)


@SETTINGS
@given(case=attention_args(), block_size=st.one_of(st.integers(1, 6), SIZES))
def test_tiled_attention(case, block_size):
    name, args = case
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) \
            or block_size < 1:
        clear_or_right(lambda: tiled.tiled_attention(**valid_args(args), block_size=block_size),
                       "block_size", lambda _: pytest.fail("a bad block_size was accepted"))
        return
    check = attention_check(args)
    clear_or_right(lambda: tiled.tiled_attention(**args, block_size=block_size), name, check)
    clear_or_right(lambda: tiled.tiled_attention_with_work(**args, block_size=block_size).output,
                   name, check)


def valid_args(args):
    q, k, v = valid_qkv()
    return dict(q=q, k=k, v=v)


@SETTINGS
@given(name=st.sampled_from(["scores", "v_block"]), value=ANYTHING)
def test_online_softmax_update(name, value):
    scores = np.array([[0.5, -np.inf, 2.0], [1.0, 0.0, -1.0]])
    v_block = np.arange(6.0).reshape(3, 2)
    args = dict(scores=scores, v_block=v_block)
    args[name] = value
    state = tiled.online_softmax_start((2,), 2)

    def check(s):
        x, v = as_float64(args["scores"]), as_float64(args["v_block"])
        seen = np.isfinite(x).any(-1)  # rows with a key not masked
        np.testing.assert_array_equal(s.l[~seen], 0)  # a fully masked block adds nothing
        np.testing.assert_array_equal(s.o[~seen], 0)
        close((s.o / np.where(s.l > 0, s.l, 1))[seen], (ref_softmax(x[seen]) @ v), s.o.dtype)

    clear_or_right(lambda: tiled.online_softmax_update(state, **args), name, check)


@SETTINGS
@given(name=st.sampled_from(["n_q", "n_k", "window"]), value=SIZES)
def test_sliding_window_mask(name, value):
    args = dict(n_q=3, n_k=5, window=2)
    args[name] = value

    def check(m):
        n_q, n_k, w = args["n_q"], args["n_k"], args["window"]
        n_k = n_q if n_k is None else n_k
        want = [[0 <= (n_k - n_q + i) - j < w for j in range(n_k)] for i in range(n_q)]
        np.testing.assert_array_equal(m, want)

    clear_or_right(lambda: sliding_window_mask(**args), name, check)


@SETTINGS
@given(name=st.sampled_from(["k", "v"]), value=ANYTHING)
def test_paged_kv_cache_append(name, value):
    cache = PagedKVCache(2, 4, block_size=2, n_blocks=4)
    seq = cache.new_sequence()
    good = np.ones((2, 1, 4))
    args = dict(k=good, v=good)
    args[name] = value

    def check(_):
        np.testing.assert_array_equal(cache.keys(seq), np.asarray(args["k"], np.float32))
        np.testing.assert_array_equal(cache.values(seq), np.asarray(args["v"], np.float32))

    clear_or_right(lambda: cache.append(seq, **args), name, check)


@SETTINGS
@given(x=ANYTHING)
def test_erf_and_gelu(x):
    def erf_check(y):
        want = np.vectorize(math.erf, otypes=[float])(as_float64(x))
        close(y, want, np.float16 if y.dtype == np.float16 else np.float32)

    def gelu_check(y):
        a = as_float64(x)
        want = a * ((1 + np.vectorize(math.erf, otypes=[float])(a / math.sqrt(2))) / 2)
        close(y, want, np.float16 if y.dtype == np.float16 else np.float32)

    clear_or_right(lambda: erf(x), "x", erf_check)
    clear_or_right(lambda: gelu(x), "x", gelu_check)


@SETTINGS
@given(name=st.sampled_from(["n_q", "n_k", "d_k", "d_v"]), value=SIZES)
def test_attention_flops(name, value):
    args = dict(n_q=3, n_k=5, d_k=4, d_v=2)
    args[name] = value

    def check(flops):
        a = dict(args, d_v=args["d_k"] if args["d_v"] is None else args["d_v"])
        assert flops == 2 * a["n_q"] * a["n_k"] * a["d_k"] + 2 * a["n_q"] * a["n_k"] * a["d_v"]

    clear_or_right(lambda: long_context.attention_flops(**args), name, check)


@SETTINGS
@given(values=ANYTHING)
def test_is_increasing(values):
    def check(answer):
        v = as_float64(values)
        assert answer == all(b > a for a, b in zip(v[:-1], v[1:]))

    clear_or_right(lambda: is_increasing(values), "values", check)

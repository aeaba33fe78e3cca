"""Bad input to the lesson helpers, plots and widgets: a right answer or our clear error.

Two kinds of test:

- the battery of tools/bad_inputs_lessons.py (3000+ hand-picked bad inputs, one argument
  at a time), each of which must end in a ValueError or TypeError raised by qkv_helpers
  whose message names the argument (KeyError for a text key), or in a result checked right;
- hypothesis property tests that throw arrays of every dtype (float16/32/64, int, bool,
  complex, object), shape (0-d, empty, 1-d, 2-d, batched) and value (NaN, ±inf, 1e308,
  subnormal) and plain Python objects at every public entry point, and require either our
  error or a result equal to an independent float64 reference.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
from fractions import Fraction
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import qkv_helpers as qk  # noqa: E402
from qkv_helpers import attention_steps as pl  # noqa: E402
from qkv_helpers import encoder_decoder as ed  # noqa: E402
from qkv_helpers import plots, score_scale, similarity, weighted_sum, widgets  # noqa: E402
from qkv_helpers.kv_cache import arithmetic as km  # noqa: E402
from qkv_helpers.measure.kv_cache_experiments import WORDS, to_words  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import bad_inputs_lessons  # noqa: E402

# --- the battery ------------------------------------------------------------------------

CASES = bad_inputs_lessons.cases()


@pytest.mark.parametrize("case", CASES, ids=[f"{c.entry}({c.arg}={c.what})" for c in CASES])
def test_battery_case_gets_our_error_or_a_right_answer(case):
    kind, detail = bad_inputs_lessons.classify(case)
    assert kind == "ours", detail


def test_battery_covers_every_public_plot_and_widget():
    entries = {case.entry for case in CASES}
    for name in plots.__all__ if hasattr(plots, "__all__") else dir(plots):
        if name.startswith("plot_"):
            assert f"plots.{name}" in entries, name
    for name in dir(widgets):
        obj = getattr(widgets, name)
        if callable(obj) and not name.startswith("_") and name not in ("LiveFigure", "Panel"):
            if getattr(obj, "__module__", "").startswith("qkv_helpers.classroom.widgets."):
                if name != "widget_check":  # takes no arguments
                    assert f"widgets.{name}" in entries, name


# --- strategies -----------------------------------------------------------------------

SPECIAL = [np.nan, np.inf, -np.inf, 1e308, -1e308, 5e-324, -1e-310, 0.0, 1.0, -2.5, 0.5]
FLOATS = st.one_of(st.sampled_from(SPECIAL), st.floats(-1e3, 1e3, width=64))
OBJECTS = st.one_of(st.none(), st.text(max_size=3), st.integers(-10, 10),
                    st.floats(allow_nan=True), st.booleans(), st.complex_numbers(max_magnitude=5),
                    st.lists(st.one_of(st.floats(-5, 5), st.text(max_size=1)), max_size=3))


@st.composite
def any_array(draw, shapes):
    """An array of any dtype and one of ``shapes``, or now and then a plain Python object."""
    if draw(st.integers(0, 9)) == 0:
        return draw(OBJECTS)
    shape = draw(st.sampled_from(shapes))
    kind = draw(st.sampled_from(["f16", "f32", "f64", "f64", "f64", "int", "bool", "complex",
                                 "object"]))
    if kind == "object":
        cells = draw(st.lists(st.one_of(st.floats(-5, 5), st.none(), st.text(max_size=1)),
                              min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
        arr = np.empty(shape, dtype=object)
        arr.ravel()[:] = cells if cells else []
        return arr
    if kind == "bool":
        return draw(hnp.arrays(np.bool_, shape))
    if kind == "int":
        return draw(hnp.arrays(np.int64, shape, elements=st.integers(-1000, 1000)))
    if kind == "complex":
        return draw(hnp.arrays(np.complex128, shape,
                               elements=st.complex_numbers(max_magnitude=100, allow_nan=False)))
    dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[kind]
    values = draw(hnp.arrays(np.float64, shape, elements=FLOATS))
    with np.errstate(over="ignore", under="ignore"):
        return values.astype(dtype)


def as_f64(x):
    """What a correct function sees in ``x``: float64 numbers, or None if ``x`` is not an
    array of finite real numbers (then it must be refused)."""
    if x is None or isinstance(x, (str, bytes)):
        return None
    try:
        arr = np.asarray(x)
    except ValueError:
        return None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            return None
    if arr.dtype.kind not in "biuf":
        return None
    arr = arr.astype(np.float64)
    return arr if np.isfinite(arr).all() else None


def names(message: str, arg: str) -> bool:
    """Whether ``message`` names the argument ``arg`` (as a word: "q" is not in "query";
    "a" must be the vector, as in "a must ..." or "a and b")."""
    if arg == "a":
        return message.startswith("a ") or "a and b" in message or "a·b" in message
    return re.search(rf"(?<![\w]){re.escape(arg)}(?![\w])", message) is not None


def ours(call, *args: str):
    """``(True, result)``, or ``(False, None)`` if ``call`` raised a ValueError or TypeError
    that names one of ``args``; any other exception fails the test."""
    try:
        return True, call()
    except (ValueError, TypeError) as error:
        assert any(names(str(error), arg) for arg in args), (
            f"{type(error).__name__} names none of {args}: {error}")
        return False, None
    finally:
        plt.close("all")


def softmax_ref(s):
    with np.errstate(over="ignore"):  # -1e308 - 1e308 is -inf, whose exp is 0: right
        e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
SLOW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SHAPES_2 = [(), (0,), (1,), (2,), (3,), (2, 2), (1, 2), (2, 2, 2)]
SHAPES_ROWS = [(), (0,), (4,), (0, 4), (3, 0), (1, 4), (3, 4), (3, 3), (2, 3, 4)]

# --- similarity -----------------------------------------------------------------------


@PROPERTY
@given(a=any_array(SHAPES_2), b=any_array(SHAPES_2))
def test_dot_and_angle(a, b):
    done, d = ours(lambda: similarity.dot_and_angle(a, b), "a", "b")
    fa, fb = as_f64(a), as_f64(b)
    if not done:
        return
    assert fa is not None and fb is not None and fa.shape == fb.shape and fa.ndim == 1
    assert fa.any() and fb.any()
    # An independent reference: scale each by its largest entry, then the angle from the
    # cross and dot products (for d = 2) or from the law of cosines on unit vectors.
    ua, ub = fa / np.abs(fa).max(), fb / np.abs(fb).max()
    ua, ub = ua / math.sqrt(float(ua @ ua)), ub / math.sqrt(float(ub @ ub))
    if len(ua) == 2:
        ref = math.degrees(math.atan2(abs(ua[0] * ub[1] - ua[1] * ub[0]), float(ua @ ub)))
    else:
        ref = math.degrees(math.acos(max(-1.0, min(1.0, float(ua @ ub)))))
    assert abs(d.angle_deg - ref) < (1e-6 if len(ua) == 2 else 1e-5)
    assert math.isclose(d.length_a, math.hypot(*fa), rel_tol=1e-12)
    assert math.isclose(d.length_b, math.hypot(*fb), rel_tol=1e-12)
    exact = sum(Fraction(x) * Fraction(y) for x, y in zip(fa.tolist(), fb.tolist()))
    scale = Fraction(float(np.abs(fa).max())) * Fraction(float(np.abs(fb).max()))  # a term's size
    assert abs(Fraction(d.dot) - exact) <= Fraction(1e-12) * scale * len(fa)
    assert -1.0 <= d.cos_angle <= 1.0 and 0.0 <= d.angle_deg <= 180.0


@PROPERTY
@given(q=any_array(SHAPES_ROWS), index=st.one_of(st.integers(-2, 4), OBJECTS))
def test_query_scores(q, index):
    k = np.arange(12.0).reshape(3, 4) / 10
    done, s = ours(lambda: similarity.query_scores(q, k, index), "q", "index")
    if not done:
        return
    fq = as_f64(q)
    assert fq is not None and fq.ndim == 2 and fq.shape[1] == 4 and fq.shape[0] >= 1
    assert isinstance(index, int) and not isinstance(index, bool) and 0 <= index < fq.shape[0]
    ref = k @ fq[index]
    np.testing.assert_array_equal(s.scores, ref)
    np.testing.assert_allclose(s.weights, softmax_ref(ref / 2.0), rtol=1e-12, atol=1e-300)


@PROPERTY
@given(angle=st.one_of(FLOATS, OBJECTS), length=st.one_of(FLOATS, OBJECTS))
def test_vector_from_angle(angle, length):
    done, v = ours(lambda: similarity.vector_from_angle(angle, length), "angle_deg", "length")
    if not done:
        return
    assert isinstance(angle, (int, float)) and not isinstance(angle, bool)
    assert isinstance(length, (int, float)) and length >= 0
    assert np.isfinite(v).all()
    np.testing.assert_allclose(math.hypot(*v), length, rtol=1e-12)


# --- scaling, weighted sum, pipeline -----------------------------------------------------


@PROPERTY
@given(p=any_array([(), (0,), (2,), (3,), (2, 2)]))
def test_softmax_jacobian(p):
    done, jac = ours(lambda: score_scale.softmax_jacobian(p), "p")
    if not done:
        return
    fp = as_f64(p)
    assert fp is not None and fp.ndim == 1 and abs(fp.sum() - 1) < 1e-6 and fp.min() >= 0
    n = len(fp)
    ref = [[fp[i] * ((i == j) - fp[j]) for j in range(n)] for i in range(n)]
    np.testing.assert_allclose(jac, ref, atol=1e-15)


@PROPERTY
@given(scores=any_array([(), (0,), (1,), (3,), (2, 3)]))
def test_softmax_gradient_norm(scores):
    done, g = ours(lambda: score_scale.softmax_gradient_norm(scores), "scores")
    if not done:
        return
    fs = as_f64(scores)
    assert fs is not None and fs.ndim == 1 and len(fs) >= 1
    p = softmax_ref(fs)
    assert math.isclose(g, np.linalg.norm(np.diag(p) - np.outer(p, p)), rel_tol=1e-9,
                        abs_tol=1e-15)


@pytest.mark.parametrize("fn,args", [
    (score_scale.random_queries_keys, ("d_k", "n", "seed")),
    (score_scale.dk_stats, ("d_k", "n_keys", "n_queries", "seed")),
    (qk.running_example, ("seed",)),
    (qk.translation_example, ("seed",)),
    (ed.encoder_example, ("seed",)),
])
@settings(max_examples=25, deadline=None)
@given(value=st.one_of(st.integers(-3, 6), OBJECTS), which=st.integers(0, 3))
def test_integer_arguments(fn, args, value, which):
    arg = args[which % len(args)]
    good = {"d_k": 4, "n": 3, "n_keys": 3, "n_queries": 2, "seed": 0}
    kwargs = {a: good[a] for a in args}
    kwargs[arg] = value
    done, result = ours(lambda: fn(**kwargs), arg)
    low = 0 if arg == "seed" else 1
    valid = type(value) is int and value >= low
    assert done == valid, (arg, value)
    if done:  # seeded: the same arguments give the same numbers
        np.testing.assert_equal(_plain(result), _plain(fn(**kwargs)))


def _plain(result):
    """``result`` as tuples, dicts and arrays, for np.testing.assert_equal."""
    if isinstance(result, ed.EncoderExample):
        return result.mha(result.x).output
    if dataclasses.is_dataclass(result):
        return dataclasses.asdict(result)
    return tuple(result)


@PROPERTY
@given(w=any_array([(), (0,), (2,), (3,), (1, 3)]), v=any_array([(3,), (0, 2), (3, 2), (3, 0),
                                                                 (2, 3, 2)]))
def test_weighted_sum_steps(w, v):
    done, steps = ours(lambda: weighted_sum.weighted_sum_steps(w, v), "weights", "v")
    if not done:
        return
    fw, fv = as_f64(w), as_f64(v)
    assert fw is not None and fv is not None and fw.ndim == 1 and fv.ndim == 2
    assert fv.shape[0] == len(fw) >= 1 and fv.shape[1] >= 1
    terms = [fw[j] * fv[j] for j in range(len(fw))]
    np.testing.assert_allclose(steps.output, np.sum(terms, axis=0), rtol=1e-12, atol=1e-300)
    assert np.isfinite(steps.partial_sums).all()


@PROPERTY
@given(x=any_array([(), (0, 3), (4, 3), (4, 0), (4, 2), (3,), (2, 4, 3)]),
       which=st.sampled_from(["x", "w_q", "w_k", "w_v"]))
def test_pipeline_steps(x, which):
    rng = np.random.default_rng(0)
    good = {"x": rng.normal(size=(4, 3)), "w_q": rng.normal(size=(3, 2)),
            "w_k": rng.normal(size=(3, 2)), "w_v": rng.normal(size=(3, 2))}
    kwargs = dict(good, **{which: x})
    done, steps = ours(lambda: pl.pipeline_steps(**kwargs), which)
    if not done:
        return
    f = {name: as_f64(kwargs[name]) for name in good}
    assert all(a is not None for a in f.values())
    q, k, v = f["x"] @ f["w_q"], f["x"] @ f["w_k"], f["x"] @ f["w_v"]
    weights = softmax_ref(q @ k.T / math.sqrt(q.shape[1]))
    np.testing.assert_allclose(steps.output, weights @ v, rtol=1e-9, atol=1e-12)


@PROPERTY
@given(x=any_array([(), (0, 4), (3, 4), (3, 2), (3,), (2, 3, 4)]),
       which=st.sampled_from(["q", "k", "v"]))
def test_attend_one_at_a_time(x, which):
    good = {name: np.linspace(-1, 1, 12).reshape(3, 4) * (i + 1)
            for i, name in enumerate("qkv")}
    kwargs = dict(good, **{which: x})
    done, out = ours(lambda: ed.attend_one_at_a_time(**kwargs), which)
    if not done:
        return
    q, k, v = (as_f64(kwargs[n]) for n in "qkv")
    s = q @ k.T / math.sqrt(q.shape[1])
    s[np.triu_indices(len(s), 1)] = -np.inf
    np.testing.assert_allclose(out, softmax_ref(s) @ v, rtol=1e-9, atol=1e-12)


@PROPERTY
@given(w=any_array([(), (0, 3), (2, 3), (1, 2, 3), (2,), (2, 2, 2, 3)]))
def test_top_keys(w):
    done, top = ours(lambda: ed.top_keys(w, ["a", "b", "c"]), "weights")
    if not done:
        return
    fw = as_f64(w)
    assert fw is not None and fw.ndim in (2, 3) and fw.min() >= 0 and fw.max() <= 1 + 1e-9
    fw = fw if fw.ndim == 3 else fw[None]
    assert top == [[["a", "b", "c"][int(np.argmax(row))] for row in head] for head in fw]


@PROPERTY
@given(position=st.one_of(st.integers(-2, 8), OBJECTS), masked=st.one_of(st.booleans(), OBJECTS),
       seed=st.one_of(st.integers(-1, 5), OBJECTS))
def test_change_future_token_arguments(position, masked, seed):
    ex = qk.running_example()
    try:
        change = ed.change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, position, masked=masked,
                                        seed=seed)
    except (ValueError, TypeError) as error:
        assert any(name in str(error) for name in ("position", "masked", "seed")), error
        return
    assert type(position) is int and 0 <= position < 7
    assert isinstance(masked, bool) and type(seed) is int and seed >= 0
    if masked:
        assert (change.row_change[:position] == 0).all()


@PROPERTY
@given(order=st.one_of(OBJECTS, st.lists(st.integers(-1, 7), max_size=8),
                       st.permutations(range(7)), st.lists(st.booleans(), min_size=7,
                                                           max_size=7)))
def test_permutation_check_order(order):
    enc = ed.encoder_example()
    done, result = ours(lambda: ed.permutation_check(enc.mha, enc.x, order), "order")
    if not done:
        return
    assert all(type(i) is int for i in order) and sorted(order) == list(range(7))
    assert result.max_difference < 1e-12


# --- kv_cache.arithmetic ------------------------------------------------------------------


@PROPERTY
@given(value=st.one_of(st.integers(-2, 5), OBJECTS),
       which=st.sampled_from(["layers", "kv_heads", "head_dim", "tokens", "batch",
                              "bytes_per_value"]))
def test_kv_cache_bytes(value, which):
    good = dict(layers=2, kv_heads=3, head_dim=4, tokens=5, batch=1, bytes_per_value=2)
    kwargs = dict(good, **{which: value})
    done, n = ours(lambda: km.kv_cache_bytes(**kwargs), which)
    low = 0 if which == "tokens" else 1
    assert done == (type(value) is int and value >= low)
    if done:
        assert n == 2 * math.prod(kwargs.values())


@PROPERTY
@given(x=any_array([(), (0,), (1,), (3,), (2, 3)]),
       which=st.sampled_from(["steps", "flops_cached", "flops_uncached"]))
def test_predicted_speedup(x, which):
    fit = km.StepTimeFit(1e-4, 1e-10)
    good = dict(steps=[10.0, 20.0, 30.0], flops_cached=[1e6, 2e6, 3e6],
                flops_uncached=[5e7, 6e7, 7e7])
    kwargs = dict(good, **{which: x})
    done, ratio = ours(lambda: km.predicted_speedup(fit, **kwargs), which)
    if not done:
        return
    f = {name: as_f64(kwargs[name]) for name in good}
    assert all(a is not None and a.shape == (3,) and a.min() >= 0 for a in f.values())
    ref = ((1e-4 * f["steps"] + 1e-10 * f["flops_uncached"])
           / (1e-4 * f["steps"] + 1e-10 * f["flops_cached"]))
    np.testing.assert_allclose(ratio, ref, rtol=1e-12)


@PROPERTY
@given(x=any_array([(), (0,), (1,), (3,), (2, 3)]), which=st.sampled_from(["steps", "seconds"]))
def test_fit_step_time(x, which):
    good = dict(steps=[10.0, 10.0, 20.0], flops=[1e6, 5e6, 2e7], seconds=[0.0011, 0.0015, 0.004])
    kwargs = dict(good, **{which: x})
    done, fit = ours(lambda: km.fit_step_time(**kwargs), which)
    if not done:
        return
    assert as_f64(x) is not None and as_f64(x).shape == (3,) and as_f64(x).min() >= 0
    assert math.isfinite(fit.overhead) and fit.overhead >= 0
    assert math.isfinite(fit.seconds_per_flop) and fit.seconds_per_flop >= 0


@PROPERTY
@given(ids=st.one_of(OBJECTS, st.lists(st.one_of(st.integers(-2, 8), st.floats(0, 7),
                                                 st.booleans()), max_size=4)))
def test_to_words(ids):
    done, words = ours(lambda: to_words(ids), "ids")
    if not done:
        return
    assert all(type(i) is int and 0 <= i < len(WORDS) for i in ids)
    assert words == " ".join(WORDS[i] for i in ids)


# --- plots --------------------------------------------------------------------------------


@SLOW
@given(w=any_array([(), (0, 2), (2, 2), (2, 0), (2,), (1, 2, 2)]))
def test_plot_attention_heatmap(w):
    done, ax = ours(lambda: plots.plot_attention_heatmap(w, ["a", "b"], annotate=False),
                    "weights")
    if not done:
        return
    fw = as_f64(w)
    assert fw is not None and fw.shape == (2, 2) and fw.min() >= 0 and fw.max() <= 1 + 1e-9


@SLOW
@given(s=any_array([(), (2, 2), (2, 3), (2,)]), signed=st.one_of(st.just(True), OBJECTS))
def test_plot_signed_heatmap(s, signed):
    try:
        ax = plots.plot_attention_heatmap(s, ["a", "b"], ["x", "y"], signed=signed,
                                          annotate=False)
    except (ValueError, TypeError) as error:
        assert "weights" in str(error) or "signed" in str(error) or "col_labels" in str(error)
        return
    finally:
        plt.close("all")
    fs = as_f64(s)
    assert fs is not None and fs.shape == (2, 2) and signed is True
    np.testing.assert_array_equal(ax.images[0].get_array(), fs)
    low, high = ax.images[0].get_clim()
    assert high == -low == (np.abs(fs).max() or 1.0)


@SLOW
@given(values=any_array([(), (0,), (3,), (2,), (1, 3)]),
       highlight=st.one_of(st.none(), st.integers(-1, 3), OBJECTS))
def test_plot_query_bars(values, highlight):
    try:
        ax = plots.plot_query_bars(values, ["a", "b", "c"], highlight=highlight)
    except (ValueError, TypeError) as error:
        assert "values" in str(error) or "labels" in str(error) or "highlight" in str(error)
        return
    finally:
        plt.close("all")
    fv = as_f64(values)
    assert fv is not None and fv.shape == (3,)
    assert highlight is None or (type(highlight) is int and 0 <= highlight < 3)
    np.testing.assert_array_equal([p.get_height() for p in ax.patches], fv)


@SLOW
@given(scores=any_array([(3, 3), (2, 3), (3,)]),
       mask=st.sampled_from(["causal", "none", "int", "empty_row"]))
def test_plot_masked_scores(scores, mask):
    m = {"causal": qk.causal_mask(3), "none": np.ones((3, 3), bool),
         "int": np.ones((3, 3), int), "empty_row": np.tri(3, k=-1, dtype=bool)}[mask]
    try:
        plots.plot_masked_scores(scores, m, ["a", "b", "c"], annotate=False)
    except (ValueError, TypeError) as error:
        assert "scores" in str(error) or "mask" in str(error)
        return
    finally:
        plt.close("all")
    assert mask in ("causal", "none")
    fs = np.asarray(scores, dtype=np.float64)  # may hold -inf where hidden
    assert fs.shape == (3, 3) and np.isfinite(fs[m]).all()


@SLOW
@given(x=any_array([(), (0,), (3,), (2,), (1, 3)]),
       which=st.sampled_from(["tokens", "measured_bytes", "formula_bytes"]))
def test_plot_cache_growth(x, which):
    good = dict(tokens=[1, 2, 3], measured_bytes=[256, 512, 768], formula_bytes=[256, 512, 768])
    kwargs = dict(good, **{which: x})
    done, ax = ours(lambda: plots.plot_cache_growth(**kwargs), which)
    if not done:
        return
    fx = as_f64(x)
    assert fx is not None and fx.shape == (3,) and fx.min() >= 0


@SLOW
@given(x=any_array([(), (0,), (3,), (2,)]), which=st.sampled_from(["d_ks", "raw", "scaled"]))
def test_plot_variance_vs_dk(x, which):
    good = dict(d_ks=[1, 4, 16], raw=[1.0, 4.1, 15.8], scaled=[1.0, 1.02, 0.99])
    kwargs = dict(good, **{which: x})
    done, ax = ours(lambda: plots.plot_variance_vs_dk(**kwargs), which)
    if not done:
        return
    fx = as_f64(x)
    assert fx is not None and fx.shape == (3,) and fx.min() > 0


@SLOW
@given(a=any_array(SHAPES_2), limit=st.one_of(st.none(), FLOATS, OBJECTS))
def test_plot_vectors_2d(a, limit):
    try:
        plots.plot_vectors_2d(a, [0.0, 2.0], limit=limit)
    except (ValueError, TypeError) as error:
        assert names(str(error), "a") or "limit" in str(error), error
        return
    finally:
        plt.close("all")
    fa = as_f64(a)
    assert fa is not None and fa.shape == (2,) and fa.any()
    assert limit is None or (isinstance(limit, (int, float)) and not isinstance(limit, bool)
                             and math.isfinite(limit) and limit > 0)


@SLOW
@given(temps=st.one_of(OBJECTS, st.lists(st.one_of(FLOATS, OBJECTS), max_size=3)),
       span=st.one_of(FLOATS, OBJECTS))
def test_plot_softmax_curves(temps, span):
    try:
        ax = plots.plot_softmax_curves(temps, span=span)
    except (ValueError, TypeError) as error:
        assert "temperatures" in str(error) or "span" in str(error)
        return
    finally:
        plt.close("all")
    assert all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
               and x > 0 for x in temps) and len(temps) >= 1
    assert isinstance(span, (int, float)) and span > 0 and math.isfinite(span)
    for line in ax.lines:
        assert np.isfinite(line.get_ydata()).all()


@SLOW
@given(values=any_array([(8, 3), (8, 0), (0, 3), (8,)]),
       capacity=st.one_of(st.integers(-1, 6), OBJECTS),
       n_heads=st.one_of(st.none(), st.integers(-1, 5), OBJECTS))
def test_plot_cache_fill(values, capacity, n_heads):
    try:
        plots.plot_cache_fill(values, capacity, n_heads=n_heads)
    except (ValueError, TypeError) as error:
        assert any(n in str(error) for n in ("values", "capacity", "n_heads")), error
        return
    finally:
        plt.close("all")
    fv = as_f64(values)
    assert fv is not None and fv.ndim == 2 and fv.shape[0] >= 1
    assert type(capacity) is int and fv.shape[1] <= capacity
    assert n_heads is None or (type(n_heads) is int and n_heads >= 1 and 8 % n_heads == 0)


# --- widgets, language --------------------------------------------------------------------

TOKENS = qk.running_example().tokens


@SLOW
@given(position=st.one_of(st.integers(-2, 9), OBJECTS))
def test_causal_mask_explorer_position(position):
    done, panel = ours(lambda: widgets.causal_mask_explorer(position=position), "position")
    assert done == (type(position) is int and 0 <= position < 7)
    if done:
        assert panel.state["position"] == position


@SLOW
@given(token=st.one_of(st.sampled_from(TOKENS + ("dog", "CAT")), OBJECTS),
       which=st.sampled_from(["query", "temperature", "weighted_sum", "pipeline"]))
def test_token_arguments_of_widgets(token, which):
    make = {"query": widgets.query_explorer, "temperature": widgets.temperature_explorer,
            "weighted_sum": widgets.weighted_sum_stepper,
            "pipeline": widgets.pipeline_explorer}[which]
    try:
        panel = make(token=token)
    except (ValueError, TypeError) as error:
        assert "token" in str(error) and "'The', 'cat'" in str(error), error
        assert token not in TOKENS
        return
    finally:
        plt.close("all")
    assert token in TOKENS
    if which in ("query", "weighted_sum", "pipeline"):
        assert panel.state["token"] == token


@SLOW
@given(d_k=st.one_of(st.integers(-1, 600), OBJECTS))
def test_scaling_explorer_d_k(d_k):
    done, panel = ours(lambda: widgets.scaling_explorer(d_k=d_k), "d_k")
    assert done == (type(d_k) is int and d_k in widgets.scores_and_weights.DK_VALUES)
    if done:
        assert panel.state["d_k"] == d_k


@SLOW
@given(q_angle=st.one_of(FLOATS, OBJECTS), q_length=st.one_of(FLOATS, OBJECTS))
def test_dot_product_explorer(q_angle, q_length):
    try:
        panel = widgets.dot_product_explorer(q_angle=q_angle, q_length=q_length)
    except (ValueError, TypeError) as error:
        assert "q_angle" in str(error) or "q_length" in str(error)
        return
    finally:
        plt.close("all")
    assert 0 < q_length <= 2.5 and math.isfinite(q_angle)
    assert math.isclose(np.hypot(*panel.state["q"]), q_length, rel_tol=1e-12)


@settings(max_examples=40, deadline=None)
@given(lang=st.one_of(st.sampled_from(["ko", "en", "KO", "fr", ""]), OBJECTS))
def test_set_language(lang):
    before = qk.get_language()
    try:
        done, _ = ours(lambda: qk.set_language(lang), "lang")
        assert done == (lang in ("ko", "en") and isinstance(lang, str))
        assert qk.get_language() == (lang if done else before)
    finally:
        qk.set_language(before)


@settings(max_examples=40, deadline=None)
@given(key=st.one_of(st.sampled_from(["query", "p_scal_hist_title", "nope"]), OBJECTS),
       values=st.dictionaries(st.sampled_from(["d_k", "x"]), st.integers(0, 9), max_size=2))
def test_t(key, values):
    try:
        text = qk.t(key, **values)
    except (KeyError, TypeError) as error:
        message = str(error)
        assert ("no text" in message or names(message, "key")
                or "needs values for d_k" in message), message
        return
    assert key == "query" or (key == "p_scal_hist_title" and "d_k" in values)
    assert "{" not in text


# --- the examples of issue 14, one by one -------------------------------------------------


def test_dot_and_angle_of_huge_opposite_vectors():
    d = similarity.dot_and_angle([1e150, 0.0], [-1e150, 0.0])
    assert d.angle_deg == 180.0 and d.cos_angle == -1.0 and math.isclose(d.dot, -1e300)
    d = similarity.dot_and_angle([1e300, 1e300], [1e300, -1e300])  # dot 0, lengths finite
    assert d.angle_deg == 90.0 and d.dot == 0.0
    with pytest.raises(ValueError, match="a·b or a length overflows float64"):
        similarity.dot_and_angle([1e200, 0.0], [-1e200, 0.0])  # a·b = -1e400


def test_widgets_do_not_clamp_a_position_out_of_range():
    with pytest.raises(ValueError, match=r"position must be an integer in 0\.\.6, got 99"):
        widgets.causal_mask_explorer(position=99)


def test_query_explorer_lists_the_tokens_for_an_unknown_one():
    with pytest.raises(ValueError, match=r"token must be one of the tokens \('The', 'cat', "
                                         r"'sat', 'on', 'the', 'mat', '\.'\), got 'dog'"):
        widgets.query_explorer(token="dog")


def test_to_words_refuses_ids_that_are_not_ints():
    with pytest.raises(TypeError, match="each of ids must be an integer in 0..6, got float 1.7"):
        to_words([1.7])
    with pytest.raises(TypeError, match="got bool True"):
        to_words([True])


def test_boolean_indices_are_refused():
    ex = qk.running_example()
    with pytest.raises(TypeError, match="position must be an integer in 0..6, got bool True"):
        ed.change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, position=True)
    enc = ed.encoder_example()
    with pytest.raises(TypeError, match=r"order must be a permutation of range\(7\).*dtype bool"):
        ed.permutation_check(enc.mha, enc.x, [True] * 7)


def test_heat_maps_refuse_nan_and_inf():
    with pytest.raises(ValueError, match=r"weights must hold finite numbers; got nan at index "
                                         r"\(0, 1\)"):
        plots.plot_attention_heatmap([[0.5, np.nan], [0.5, 0.5]], ["a", "b"])
    with pytest.raises(ValueError, match="weights must hold finite numbers; got inf"):
        plots.plot_attention_heatmap([[1.0, np.inf], [-2.0, 0.5]], ["a", "b"], signed=True)
    with pytest.raises(ValueError, match="For scores .* pass signed=True"):
        plots.plot_attention_heatmap([[1.0, 3.0], [-2.0, 0.5]], ["a", "b"])


def test_seeds_must_be_non_negative_ints():
    with pytest.raises(ValueError, match="seed must be an integer >= 0, got -1"):
        qk.running_example(seed=-1)
    with pytest.raises(TypeError, match="seed must be an integer >= 0, got NoneType None"):
        score_scale.random_queries_keys(4, 2, seed=None)


@pytest.mark.parametrize("a,b,angle,dot", [
    ([1e308, 0.0], [0.0, 1e308], 90.0, 0.0),
    ([5e-324, 0.0], [-5e-324, 0.0], 180.0, -0.0),
    ([1e-310, 1e-310], [1e-310, 1e-310], 0.0, 0.0),
])
def test_dot_and_angle_at_the_ends_of_float64(a, b, angle, dot):
    d = similarity.dot_and_angle(a, b)
    assert d.angle_deg == pytest.approx(angle, abs=1e-9) and d.dot == dot


# --- lessons 11-13: silent results the battery found, one by one -------------------------


def test_lessons_11_13_silent_cases_are_errors_or_right_now():
    from qkv_helpers import long_context, positions, pretrained, tiled
    from qkv_helpers.kv_cache.paged import PagedKVCache

    # gelu(-810) was 2e-5 (erf overshot -1); erf now stays in [-1, 1]
    assert pretrained.gelu(np.array([-810.0]))[0] == 0.0
    assert pretrained.erf(np.array([5.0, -5.0], np.float32)).tolist() == [1.0, -1.0]
    assert pretrained.erf(np.array([5.0, -5.0])).tolist() == [math.erf(5.0), math.erf(-5.0)]
    # cosines of huge rows were 0 (the norms overflowed)
    sim = positions.cosine_similarity_matrix([[1e308, 0.0], [1e308, 1e308]])
    np.testing.assert_allclose(sim, [[1, math.sqrt(0.5)], [math.sqrt(0.5), 1]], rtol=1e-12)
    # a widget no longer clamps a slider value it cannot show
    with pytest.raises(ValueError, match=r"step must be an integer in 1..6, got 7"):
        widgets.tiling_animation(step=7)
    with pytest.raises(ValueError, match=r"n_blocks = 2 is too few"):
        widgets.paged_cache_view(n_blocks=2)
    # a threshold of NaN labelled every head "mixed"
    scores = {p: np.zeros((1, 2)) for p in pretrained.HEAD_PATTERNS}
    with pytest.raises(ValueError, match="threshold must be a finite number, got nan"):
        pretrained.classify_heads(scores, threshold=float("nan"))
    # float64 keys beyond float32 were stored as inf
    cache = PagedKVCache(1, 1, 2, 2)
    with pytest.raises(ValueError, match="k holds numbers too large for this cache's dtype"):
        cache.append(cache.new_sequence(), np.full((1, 1, 1), 1e300), np.ones((1, 1, 1)))
    # a bool seed, a string flag and a float length were taken as numbers
    with pytest.raises(TypeError, match="seed must be an integer >= 0, got bool True"):
        long_context.attention_inputs(4, seed=True)
    with pytest.raises(TypeError, match="skip_hidden_blocks must be True or False, got str"):
        tiled.tiled_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)),
                             skip_hidden_blocks="no")
    with pytest.raises(TypeError, match=r"each of lengths must be an integer >= 1, got float"):
        long_context.measure_costs([1.5], time_it=False)
    # a list for the single position of rope_rotation_matrix was read as that position
    with pytest.raises(TypeError, match="position must be an integer"):
        positions.rope_rotation_matrix([1], 4)

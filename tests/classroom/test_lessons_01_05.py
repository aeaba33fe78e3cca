"""Lessons 01-05: the math helpers, plots, widgets and exercise checks they use."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import qkv_helpers as qk
from qkv_helpers import checks, float_limits, score_scale, similarity, weighted_sum
from qkv_helpers.lang import t

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


# --- similarity ---------------------------------------------------------------------------

def test_dot_and_angle_exact_cases():
    d = similarity.dot_and_angle([3.0, 0.0], [0.0, 2.0])
    assert d.dot == 0.0 and d.angle_deg == pytest.approx(90.0)
    d = similarity.dot_and_angle([1.0, 1.0], [2.0, 2.0])
    assert d.angle_deg == pytest.approx(0.0, abs=1e-6) and d.dot == pytest.approx(4.0)
    with pytest.raises(ValueError, match="zero"):
        similarity.dot_and_angle([0.0, 0.0], [1.0, 0.0])
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        similarity.dot_and_angle([1.0, 0.0], [1.0, 0.0, 0.0])


@given(st.floats(0, 360), st.floats(0.1, 5), st.floats(0, 360), st.floats(0.1, 5))
def test_dot_is_lengths_times_cosine(angle_a, len_a, angle_b, len_b):
    a = similarity.vector_from_angle(angle_a, len_a)
    b = similarity.vector_from_angle(angle_b, len_b)
    d = similarity.dot_and_angle(a, b)
    assert d.length_a == pytest.approx(len_a) and d.length_b == pytest.approx(len_b)
    assert d.dot == pytest.approx(len_a * len_b * d.cos_angle, abs=1e-9)
    gap = abs(angle_a - angle_b) % 360
    assert d.angle_deg == pytest.approx(min(gap, 360 - gap), abs=1e-4)


def test_query_scores_match_attention():
    ex = qk.running_example()
    result = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v)
    for i in range(len(ex.tokens)):
        s = similarity.query_scores(ex.q, ex.k, i)
        np.testing.assert_allclose(s.scores, [ex.q[i] @ ex.k[j] for j in range(7)])
        np.testing.assert_allclose(s.scaled, s.scores / 2.0)
        np.testing.assert_allclose(s.weights, result.weights[i])
    with pytest.raises(ValueError, match=r"index must be an integer in 0\.\.6, got 7"):
        similarity.query_scores(ex.q, ex.k, 7)


# --- scaling --------------------------------------------------------------------------------

@pytest.mark.parametrize("d_k", [1, 8, 128])
def test_variance_grows_like_dk_and_scaling_undoes_it(d_k):
    raw, scaled = score_scale.dot_product_variance(d_k, n=20_000, seed=3)
    assert raw == pytest.approx(d_k, rel=0.1)
    assert scaled == pytest.approx(1.0, rel=0.1)
    assert raw == pytest.approx(scaled * d_k)


def test_softmax_jacobian_against_finite_differences():
    s = np.array([0.3, -1.2, 2.0, 0.1])
    p = qk.softmax(s)
    eps = 1e-6
    numeric = np.empty((4, 4))
    for j in range(4):
        step = np.zeros(4)
        step[j] = eps
        numeric[:, j] = (qk.softmax(s + step) - qk.softmax(s - step)) / (2 * eps)
    np.testing.assert_allclose(score_scale.softmax_jacobian(p), numeric, atol=1e-8)


@given(arrays(float, st.integers(2, 6), elements=finite))
def test_jacobian_rows_sum_to_zero_and_symmetric(scores):
    jac = score_scale.softmax_jacobian(qk.softmax(scores))
    np.testing.assert_allclose(jac.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(jac, jac.T)


def test_gradient_vanishes_and_saturates_without_scaling():
    stats = [score_scale.dk_stats(d) for d in (4, 64, 512)]
    max_raw = [s.max_raw for s in stats]
    grad_raw = [s.grad_raw for s in stats]
    assert max_raw == sorted(max_raw) and max_raw[-1] > 0.9
    assert grad_raw == sorted(grad_raw, reverse=True) and grad_raw[-1] < 0.1
    scaled = [s.grad_scaled for s in stats]
    assert max(scaled) - min(scaled) < 0.05  # scaled: about the same for every d_k
    np.testing.assert_allclose(stats[1].scaled, stats[1].raw / 8.0)


def test_scaling_rejects_bad_dk():
    with pytest.raises(ValueError, match="d_k"):
        score_scale.dot_product_variance(0)


# --- float_limits -------------------------------------------------------------------------------

def test_naive_softmax_overflows_where_exp_does():
    limit = float_limits.exp_limit()
    assert math.isfinite(math.exp(limit - 1e-9))
    with pytest.raises(OverflowError):
        math.exp(limit + 1e-6)
    assert np.isnan(float_limits.naive_softmax([limit + 1, 0.0])).any()
    np.testing.assert_allclose(float_limits.naive_softmax([limit - 5, 0.0]),
                               qk.softmax([limit - 5, 0.0]))


@given(arrays(float, st.integers(1, 6), elements=finite), st.floats(-600, 600))
def test_max_subtraction_is_shift_invariant(scores, shift):
    steps = float_limits.max_subtraction_steps(scores + shift)
    assert steps.shifted.max() == 0.0 and steps.exps.max() == 1.0
    np.testing.assert_allclose(steps.weights, qk.softmax(scores), atol=1e-12)


# --- weighted sum ---------------------------------------------------------------------------

@given(arrays(float, (5, 3), elements=finite), arrays(float, 5, elements=finite))
def test_weighted_sum_steps_against_a_loop(v, scores):
    w = qk.softmax(scores)
    steps = weighted_sum.weighted_sum_steps(w, v)
    total = np.zeros(3)
    for j in range(5):
        total = total + w[j] * v[j]
        np.testing.assert_allclose(steps.partial_sums[j + 1], total, atol=1e-9)
    np.testing.assert_allclose(steps.output, w @ v, atol=1e-9)
    assert (steps.partial_sums[0] == 0).all()


def test_weighted_sum_shape_error():
    with pytest.raises(ValueError, match=r"\(3,\) and \(4, 2\)"):
        weighted_sum.weighted_sum_steps(np.ones(3) / 3, np.ones((4, 2)))


# --- plots ----------------------------------------------------------------------------------

def _png(ax) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax.figure.savefig(buffer, format="png")
    import matplotlib.pyplot as plt

    plt.close(ax.figure)
    return buffer.getvalue()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_plots_render_with_their_texts(lang):
    qk.setup(lang)
    ax = qk.plots.plot_vectors_2d([1.0, 0.0], [0.0, 2.0])
    assert "θ = 90°" in ax.get_title() and "= 0.00" in ax.get_title()
    assert _png(ax)[:4] == b"\x89PNG"
    ax = qk.plots.plot_score_histogram(16)
    assert ax.get_title() == t("p_scal_hist_title", d_k=16)
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels[0].startswith(t("p_scal_raw_short").split(" ")[0])
    _png(ax)
    ax = qk.plots.plot_variance_vs_dk([1, 4, 16], [1.0, 4.0, 16.0], [1.0, 1.0, 1.0])
    assert ax.get_ylabel() == t("p_scal_variance")
    _png(ax)
    ax = qk.plots.plot_softmax_curves((0.5, 2.0), highlight=1.0)
    assert ax.get_title() == t("p_smax_title") and len(ax.lines) == 3
    steep, gentle = ax.lines[0].get_ydata(), ax.lines[1].get_ydata()
    assert steep[-1] > gentle[-1]  # smaller temperature, sharper step
    _png(ax)


# --- widgets --------------------------------------------------------------------------------

def _changes(panel, control, value, key):
    before_state = np.array(panel.state[key], dtype=float, copy=True)
    before_image = bytes(panel.live.image.value)
    panel.controls[control].value = value
    assert not np.array_equal(before_state, np.array(panel.state[key], dtype=float))
    assert bytes(panel.live.image.value) != before_image


def test_query_explorer_follows_the_dropdown():
    qk.setup("en")
    panel = qk.widgets.query_explorer()
    assert panel.state["top"] == "sat" and "sat" in panel.caption.value
    _changes(panel, "query", 5, "weights")
    ex = qk.running_example()
    np.testing.assert_allclose(
        panel.state["weights"], qk.scaled_dot_product_attention(ex.q, ex.k, ex.v).weights[5])
    assert panel.state["token"] == "mat"


def test_dot_product_explorer_angle_and_length():
    panel = qk.widgets.dot_product_explorer()
    _changes(panel, "angle", 120, "k")
    assert abs(panel.state["dot"]) < 1e-9 and t("w_dot_right") in panel.caption.value
    panel.controls["angle"].value = 30
    _changes(panel, "length", 2.0, "k")
    assert panel.state["dot"] == pytest.approx(1.5 * 2.0)


def test_scaling_explorer_dk():
    panel = qk.widgets.scaling_explorer()
    _changes(panel, "d_k", 256, "weights_raw")
    assert panel.state["max_raw"] > 0.9 and panel.state["grad_raw"] < 0.1
    assert panel.state["var_raw"] == pytest.approx(256, rel=0.1)
    assert "256" in panel.caption.value


def test_temperature_explorer():
    panel = qk.widgets.temperature_explorer()
    _changes(panel, "temperature", 0.1, "weights")
    assert panel.state["weights"].max() > 0.9
    panel.controls["temperature"].value = 10.0
    assert panel.state["weights"].max() - panel.state["weights"].min() < 0.1


def test_weighted_sum_stepper():
    panel = qk.widgets.weighted_sum_stepper()
    assert (panel.state["partial"] == 0).all()
    _changes(panel, "step", 3, "partial")
    ex = qk.running_example()
    w = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v).weights[1]
    np.testing.assert_allclose(panel.state["partial"], w[:3] @ ex.v[:3])
    _changes(panel, "query", 0, "partial")


# --- checks ---------------------------------------------------------------------------------

@pytest.fixture
def ex():
    qk.set_language("en")
    return qk.running_example()


def test_check_reordered_scores_in_the_sentences_order(ex):
    raw = ex.q @ ex.k.T
    order = np.arange(len(ex.tokens))

    def check(answer):
        return checks.check_reordered_scores(answer, ex, order, name="scores")

    assert check(...).ok is None
    assert check(raw).ok is True
    assert check(raw.T).message == t("check_l02_transposed", name="scores")
    assert check(raw / 2).message == t("check_l02_scaled", name="scores")
    assert check(raw + 1).ok is False


def test_check_stable_softmax(ex):
    def naive(x):
        return np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)

    def no_norm(x):
        return np.exp(x - x.max(axis=-1, keepdims=True)) * 1.3

    def broken(x):
        raise RuntimeError("oops")

    def unanswered(x):
        return ...

    assert checks.check_stable_softmax(...).ok is None
    assert checks.check_stable_softmax(unanswered).ok is None
    assert checks.check_stable_softmax(qk.softmax).ok is False  # the package's own
    def stable(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    assert checks.check_stable_softmax(stable).ok is True
    overflow = checks.check_stable_softmax(naive)
    assert overflow.ok is False and "NaN or infinity" in overflow.message
    sums = checks.check_stable_softmax(no_norm)
    assert sums.ok is False and "sums to" in sums.message
    assert "oops" in checks.check_stable_softmax(broken).message
    assert checks.check_stable_softmax(42).ok is False


def _stable(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_checks_speak_korean(ex):
    qk.set_language("ko")
    assert "아직" in checks.check_array(..., ex.k, "K").message
    assert "맞았어요" in checks.check_stable_softmax(
        _stable).message


def test_query_explorer_key_slider():
    qk.setup("en")
    panel = qk.widgets.query_explorer()
    before = bytes(panel.live.image.value)
    panel.controls["key"].value = 5
    assert panel.state["key"] == "mat" and "mat" in panel.caption.value
    assert bytes(panel.live.image.value) != before
    assert f"{panel.state['weights'][5]:.2f}" in panel.caption.value


def test_lesson_00_preview_shows_the_lessons_weights():
    """Lesson 00's slider at multiplier 1 shows the weights lessons 01-06 show for "cat"."""
    from qkv_helpers.classroom.widgets import widget_check

    ex = qk.running_example()
    panel = widget_check()
    panel.controls["sharpness"].value = 1.0
    lessons = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v).weights[ex.index("cat")]
    np.testing.assert_allclose(panel.state["weights"], lessons, rtol=1e-12)

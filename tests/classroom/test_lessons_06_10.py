"""Lessons 06-08 and 10: encoder/decoder experiments, pipeline, widgets, checks, quiz."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import qkv_helpers as qk
from qkv_helpers import checks, lang
from qkv_helpers.attention_steps import pipeline_steps
from qkv_helpers.classroom.quiz import QUESTIONS, grade, quiz_widget
from qkv_helpers.encoder_decoder import (
    attend_one_at_a_time,
    change_future_token,
    cross_attention_at_step,
    encoder_example,
    permutation_check,
    top_keys,
)


def naive_attention(q, k, v, mask=None):
    """Reference: loops over queries and keys, math.exp, no numpy softmax."""
    n_q, n_k = q.shape[0], k.shape[0]
    out = np.zeros((n_q, v.shape[1]))
    weights = np.zeros((n_q, n_k))
    for i in range(n_q):
        s = [sum(q[i, d] * k[j, d] for d in range(q.shape[1])) / math.sqrt(q.shape[1])
             for j in range(n_k)]
        allowed = [j for j in range(n_k) if mask is None or mask[i, j]]
        top = max(s[j] for j in allowed)
        e = {j: math.exp(s[j] - top) for j in allowed}
        total = sum(e.values())
        for j in allowed:
            weights[i, j] = e[j] / total
            out[i] += weights[i, j] * v[j]
    return out, weights


# --- encoder (lesson 06) --------------------------------------------------------

def test_encoder_heads_pick_different_keys():
    enc = encoder_example()
    weights = enc.mha(enc.x).weights  # (2, 7, 7)
    assert weights.shape == (2, 7, 7)
    np.testing.assert_allclose(weights.sum(-1), 1.0)
    first, second = top_keys(weights, enc.tokens)
    assert sum(a != b for a, b in zip(first, second)) == 7
    assert weights.max(-1).mean() > 0.4  # not nearly uniform (1/7 = 0.14)


def test_head_weights_match_the_naive_reference():
    enc = encoder_example()
    p = enc.mha.project(enc.x)
    weights = enc.mha(enc.x).weights
    for h in range(2):
        _, ref = naive_attention(p.q[h], p.k[h], p.v[h])
        np.testing.assert_allclose(weights[h], ref, atol=1e-12)


def test_top_keys():
    assert top_keys(np.array([[[0.1, 0.9], [0.7, 0.3]], [[0.6, 0.4], [0.2, 0.8]]]),
                    ["a", "b"]) == [["b", "a"], ["a", "b"]]
    with pytest.raises(ValueError, match="tokens has 3 labels but there are 2 keys"):
        top_keys(np.eye(2), ["a", "b", "c"])


@given(st.permutations(range(7)))
def test_permuting_tokens_permutes_output_rows(order):
    enc = encoder_example()
    result = permutation_check(enc.mha, enc.x, order)
    assert result.max_difference < 1e-12
    np.testing.assert_allclose(result.output_permuted, result.output[list(order)], atol=1e-12)
    if list(order) != list(range(7)):  # the output really moved
        assert not np.allclose(result.output_permuted, result.output)


def test_permutation_check_rejects_non_permutations():
    enc = encoder_example()
    with pytest.raises(ValueError, match="permutation of range"):
        permutation_check(enc.mha, enc.x, [0, 0, 1, 2, 3, 4, 5])


# --- decoder (lesson 07) ---------------------------------------------------------

@given(st.integers(0, 6), st.integers(0, 1000))
def test_changing_a_future_token_changes_no_earlier_output(position, seed):
    ex = qk.running_example()
    change = change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, position, seed=seed)
    assert (change.row_change[:position] == 0.0).all()
    assert (change.row_change[position:] > 0.0).all()


def test_without_the_mask_every_output_changes():
    ex = qk.running_example()
    change = change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, 5, masked=False)
    assert (change.row_change > 0.0).all()


def test_change_future_token_rejects_bad_position():
    ex = qk.running_example()
    with pytest.raises(ValueError, match="position must be an integer in 0..6"):
        change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, 7)


@given(st.integers(1, 9), st.integers(0, 100))
def test_one_at_a_time_equals_masked_at_once(n, seed):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(3, n, 4))
    ref, _ = naive_attention(q, k, v, mask=np.tri(n, dtype=bool))
    np.testing.assert_allclose(attend_one_at_a_time(q, k, v), ref, atol=1e-12)


# --- cross-attention (lesson 08) --------------------------------------------------

def test_cross_attention_keys_and_values_do_not_depend_on_the_step():
    ex = qk.translation_example()
    steps = [cross_attention_at_step(ex, s) for s in range(1, 6)]
    full, ref_weights = naive_attention(ex.q, ex.k, ex.v)
    for s in steps:
        assert s.q.shape == (s.step, 4) and s.weights.shape == (s.step, 7)
        assert (s.k == steps[0].k).all() and (s.v == steps[0].v).all()
        np.testing.assert_allclose(s.weights, ref_weights[: s.step], atol=1e-12)
    with pytest.raises(ValueError, match="step must be an integer in 1..5"):
        cross_attention_at_step(ex, 6)


# --- pipeline (lesson 10) ----------------------------------------------------------

@pytest.mark.parametrize("masked", [False, True])
def test_pipeline_steps_match_reference(masked):
    ex = qk.running_example()
    mask = qk.causal_mask(7) if masked else None
    steps = pipeline_steps(ex.x, ex.w_q, ex.w_k, ex.w_v, mask=mask)
    out, weights = naive_attention(ex.q, ex.k, ex.v, mask=mask)
    np.testing.assert_allclose(steps.weights, weights, atol=1e-12)
    np.testing.assert_allclose(steps.output, out, atol=1e-12)
    np.testing.assert_allclose(steps.scaled * 2.0, steps.scores)  # √d_k = 2


def test_pipeline_steps_errors_name_the_argument():
    ex = qk.running_example()
    with pytest.raises(ValueError, match=r"w_k must have shape \(d_model, d\) = \(8, d\)"):
        pipeline_steps(ex.x, ex.w_q, ex.w_k[:5], ex.w_v)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_plot_pipeline_renders_with_shapes(language):
    import matplotlib.pyplot as plt

    qk.setup(language)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = qk.plots.plot_pipeline()
        fig.savefig(io.BytesIO(), format="png", dpi=50)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith(lang.t("plot_pipeline_x")) and "(7, 8)" in titles[0]
    assert any(title.startswith(lang.t("plot_pipeline_weights")) and "(7, 7)" in title
               for title in titles)
    assert [label.get_text() for label in fig.axes[0].get_yticklabels()] == list(
        qk.running_example().tokens)
    plt.close(fig)


# --- widgets -------------------------------------------------------------------------

def _changed(panel, control, value):
    before_state, before_image = panel.state, bytes(panel.live.image.value)
    before_caption = panel.caption.value
    panel.controls[control].value = value
    assert panel.live.image.value != before_image
    assert panel.caption.value != before_caption
    return before_state, panel.state


@pytest.mark.parametrize("language", ["ko", "en"])
def test_head_selector_redraws_the_chosen_head(language):
    qk.setup(language)
    panel = qk.widgets.head_selector()
    before, after = _changed(panel, "head", 1)
    enc = encoder_example()
    weights = enc.mha(enc.x).weights
    np.testing.assert_array_equal(before["weights"], weights[0])
    np.testing.assert_array_equal(after["weights"], weights[1])
    assert after["differ"] == 7
    assert lang.t("w_heads_option", number=1) in [o[0] for o in panel.controls["head"].options]


@pytest.mark.parametrize("language", ["ko", "en"])
def test_causal_mask_explorer_follows_the_position(language):
    qk.setup(language)
    panel = qk.widgets.causal_mask_explorer()
    before, after = _changed(panel, "position", 5)
    assert before["visible"] == ["The", "cat", "sat"]
    assert after["visible"] == ["The", "cat", "sat", "on", "the", "mat"]
    assert after["hidden"] == ["."]
    assert after["weights_row"][6] == 0.0 and np.isneginf(after["masked_row"][6])
    np.testing.assert_allclose(after["weights_row"].sum(), 1.0)
    # the slider's label is shown whole ("query position", not "query pos…")
    assert panel.controls["position"].style.description_width == "initial"


@pytest.mark.parametrize("language", ["ko", "en"])
def test_cross_attention_explorer_follows_the_target_token(language):
    qk.setup(language)
    panel = qk.widgets.cross_attention_explorer()
    ex = qk.translation_example()
    for row in (1, 2, 3):
        before, after = _changed(panel, "target", row)
        assert after["token"] == ex.target_tokens[row]
        assert after["source"] == ex.source_tokens[ex.alignment[row]]
        assert before["row"] != after["row"]


# --- checks --------------------------------------------------------------------------

def test_check_head_output():
    lang.set_language("en")
    enc = encoder_example()
    p = enc.mha.project(enc.x)
    right = qk.scaled_dot_product_attention(p.q[1], p.k[1], p.v[1]).output
    assert checks.check_head_output(right, enc.mha, enc.x, head=1).ok is True
    assert checks.check_head_output(..., enc.mha, enc.x, head=1).ok is None
    unscaled = qk.softmax(p.q[1] @ p.k[1].T) @ p.v[1]
    feedback = checks.check_head_output(unscaled, enc.mha, enc.x, head=1)
    assert feedback.ok is False and "√d_k = 2" in feedback.message
    other = qk.scaled_dot_product_attention(p.q[0], p.k[0], p.v[0]).output
    feedback = checks.check_head_output(other, enc.mha, enc.x, head=1)
    assert feedback.ok is False and "head 0" in feedback.message
    no_softmax = (p.q[1] @ p.k[1].T / 2) @ p.v[1]
    assert "softmax" in checks.check_head_output(no_softmax, enc.mha, enc.x, head=1).message
    assert checks.check_head_output("x", enc.mha, enc.x, head=1).ok is False


def test_check_causal_mask():
    lang.set_language("en")
    assert checks.check_causal_mask(qk.causal_mask(2, 5), 2, 5).ok is True
    assert checks.check_causal_mask(qk.causal_mask(2, 5).astype(int), 2, 5).ok is True
    assert checks.check_causal_mask(..., 2, 5).ok is None
    square = checks.check_causal_mask(np.tri(2, 5, dtype=bool), 2, 5)  # the n_q = n_k mask
    assert square.ok is False and square.key == "check_l07_top_left"  # named (issue 23)
    assert "positions 3 to 4" in square.message
    assert "(5, 5)" in checks.check_causal_mask(qk.causal_mask(5), 2, 5).message
    assert "True/False" in checks.check_causal_mask(np.full((2, 5), 0.5), 2, 5).message
    future = checks.check_causal_mask(np.ones((2, 5), bool), 2, 5)
    assert future.ok is False and "key 4" in future.message


def test_check_cross_weights_shape():
    lang.set_language("ko")
    ex = qk.translation_example()
    assert checks.check_cross_weights_shape((5, 7), ex).ok is True
    assert checks.check_cross_weights_shape(..., ex).ok is None
    transposed = checks.check_cross_weights_shape((7, 5), ex)
    assert transposed.ok is False and "디코더" in transposed.message
    assert checks.check_cross_weights_shape((5, 4), ex).ok is False
    assert checks.check_cross_weights_shape("five", ex).ok is False


# --- quiz ------------------------------------------------------------------------------

def test_quiz_data_is_complete_in_both_languages():
    assert len(QUESTIONS) == 10
    positions = set()
    for question in QUESTIONS:
        assert sorted(question.order) == [0, 1, 2, 3] and question.answer in question.order
        positions.add(question.order.index(question.answer))
        for language in ("ko", "en"):
            lang.set_language(language)
            assert question.text and question.why
            assert len(set(question.choices)) == 4
    assert len(positions) >= 3  # the right answer is not always in the same place


def test_quiz_covers_the_kv_cache_misconceptions():
    lang.set_language("en")
    texts = " ".join(q.text for q in QUESTIONS)
    assert "what does the KV cache do to memory" in texts and "queries not cached" in texts
    assert "When is the KV cache used" in texts
    assert grade(7, 0).ok is False  # "yes, it reduces memory" is wrong
    assert grade(8, 2).ok is False  # "queries are cached too" is wrong
    assert grade(9, 0).ok is False  # "in training" is wrong


@pytest.mark.parametrize("language", ["ko", "en"])
def test_quiz_widget_gives_feedback_when_answered(language):
    qk.setup(language)
    panel = quiz_widget()
    assert panel.state["answered"] == 0 and panel.state["feedback"]["q07"] is None
    panel.controls["q07"].value = 0  # wrong: a hint, not the explanation
    assert panel.state["feedback"]["q07"].ok is False
    assert lang.t("quiz_q07_hint") in panel.state["feedback"]["q07"].message
    assert lang.t("quiz_q07_why") not in panel.state["feedback"]["q07"].message
    assert panel.state["right"] == 0 and panel.state["answered"] == 1
    panel.controls["q07"].value = 1  # changed to the right answer: not a first try
    assert panel.state["feedback"]["q07"].ok is True and panel.state["right"] == 0
    assert lang.t("quiz_q07_why") in panel.state["feedback"]["q07"].message
    assert panel.caption.value == lang.t("quiz_score", right=0, total=10, answered=1)
    with pytest.raises(TypeError, match=r"choice.*\[0, 1, 2, 3\].*7"):  # the lesson's language
        grade(1, 7)


def test_check_masked_output_on_the_running_example():
    lang.set_language("en")
    ex = qk.running_example()
    mask = qk.causal_mask(7)

    def check(answer):
        return checks.check_masked_output(answer, ex.x, ex.w_q, ex.w_k, ex.w_v)

    right = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=mask).output
    assert check(right).ok is True
    assert check(...).ok is None
    unmasked = check(qk.scaled_dot_product_attention(ex.q, ex.k, ex.v).output)
    assert unmasked.ok is False and "causal mask" in unmasked.message
    unscaled = qk.softmax(np.where(mask, ex.q @ ex.k.T, -np.inf)) @ ex.v
    feedback = check(unscaled)
    assert feedback.ok is False and "√d_k = 2" in feedback.message
    assert check(right[:3]).ok is False


@pytest.mark.parametrize("language", ["ko", "en"])
def test_pipeline_explorer_follows_the_query(language):
    qk.setup(language)
    panel = qk.widgets.pipeline_explorer()
    before, after = _changed(panel, "query", 3)
    steps = pipeline_steps(*(getattr(qk.running_example(), n) for n in ("x", "w_q", "w_k", "w_v")))
    assert before["token"] == "cat" and before["top"] == "sat"
    assert after["token"] == "on" and after["top"] == "the"
    assert after["weight"] == pytest.approx(steps.weights[3].max())
    assert after["scaled"] == pytest.approx(after["score"] / 2)
    np.testing.assert_array_equal(after["output"], steps.output[3])

"""Lesson 11's widget, plots and exercise check (the model itself: test_pretrained.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qkv_helpers as qk
from qkv_helpers.classroom.checks import check_head_weights
from qkv_helpers.classroom.widgets.real_model import minilm_explorer, mosaic
from qkv_helpers.lang import set_language
from qkv_helpers.pretrained import load_minilm, weighted_value_norms

TEXT = "A dog slept on the rug."


@pytest.fixture(scope="module")
def model():
    return load_minilm()


def test_mosaic_places_every_tile(model):
    rng = np.random.default_rng(0)
    w = rng.random((3, 4, 5, 5))
    image = mosaic(w)
    assert image.shape == (3 * 6 - 1, 4 * 6 - 1)
    for layer in range(3):
        for head in range(4):
            np.testing.assert_array_equal(
                image[layer * 6:layer * 6 + 5, head * 6:head * 6 + 5], w[layer, head])
    assert np.isnan(image[5]).all() and np.isnan(image[:, 5]).all()  # the gaps


@pytest.mark.parametrize("language", ["ko", "en"])
def test_explorer_follows_layer_head_and_sentence(model, language):
    qk.setup(lang=language)
    panel = minilm_explorer(model=model)
    first = bytes(panel.live.image.value)
    panel.controls["layer"].value, panel.controls["head"].value = 4, 5
    assert panel.state["layer"] == 4 and panel.state["head"] == 5
    out = model("The cat sat on the mat.")
    np.testing.assert_array_equal(panel.state["weights"], out.attentions[4][0, 5])
    assert str(panel.state["label"]) == "cls"
    assert bytes(panel.live.image.value) != first
    panel.controls["text"].value = TEXT
    np.testing.assert_array_equal(panel.state["weights"], model(TEXT).attentions[4][0, 5])
    assert panel.state["tokens"] == model(TEXT).tokens[0]
    assert qk.t("l11_pattern_cls") in panel.caption.value


@pytest.mark.parametrize("bad", ["", "   ", "word " * 600])
def test_explorer_refuses_bad_sentences_without_raising(model, bad):
    qk.setup(lang="en")
    panel = minilm_explorer(model=model)
    before = panel.state["tokens"]
    panel.controls["text"].value = bad
    assert panel.state["tokens"] == before and panel.state["error"]
    assert "cannot be used" in panel.caption.value
    panel.controls["text"].value = TEXT  # and it recovers
    assert panel.state["error"] is None and panel.state["tokens"][1] == "a"


def test_plots_render(model):
    qk.setup(lang="ko")
    out = model("The cat sat on the mat.")
    fig = qk.plots.plot_head_scores(qk.pretrained.head_scores(out))
    assert len(fig.axes) == 7
    vn = weighted_value_norms(model, out, 4, 5)
    fig = qk.plots.plot_weight_vs_contribution(vn, out.tokens[0], query=2)
    bars = fig.axes[0].patches
    heights = [b.get_height() for b in bars]
    np.testing.assert_allclose(heights[:9], vn.weights[2], rtol=1e-6)
    assert math.isclose(sum(heights[9:]), 1.0, rel_tol=1e-6)


# --- the exercise check ---------------------------------------------------------------------


def _head_by_hand(model, text, layer, head, *, scale=True, bias=True, x_layer=None):
    out = model(text)
    mha = model.layers[layer].attention
    cols = slice(32 * head, 32 * (head + 1))
    x = out.hidden_states[layer if x_layer is None else x_layer][0].astype(np.float64)
    q = x @ mha.w_q[:, cols] + (mha.b_q[cols] if bias else 0)
    k = x @ mha.w_k[:, cols] + (mha.b_k[cols] if bias else 0)
    s = q @ k.T / (math.sqrt(32) if scale else 1.0)
    w = np.exp(s - s.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


def test_check_head_weights_accepts_the_computation_by_hand(model):
    set_language("en")
    assert check_head_weights(_head_by_hand(model, TEXT, 0, 2), model, TEXT, 0, 2).ok is True
    # and with the package's attention, as the solution does
    out = model(TEXT)
    p = model.layers[3].attention.project(out.hidden_states[3][0])
    answer = qk.scaled_dot_product_attention(p.q[7], p.k[7], p.v[7]).weights
    assert check_head_weights(answer, model, TEXT, 3, 7).ok is True


@pytest.mark.parametrize("slip, key", [
    (dict(scale=False), "without scaling"),
    (dict(bias=False), "leaves out the biases"),
    (dict(x_layer=1), "another layer's input"),
])
def test_check_head_weights_names_the_slip(model, slip, key):
    set_language("en")
    feedback = check_head_weights(_head_by_hand(model, TEXT, 2, 4, **slip), model, TEXT, 2, 4)
    assert feedback.ok is False and key in feedback.message


def test_check_head_weights_other_head_and_transposed(model):
    set_language("en")
    other = check_head_weights(_head_by_hand(model, TEXT, 0, 3), model, TEXT, 0, 2)
    assert other.ok is False and "head 3" in other.message and "64:96" in other.message
    transposed = check_head_weights(_head_by_hand(model, TEXT, 0, 2).T, model, TEXT, 0, 2)
    assert transposed.ok is False and "turned around" in transposed.message


@pytest.mark.parametrize("answer", [
    "0.5", b"1", 1 + 2j, np.ones((8, 8)) * 1j, [[1, 2], [3]], {"a": 1}, None, ...,
    np.full((8, 8), np.nan), np.ones((8, 7)), object(), [["a"] * 8] * 8, 3.0,
])
def test_check_head_weights_never_raises_and_never_accepts_junk(model, answer):
    set_language("ko")
    feedback = check_head_weights(answer, model, TEXT, 0, 2)
    assert feedback.ok is not True
    assert feedback.message


@settings(max_examples=25)
@given(st.floats(-1e6, 1e6), st.integers(0, 7), st.integers(0, 7))
def test_check_head_weights_rejects_any_changed_entry(model_delta, i, j):
    model = load_minilm()
    right = model(TEXT).attentions[0][0, 2].astype(float)  # (8, 8)
    if abs(model_delta) <= 1e-4:
        return
    wrong = right.copy()
    wrong[i, j] += model_delta
    assert check_head_weights(wrong, model, TEXT, 0, 2).ok is False


def test_check_head_weights_with_a_hidden_key(model):
    set_language("en")
    hidden_answer = _head_by_hand(model, TEXT, 4, 5)  # nothing hidden yet
    feedback = check_head_weights(hidden_answer, model, TEXT, 4, 5, hide_keys=[0])
    assert feedback.ok is False and "[CLS] must get weight exactly 0" in feedback.message
    # by hand: [CLS]'s column removed before softmax
    out = model(TEXT)
    mha = model.layers[4].attention
    cols = slice(160, 192)
    x = out.hidden_states[4][0].astype(np.float64)
    q, k = x @ mha.w_q[:, cols] + mha.b_q[cols], x @ mha.w_k[:, cols] + mha.b_k[cols]
    s = q @ k.T / math.sqrt(32)
    s[:, 0] = -np.inf
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    assert check_head_weights(w, model, TEXT, 4, 5, hide_keys=[0]).ok is True
    assert check_head_weights(w, model, TEXT, 4, 5).ok is False


@pytest.mark.parametrize("language", ["ko", "en"])
@pytest.mark.parametrize("bad, key", [("", "w_l11_empty"), ("   ", "w_l11_empty"),
                                      ("\u200b", "w_l11_no_token"),
                                      ("word " * 600, "w_l11_too_long")])
def test_explorer_says_why_in_the_boxs_own_words(model, language, bad, key):
    """A teacher's read: an empty box showed "texts: 비어 있어요(''). 문장을 넣어 주세요.. ":
    an argument name the box has none of, and two periods."""
    qk.setup(lang=language)
    try:
        panel = minilm_explorer(model=model)
        panel.controls["text"].value = bad
        why = panel.caption.value.split("<br>")[0]
        expected = qk.t("w_l11_error", error=qk.t(key, n=602, positions=512))
    finally:
        qk.setup(lang="en")
    assert why == expected, why
    assert ".." not in why and "texts" not in why and "(''" not in why, why


@pytest.mark.parametrize("language", ["en", "ko"])
def test_check_head_weights_names_an_inverted_mask(model, language):
    """True at [CLS] only (the key to hide) sees nothing but [CLS]: named, not a bare index."""
    set_language(language)
    out = model(TEXT)
    p = model.layers[4].attention.project(out.hidden_states[4][0])
    n = p.q.shape[1]
    inverted = np.array([True] + [False] * (n - 1))
    answer = qk.scaled_dot_product_attention(p.q[5], p.k[5], p.k[5], mask=inverted).weights
    feedback = check_head_weights(answer, model, TEXT, 4, 5, hide_keys=[0])
    assert feedback.ok is False and feedback.key == "check_l11_inverted_mask", feedback.message
    assert "[CLS]" in feedback.message and "True" in feedback.message
    set_language("en")


def test_check_l11_unscaled_says_softmax_in_korean():
    from qkv_helpers.lang import STRINGS

    assert "softmax" not in STRINGS["ko"]["check_l11_unscaled"]
    assert "소프트맥스(q·kᵀ)" in STRINGS["ko"]["check_l11_unscaled"]

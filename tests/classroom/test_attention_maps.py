"""The shared attention pictures, the widget machinery, lesson 00's widget and the checks."""

from __future__ import annotations

import io
import logging
import warnings

import numpy as np
import pytest

import qkv_helpers as qk
from qkv_helpers import checks, plots
from qkv_helpers.lang import STRINGS


@pytest.fixture(params=["ko", "en"])
def lang(request):
    qk.setup(lang=request.param)
    yield request.param
    qk.setup(lang="en")


def render(ax) -> bytes:
    """Render the figure to PNG; any warning (a missing glyph among them) fails the test."""
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("matplotlib")
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            buffer = io.BytesIO()
            ax.figure.savefig(buffer, format="png")
    finally:
        logger.removeHandler(handler)
        import matplotlib.pyplot as plt

        plt.close(ax.figure)
    assert not [r for r in records if r.levelno >= logging.WARNING]
    return buffer.getvalue()


def tick_texts(labels) -> list[str]:
    return [label.get_text() for label in labels]


def test_heatmap_labels_values_and_title(lang):
    ex = qk.running_example()
    weights = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v).weights
    ax = plots.plot_attention_heatmap(weights, ex.tokens, highlight_row=1)
    assert tick_texts(ax.get_xticklabels()) == list(ex.tokens)
    assert tick_texts(ax.get_yticklabels()) == list(ex.tokens)
    assert ax.get_title() == STRINGS[lang]["weights"]
    cell_texts = [text.get_text() for text in ax.texts]
    assert len(cell_texts) == 49
    assert cell_texts[1 * 7 + 2] == f"{weights[1, 2]:.2f}"  # row "cat", column "sat"
    assert render(ax)[:4] == b"\x89PNG"


def test_heatmap_rejects_labels_that_do_not_match():
    with pytest.raises(ValueError, match="row_labels has 2 labels but the rows"):
        plots.plot_attention_heatmap(np.eye(3), ["a", "b"])
    with pytest.raises(ValueError, match=r"weights must have 2 dimension.*\(3,\)"):
        plots.plot_attention_heatmap(np.ones(3), ["a", "b", "c"])


def test_heatmap_title_says_what_it_shows(lang):
    weights = plots.plot_attention_heatmap([[0.9, 0.1], [0.3, 0.7]], ["a", "b"])
    scores = plots.plot_attention_heatmap([[-2.0, 1.0], [0.5, 0.0]], ["a", "b"], signed=True)
    assert weights.get_title() == {"en": "attention weights", "ko": "어텐션 가중치"}[lang]
    assert scores.get_title() == {"en": "similarity score", "ko": "유사도 점수"}[lang]


def test_signed_heatmap_is_centred_on_zero():
    ax = plots.plot_attention_heatmap([[-2.0, 1.0], [0.5, 0.0]], ["a", "b"], signed=True)
    image = ax.images[0]
    assert image.norm.vmin == -2.0 and image.norm.vmax == 2.0
    render(ax)


def test_query_bars(lang):
    ax = plots.plot_query_bars([0.1, -0.5, 0.4], ["The", "cat", "sat"], highlight=2,
                               title="t")
    heights = [patch.get_height() for patch in ax.patches]
    assert heights == pytest.approx([0.1, -0.5, 0.4])
    assert ax.patches[2].get_facecolor() != ax.patches[0].get_facecolor()
    assert tick_texts(ax.get_xticklabels()) == ["The", "cat", "sat"]
    assert ax.get_xlabel() == STRINGS[lang]["key"]
    render(ax)


def test_masked_scores_marks_exactly_the_masked_cells(lang):
    ex = qk.running_example()
    scores = ex.q @ ex.k.T
    mask = qk.causal_mask(7)
    ax = plots.plot_masked_scores(scores, mask, ex.tokens)
    texts = [text.get_text() for text in ax.texts]
    assert texts.count("−∞") == int((~mask).sum()) == 21
    assert f"{scores[6, 0]:.2f}" in texts
    assert f"{scores[0, 6]:.2f}" not in texts or scores[0, 6] == scores[6, 0]
    assert ax.get_title() == STRINGS[lang]["masked_scores"]
    render(ax)


def test_masked_weights_show_zero_in_the_hidden_cells():
    ex = qk.running_example()
    mask = qk.causal_mask(7)
    weights = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=mask).weights
    ax = plots.plot_masked_scores(weights, mask, ex.tokens)
    texts = [text.get_text() for text in ax.texts]
    assert "−∞" not in texts
    assert texts.count("0") == 21  # one per hidden cell; visible ones read 0.xx or 1.00
    assert ax.images[0].norm.vmin == 0.0 and ax.images[0].norm.vmax == 1.0
    render(ax)


def test_masked_scores_with_cache_shaped_mask_labels_the_last_queries():
    ax = plots.plot_masked_scores(np.zeros((2, 4)), qk.causal_mask(2, 4), list("abcd"))
    assert tick_texts(ax.get_yticklabels()) == ["c", "d"]
    # attention's mask rules (validate.attention_mask): a float mask is a TypeError there
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        plots.plot_masked_scores(np.zeros((2, 4)), np.ones((2, 4)), list("abcd"))
    with pytest.raises(ValueError, match="mask allows no key for query row 0"):
        plots.plot_masked_scores(np.zeros((2, 4)), np.array([[False] * 4, [True] * 4]),
                                 list("abcd"))
    render(ax)


def test_cross_attention_axes(lang):
    tr = qk.translation_example()
    weights = qk.scaled_dot_product_attention(tr.q, tr.k, tr.v).weights
    ax = plots.plot_cross_attention(weights, tr.target_tokens, tr.source_tokens)
    assert tick_texts(ax.get_yticklabels()) == list(tr.target_tokens)  # Hangul on the axis
    assert tick_texts(ax.get_xticklabels()) == list(tr.source_tokens)
    assert ax.get_ylabel() == STRINGS[lang]["target_tokens"]
    render(ax)


def test_widget_check_redraws_when_the_slider_moves(lang):
    panel = qk.widgets.widget_check()
    slider = panel.controls["sharpness"]
    before_weights = panel.state["weights"].copy()
    before_png = bytes(panel.live.image.value)
    before_caption = panel.caption.value
    slider.value = 3.0
    assert not np.allclose(panel.state["weights"], before_weights)
    assert bytes(panel.live.image.value) != before_png
    assert panel.caption.value != before_caption
    assert panel.live.redraws == 2
    ex = qk.running_example()
    expected = qk.softmax(3.0 * (ex.q @ ex.k.T)[1] / np.sqrt(ex.q.shape[-1]))  # scaled scores
    np.testing.assert_allclose(panel.state["weights"], expected)
    assert repr(panel) == "<Panel: widget_check>"


def test_live_figure_does_not_pile_up_pyplot_figures():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    panel = qk.widgets.widget_check()
    for value in (0.5, 1.5, 2.5):
        panel.controls["sharpness"].value = value
    assert plt.get_fignums() == before
    assert len(panel.live.figure.axes) == 1


def test_feedback_in_both_languages(lang):
    right = checks.check_weights(np.array([[0.5, 0.5]]), np.array([[0.5, 0.5]]))
    assert right.ok is True and right.message == STRINGS[lang]["check_right"].format(
        name="weights")
    rows = checks.check_weights(np.array([[0.8, 0.5]]), np.array([[0.5, 0.5]]))
    assert rows.ok is False and "1.3" in rows.message
    negative = checks.check_weights(np.array([[1.5, -0.5]]), np.array([[0.5, 0.5]]))
    assert negative.ok is False
    assert negative.message == STRINGS[lang]["check_negative"].format(name="weights")
    assert checks.check_weights(..., np.ones((1, 2))).ok is None
    wrong_value = checks.check_array(np.array([1.0, 2.5]), np.array([1.0, 2.0]), "v")
    assert wrong_value.ok is False and "(1,)" in wrong_value.message
    assert checks.check_array("text", np.ones(2), "v").ok is False


def test_check_value_for_numbers_and_shapes():
    assert checks.check_value((7, 4), (7, 4), "shape").ok is True
    assert checks.check_value([7, 4], (7, 4), "shape").ok is True
    assert checks.check_value((4, 7), (7, 4), "shape").ok is False
    assert checks.check_value(8.0, 8, "x").ok is True
    assert checks.check_value("eight", 8, "x").ok is False
    assert checks.check_value(None, 8, "x").ok is None


def test_feedback_shows_as_html_with_the_message_escaped():
    feedback = checks.Feedback(False, "a < b")
    assert "a &lt; b" in feedback._repr_html_()
    assert not feedback and repr(feedback).startswith("❌")

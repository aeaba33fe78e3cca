"""The running examples: the properties the lessons tell the learner about."""

from __future__ import annotations

import numpy as np
import pytest

from qkv_helpers import (
    causal_mask,
    running_example,
    scaled_dot_product_attention,
    translation_example,
)

# What each Korean token translates, by a reader of both languages (not from the code).
KOREAN_TO_ENGLISH = {"고양이가": "cat", "매트": "mat", "위에": "on", "앉았다": "sat", ".": "."}


def test_running_example_sentence_and_shapes():
    ex = running_example()
    assert ex.sentence == "The cat sat on the mat."
    assert ex.tokens == ("The", "cat", "sat", "on", "the", "mat", ".")
    assert ex.x.shape == (7, 8)
    for w in (ex.w_q, ex.w_k, ex.w_v):
        assert w.shape == (8, 4)
    assert ex.q.shape == ex.k.shape == ex.v.shape == (7, 4)
    assert (ex.d_model, ex.d_k) == (8, 4)


def test_running_example_projections_are_x_times_w():
    ex = running_example()
    np.testing.assert_array_equal(ex.q, ex.x @ ex.w_q)
    np.testing.assert_array_equal(ex.k, ex.x @ ex.w_k)
    np.testing.assert_array_equal(ex.v, ex.x @ ex.w_v)


def test_cats_query_scores_sat_highest():
    ex = running_example()
    cat, sat = ex.index("cat"), ex.index("sat")
    scores = ex.q @ ex.k.T  # (tokens, tokens)
    assert scores[cat].argmax() == sat
    assert (scores[cat][np.arange(7) != sat] < scores[cat, sat]).all()  # strictly, no tie
    _, w = scaled_dot_product_attention(ex.q, ex.k, ex.v)
    assert w[cat].argmax() == sat
    # the scaled weights are softmax of the same scores: same order
    np.testing.assert_array_equal(np.argsort(w[cat]), np.argsort(scores[cat]))


def test_sat_is_not_visible_to_cat_under_the_causal_mask():
    """Lesson 07: in a decoder "cat" (position 1) cannot look ahead at "sat" (position 2)."""
    ex = running_example()
    _, w = scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=causal_mask(7))
    assert w[ex.index("cat"), ex.index("sat")] == 0.0
    np.testing.assert_allclose(w[ex.index("cat"), :2].sum(), 1.0, rtol=1e-12)


def test_index_of_a_token():
    ex = running_example()
    assert ex.index("The") == 0 and ex.index("the") == 4 and ex.index(".") == 6
    with pytest.raises(ValueError,
                       match=r"token must be one of the tokens \('The', 'cat'.*got 'dog'"):
        ex.index("dog")


def test_examples_are_deterministic_and_fresh():
    a, b = running_example(), running_example()
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.w_q, b.w_q)
    a.x[:] = 0  # a learner changing the numbers
    assert not np.array_equal(running_example().x, a.x)
    t1, t2 = translation_example(), translation_example()
    np.testing.assert_array_equal(t1.target_x, t2.target_x)
    t1.target_x[:] = 0
    assert not np.array_equal(translation_example().target_x, t1.target_x)


def test_another_seed_gives_other_numbers_of_the_same_shapes():
    a, b = running_example(), running_example(seed=1)
    assert a.x.shape == b.x.shape and a.w_q.shape == b.w_q.shape
    assert not np.array_equal(a.x, b.x)


def test_translation_example_tokens_and_shapes():
    ex = translation_example()
    assert ex.source_tokens == running_example().tokens
    assert ex.target_tokens == ("고양이가", "매트", "위에", "앉았다", ".")
    assert ex.source_x.shape == (7, 8) and ex.target_x.shape == (5, 8)
    assert ex.q.shape == (5, 4) and ex.k.shape == (7, 4) and ex.v.shape == (7, 4)
    np.testing.assert_array_equal(ex.q, ex.target_x @ ex.w_q)
    np.testing.assert_array_equal(ex.k, ex.source_x @ ex.w_k)
    np.testing.assert_array_equal(ex.v, ex.source_x @ ex.w_v)
    # the encoder output is the running example's sentence
    np.testing.assert_array_equal(ex.source_x, running_example().x)


def test_alignment_is_the_translation():
    ex = translation_example()
    assert len(ex.alignment) == len(ex.target_tokens)
    got = {ko: ex.source_tokens[j] for ko, j in zip(ex.target_tokens, ex.alignment)}
    assert got == KOREAN_TO_ENGLISH


def test_each_korean_token_attends_most_to_its_english_token():
    ex = translation_example()
    scores = ex.q @ ex.k.T  # (target tokens, source tokens)
    out, w = scaled_dot_product_attention(ex.q, ex.k, ex.v)
    assert w.shape == (5, 7) and out.shape == (5, 4)
    np.testing.assert_array_equal(scores.argmax(axis=1), ex.alignment)
    np.testing.assert_array_equal(w.argmax(axis=1), ex.alignment)
    for i, j in enumerate(ex.alignment):  # strictly largest: no tie
        assert (np.delete(w[i], j) < w[i, j]).all()

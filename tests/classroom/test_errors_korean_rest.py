"""The rest of the package's errors read in Korean in Korean mode (issue 35).

tests/test_errors_every_raise.py proves by AST that every raise goes through ``lang.t``;
this file triggers a sample of the raises converted last (attention, the fast and tiled
paths, the KV cache's arithmetic, long context, the plots, the toy corpus, the widgets)
the way a learner would, and reads the message: Korean, a whole sentence (it ends with a
period), the argument named, the values it got. In English mode the same call still says
what the English tests match.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import qkv_helpers as qk
from qkv_helpers import lang

HANGUL = re.compile("[가-힣]")


def _split_heads():
    qk.MultiHeadAttention(8, 2).split_heads(np.ones((3, 6)))


def _from_weights_wrong_w_v():
    eye = np.eye(4)
    qk.MultiHeadAttention.from_weights(2, eye, eye, np.eye(3), eye)


def _pipeline_w_q_w_k():
    from qkv_helpers.attention_steps import pipeline_steps
    pipeline_steps(np.ones((7, 8)), np.ones((8, 4)), np.ones((8, 3)), np.ones((8, 4)))


def _blocked_block_size():
    from qkv_helpers.fast import blocked_attention
    x = np.ones((3, 2))
    blocked_attention(x, x, x, block_size=0)


def _one_query_with_three():
    from qkv_helpers.fast import one_query_attention
    x = np.ones((1, 3, 2))
    one_query_attention(x, x, x)


def _fill_with_a_float_mask():
    from qkv_helpers.float_limits import fill_and_softmax
    fill_and_softmax(np.zeros((2, 2)), np.ones((2, 2)))


def _more_new_tokens_than_context():
    from qkv_helpers.kv_cache.arithmetic import step_flops_by_part
    step_flops_by_part(5, 3, d_model=2, n_layers=1, vocab_size=5)


def _fit_of_different_lengths():
    from qkv_helpers.kv_cache.arithmetic import fit_step_time
    fit_step_time([10, 20], [1e6, 2e6, 3e6], [0.1, 0.2])


def _fit_without_steps():
    from qkv_helpers.kv_cache.arithmetic import fit_step_time
    fit_step_time([0, 0], [1e6, 2e6], [0.1, 0.2])


def _window_cache_two_tokens():
    from qkv_helpers.kv_cache import SlidingWindowKVCache
    cache = SlidingWindowKVCache(2, 4, window=3)
    cache.append(np.ones((2, 2, 4)), np.ones((2, 2, 4)))


def _loglog_of_zero():
    from qkv_helpers.measure.long_context import loglog_slope
    loglog_slope([1, 2], [0, 1])


def _request_longer_than_max_len():
    from qkv_helpers.measure.long_context import serve_requests
    serve_requests([3, 100], max_len=64)


def _sliding_window_mask_without_window():
    from qkv_helpers.masks import sliding_window_mask
    sliding_window_mask(5)


def _heatmap_of_scores():
    from qkv_helpers.classroom.plots.attention_maps import plot_attention_heatmap
    plot_attention_heatmap(np.array([[2.0, -1.0], [0.5, 0.5]]), ["a", "b"])


def _heatmap_with_one_label():
    from qkv_helpers.classroom.plots.attention_maps import plot_attention_heatmap
    plot_attention_heatmap(np.full((2, 2), 0.5), ["a"])


def _three_d_vectors_in_a_plane():
    from qkv_helpers.classroom.plots.similarity import plot_vectors_2d
    plot_vectors_2d([1.0, 2.0, 3.0], [1.0, 0.0])


def _softmax_curves_of_a_string():
    from qkv_helpers.classroom.plots.softmax_curves import plot_softmax_curves
    plot_softmax_curves("hot")


def _cosine_of_a_zero_row():
    from qkv_helpers.positions import cosine_similarity_matrix
    cosine_similarity_matrix([[1.0, 0.0], [0.0, 0.0]])


def _order_not_a_permutation():
    from qkv_helpers.positions import causal_permutation_check
    causal_permutation_check(qk.MultiHeadAttention(4, 2), np.ones((3, 4)), [0, 0, 1])


def _jacobian_of_non_probabilities():
    from qkv_helpers.score_scale import softmax_jacobian
    softmax_jacobian([0.5, 0.6])


def _query_scores_of_different_widths():
    from qkv_helpers.similarity import query_scores
    query_scores(np.ones((2, 4)), np.ones((3, 3)), 0)


def _particle_after_a_latin_letter():
    from qkv_helpers.toy_corpus import has_final_consonant
    has_final_consonant("a")


def _corpus_with_half_held_out():
    from qkv_helpers.toy_corpus import make_corpus
    make_corpus(n_train=10, n_valid=2, n_heldout=2, heldout_fraction=0.5)


def _stepper_with_another_word():
    from qkv_helpers.classroom.widgets.kv_cache import kv_cache_stepper
    kv_cache_stepper(prompt="The dog sat")


def _rope_explorer_far_away():
    from qkv_helpers.classroom.widgets.positions import rope_explorer
    rope_explorer(query_position=999)


def _scaling_explorer_odd_d_k():
    from qkv_helpers.classroom.widgets.scores_and_weights import scaling_explorer
    scaling_explorer(d_k=7)


def _write_into_cache_keys():
    cache = qk.KVCache(n_heads=2, head_dim=4, capacity=8)
    cache.append(np.ones((2, 3, 4), np.float32), np.ones((2, 3, 4), np.float32))
    cache.keys[0] += 1  # a read-only view of the cache (issue 34)


SAMPLE = [  # (the call, the error, words of the Korean message: the argument first)
    (_split_heads, ValueError, ["x", "(..., 토큰, 8)", "(3, 6)", "헤드 2개"]),
    (_from_weights_wrong_w_v, ValueError, ["w_v", "(4, 4)", "(3, 3)"]),
    (_pipeline_w_q_w_k, ValueError, ["w_q", "w_k", "(8, 4)", "(8, 3)"]),
    (_blocked_block_size, ValueError, ["block_size", "양의 정수", "0"]),
    (_one_query_with_three, ValueError, ["q", "(1, 3, 2)", "쿼리가 3개", "blocked_attention"]),
    (_fill_with_a_float_mask, TypeError, ["mask", "float64", "mask.astype(bool)"]),
    (_more_new_tokens_than_context, ValueError, ["new_tokens", "new_tokens(5)", "context(3)"]),
    (_fit_of_different_lengths, ValueError, ["steps", "flops", "seconds", "(2,)", "(3,)"]),
    (_fit_without_steps, ValueError, ["steps", "모두 0", "넣어 주세요"]),
    (_window_cache_two_tokens, ValueError, ["k", "(2, 1, 4)", "(2, 2, 4)", "토큰 하나만"]),
    (_loglog_of_zero, ValueError, ["x", "y", "0보다 커야"]),
    (_request_longer_than_max_len, ValueError, ["lengths", "max_len = 64", "100"]),
    (_sliding_window_mask_without_window, TypeError,
     ["window=", "sliding_window_mask(8, window=3)"]),
    (_heatmap_of_scores, ValueError, ["weights", "-1..2", "signed=True"]),
    (_heatmap_with_one_label, ValueError, ["row_labels", "1개", "행(쿼리)의 수는 2개"]),
    (_three_d_vectors_in_a_plane, ValueError, ["a", "b", "(3,)", "(2,)"]),
    (_softmax_curves_of_a_string, TypeError, ["temperatures", "'hot'"]),
    (_cosine_of_a_zero_row, ValueError, ["vectors", "1번 행", "빼 주세요"]),
    (_order_not_a_permutation, ValueError, ["order", "range(3)", "[0, 0, 1]"]),
    (_jacobian_of_non_probabilities, ValueError, ["p", "확률", "0.5..0.6", "1.1"]),
    (_query_scores_of_different_widths, ValueError, ["d_k", "(2, 4)", "(3, 3)"]),
    (_particle_after_a_latin_letter, ValueError, ["syllable", "'a'", "U+0061"]),
    (_corpus_with_half_held_out, ValueError, ["heldout_fraction", "0.5", "(주어, 장소)"]),
    (_stepper_with_another_word, ValueError, ["prompt", "'dog'", "단어"]),
    (_rope_explorer_far_away, ValueError, ["query_position", "999", "0..20"]),
    (_scaling_explorer_odd_d_k, ValueError, ["d_k", "7"]),
    (_write_into_cache_keys, ValueError,
     ["KVCache.keys", "읽기 전용", "cache.keys.copy()", "cache.append(k, v)"]),
]


def _raised(trigger, error, language):
    lang.set_language(language)
    try:
        with pytest.raises(error) as raised:
            trigger()
    finally:
        lang.set_language("en")
    return str(raised.value)


@pytest.mark.parametrize("trigger,error,korean", SAMPLE,
                         ids=[s[0].__name__.strip("_") for s in SAMPLE])
def test_the_error_reads_in_korean(trigger, error, korean):
    message = _raised(trigger, error, "ko")
    assert HANGUL.search(message), message
    assert message.endswith("."), message
    for words in korean:
        assert words in message, (words, message)


@pytest.mark.parametrize("trigger,error,korean", SAMPLE,
                         ids=[s[0].__name__.strip("_") for s in SAMPLE])
def test_the_same_error_reads_in_english_in_english_mode(trigger, error, korean):
    message = _raised(trigger, error, "en")
    assert not HANGUL.search(message.replace("가 (U+AC00) … 힣", "")), message
    assert korean[0] in message, message  # the argument is named in both languages


def test_attention_that_overflows_names_x_q_in_korean():
    """MultiHeadAttention: the inner error (the scores' overflow) and the argument it came from."""
    mha = qk.MultiHeadAttention.from_weights(1, *[np.eye(2)] * 4)
    big = np.full((2, 2), 1e200)
    message = _raised(lambda: mha(big, big), qk.attention.ScoresOverflowError, "ko")
    assert message.endswith(".") and "x_q와 x_kv" in message and "1e+200" in message, message
    assert message.count("무한대") == 1, message
    english = _raised(lambda: mha(big, big), qk.attention.ScoresOverflowError, "en")
    assert english.startswith("x_q and x_kv hold numbers too large"), english


def test_the_rope_explorer_range_comes_from_its_constant():
    from qkv_helpers.classroom.widgets import positions
    message = _raised(_rope_explorer_far_away, ValueError, "ko")
    assert f"0..{positions.MAX_POSITION}" in message, message


def test_check_merged_halves_refuses_scores_that_are_not_one_row():
    """Its bare ``raise ValueError`` (control flow inside a try) became an if: the same
    feedback for scores that are not one row, or not numbers."""
    from qkv_helpers.classroom.checks.lesson_13 import check_merged_halves
    for scores in (np.ones((2, 2)), "a, b", None):
        feedback = check_merged_halves(np.ones(2), scores, np.ones((2, 2)))
        assert not feedback.ok and feedback.key == "check_not_numbers", (scores, feedback)
    right = check_merged_halves(np.ones(2), np.zeros(2), np.ones((2, 2)))
    assert right.ok, right


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_reason_inside_a_message_is_in_the_lessons_language(language):
    """Pieces put inside other messages (why a size is limited, what overflowed) come from
    the tables too: a Korean message has no English clause inside."""
    from qkv_helpers.attention_steps import pipeline_steps
    big = np.full((2, 2), 1e200)
    cases = [(lambda: qk.KVCache(n_heads=10**5, head_dim=4, capacity=8), ValueError,
              {"en": "a head's keys each", "ko": "헤드마다 키를 따로 저장해요"}),
             (lambda: pipeline_steps(big, np.eye(2), np.eye(2), np.eye(2)), ValueError,
              {"en": "Q, V or the scores Q·Kᵀ", "ko": "Q, V나 점수 Q·Kᵀ"}),
             (lambda: qk.toy_corpus.make_corpus(n_train=10**6), ValueError,
              {"en": "sentences of a toy grammar", "ko": "장난감 문법의 문장 수"})]
    for trigger, error, words in cases:
        message = _raised(trigger, error, language)
        assert words[language] in message, message
        assert bool(HANGUL.search(message)) == (language == "ko"), message

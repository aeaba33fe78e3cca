"""Exercise feedback cases of issue 35 (lessons other than 14): each mistake gets its own
message. Every test here failed before the change that made it pass."""

from __future__ import annotations

import numpy as np
import pytest

import qkv_helpers as qk
from qkv_helpers import lang, translator


@pytest.fixture(params=["en", "ko"])
def language(request):
    lang.set_language(request.param)
    yield request.param
    lang.set_language("en")


def test_a_function_without_return_is_told_it_returned_nothing(language):
    def my_softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        e / e.sum(axis=-1, keepdims=True)  # no return: None

    feedback = qk.checks.check_stable_softmax(my_softmax)
    assert feedback.ok is False and feedback.key == "check_l04_returned_nothing", feedback
    assert "None" in feedback.message


def test_the_template_still_reads_as_not_answered():
    def my_softmax(x):
        return ...

    assert qk.checks.check_stable_softmax(my_softmax).ok is None


def test_a_log_softmax_without_the_max_is_told_so(language):
    def my_log_softmax(x):
        return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))

    feedback = qk.checks.check_stable_log_softmax(my_log_softmax)
    assert feedback.key == "check_l04_log_no_max", feedback
    assert "log(softmax(x))" not in feedback.message


def test_log_of_softmax_keeps_its_own_message():
    feedback = qk.checks.check_stable_log_softmax(lambda x: np.log(qk.softmax(x)))
    assert feedback.key == "check_l04_log_underflow", feedback


def test_no_a_before_int():
    feedback = qk.checks.check_cross_shape(5, translator.trained_translation_example(), 6, 9)
    assert feedback.ok is False and "a int" not in feedback.message, feedback.message
    assert "int" in feedback.message


@pytest.mark.parametrize("answer,key", [((5, 7), "check_l08_example_shape"),
                                        ((6, 32), "check_l08_q_shape"),
                                        ((5, 9), "check_l08_forgot_bos"),
                                        ((6, 8), "check_l08_forgot_eos"),
                                        ((9, 6), "check_l08_transposed")])
def test_lesson_08_shapes_each_get_their_message(answer, key, language):
    trained = translator.trained_translation_example()
    ex = qk.translation_example()  # the sentence lesson 08 shows first
    assert (len(ex.target_tokens), len(ex.source_tokens)) == (5, 7)
    assert trained.q.shape[1] == 32
    feedback = qk.checks.check_cross_shape(answer, trained, n_target=6, n_source=9)
    assert feedback.ok is False and feedback.key == key, feedback
    assert str(answer) in feedback.message


def test_lesson_08_right_shape_still_right():
    trained = translator.trained_translation_example()
    assert qk.checks.check_cross_shape((6, 9), trained, n_target=6, n_source=9).ok is True


def test_lesson_09_batch_counted_with_query_heads(language):
    config = dict(memory_gib=40, layers=32, kv_heads=8, query_heads=32, head_dim=128,
                  tokens=12_000, bytes_per_value=2)
    per_query_head = 2 * 32 * 32 * 128 * 12_000 * 2  # every query head's K and V
    answer = 40 * 2**30 // per_query_head  # 6
    feedback = qk.checks.check_max_batch(answer, **config)
    assert feedback.key == "check_l09_batch_query_heads", feedback
    assert "32" in feedback.message and "8" in feedback.message
    assert qk.checks.check_max_batch(27, **config).ok is True


def test_lesson_13_asks_for_head_numbers_not_rows():
    lang.set_language("ko")
    try:
        feedback = qk.checks.check_gqa_group("40..47", n_q_heads=64, n_kv_heads=8, kv_head=5)
    finally:
        lang.set_language("en")
    assert "헤드 번호" in feedback.message and "행 번호" not in feedback.message


@pytest.mark.parametrize("key", ["check_l09_query_heads", "check_l03_half",
                                 "check_l06_no_softmax", "check_l01_roles_swapped"])
def test_a_value_does_not_calculate(key):
    """"…계산했어요" for a value: it is the value that was computed ("…계산한 값이에요")."""
    text = lang.STRINGS["ko"][key]
    assert "값이에요" in text and "계산했어요" not in text and "썼어요" not in text, text


def test_count_k_and_v_once_is_a_request_not_an_order():
    assert "세어 주세요" in lang.STRINGS["ko"]["check_l09_batch_double"]


def test_an_inverted_mask_in_lesson_10_gets_a_hint(language):
    """np.where(~mask, scores, -np.inf): the last query's row is all −∞ (teacher4's review)."""
    tr = qk.translation_example()
    q, k = tr.target_x @ tr.w_q, tr.target_x @ tr.w_k
    scores = q @ k.T / np.sqrt(q.shape[1])
    with pytest.raises(ValueError) as raised:
        qk.softmax(np.where(~qk.causal_mask(5), scores, -np.inf))
    message = str(raised.value)
    assert "True" in message and "False" in message, message
    assert ("뒤집" if language == "ko" else "swapped") in message, message


def test_the_all_minus_inf_hint_fits_a_softmax_without_a_mask(language):
    """The same error for scores the learner wrote: the hint is about a mask only if there is
    one, and it says why, in words that hold for any axis."""
    with pytest.raises(ValueError) as raised:
        qk.softmax(np.array([[0.0, 1.0], [-np.inf, -np.inf]]))
    message = str(raised.value)
    assert ("마스크에서 왔다면" if language == "ko" else "If the -inf come from a mask") in message
    assert ("exp의 합이 0" if language == "ko" else "exps sum to 0") in message
    if language == "ko":
        assert message.endswith(".")

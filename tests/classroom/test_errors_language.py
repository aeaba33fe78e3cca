"""Errors a learner can trigger from a lesson read in the lesson's language (issue 23).

``qk.setup(lang=...)`` (``set_language``) chooses the language of these errors as of every
other text: a mask that hides a whole row (lesson 11's exercise), ``apply_rope`` on one
vector (lesson 12's) or attention on one query (lesson 05's), q, k, v that do not fit
together, a sentence too long for the model (lesson 11's widget), the paged
cache's full block pool (lesson 13). The error types stay (ValueError, TypeError,
MemoryError), and every message names the argument, what it got and the fix. In IPython
the package's validation frames are hidden, so the traceback ends at the lesson's function.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import qkv_helpers as qk
from qkv_helpers import lang
from qkv_helpers.kv_cache.paged import PagedKVCache

HANGUL = re.compile("[가-힣]")


def _full_row_mask():  # lesson 11: hiding the query row of [CLS] instead of its key column
    mask = np.ones((9, 9), bool)
    mask[0] = False
    x = np.ones((9, 4))
    qk.scaled_dot_product_attention(x, x, x, mask=mask)


def _float_mask():
    x = np.ones((3, 4))
    qk.scaled_dot_product_attention(x, x, x, mask=np.ones((3, 3)))


def _mask_of_wrong_shape():
    x = np.ones((3, 4))
    qk.scaled_dot_product_attention(x, x, x, mask=np.ones((2, 3), bool))


def _attention_on_one_vector():  # lesson 05: ex.q[cat] is one query, (4,)
    ex = qk.running_example()
    qk.scaled_dot_product_attention(ex.q[1], ex.k, ex.v)


def _q_and_k_of_different_widths():
    qk.scaled_dot_product_attention(np.ones((2, 4)), np.ones((3, 5)), np.ones((3, 4)))


def _k_and_v_of_different_lengths():
    qk.scaled_dot_product_attention(np.ones((2, 4)), np.ones((3, 4)), np.ones((5, 4)))


def _mask_of_a_float_size():
    qk.causal_mask(2.5)


def _mask_with_fewer_keys_than_queries():  # lesson 07: n_q and n_k swapped
    qk.causal_mask(5, 2)


def _query_heads_in_unequal_groups():  # lesson 13: 6 query heads cannot share 4 K/V heads
    qk.grouped_query_attention(np.ones((6, 2, 4)), np.ones((4, 3, 4)), np.ones((4, 3, 4)))


def _multi_head_input_of_the_wrong_width():
    qk.MultiHeadAttention(8, 2)(np.ones((3, 6)))


def _rope_on_one_vector():  # lesson 12: ex.q[ex.index("cat")] is one vector, (4,)
    qk.apply_rope(qk.running_example().q[1], [7])


def _rope_with_too_few_positions():
    qk.apply_rope(qk.running_example().q, [7])


def _pool_full():  # lesson 13: two blocks of 2 tokens hold 4 tokens, not 5
    cache = PagedKVCache(1, 2, block_size=2, n_blocks=2)
    seq = cache.new_sequence()
    cache.append(seq, np.ones((1, 3, 2)), np.ones((1, 3, 2)))
    cache.append(seq, np.ones((1, 2, 2)), np.ones((1, 2, 2)))


ERRORS = [  # (the mistake, the error type, words of the English message, of the Korean one)
    (_full_row_mask, ValueError, ["mask allows no key for query row 0", "mask shape (9, 9)",
                                  "mask[..., j] = False"],
     ["mask", "쿼리 행 0", "(9, 9)", "mask[..., j] = False"]),
    (_float_mask, TypeError, ["mask must be a boolean array", "float64", "mask.astype(bool)"],
     ["mask", "float64", "mask.astype(bool)"]),
    (_mask_of_wrong_shape, ValueError, ["mask of shape (2, 3) does not broadcast", "(3, 3)"],
     ["mask", "(2, 3)", "(3, 3)"]),
    (_attention_on_one_vector, ValueError, ["q must have at least 2 dimension", "shape (4,)",
                                            "q[None, :]", "(1, 4)"],
     ["q", "(4,)", "q[None, :]", "(1, 4)"]),
    (_q_and_k_of_different_widths, ValueError, ["same d_k", "(2, 4)", "(3, 5)",
                                                "(..., n_k, 4)"],
     ["d_k", "(2, 4)", "(3, 5)", "(..., n_k, 4)"]),
    (_k_and_v_of_different_lengths, ValueError, ["same number of tokens n_k", "(5, 4)",
                                                 "(..., 3, d_v)"],
     ["n_k", "(3, 4)", "(5, 4)", "(..., 3, d_v)"]),
    (_mask_of_a_float_size, TypeError, ["n_q must be a positive integer", "float 2.5"],
     ["n_q", "양의 정수", "float 2.5"]),
    (_mask_with_fewer_keys_than_queries, ValueError, ["n_k must be at least n_q", "(5, 2)"],
     ["n_k", "n_q = 5", "(5, 2)"]),
    (_query_heads_in_unequal_groups, ValueError, ["equal groups", "6 heads", "(4, 3, 4)",
                                                  "multiple of n_kv_heads"],
     ["6개", "4개", "(4, 3, 4)", "n_kv_heads의 배수"]),
    (_multi_head_input_of_the_wrong_width, ValueError, ["(..., tokens, 8)", "got (3, 6)"],
     ["(..., 토큰, 8)", "(3, 6)"]),
    (_rope_on_one_vector, ValueError, ["x must have at least 2 dimensions", "shape (4,)",
                                       "x[None, :]", "(1, 4)", "positions=[m]"],
     ["x", "(4,)", "x[None, :]", "(1, 4)", "positions=[m]"]),
    (_rope_with_too_few_positions, ValueError, ["positions has 1 entries", "n = 7"],
     ["positions", "1개", "7개"]),
    (_pool_full, MemoryError, ["out of blocks", "needs 1 more block", "only 0 of 2 are free",
                               "n_blocks"],
     ["free()", "n_blocks", "블록"]),
]


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("trigger,error,english,korean", ERRORS,
                         ids=[e[0].__name__.strip("_") for e in ERRORS])
def test_a_learners_error_reads_in_the_lessons_language(trigger, error, english, korean,
                                                        language):
    lang.set_language(language)
    try:
        with pytest.raises(error) as raised:
            trigger()
    finally:
        lang.set_language("en")
    message = str(raised.value)
    for words in (english if language == "en" else korean):
        assert words in message, (words, message)
    assert bool(HANGUL.search(message)) == (language == "ko"), message
    assert len(message) < 400, message


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_sentence_too_long_for_the_model(language):
    model = qk.pretrained.load_minilm()
    lang.set_language(language)
    try:
        with pytest.raises(ValueError) as raised:
            model("cat " * 600)
    finally:
        lang.set_language("en")
    message = str(raised.value)
    assert "602" in message and "512" in message and "texts" in message
    assert bool(HANGUL.search(message)) == (language == "ko"), message


@pytest.mark.parametrize("language", ["en", "ko"])
def test_head_patterns_are_named_in_the_lessons_language(language):
    lang.set_language(language)
    try:
        names = [qk.pretrained.pattern_name(p) for p in qk.pretrained.HEAD_PATTERNS + ("mixed",)]
    finally:
        lang.set_language("en")
    expected = {"en": ["previous token", "next token", "same word", "[CLS] sink", "[SEP] sink",
                       "broad", "mixed"],
                "ko": ["앞 토큰", "다음 토큰", "같은 단어", "[CLS] 싱크", "[SEP] 싱크", "넓게 보기",
                       "섞임"]}[language]
    assert names == expected
    with pytest.raises(ValueError, match="pattern must be one of"):
        qk.pretrained.pattern_name("sink")


def test_ipython_shows_the_lessons_line_not_the_validation():
    """The traceback of lesson 11's full-row mask in a Korean notebook: the learner's
    cell, the line that raised (IPython always shows it) and the Korean message; the
    frames in between (the decorator, the argument checks) are hidden."""
    cells = ["import numpy as np; import qkv_helpers as qk; qk.set_language('ko')",
             "mask = np.ones((9, 9), bool); mask[0] = False\n"
             "qk.scaled_dot_product_attention(np.ones((9, 4)), np.ones((9, 4)), np.ones((9, 4)),"
             " mask=mask)"]
    script = textwrap.dedent(f"""
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.colors = "nocolor"
        for cell in {cells!r}:
            shell.run_cell(cell)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    shown = done.stdout + done.stderr
    assert "ValueError" in shown and "쿼리 행 0" in shown, shown
    assert "skipping hidden" in shown, shown
    assert shown.count("File ") <= 1 and "functools" not in shown, shown


def test_lesson_11_widget_says_why_a_sentence_cannot_be_used_in_korean():
    from qkv_helpers.classroom.widgets.real_model import minilm_explorer

    qk.setup(lang="ko")
    try:
        panel = minilm_explorer(model=qk.pretrained.load_minilm())
        panel.controls["text"].value = "word " * 600
        caption = panel.caption.value
    finally:
        qk.setup(lang="en")
    assert "이 문장은 쓸 수 없어요" in caption and "토큰이 너무 많아요" in caption, caption
    assert "602" in caption and "512" in caption
    assert "tokens long" not in caption and "shorten" not in caption, caption

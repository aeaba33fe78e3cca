"""Each usual mistake of an exercise gets its own message, in both languages (issue 23).

The table below lists, per exercise, the answers a class will give by mistake (the
issue's list and the teacher guide's "Watch for" lines, where a value can show them) and
the message key each must get. Every message names the learner's variable, shows numbers
rounded for reading, and a close answer is told so with both values shown to the digits
where they differ. The rules an exercise states ("not `qk.causal_mask`", "only the six
values") are enforced from the learner's cell, found as IPython finds it (``linecache``
and the input history ``_ih``).
"""

from __future__ import annotations

import functools
import linecache
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import qkv_helpers as qk
from qkv_helpers import checks, lang
from qkv_helpers.classroom.checks import lesson_12
from qkv_helpers.classroom.checks._answers import _apart, _rounded
from qkv_helpers.kv_cache.arithmetic import kv_cache_bytes

EX = qk.running_example()
ROPE = dict(query_token="cat", query_position=7, key_token="sat", key_position=3)
BYTES = dict(layers=32, kv_heads=8, query_heads=32, head_dim=128, tokens=8192, batch=4,
             bytes_per_value=2)
BATCH = dict(memory_gib=40, layers=32, kv_heads=8, head_dim=128, tokens=12_000,
             bytes_per_value=2)
GQA = dict(n_q_heads=64, n_kv_heads=8, kv_head=5)


def _halves():
    """Lesson 13's exercise inputs: the scores s, the values v8, and the two halves."""
    rng = np.random.default_rng(7)
    s, v8 = rng.normal(size=8) * 2, rng.normal(size=(8, 3))
    first = qk.long_context.online_softmax_trace(s[:4], v8[:4], block_size=4)[-1]
    second = qk.long_context.online_softmax_trace(s[4:], v8[4:], block_size=4)[-1]
    return s, v8, first, second


S, V8, FIRST, SECOND = _halves()
FULL = qk.softmax(S) @ V8
M_NEW = max(FIRST.m, SECOND.m)
E1, E2 = np.exp(FIRST.m - M_NEW), np.exp(SECOND.m - M_NEW)
W1, W2 = FIRST.l * E1, SECOND.l * E2
ROPE_SCORE = lesson_12._rope_score(EX, "cat", 7, "sat", 3)
PER_SEQUENCE = kv_cache_bytes(32, 8, 128, 12_000, 1, 2)
CACHE = kv_cache_bytes(32, 8, 128, 8192, 4, 2)


ANGLE = qk.similarity.dot_and_angle(EX.q[5], EX.k[1])
X_DOG = np.random.default_rng(1).normal(size=EX.x.shape[1])  # any new word's embedding
W3 = qk.softmax(EX.k[:3] @ EX.q[1] / np.sqrt(EX.d_k))  # "cat"'s weights over 3 keys
TR = qk.translation_example()
TR_Q, TR_K, TR_V = (TR.target_x @ w for w in (TR.w_q, TR.w_k, TR.w_v))
SCALED = TR_Q @ TR_K.T / np.sqrt(TR_Q.shape[1])
CAUSAL = qk.causal_mask(TR.target_x.shape[0])


def masked(answer):
    return checks.check_masked_output(answer, TR.target_x, TR.w_q, TR.w_k, TR.w_v)


def _softmax_over_columns(x):
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def _softmax_over_everything(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def merge(answer):
    return checks.check_merged_halves(answer, S, V8)


@functools.cache
def _minilm():
    from qkv_helpers.pretrained import load_minilm

    return load_minilm()


NEW_SENTENCE = "A dog slept on the rug."  # lesson 11's exercise: layer 4, head 5, [CLS] hidden


def sink(sentence: str = NEW_SENTENCE, x_layer: int = 4):
    """Lesson 11's answer computed as the learner did, from ``sentence``'s layer ``x_layer``."""
    from qkv_helpers.classroom.checks.lesson_11 import _head_weights

    model = _minilm()
    x = model(sentence).hidden_states[x_layer][0].astype(float)
    answer = _head_weights(model, x, 4, 5, [0])
    return checks.check_head_weights(answer, model, NEW_SENTENCE, layer=4, head=5, hide_keys=[0])


MISTAKES = [  # (what the learner did, the check with the answer, the message key)
    # lesson 00: the shape of another sentence's Q
    ("00 the 7-token Q on screen", lambda: checks.check_q_shape((7, 4), EX, n_tokens=12),
     "check_l00_shown_sentence"),
    ("00 turned around", lambda: checks.check_q_shape((4, 12), EX, n_tokens=12),
     "check_l00_transposed"),
    ("00 d_model as the columns", lambda: checks.check_q_shape((12, 8), EX, n_tokens=12),
     "check_l00_d_model"),
    # lesson 01: the key of a new word (the guide: d_model and d_k mixed up)
    ("01 the embedding itself", lambda: checks.check_new_key(X_DOG, EX, X_DOG),
     "check_l01_embedding"),
    ("01 W_Q for W_K", lambda: checks.check_new_key(X_DOG @ EX.w_q, EX, X_DOG),
     "check_l01_other_matrix"),
    # lesson 02: the angle between "mat"'s query and "cat"'s key
    ("02 the angle rounded", lambda: checks.check_angle(round(ANGLE.angle_deg), EX, "mat", "cat"),
     "check_close"),
    ("02 radians", lambda: checks.check_angle(np.radians(ANGLE.angle_deg), EX, "mat", "cat"),
     "check_l02_radians"),
    ("02 the cosine", lambda: checks.check_angle(ANGLE.cos_angle, EX, "mat", "cat"),
     "check_l02_cosine"),
    # lesson 03: the spread of q·k before scaling
    ("03 the variance", lambda: checks.check_score_spread(96, d_k=96), "check_l03_variance"),
    ("03 after scaling", lambda: checks.check_score_spread(1.0, d_k=96),
     "check_l03_after_scaling"),
    ("03 the factor 1/√d_k", lambda: checks.check_score_spread(1 / np.sqrt(96), d_k=96),
     "check_l03_factor"),
    ("03 half of d_k", lambda: checks.check_score_spread(48, d_k=96), "check_l03_half"),
    ("03 rounded to 10", lambda: checks.check_score_spread(10, d_k=96), "check_close"),
    ("03 an arbitrary number", lambda: checks.check_score_spread(42, d_k=96),
     "check_l03_wrong"),
    # lesson 04: a stable softmax (the guide: normalising over the wrong axis)
    ("04 over the columns", lambda: checks.check_stable_softmax(_softmax_over_columns),
     "check_l04_columns"),
    ("04 over the whole array", lambda: checks.check_stable_softmax(_softmax_over_everything),
     "check_l04_whole_array"),
    # lesson 05: "cat"'s contextual vector in "The cat sat" (the guide: the weights
    # multiply the keys; the output is the token's own value)
    ("05 weights times keys", lambda: checks.check_prefix_context(W3 @ EX.k[:3], EX, "cat", 3),
     "check_l05_keys"),
    ("05 its own value", lambda: checks.check_prefix_context(EX.v[1], EX, "cat", 3),
     "check_l05_own_value"),
    # lesson 07: the mask with a cache
    ("07 True = hidden", lambda: checks.check_causal_mask(~qk.causal_mask(2, 5), 2, 5),
     "check_l07_inverted"),
    ("07 top-left", lambda: checks.check_causal_mask(np.tri(2, 5, dtype=bool), 2, 5),
     "check_l07_top_left"),
    ("07 every token asks", lambda: checks.check_causal_mask(qk.causal_mask(5), 2, 5),
     "check_l07_square"),
    ("07 sees the future", lambda: checks.check_causal_mask(np.ones((2, 5), bool), 2, 5),
     "check_l07_sees_future"),
    # lesson 10: masked self-attention (the guide: masking with 0 instead of −∞)
    ("10 masked with 0", lambda: masked(qk.softmax(np.where(CAUSAL, SCALED, 0.0)) @ TR_V),
     "check_l10_masked_with_zero"),
    ("10 masked after softmax", lambda: masked((qk.softmax(SCALED) * CAUSAL) @ TR_V),
     "check_l10_masked_after_softmax"),
    ("10 no mask", lambda: masked(qk.softmax(SCALED) @ TR_V), "check_l10_unmasked"),
    ("10 divided by √d_model",  # √8, the embeddings' width, for √d_k = 2
     lambda: masked(qk.softmax(np.where(CAUSAL, TR_Q @ TR_K.T / np.sqrt(8), -np.inf)) @ TR_V),
     "check_l10_scaled_by_d_model"),
    ("10 softmax over the columns",
     lambda: masked(qk.softmax(np.where(CAUSAL, SCALED, -np.inf), axis=0) @ TR_V),
     "check_l10_softmax_columns"),
    # lesson 09: the bytes of a cache, and the batch that fits
    ("09 bytes in GiB", lambda: checks.check_kv_cache_bytes(4, **BYTES), "check_l09_gib"),
    ("09 bytes in GB", lambda: checks.check_kv_cache_bytes(CACHE / 1e9, **BYTES),
     "check_l09_gib"),
    ("09 bytes rounded", lambda: checks.check_kv_cache_bytes(4.29e9, **BYTES),
     "check_l09_close"),
    ("09 bytes off by one", lambda: checks.check_kv_cache_bytes(CACHE + 1, **BYTES),
     "check_l09_nearly"),
    ("09 bytes far off", lambda: checks.check_kv_cache_bytes(1234, **BYTES), "check_l09_wrong"),
    ("09 query heads", lambda: checks.check_kv_cache_bytes(4 * CACHE, **BYTES),
     "check_l09_query_heads"),
    ("09 GB taken for GiB", lambda: checks.check_max_batch(25, **BATCH),
     "check_l09_gb_for_gib"),
    ("09 K or V forgotten", lambda: checks.check_max_batch(54, **BATCH),
     "check_l09_batch_half"),
    ("09 4 bytes a value", lambda: checks.check_max_batch(13, **BATCH),
     "check_l09_batch_double"),
    ("09 rounded up", lambda: checks.check_max_batch(28, **BATCH), "check_l09_rounded_up"),
    ("09 not rounded down", lambda: checks.check_max_batch(27.3, **BATCH),
     "check_l09_batch_not_floored"),
    ("09 the quotient in full",
     lambda: checks.check_max_batch(40 * 2**30 / PER_SEQUENCE, **BATCH),
     "check_l09_batch_not_floored"),
    ("09 the tokens of part 1",  # 40 GiB // (the 1 GiB a conversation of 8192 tokens takes)
     lambda: checks.check_max_batch(40, **BATCH, earlier_tokens=8192),
     "check_l09_batch_earlier_tokens"),
    ("09 bytes negative", lambda: checks.check_kv_cache_bytes(-CACHE, **BYTES),
     "check_l09_not_positive"),
    ("09 bytes zero", lambda: checks.check_kv_cache_bytes(0, **BYTES), "check_l09_not_positive"),


    # lesson 11: layer 4, head 5 with [CLS] hidden, for the new sentence (a teacher's read:
    # `out`, the example sentence, has as many tokens as `new`)
    ("11 the example sentence (out)", lambda: sink("The cat sat on the mat."),
     "check_l11_example_sentence"),
    ("11 another layer's input", lambda: sink(x_layer=3), "check_l11_other_layer"),
    # lesson 12: the RoPE score
    ("12 divided by √d_k", lambda: checks.check_rope_score(ROPE_SCORE / 2, EX, **ROPE),
     "check_l12_scaled"),
    ("12 the printed 2.2", lambda: checks.check_rope_score(2.2, EX, **ROPE), "check_close"),
    ("12 not rotated", lambda: checks.check_rope_score(float(EX.q[1] @ EX.k[2]), EX, **ROPE),
     "check_l12_not_rotated"),
    ("12 positions swapped",
     lambda: checks.check_rope_score(lesson_12._rope_score(EX, "cat", 3, "sat", 7), EX, **ROPE),
     "check_l12_swapped"),
    ("12 only the query turned",
     lambda: checks.check_rope_score(lesson_12._rope_score(EX, "cat", 7, "sat", 0), EX, **ROPE),
     "check_l12_one_rotated"),
    ("12 a (1, 1) array", lambda: checks.check_rope_score(  # q[None] @ k[None].T, turned
        qk.apply_rope(EX.q[1][None], [7]) @ qk.apply_rope(EX.k[2][None], [3]).T, EX, **ROPE),
     "check_l12_one_by_one"),
    ("12 a (1,) array", lambda: checks.check_rope_score(np.array([ROPE_SCORE]), EX, **ROPE),
     "check_l12_one_by_one"),
    ("12 tokens swapped", lambda: checks.check_rope_score(  # "sat"'s query, "cat"'s key
        lesson_12._rope_score(EX, "cat", 7, "sat", 3, rows=(EX.q[2], EX.k[1])), EX, **ROPE),
     "check_l12_tokens_swapped"),
    ("12 products not summed", lambda: checks.check_rope_score(  # q_cat * k_sat, turned: (4,)
        qk.apply_rope(EX.q[1][None], [7])[0] * qk.apply_rope(EX.k[2][None], [3])[0], EX, **ROPE),
     "check_l12_not_summed"),
    ("12 the distance for the position",  # 7 − 3 = 4, not the key's position 1007 − 4
     lambda: checks.check_same_distance(4, query_position=7, key_position=3,
                                        new_query_position=1007, name="my_n"),
     "check_l12_distance_not_position"),
    # lesson 13: the group of a K/V head, and merging two halves
    ("13 interleaved heads", lambda: checks.check_gqa_group(list(range(5, 64, 8)), **GQA),
     "check_l13_group_interleaved"),
    ("13 heads in an extra axis", lambda: checks.check_gqa_group([list(range(40, 48))], **GQA),
     "check_l13_group_not_flat"),
    ("13 heads as a (1, 8) array",
     lambda: checks.check_gqa_group(np.arange(40, 48)[None, :], **GQA),
     "check_l13_group_not_flat"),
    ("13 the average of the halves", lambda: merge((FIRST.output + SECOND.output) / 2),
     "check_l13_merge_average"),
    ("13 without rescaling",
     lambda: merge((FIRST.l * FIRST.output + SECOND.l * SECOND.output) / (FIRST.l + SECOND.l)),
     "check_l13_merge_no_rescale"),
    ("13 without the l weights",
     lambda: merge((E1 * FIRST.output + E2 * SECOND.output) / (E1 + E2)),
     "check_l13_merge_no_l"),
    ("13 not divided", lambda: merge(W1 * FIRST.output + W2 * SECOND.output),
     "check_l13_merge_not_divided"),
    ("13 the rescaling's sign flipped",
     lambda: merge((FIRST.l / E1 * FIRST.output + SECOND.l / E2 * SECOND.output)
                   / (FIRST.l / E1 + SECOND.l / E2)), "check_l13_merge_sign"),
    ("13 the plain sum", lambda: merge(FIRST.output + SECOND.output), "check_l13_merge_sum"),
    ("13 the printed 3 decimals", lambda: merge(np.round(FULL, 3)), "check_close"),
    ("13 numbers as strings", lambda: merge([str(x) for x in FULL]), "check_string"),
    ("13 numbers as a string array", lambda: merge(np.array([str(x) for x in FULL])),
     "check_string"),
    # the general checks: values copied from a printed array
    ("check_array rounded", lambda: checks.check_array(np.round(np.arange(4) / 7, 2),
                                                       np.arange(4) / 7, "my_x"),
     "check_close_at"),
]


def _no_long_floats(message: str) -> bool:
    """No number printed with more than 6 significant decimals (1.1000442649886781)."""
    return re.search(r"\d\.\d{7,}", message) is None


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("what,check,key", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_each_mistake_gets_its_own_message(what, check, key, language):
    lang.set_language(language)
    try:
        feedback = check()
    finally:
        lang.set_language("en")
    assert feedback.ok is False, (what, feedback)
    assert feedback.key == key, (what, feedback)
    assert re.search(r"my_\w+", feedback.message), feedback.message
    assert _no_long_floats(feedback.message), feedback.message
    fixed = re.split(r"\{\w+\}", lang.STRINGS[language][key])  # the template's own words
    assert all(piece in feedback.message for piece in fixed), (feedback.message, fixed)


def test_the_mistakes_are_told_apart():
    """No two mistakes of the same exercise get the same key unless listed as equal."""
    keys = [(what.split()[0], key) for what, _, key in MISTAKES]
    shared = {k for k in keys if keys.count(k) > 1}
    assert shared <= {("09", "check_l09_gib"), ("09", "check_l09_not_positive"),
                      ("09", "check_l09_batch_not_floored"),
                      ("12", "check_close"), ("12", "check_l12_one_by_one"), ("13", "check_close"),
                      ("13", "check_l13_group_not_flat"), ("13", "check_string"),
                      ("03", "check_close"), ("02", "check_close")}, shared


@pytest.mark.parametrize("language", ["en", "ko"])
def test_lesson_11_points_at_the_new_sentences_input(language):
    """The exercise's sentence is in `new`; `out` holds the example sentence (same length)."""
    lang.set_language(language)
    try:
        messages = [sink("The cat sat on the mat.").message, sink(x_layer=3).message]
    finally:
        lang.set_language("en")
    for message in messages:
        assert "new.hidden_states[4][0]" in message or "new의 hidden_states[4][0]" in message
        assert "out.hidden_states" not in message


def test_merging_without_l_does_not_show_the_target():
    for language in ("en", "ko"):
        lang.set_language(language)
        message = merge((E1 * FIRST.output + E2 * SECOND.output) / (E1 + E2)).message
        generic = merge(FULL * 1.5).message
        lang.set_language("en")
        for text in (message, generic):
            for digits in (2, 3, 4):
                assert np.array2string(FULL, precision=digits) not in text
                assert f"{FULL[0]:.{digits}f}" not in text, text


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_close_answer_shows_both_values_to_the_digits_that_differ(language):
    lang.set_language(language)
    try:
        pasted = merge(np.round(FULL, 3)).message
        score = checks.check_rope_score(2.2, EX, **ROPE).message
    finally:
        lang.set_language("en")
    assert "[-0.092, -1.178, -0.492]" in pasted and "[-0.0922, -1.1781, -0.4921]" in pasted
    assert "2.2001" in score and re.search(r"2\.2[,)]", score), score
    assert _no_long_floats(score)


def test_apart_and_rounded():
    assert _apart(2.2, 2.2000885) == ("2.2", "2.2001")
    assert _apart(1.0, 2.0) == ("1", "2")
    got, full = np.round(FULL, 3), FULL
    a, b = _apart(got, full)
    assert a != b
    assert _rounded(got, full) and _rounded(2.2, 2.2000885) and _rounded(10, np.sqrt(96))
    assert not _rounded(0, 0.4) and not _rounded(2.0 * FULL, FULL)
    assert not _rounded(FULL[:2], FULL)


def test_wrong_values_are_shown_rounded():
    feedback = checks.check_value(1.1000442649886781, 2.2000885299773563, "my_score")
    assert "1.1" in feedback.message and _no_long_floats(feedback.message)


# --- the rules an exercise states, enforced from the learner's cell --------------------------


def _run_cell(source: str, namespace: dict, history: list[str], number: int):
    """Run ``source`` as IPython runs a cell: compiled under a file name whose source is in
    ``linecache``, its text appended to the input history ``_ih``."""
    filename = f"<ipython-input-{number}-n23a>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    history.append(source)
    namespace["_ih"] = history
    *body, last = source.rstrip().split("\n")
    exec(compile("\n".join(body), filename, "exec"), namespace)
    return eval(compile(last, filename, "eval"), namespace)


@pytest.fixture
def kernel():
    namespace = {"np": np, "qk": qk, "long_context": qk.long_context}
    history: list[str] = [""]
    count = iter(range(1, 100))
    yield lambda source: _run_cell(textwrap.dedent(source).strip(), namespace, history,
                                   next(count))
    for key in [k for k in linecache.cache if str(k).endswith("-n23a>")]:
        del linecache.cache[key]


CHECK_MASK = "qk.checks.check_causal_mask(my_mask, n_q=2, n_k=5)"


@pytest.mark.parametrize("cell", [
    f"my_mask = qk.causal_mask(2, 5)\n{CHECK_MASK}",
    f"my_mask = qk.causal_mask(5)[3:]\n{CHECK_MASK}",
    f"full = qk.masks.causal_mask(5)\nmy_mask = full[-2:]\n{CHECK_MASK}",
    f"from qkv_helpers import causal_mask as cm\nmy_mask = cm(2, 5)\n{CHECK_MASK}",
])
def test_lesson_07_refuses_a_mask_made_by_causal_mask(kernel, cell):
    assert kernel(cell).key == "check_l07_used_causal_mask"


def test_lesson_07_rule_follows_a_mask_made_in_an_earlier_cell(kernel):
    kernel("mask = qk.causal_mask(7)\nmask.shape")  # the lesson's own cell, above
    kernel("my_mask = mask[3:5, :5]\nmy_mask.shape")
    assert kernel(CHECK_MASK).key == "check_l07_used_causal_mask"
    assert kernel(f"my_mask = mask[3:5, :5].copy()\n{CHECK_MASK}").key == (
        "check_l07_used_causal_mask")
    kernel("mask = np.tri(7, dtype=bool)  # made by hand now\nmask.shape")
    assert kernel(f"my_mask = mask[3:5, :5]\n{CHECK_MASK}").ok is True


def test_lesson_07_rule_reads_the_cell_that_assigned_the_mask(kernel):
    kernel("mask = qk.causal_mask(7)\nmask.shape")  # the lesson's own cell, above
    assert kernel("my_mask = np.array([[k <= 3 + i for k in range(5)] for i in range(2)])\n"
                  f"{CHECK_MASK}").ok is True
    kernel("my_mask = qk.causal_mask(5)[3:]\nmy_mask.shape")
    assert kernel(CHECK_MASK).key == "check_l07_used_causal_mask"  # assigned a cell before
    kernel("my_mask = np.tri(2, 5, k=3, dtype=bool)\nmy_mask.shape")
    assert kernel(CHECK_MASK).ok is True


EXERCISE_13 = """
rng = np.random.default_rng(7)
s, v8 = rng.normal(size=8) * 2, rng.normal(size=(8, 3))
first = long_context.online_softmax_trace(s[:4], v8[:4], block_size=4)[-1]
second = long_context.online_softmax_trace(s[4:], v8[4:], block_size=4)[-1]
"""
CHECK_MERGE = "qk.checks.check_merged_halves(my_output, s, v8)"


@pytest.mark.parametrize("answer", [
    "my_output = qk.softmax(s) @ v8",
    "p = qk.softmax(s)\nmy_output = p @ v8",
    "my_output = long_context.online_softmax_trace(s, v8, block_size=8)[-1].output",
    "my_output = qk.scaled_dot_product_attention(s[None, :1] * 0 + 1, np.eye(8)[:, :1], v8)"
    ".output[0] * 0 + qk.softmax(s) @ v8",
])
def test_lesson_13_refuses_a_merge_from_all_the_scores(kernel, answer):
    assert kernel(f"{EXERCISE_13}\n{answer}\n{CHECK_MERGE}").key == "check_l13_merge_not_six"


def test_lesson_13_accepts_the_merge_from_the_six_values(kernel):
    solution = """
    m = max(first.m, second.m)
    w1 = first.l * np.exp(first.m - m)
    w2 = second.l * np.exp(second.m - m)
    my_output = (w1 * first.output + w2 * second.output) / (w1 + w2)
    """
    cell = f"{EXERCISE_13}\n{textwrap.dedent(solution).strip()}\n{CHECK_MERGE}"
    assert kernel(cell).ok is True


def test_lesson_13_lets_the_learner_reuse_the_name_s(kernel):
    solution = """
    m = max(first.m, second.m)
    w1, w2 = first.l * np.exp(first.m - m), second.l * np.exp(second.m - m)
    s = w1 + w2   # the learner's own s: the summed weight
    my_output = (w1 * first.output + w2 * second.output) / s
    """
    scores = "np.random.default_rng(7).normal(size=8) * 2"  # s itself is the learner's now
    cell = (f"{EXERCISE_13}\n{textwrap.dedent(solution).strip()}\n"
            f"qk.checks.check_merged_halves(my_output, {scores}, v8)")
    assert kernel(cell).ok is True


def test_without_the_learners_source_the_rules_are_not_guessed():
    namespace = {"np": np, "qk": qk}
    exec("my_mask = qk.causal_mask(2, 5)", namespace)
    assert eval(compile(CHECK_MASK, "<no source>", "eval"), namespace).ok is True


def test_the_rules_hold_in_a_real_ipython_shell():
    cells = ["import numpy as np; import qkv_helpers as qk; long_context = qk.long_context",
             f"my_mask = qk.causal_mask(2, 5)\n{CHECK_MASK}",
             f"{EXERCISE_13}\nmy_output = qk.softmax(s) @ v8\n{CHECK_MERGE}",
             f"my_mask = np.tri(2, 5, k=3, dtype=bool)\n{CHECK_MASK}"]
    script = textwrap.dedent(f"""
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        results = [shell.run_cell(cell, store_history=True).result for cell in {cells!r}]
        for feedback in results[1:]:
            print("=", feedback.key)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    printed = [line[2:] for line in done.stdout.splitlines() if line.startswith("= ")]
    assert printed == ["check_l07_used_causal_mask", "check_l13_merge_not_six", "check_right"], (
        done.stdout, done.stderr)


# --- lesson 15: the diagnosis of a run the learner trained themselves ------------------------

@pytest.fixture(scope="module")
def l15_runs():
    from qkv_helpers import induction
    return {"short": induction.train(steps=600, repeat_lengths=(8, 16), seed=0),
            "range": induction.train(steps=1200, repeat_lengths=(12, 16), seed=0)}


@pytest.mark.parametrize("code", ["en", "ko"])
def test_lesson_15_a_run_short_of_its_cliff_does_not_copy(l15_runs, code):
    """Trained on every length for 600 steps the repeat's loss is about 2.8: not copying,
    and there is no untrained length it could be said to copy at."""
    run = l15_runs["short"]
    qk.setup(lang=code)
    try:
        assert checks.check_fixed_length(run, "a").ok is False
        right = checks.check_fixed_length(run, "c")
        assert right.ok is True and right.key == "check_l15_diagnosis_right_c"
        assert "3.47" in right.message and "1 nat" in right.message
    finally:
        qk.setup(lang="en")


@pytest.mark.parametrize("code", ["en", "ko"])
def test_lesson_15_a_run_on_several_lengths_is_tested_at_each(l15_runs, code):
    """Lengths 12 to 16 past the cliff: no one distance serves them all, so it copies."""
    run = l15_runs["range"]
    qk.setup(lang=code)
    try:
        right = checks.check_fixed_length(run, "a")
        assert right.ok is True and right.key == "check_l15_diagnosis_right_a_range"
        assert "12" in right.message and "16" in right.message
        told = checks.check_fixed_length(run, "b")
        assert told.key == "check_l15_diagnosis_wrong_b"
        assert lang.t("check_l15_diagnosis_measured_a_range", low=12, high=16,
                      other="@").split("@")[0] in told.message
    finally:
        qk.setup(lang="en")


@pytest.mark.parametrize("code", ["en", "ko"])
def test_lesson_15_a_vectorised_score_is_told_the_fields_are_per_sequence(code):
    """np.arange(seqs.length - 1) over all sequences at once raises; the message says why."""
    def vectorised(weights, seqs):
        i = np.arange(seqs.length - 1)
        return weights[:, seqs.repeat + i, seqs.first + i + 1].mean()

    qk.setup(lang=code)
    try:
        told = checks.check_induction_score(vectorised)
        assert told.key == "check_l15_score_raised"
        assert "seqs.length" in told.message and told.message.endswith(".")
    finally:
        qk.setup(lang="en")

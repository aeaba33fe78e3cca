"""Lesson 13's exercise checks."""

from __future__ import annotations

import functools

import numpy as np

from ._answers import _real_array, _show, close_but_not_right
from ._feedback import Feedback, never_raises, not_answered, right, unanswered, wrong
from ._source import assigning_cell, depends_on


@never_raises
def check_gqa_group(answer, *, n_q_heads: int, n_kv_heads: int, kv_head: int,
                    name: str = "my_heads") -> Feedback:
    """Lesson 13: which query heads share one K/V head in grouped-query attention.

    The expected heads are measured with :func:`~qkv_helpers.grouped_query_attention`
    (:func:`_l13_used_kv_head` for every query head); any order is accepted.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_gqa_group([40, 41, 42, 43, 44, 45, 46, 47], n_q_heads=64, n_kv_heads=8, kv_head=5).ok
    True
    >>> check_gqa_group(list(range(5, 64, 8)), n_q_heads=64, n_kv_heads=8, kv_head=5).ok
    False
    >>> check_gqa_group([list(range(40, 48))], n_q_heads=64, n_kv_heads=8, kv_head=5).key
    'check_l13_group_not_flat'
    """
    if not_answered(answer):
        return unanswered()
    if isinstance(answer, (range, set, frozenset)):
        answer = sorted(answer) if all(isinstance(i, int) for i in answer) else list(answer)
    if isinstance(answer, (str, bytes)) or not isinstance(answer, (list, tuple, np.ndarray)):
        return wrong("check_l13_heads_not_ints", name=name)
    if isinstance(answer, np.ndarray) and answer.ndim != 1:
        return wrong("check_l13_group_not_flat", name=name, got=answer.shape)
    if any(isinstance(i, (list, tuple, np.ndarray, range)) for i in answer):
        return wrong("check_l13_group_not_flat", name=name, got=_kind_of_nested(answer))
    items = list(answer)
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))
               for i in items):
        return wrong("check_l13_heads_not_ints", name=name)
    got = sorted(int(i) for i in items)
    expected = [h for h in range(n_q_heads)
                if _l13_used_kv_head(n_q_heads, n_kv_heads, h) == kv_head]
    if got == expected:
        return right("check_l13_group_right", name=name, kv_head=kv_head, first=expected[0],
                     last=expected[-1])
    if got == [h for h in range(n_q_heads) if h % n_kv_heads == kv_head]:
        return wrong("check_l13_group_interleaved", name=name, group=len(expected))
    if len(got) != len(expected):
        return wrong("check_l13_group_size", name=name, count=len(got), group=len(expected))
    return wrong("check_l13_group_wrong", name=name, group=len(expected))


def _kind_of_nested(answer) -> str:
    """The nested answer's shape, such as ``(1, 8)``, or ``[[...]]`` if it has none."""
    try:
        shape = np.shape(answer)
    except (ValueError, TypeError):
        return "[[...]]"
    return str(shape) if len(shape) > 1 else "[[...]]"


@functools.lru_cache(maxsize=1024)
def _l13_used_kv_head(n_q_heads: int, n_kv_heads: int, query_head: int) -> int:
    """The K/V head whose attention gives query head ``query_head``'s output, measured
    (once per arguments: the measurement depends on nothing else)."""
    from ...attention import scaled_dot_product_attention
    from ...grouped_query import grouped_query_attention

    rng = np.random.default_rng(0)
    q = rng.normal(size=(n_q_heads, 2, 4))
    k, v = rng.normal(size=(2, n_kv_heads, 3, 4))
    out = grouped_query_attention(q, k, v).output[query_head]  # (2, 4)
    for h in range(n_kv_heads):
        if np.allclose(out, scaled_dot_product_attention(q[query_head], k[h], v[h]).output):
            return h
    raise AssertionError("no K/V head gives this query head's output")  # pragma: no cover


@never_raises
def check_merged_halves(answer, scores, v, name: str = "my_output") -> Feedback:
    """Lesson 13: one query's output from two halves of its keys, merged by rescaling.

    ``scores (n_k,)`` and ``v (n_k, d_v)``; the expected answer is
    ``softmax(scores) @ v`` from the package. Recognises the average of the two halves'
    outputs, the merge without rescaling, without the sums ``l``, with the sign of the
    rescaling flipped, without the final division, and the plain sum; a value the learner
    rounded gets "close". The exercise says "only these six values": when the cell that
    assigned the answer can be read (a notebook's cell), an answer computed from ``s`` or
    ``v8`` is refused.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> s, v = np.array([0.0, 1.0, 3.0, 2.0]), np.arange(8.0).reshape(4, 2)
    >>> from qkv_helpers import softmax
    >>> check_merged_halves(softmax(s) @ v, s, v).ok
    True
    >>> halves = (softmax(s[:2]) @ v[:2] + softmax(s[2:]) @ v[2:]) / 2
    >>> check_merged_halves(halves, s, v).message.startswith("my_output is the average")
    True
    >>> check_merged_halves("1, 2", s, v).ok, check_merged_halves(1j, s, v).ok
    (False, False)
    >>> check_merged_halves(["4.2", "5.2"], s, v).key
    'check_string'
    >>> check_merged_halves(np.round(softmax(s) @ v, 3), s, v).key
    'check_close'
    """
    if not_answered(answer):
        return unanswered()
    from ...attention import softmax

    try:  # the notebook passes these; a learner may have overwritten them
        scores = np.asarray(scores, dtype=float)
        v = np.asarray(v, dtype=float)
        expected = softmax(scores) @ v  # (d_v,)
    except (TypeError, ValueError, OverflowError):
        expected = None
    if expected is None or scores.ndim != 1 or expected.ndim != 1:
        return wrong("check_not_numbers", name="scores, v", kind=type(scores).__name__)
    got = _real_array(answer, name)  # refuses "4.171" and ["1", "2"] (numpy would convert)
    if isinstance(got, Feedback):
        return got
    if got.shape != expected.shape:
        got = got.reshape(-1) if got.size == expected.size else got
        if got.shape != expected.shape:
            return wrong("check_shape", name=name, got=got.shape, needed=expected.shape)
    if _uses_the_scores(name):
        return wrong("check_l13_merge_not_six", name=name)
    if np.allclose(got, expected, rtol=1e-6, atol=1e-9):
        return right("check_l13_merge_right", name=name, got=np.array2string(got, precision=3))
    half = scores.size // 2
    parts = [(scores[:half], v[:half]), (scores[half:], v[half:])]
    m_new = scores.max()
    outputs = [softmax(s) @ w for s, w in parts]  # each half's o / l
    sums = [np.exp(s - s.max()).sum() for s, _ in parts]  # each half's l
    shifts = [np.exp(s.max() - m_new) for s, _ in parts]  # exp(m_old − m_new)
    o1, o2 = outputs  # each half's output o / l
    l1, l2 = sums  # each half's l
    e1, e2 = shifts  # each half's exp(m_old − m_new)
    slips = [  # (what the answer would be, message key), most telling first
        ((o1 + o2) / 2, "check_l13_merge_average"),
        ((l1 * o1 + l2 * o2) / (l1 + l2), "check_l13_merge_no_rescale"),
        ((e1 * o1 + e2 * o2) / (e1 + e2), "check_l13_merge_no_l"),
        (e1 * l1 * o1 + e2 * l2 * o2, "check_l13_merge_not_divided"),
        ((l1 / e1 * o1 + l2 / e2 * o2) / (l1 / e1 + l2 / e2), "check_l13_merge_sign"),
        (o1 + o2, "check_l13_merge_sum"),
    ]
    for value, key in slips:
        if not np.allclose(value, expected) and np.allclose(got, value, rtol=1e-6, atol=1e-9):
            return wrong(key, name=name)
    close = close_but_not_right(got, expected, name)
    if close is not None:
        return close
    return wrong("check_l13_merge_wrong", name=name, got=_show(got))


def _uses_the_scores(name: str) -> bool:
    """Whether the learner's cell that assigned ``name`` computes it from ``s`` or ``v8``
    (all eight scores and values) instead of only the two halves ``first`` and ``second``."""
    tree = assigning_cell(name)
    return tree is not None and depends_on(tree, name, names={"s", "v8"},
                                           given={"first", "second", "rng"},
                                           made_from={"rng"})

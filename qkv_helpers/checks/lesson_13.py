"""Lesson 13's exercise checks."""

from __future__ import annotations

import functools

import numpy as np

from ._answers import _real_array
from ._feedback import Feedback, never_raises, not_answered, right, unanswered, wrong


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
    """
    if not_answered(answer):
        return unanswered()
    if isinstance(answer, (str, bytes)) or not isinstance(answer, (list, tuple, np.ndarray)):
        return wrong("check_rows_not_ints", name=name)
    items = list(np.asarray(answer).ravel()) if isinstance(answer, np.ndarray) else list(answer)
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))
               for i in items):
        return wrong("check_rows_not_ints", name=name)
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


@functools.lru_cache(maxsize=1024)
def _l13_used_kv_head(n_q_heads: int, n_kv_heads: int, query_head: int) -> int:
    """The K/V head whose attention gives query head ``query_head``'s output, measured
    (once per arguments: the measurement depends on nothing else)."""
    from ..attention import scaled_dot_product_attention
    from ..grouped_query import grouped_query_attention

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
    outputs and the sum without rescaling.

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
    """
    if not_answered(answer):
        return unanswered()
    from ..attention import softmax

    try:  # the notebook passes these; a learner may have overwritten them
        scores = np.asarray(scores, dtype=float)
        v = np.asarray(v, dtype=float)
        expected = softmax(scores) @ v  # (d_v,)
        if scores.ndim != 1 or expected.ndim != 1:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        return wrong("check_not_numbers", name="scores, v", kind=type(scores).__name__)
    if isinstance(answer, (str, bytes)) or np.iscomplexobj(answer):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    numbers_only = _real_array(answer, name)  # refuses "4.171" (numpy would convert it)
    if isinstance(numbers_only, Feedback) and numbers_only.ok is False:
        return numbers_only
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError, OverflowError):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if got.shape != expected.shape:
        got = got.reshape(-1) if got.size == expected.size else got
        if got.shape != expected.shape:
            return wrong("check_shape", name=name, got=got.shape, needed=expected.shape)
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    shown = np.array2string(got, precision=3)
    if np.allclose(got, expected, rtol=1e-6, atol=1e-9):
        return right("check_l13_merge_right", name=name, got=shown)
    half = scores.size // 2
    parts = [(scores[:half], v[:half]), (scores[half:], v[half:])]
    average = sum(softmax(s) @ w for s, w in parts) / 2
    exps = [(np.exp(s - s.max()), w) for s, w in parts]
    no_rescale = sum(e @ w for e, w in exps) / sum(e.sum() for e, _ in exps)
    if np.allclose(got, average, rtol=1e-6, atol=1e-9):
        return wrong("check_l13_merge_average", name=name)
    if np.allclose(got, no_rescale, rtol=1e-6, atol=1e-9):
        return wrong("check_l13_merge_no_rescale", name=name)
    return wrong("check_l13_merge_wrong", name=name, got=shown,
                 needed=np.array2string(expected, precision=3))

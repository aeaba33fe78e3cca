"""Lesson 02's exercise checks."""

from __future__ import annotations

import math

import numpy as np

from ._answers import _close, _close_number, _number, _real_array, check_array, close_but_not_right
from ._feedback import Feedback, never_raises, right, wrong


def _reordered(example, order):
    order = np.asarray(order, dtype=int)
    x = example.x[order]  # (n, d_model)
    return x @ example.w_q, x @ example.w_k  # (n, d_k) each


@never_raises
def check_reordered_scores(answer, example, order, name: str = "my_scores") -> Feedback:
    """Lesson 02: the raw score matrix ``Q·Kᵀ`` of the sentence with its tokens in ``order``.

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> order = [0, 5, 2, 3, 4, 1, 6]
    >>> x = ex.x[order]
    >>> check_reordered_scores((x @ ex.w_q) @ (x @ ex.w_k).T, ex, order).ok
    True
    >>> check_reordered_scores(ex.q @ ex.k.T, ex, order).ok
    False
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    q, k = _reordered(example, order)
    raw = q @ k.T  # (n_q, n_k)
    if not _close(got, raw):
        if _close(got, raw.T):
            return wrong("check_l02_transposed", name=name)
        if _close(got, raw / np.sqrt(example.d_k)):
            return wrong("check_l02_scaled", name=name)
        if _close(got, example.q @ example.k.T):
            return wrong("check_l02_original_sentence", name=name)
    return check_array(got, raw, name)


@never_raises
def check_angle(answer, example, query: str, key: str, name: str = "my_angle") -> Feedback:
    """Lesson 02: the angle in degrees between the query of ``query`` and the key of ``key``.

    >>> from qkv_helpers import running_example
    >>> from qkv_helpers.similarity import dot_and_angle
    >>> ex = running_example()
    >>> d = dot_and_angle(ex.q[5], ex.k[1])
    >>> check_angle(d.angle_deg, ex, "mat", "cat").ok, check_angle(d.cos_angle, ex, "mat", "cat").ok
    (True, False)
    """
    from ...similarity import dot_and_angle

    d = dot_and_angle(example.q[example.index(query)], example.k[example.index(key)])
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if not _close_number(got, d.angle_deg, 1e-3):
        if _close_number(got, math.radians(d.angle_deg), 1e-3):
            return wrong("check_l02_radians", name=name)
        if _close_number(got, d.cos_angle, 1e-3):
            return wrong("check_l02_cosine", name=name)
        if _close_number(got, d.dot, 1e-3):
            return wrong("check_l02_dot", name=name)
        close = close_but_not_right(got, d.angle_deg, name)
        if close is not None:
            return close
        return wrong("check_wrong_value", name=name, got=f"{got:.4g}")
    return right(name=name)

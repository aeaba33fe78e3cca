"""Lesson 00's exercise checks."""

from __future__ import annotations

import numpy as np

from ._answers import _shape, check_value
from ._feedback import Feedback, never_raises, wrong


@never_raises
def check_q_shape(answer, example, n_tokens: int, name: str = "my_shape") -> Feedback:
    """Lesson 00: the shape of ``Q = X·W_Q`` for a sentence of ``n_tokens`` tokens.

    >>> from qkv_helpers import running_example
    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> ex = running_example()
    >>> check_q_shape((12, 4), ex, n_tokens=12).ok, check_q_shape((7, 4), ex, n_tokens=12).ok
    (True, False)
    >>> check_q_shape((12.0, 4.0), ex, n_tokens=12).ok
    False
    >>> check_q_shape((12, 8), ex, n_tokens=12).key
    'check_l00_d_model'
    """
    x = np.zeros((n_tokens, example.x.shape[1]))  # (n_tokens, d_model)
    needed = (x @ example.w_q).shape  # (n_tokens, d_k)
    got = _shape(answer, name, 2)
    if isinstance(got, Feedback):
        return got
    if got == example.q.shape and got != needed:
        return wrong("check_l00_shown_sentence", name=name, got=got, n_tokens=n_tokens)
    if got == needed[::-1] and got != needed:
        return wrong("check_l00_transposed", name=name, got=got)
    d_model = example.x.shape[1]
    if got == (n_tokens, d_model) and got != needed:  # the columns of X, not of W_Q
        return wrong("check_l00_d_model", name=name, got=got, d_model=d_model)
    return check_value(got, needed, name)

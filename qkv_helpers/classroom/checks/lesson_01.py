"""Lesson 01's exercise checks."""

from __future__ import annotations

import numpy as np

from ._answers import _close, _real_array, check_array
from ._feedback import Feedback, never_raises, wrong


@never_raises
def check_new_key(answer, example, x_new, name: str = "my_key") -> Feedback:
    """Lesson 01: the key ``x_new·W_K`` of a new token with embedding ``x_new`` (d_model,).

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> x = np.linspace(-1, 1, 8)
    >>> check_new_key(x @ ex.w_k, ex, x).ok, check_new_key(x @ ex.w_q, ex, x).ok
    (True, False)
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    x_new = np.asarray(x_new, dtype=float)  # (d_model,)
    if _close(got, x_new):
        return wrong("check_l01_embedding", name=name, d_model=x_new.shape[-1],
                     d_k=example.w_k.shape[1])
    for other, w in (("Q", example.w_q), ("V", example.w_v)):
        if _close(got, x_new @ w):
            return wrong("check_l01_other_matrix", name=name, other=f"x·W_{other}")
    return check_array(got, x_new @ example.w_k, name)


@never_raises
def check_new_scores(answer, example, x_new, name: str = "my_scores") -> Feedback:
    """Lesson 01: the new token's query against every key of the sentence, ``K·q_new`` (n,).

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> x = np.linspace(-1, 1, 8)
    >>> check_new_scores(ex.k @ (x @ ex.w_q), ex, x).ok
    True
    >>> check_new_scores(ex.q @ (x @ ex.w_k), ex, x).ok
    False
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    x_new = np.asarray(x_new, dtype=float)  # (d_model,)
    expected = example.k @ (x_new @ example.w_q)  # (n_k,)
    if _close(got, example.q @ (x_new @ example.w_k)):
        return wrong("check_l01_roles_swapped", name=name)
    if _close(got, expected / np.sqrt(example.d_k)):
        return wrong("check_l02_scaled", name=name)
    return check_array(got, expected, name)

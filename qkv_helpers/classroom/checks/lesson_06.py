"""Lesson 06's exercise checks."""

from __future__ import annotations

import numpy as np

from ._answers import _close, _real_array, check_array
from ._feedback import Feedback, never_raises, wrong


@never_raises
def check_head_output(answer, mha, x, head: int, name: str = "my_head") -> Feedback:
    """One head's output ``softmax(q·kᵀ/√d_k)·v`` from ``mha.project(x)``.

    Recognises three slips: no scaling, no softmax, and another head.

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers.encoder_decoder import encoder_example
    >>> set_language("en")
    >>> enc = encoder_example()
    >>> check_head_output(..., enc.mha, enc.x, head=1).ok is None
    True
    >>> check_head_output(np.zeros((7, 8)), enc.mha, enc.x, head=1)
    ❌ my_head has shape (7, 8), but it should have shape (7, 4).
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from ...attention import scaled_dot_product_attention, softmax

    p = mha.project(x)  # each (n_heads, tokens, head_dim)
    expected = scaled_dot_product_attention(p.q[head], p.k[head], p.v[head]).output
    if not _close(got, expected):
        scores = p.q[head] @ p.k[head].T  # (tokens, tokens)
        root = float(np.sqrt(mha.head_dim))
        if _close(got, softmax(scores) @ p.v[head]):
            return wrong("check_l06_unscaled", name=name, root=f"{root:.0f}")
        if _close(got, scores / root @ p.v[head]):
            return wrong("check_l06_no_softmax", name=name)
        for other in range(mha.n_heads):
            out = scaled_dot_product_attention(p.q[other], p.k[other], p.v[other]).output
            if other != head and _close(got, out):
                return wrong("check_l06_other_head", name=name, other=other, head=head)
    return check_array(got, expected, name)


@never_raises
def check_prefix_head(answer, mha, x, head: int, n_tokens: int,
                      name: str = "my_head") -> Feedback:
    """Lesson 06: one head's output for the first ``n_tokens`` tokens of ``x`` only.

    >>> from qkv_helpers.encoder_decoder import encoder_example
    >>> enc = encoder_example()
    >>> p = enc.mha.project(enc.x[:4])
    >>> from qkv_helpers import scaled_dot_product_attention as sdpa
    >>> right = sdpa(p.q[0], p.k[0], p.v[0]).output
    >>> check_prefix_head(right, enc.mha, enc.x, head=0, n_tokens=4).ok
    True
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from ...attention import scaled_dot_product_attention

    full = mha.project(x)  # each (n_heads, tokens, head_dim)
    full_out = scaled_dot_product_attention(full.q[head], full.k[head], full.v[head]).output
    if _close(got, full_out[:n_tokens]):
        return wrong("check_l06_rows_of_full", name=name, n=n_tokens)
    return check_head_output(got, mha, np.asarray(x)[:n_tokens], head, name=name)

"""Lesson 06's exercise checks."""

from __future__ import annotations

import numpy as np

from ._answers import _close, _real_array
from ._feedback import Feedback, never_raises, wrong
from .earlier_exercises import check_head_output


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
    from ..attention import scaled_dot_product_attention

    full = mha.project(x)  # each (n_heads, tokens, head_dim)
    full_out = scaled_dot_product_attention(full.q[head], full.k[head], full.v[head]).output
    if _close(got, full_out[:n_tokens]):
        return wrong("check_l06_rows_of_full", name=name, n=n_tokens)
    return check_head_output(got, mha, np.asarray(x)[:n_tokens], head, name=name)

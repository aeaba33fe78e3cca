"""Lesson 05's exercise checks."""

from __future__ import annotations

from ._answers import _close, _real_array, check_array
from ._feedback import Feedback, never_raises, wrong


@never_raises
def check_prefix_context(answer, example, token: str, n_tokens: int,
                         name: str = "my_context") -> Feedback:
    """Lesson 05: the contextual vector of ``token`` when the sentence is only its first
    ``n_tokens`` tokens: softmax over those keys only, then the weighted sum of their values.

    >>> from qkv_helpers import running_example, scaled_dot_product_attention
    >>> ex = running_example()
    >>> short = scaled_dot_product_attention(ex.q[:3], ex.k[:3], ex.v[:3]).output
    >>> check_prefix_context(short[1], ex, "cat", 3).ok
    True
    >>> full = scaled_dot_product_attention(ex.q, ex.k, ex.v)
    >>> check_prefix_context(full.output[1], ex, "cat", 3).ok
    False
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from ...attention import scaled_dot_product_attention

    i = example.index(token)
    q, k, v = example.q[:n_tokens], example.k[:n_tokens], example.v[:n_tokens]
    short = scaled_dot_product_attention(q, k, v)
    expected = short.output[i]  # (d_v,)
    full = scaled_dot_product_attention(example.q, example.k, example.v)
    if not _close(got, expected):
        if got.shape == short.output.shape:
            return wrong("check_l05_all_rows", name=name, got=short.output.shape, token=token,
                         needed=expected.shape)
        if _close(got, full.output[i]):
            return wrong("check_l05_whole_sentence", name=name, n=n_tokens)
        if _close(got, full.weights[i, :n_tokens] @ v):
            return wrong("check_l05_not_renormalised", name=name, n=n_tokens)
        if _close(got, v.sum(axis=0)) or _close(got, example.v.sum(axis=0)):
            return wrong("check_l05_unweighted", name=name)
        if _close(got, short.weights[i] @ k):
            return wrong("check_l05_keys", name=name)
        if _close(got, example.v[i]):
            return wrong("check_l05_own_value", name=name, token=token)
    return check_array(got, expected, name)

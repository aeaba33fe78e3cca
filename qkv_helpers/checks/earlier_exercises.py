"""Checks of earlier versions of the exercises, kept for teachers' own exercises
(and for the classroom tools that grade them)."""

from __future__ import annotations

import numpy as np

from ._answers import _close, _real_array, _shape, check_array, check_value
from ._feedback import Feedback, never_raises, wrong
from .lesson_02 import check_reordered_scores
from .lesson_10 import check_masked_output


@never_raises
def check_projection_k(answer, example, name: str = "K") -> Feedback:
    """The keys ``K = X·W_K`` of the running example, shape (7, 4).

    >>> from qkv_helpers import running_example
    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> ex = running_example()
    >>> check_projection_k(ex.x @ ex.w_k, ex).ok, check_projection_k(ex.q, ex).ok
    (True, False)
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    for other, matrix in (("Q", example.q), ("V", example.v)):
        if _close(got, matrix):
            return wrong("check_l01_other_matrix", name=name, other=f"{other} = X·W_{other}")
    return check_array(got, example.k, name)


@never_raises
def check_score_matrix(answer, example, name: str = "scores") -> Feedback:
    """The raw score matrix ``Q·Kᵀ``, shape (tokens, tokens).

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> check_score_matrix(ex.q @ ex.k.T, ex).ok, check_score_matrix(ex.k @ ex.q.T, ex).ok
    (True, False)
    """
    return check_reordered_scores(answer, example, np.arange(len(example.tokens)), name=name)


@never_raises
def check_scaled_scores(answer, example, name: str = "scaled") -> Feedback:
    """The scaled scores ``Q·Kᵀ/√d_k``.

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> check_scaled_scores(ex.q @ ex.k.T / 2.0, ex).ok, check_scaled_scores(ex.q @ ex.k.T, ex).ok
    (True, False)
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    raw = example.q @ example.k.T  # (n_q, n_k)
    d_k = example.d_k
    root = f"{np.sqrt(d_k):.3g}"
    if _close(got, raw):
        return wrong("check_l03_unscaled", name=name, root=root)
    if _close(got, raw / d_k):
        return wrong("check_l03_by_dk", name=name, d_k=d_k, root=root)
    return check_array(got, raw / np.sqrt(d_k), name)


@never_raises
def check_contextual_vector(answer, example, token: str = "cat",
                            name: str = "context") -> Feedback:
    """The contextual vector of one token, ``weights[token] @ V``, shape (d_v,).

    >>> from qkv_helpers import running_example, scaled_dot_product_attention
    >>> ex = running_example()
    >>> out = scaled_dot_product_attention(ex.q, ex.k, ex.v).output
    >>> check_contextual_vector(out[1], ex).ok, check_contextual_vector(out, ex).ok
    (True, False)
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from ..attention import scaled_dot_product_attention

    output = scaled_dot_product_attention(example.q, example.k, example.v).output  # (n, d_v)
    expected = output[example.index(token)]  # (d_v,)
    if _close(got, output):
        return wrong("check_l05_all_rows", name=name, got=output.shape, token=token,
                     needed=expected.shape)
    if _close(got, example.v.sum(axis=0)):
        return wrong("check_l05_unweighted", name=name)
    return check_array(got, expected, name)


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
    from ..attention import scaled_dot_product_attention, softmax

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
def check_cross_weights_shape(answer, example, name: str = "my_shape",
                              needed: tuple[int, int] | None = None) -> Feedback:
    """Lesson 08: the shape of cross-attention's weights, (target tokens, source tokens).

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers import translation_example
    >>> set_language("en")
    >>> check_cross_weights_shape((5, 7), translation_example())
    ✅ Right! my_shape is correct.
    >>> check_cross_weights_shape((7, 5), translation_example()).ok
    False
    >>> check_cross_weights_shape((5.9, 7.2), translation_example()).ok
    False
    """
    if needed is None:
        needed = (len(example.target_tokens), len(example.source_tokens))
    got = _shape(answer, name, 2)
    if isinstance(got, Feedback):
        return got
    if got == needed[::-1] and needed[0] != needed[1]:
        return wrong("check_l08_transposed", name=name, got=got)
    return check_value(got, tuple(needed), name)


@never_raises
def check_decoder_output(answer, example, name: str = "my_output") -> Feedback:
    """The whole pipeline with the causal mask, from the running example's ``x``.

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers import running_example
    >>> set_language("en")
    >>> ex = running_example()
    >>> check_decoder_output(..., ex).ok is None
    True
    >>> from qkv_helpers import scaled_dot_product_attention
    >>> check_decoder_output(scaled_dot_product_attention(ex.q, ex.k, ex.v).output, ex).ok
    False
    """
    return check_masked_output(answer, example.x, example.w_q, example.w_k, example.w_v,
                               name=name)

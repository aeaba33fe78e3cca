"""Lesson 08's exercise checks."""

from __future__ import annotations

import numpy as np

from ._answers import _shape, check_value
from ._feedback import Feedback, never_raises, wrong


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
def check_cross_shape(answer, example, n_target: int, n_source: int,
                      name: str = "my_shape") -> Feedback:
    """Lesson 08: the shape of cross-attention's weights for ``n_target`` decoder tokens and
    ``n_source`` encoder tokens, computed by the package on arrays of those sizes.

    >>> from qkv_helpers import translation_example
    >>> tr = translation_example()
    >>> check_cross_shape((9, 12), tr, 9, 12).ok, check_cross_shape((12, 9), tr, 9, 12).ok
    (True, False)
    >>> check_cross_shape((8, 12), tr, 9, 12).key  # the decoder's <bos> left out
    'check_l08_forgot_bos'
    >>> check_cross_shape((9, 11), tr, 9, 12).key  # the source's <eos> left out
    'check_l08_forgot_eos'
    """
    from ...attention import scaled_dot_product_attention

    d_k = example.q.shape[1]
    weights = scaled_dot_product_attention(
        np.zeros((n_target, d_k)), np.zeros((n_source, d_k)), np.zeros((n_source, d_k))
    ).weights
    got = _shape(answer, name, 2)
    if not isinstance(got, Feedback) and got != weights.shape:
        from ...examples import translation_example

        slips = [((len(ex.target_tokens), len(ex.source_tokens)), "check_l08_example_shape")
                 for ex in (translation_example(), example)]  # sentences the lesson showed
        slips += [((n_target, d_k), "check_l08_q_shape"),  # Q's shape, not Q·Kᵀ's
                 ((n_target - 1, n_source), "check_l08_forgot_bos"),
                 ((n_target, n_source - 1), "check_l08_forgot_eos")]
        for shape, key in slips:
            if got == shape:
                return wrong(key, name=name, got=got, n_target=n_target, d_k=d_k)
    return check_cross_weights_shape(answer, None, name=name, needed=weights.shape)

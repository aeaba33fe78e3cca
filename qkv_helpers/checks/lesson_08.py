"""Lesson 08's exercise checks."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback, never_raises
from .earlier_exercises import check_cross_weights_shape


@never_raises
def check_cross_shape(answer, example, n_target: int, n_source: int,
                      name: str = "my_shape") -> Feedback:
    """Lesson 08: the shape of cross-attention's weights for ``n_target`` decoder tokens and
    ``n_source`` encoder tokens, computed by the package on arrays of those sizes.

    >>> from qkv_helpers import translation_example
    >>> tr = translation_example()
    >>> check_cross_shape((9, 12), tr, 9, 12).ok, check_cross_shape((12, 9), tr, 9, 12).ok
    (True, False)
    """
    from ..attention import scaled_dot_product_attention

    d_k = example.q.shape[1]
    weights = scaled_dot_product_attention(
        np.zeros((n_target, d_k)), np.zeros((n_source, d_k)), np.zeros((n_source, d_k))
    ).weights
    return check_cross_weights_shape(answer, None, name=name, needed=weights.shape)

"""Multi-query and grouped-query attention: several query heads share one K/V head.

In multi-head attention every query head has its own keys and values. In grouped-query
attention (GQA) the ``n_q_heads`` query heads are split into ``n_kv_heads`` groups of
``group = n_q_heads // n_kv_heads`` heads, and each group shares one K/V head::

    query head h  uses  K/V head  h // group        (PyTorch's enable_gqa convention)

``n_kv_heads = 1`` is multi-query attention (MQA); ``n_kv_heads = n_q_heads`` is plain
multi-head attention. A KV cache keeps only the K/V heads, so it shrinks by ``group``.
The arithmetic is the same as multi-head attention with each K/V head repeated ``group``
times, and that is how it is computed here.
"""

from __future__ import annotations

import numpy as np

from . import _validate as validate
from .attention import AttentionResult, _attention, scaled_dot_product_attention  # noqa: F401 (doctest)

__all__ = ["grouped_query_attention", "repeat_kv"]


@validate.by(validate.repeat_kv_args)
def repeat_kv(x, group: int) -> np.ndarray:
    """Repeat each K/V head ``group`` times along the head axis (``-3``).

    ``(..., n_kv_heads, n, d)`` → ``(..., n_kv_heads·group, n, d)``.

    Heads come out in the order ``0, 0, …, 1, 1, …``: head ``h`` of the result is head
    ``h // group`` of ``x``.

    >>> repeat_kv(np.arange(2.0).reshape(2, 1, 1), 3).ravel()
    array([0., 0., 0., 1., 1., 1.])
    """
    return np.repeat(x, group, axis=-3)  # (..., n_kv_heads·group, n, d)


@validate.by(validate.gqa_args)
def grouped_query_attention(q, k, v, mask=None) -> AttentionResult:
    """Attention where groups of query heads share K/V heads (GQA; MQA with one K/V head).

    Parameters
    ----------
    q : array_like, shape (..., n_q_heads, n_q, d)
        Queries of every query head.
    k, v : array_like, shape (..., n_kv_heads, n_k, d)
        Keys and values of the K/V heads; ``n_q_heads`` must be a multiple of
        ``n_kv_heads``. (``v`` may have its own last dimension ``d_v``.)
    mask : array_like of bool, optional
        Broadcastable to ``(..., n_q_heads, n_q, n_k)``; True = may attend.

    Returns
    -------
    AttentionResult
        ``output (..., n_q_heads, n_q, d_v)`` and ``weights (..., n_q_heads, n_q, n_k)``,
        as :func:`~qkv_helpers.scaled_dot_product_attention` gives them.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q = rng.normal(size=(4, 3, 8))            # 4 query heads, 3 tokens
    >>> k = rng.normal(size=(2, 3, 8))            # 2 K/V heads: groups of 2
    >>> v = rng.normal(size=(2, 3, 8))
    >>> out, w = grouped_query_attention(q, k, v)
    >>> out.shape, w.shape
    ((4, 3, 8), (4, 3, 3))
    >>> plain = scaled_dot_product_attention(q[3], k[1], v[1]).output   # head 3 uses K/V head 1
    >>> bool(np.allclose(out[3], plain))
    True
    """
    group = q.shape[-3] // k.shape[-3]  # query heads per K/V head
    k_rep = repeat_kv.unchecked(k, group)  # (..., n_q_heads, n_k, d)
    v_rep = repeat_kv.unchecked(v, group)  # (..., n_q_heads, n_k, d_v)
    return _attention(q, k_rep, v_rep, mask)

"""Fast paths of attention, apart from the readable ones that the lessons call.

:func:`~qkv_helpers.attention.scaled_dot_product_attention` is the formula as written,
``softmax(Q·Kᵀ/√d_k)·V``. What is here gives the same numbers (to float rounding; tests
check it) with less work or fewer numpy calls, and is harder to read:

- :func:`blocked_attention`: one head and one block of queries at a time, so that a
  block's scores stay in the CPU's cache, and keys that no query of a block may see
  (under the causal mask: the future, half the work) get no score at all.
- :func:`one_query_attention`: a decoder's cached step, one query per head, in the
  fewest numpy calls and without input checks.
- :func:`decoder_attention`: which of the two a decoder's step takes; the switch
  ``TinyTransformer(..., fast_attention=True)`` makes the decoder call it.

Each returns the attention *output* only, ``(..., n_q, d_v)``, like PyTorch's
``scaled_dot_product_attention``: not the weights.
"""

from __future__ import annotations

import math

import numpy as np

from .attention import check_attention_inputs

__all__ = ["blocked_attention", "decoder_attention", "one_query_attention"]


# --- Blocked attention that skips fully masked key blocks --------------------------------


def blocked_attention(q, k, v, mask=None, scale=None, block_size: int = 128) -> np.ndarray:
    """``scaled_dot_product_attention(q, k, v, mask, scale).output``, block by block.

    Same arguments and checks as :func:`~qkv_helpers.attention.scaled_dot_product_attention`,
    plus ``block_size``, the queries per block. Returns the output ``(..., n_q, d_v)``.

    Examples
    --------
    >>> from qkv_helpers import causal_mask, scaled_dot_product_attention
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 2, 300, 8))           # 2 heads, 300 tokens
    >>> out = blocked_attention(q, k, v, mask=causal_mask(300))
    >>> want = scaled_dot_product_attention(q, k, v, mask=causal_mask(300)).output
    >>> bool(np.allclose(out, want))
    True
    """
    q, k, v, mask, scale = check_attention_inputs(q, k, v, mask, scale)
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    n_q, n_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    shapes = [q.shape[:-2], k.shape[:-2], v.shape[:-2]]
    if mask is not None:
        shapes.append(mask.shape[:-2])
    batch = np.broadcast_shapes(*shapes)  # the heads (and any other leading dimensions)
    q = np.broadcast_to(q * scale, (*batch, n_q, q.shape[-1]))  # scaled once
    k_t = np.broadcast_to(k.swapaxes(-1, -2), (*batch, k.shape[-1], n_k))  # (..., d_k, n_k)
    v = np.broadcast_to(v, (*batch, n_k, d_v))
    if mask is not None:
        mask = np.broadcast_to(mask, (*batch, n_q, n_k))
    out = np.empty((*batch, n_q, d_v), q.dtype)  # (..., n_q, d_v)
    sum_dtype = np.promote_types(q.dtype, np.float32)  # float16 sums in float32
    for head in np.ndindex(batch):
        for start in range(0, n_q, block_size):
            rows = slice(start, start + block_size)
            end = n_k  # keys from `end` on are hidden from every query of the block
            if mask is not None:
                seen = mask[head][rows].any(axis=0)  # (n_k,)
                end = n_k - int(np.argmax(seen[::-1]))
            with np.errstate(over="ignore", invalid="ignore"):  # checked below
                s = q[head][rows] @ k_t[head][:, :end]  # (block, end)
            if mask is not None:
                np.copyto(s, -np.inf, where=~mask[head][rows, :end])
            row_max = s.max(axis=-1, keepdims=True)  # (block, 1)
            if not np.isfinite(row_max).all():
                raise ValueError(
                    "the scores overflowed to infinity or became NaN: the inputs are too "
                    f"large for dtype {s.dtype} (largest score {row_max.max()})")
            s -= row_max
            np.exp(s, out=s)
            # Normalise the output (d_v numbers a row) instead of the weights (end a row).
            o = s @ v[head][:end]  # (block, d_v)
            o /= s.sum(axis=-1, keepdims=True, dtype=sum_dtype)
            out[head][rows] = o
    return out


# --- The one-query decoding step ---------------------------------------------------------


def one_query_attention(q, k, v, scale: float | None = None) -> np.ndarray:
    """Attention's output for one query per head and no mask: a decoder's cached step.

    No input checks, for callers whose arrays are known good (the decoder's own):
    ``q (..., 1, d_k)``, ``k (..., n_k, d_k)``, ``v (..., n_k, d_v)`` finite float
    arrays of one dtype with the same leading dimensions, ``n_k >= 1``. Returns
    ``(..., 1, d_v)``; scores too large for the dtype are a clear error.

    >>> q = np.array([[[1.0, 0.0]]]); k = np.array([[[1.0, 0.0], [0.0, 1.0]]])
    >>> one_query_attention(q, k, 10 * k, scale=1.0).round(3)
    array([[[7.311, 2.689]]])
    """
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    with np.errstate(over="ignore", invalid="ignore"):  # checked below
        s = (q * scale) @ k.swapaxes(-1, -2)  # (..., 1, n_k)
    row_max = s.max(axis=-1, keepdims=True)  # (..., 1, 1)
    if not np.isfinite(row_max).all():
        raise ValueError(
            "the scores overflowed to infinity or became NaN: the inputs are too large "
            f"for dtype {s.dtype} (largest score {row_max.max()})")
    s -= row_max
    np.exp(s, out=s)
    out = s @ v  # (..., 1, d_v)
    out /= s.sum(axis=-1, keepdims=True, dtype=np.promote_types(s.dtype, np.float32))
    return out


def decoder_attention(q, k, v, causal: bool) -> np.ndarray:
    """A decoder's attention output through the fast paths, ``(..., n_q, d_v)``.

    ``q (..., n_q, d_k)`` are the last ``n_q`` of the ``n_k`` positions of ``k`` and ``v``;
    ``causal`` applies the causal mask. One query (a cached step) sees every key, so it
    takes :func:`one_query_attention`; several take :func:`blocked_attention`.
    """
    n_q, n_k = q.shape[-2], k.shape[-2]
    if n_q == 1:
        return one_query_attention(q, k, v)
    mask = np.tri(n_q, n_k, k=n_k - n_q, dtype=bool) if causal else None  # causal_mask
    return blocked_attention(q, k, v, mask=mask)


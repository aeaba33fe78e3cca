"""Fast paths: attention computed in ways that cost less, each tested equal to the readable one.

The functions the lessons read first live in :mod:`qkv_helpers.attention`. Here are the
versions that trade clarity for time or memory, kept apart so that the readable code has no
special cases, and each is something a lesson can teach.
"""

# --- Tiled attention with the online softmax (lesson 13) ---
#
# Plain attention builds the whole (n_q, n_k) score matrix, then its softmax, then
# weights·V. Tiled attention (FlashAttention's idea) never builds it: it walks over the keys
# and values in blocks and keeps, for every query row, three running quantities
#
#     m  the largest score seen so far                     (..., n_q, 1)
#     l  the sum of exp(score − m) seen so far             (..., n_q, 1)
#     o  the sum of exp(score − m) · value seen so far     (..., n_q, d_v)
#
# When a block brings a larger score, m grows to m_new and everything kept so far was
# measured against the old m: multiplying l and o by exp(m − m_new) puts it on the new
# footing. After the last block, softmax(scores)·V = o / l. Same arithmetic as plain
# attention (the same products and exps, in another order), but only a block of scores
# exists at any time: memory O(n_q · block) instead of O(n_q · n_k).
import math as _math  # noqa: E402  (this section's own imports)
from typing import NamedTuple as _NamedTuple  # noqa: E402  (this section's own imports)

import numpy as _np  # noqa: E402  (this section's own imports)
import numpy as np  # noqa: F401  (doctests use np)

from ._checks import as_float_array as _as_float_array  # noqa: E402  (this section's own imports)
from ._checks import positive_int as _positive_int  # noqa: E402  (this section's own imports)
from ._checks import positive_number as _positive_number  # noqa: E402  (this section's own imports)


class OnlineSoftmaxState(_NamedTuple):
    """The running quantities of one pass of the online softmax (per query row)."""

    m: _np.ndarray
    """``(..., n_q, 1)``: the largest score so far (``-inf`` before any key)."""
    l: _np.ndarray  # noqa: E741  (the letter of the FlashAttention paper)
    """``(..., n_q, 1)``: Σ exp(score − m) over the keys so far."""
    o: _np.ndarray
    """``(..., n_q, d_v)``: Σ exp(score − m) · value over the keys so far."""


def online_softmax_start(shape_rows, d_v: int, dtype=_np.float64) -> OnlineSoftmaxState:
    """The state before any key: ``m = -inf``, ``l = 0``, ``o = 0`` for rows of ``shape_rows``.

    >>> online_softmax_start((2,), 3).m.ravel()
    array([-inf, -inf])
    """
    shape_rows = tuple(shape_rows)
    return OnlineSoftmaxState(_np.full((*shape_rows, 1), -_np.inf, dtype),
                              _np.zeros((*shape_rows, 1), dtype),
                              _np.zeros((*shape_rows, d_v), dtype))


def online_softmax_update(state: OnlineSoftmaxState, scores, v_block) -> OnlineSoftmaxState:
    """Take in one block of keys: ``scores (..., n_q, block)``, ``v_block (..., block, d_v)``.

    Masked scores are ``-inf`` and count for nothing. The formulas, row by row::

        m_new = max(m, max(scores))
        l_new = l · exp(m − m_new) + Σ exp(scores − m_new)
        o_new = o · exp(m − m_new) + exp(scores − m_new) · v_block

    >>> s = online_softmax_start((1,), 1)
    >>> s = online_softmax_update(s, np.array([[0.0, 1.0]]), np.array([[10.0], [20.0]]))
    >>> s = online_softmax_update(s, np.array([[3.0]]), np.array([[30.0]]))   # a new maximum
    >>> float(s.m[0, 0]), (s.o / s.l).round(3)
    (3.0, array([[28.018]]))
    >>> from qkv_helpers import softmax                # the same as all at once
    >>> (softmax([0.0, 1.0, 3.0]) @ [10.0, 20.0, 30.0]).round(3)
    np.float64(28.018)
    """
    m, l, o = state  # noqa: E741
    m_new = _np.maximum(m, scores.max(axis=-1, keepdims=True))  # (..., n_q, 1)
    # A row that has seen only masked keys so far keeps m = -inf: shift it by 0 instead,
    # so that exp(-inf − 0) = 0 rather than exp(-inf + inf) = NaN.
    shift = _np.where(_np.isneginf(m_new), 0.0, m_new).astype(m.dtype, copy=False)
    rescale = _np.exp(m - shift)  # (..., n_q, 1): exp(m_old − m_new), 0 before any key
    p = _np.exp(scores - shift)  # (..., n_q, block): unnormalised weights of this block
    l_new = l * rescale + p.sum(axis=-1, keepdims=True)  # (..., n_q, 1)
    o_new = o * rescale + p @ v_block  # (..., n_q, d_v)
    return OnlineSoftmaxState(m_new, l_new, o_new)


class TiledWork(_NamedTuple):
    """What :func:`tiled_attention_with_work` computed, and how much of it."""

    output: _np.ndarray
    """``(..., n_q, d_v)``: equal to ``scaled_dot_product_attention(...).output``."""
    tiles: int
    """Tiles (query block × key block) whose scores were computed."""
    tiles_total: int
    """Tiles a computation without skipping does."""
    scores: int
    """Scores computed per batch entry (the sum of the tiles' areas)."""
    flops: int
    """Multiply-adds × 2 of the two products, per batch entry: 2·scores·d_k + 2·scores·d_v."""


def tiled_attention(q, k, v, mask=None, block_size: int = 64, scale=None,
                    skip_hidden_blocks: bool = True) -> _np.ndarray:
    """Attention block by block with the online softmax, never building the weight matrix.

    Queries and keys go in blocks of ``block_size``; for each block of queries the key
    blocks stream past and :func:`online_softmax_update` folds each one in. Returns only
    the output (the weights never exist as a whole), equal to
    ``scaled_dot_product_attention(q, k, v, mask, scale).output`` up to rounding.

    Parameters
    ----------
    q, k, v, mask, scale
        As for :func:`~qkv_helpers.scaled_dot_product_attention`: ``q (..., n_q, d_k)``,
        ``k (..., n_k, d_k)``, ``v (..., n_k, d_v)``, ``mask`` boolean, broadcastable to
        ``(..., n_q, n_k)``, True = may attend, with a True in every row.
    block_size : int
        Rows of queries and of keys per tile.
    skip_hidden_blocks : bool
        Skip tiles the mask hides entirely (for the causal mask, about half of them):
        their weights are exactly 0, so the result is the same.

    Returns
    -------
    numpy.ndarray, shape (..., n_q, d_v)

    Examples
    --------
    >>> from qkv_helpers import scaled_dot_product_attention, causal_mask
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 10, 4))
    >>> out = tiled_attention(q, k, v, mask=causal_mask(10), block_size=3)
    >>> bool(np.allclose(out, scaled_dot_product_attention(q, k, v, causal_mask(10)).output))
    True
    """
    return tiled_attention_with_work(q, k, v, mask, block_size, scale,
                                     skip_hidden_blocks).output


def tiled_attention_with_work(q, k, v, mask=None, block_size: int = 64, scale=None,
                              skip_hidden_blocks: bool = True) -> TiledWork:
    """:func:`tiled_attention`, with the work it did counted: tiles, scores and FLOPs.

    >>> from qkv_helpers import causal_mask
    >>> x = np.ones((8, 2))
    >>> full = tiled_attention_with_work(x, x, x, causal_mask(8), 2, skip_hidden_blocks=False)
    >>> skip = tiled_attention_with_work(x, x, x, causal_mask(8), 2)
    >>> full.tiles, skip.tiles, full.scores, skip.scores     # 16 tiles; 6 are all hidden
    (16, 10, 64, 40)
    """
    from .attention import _check_mask

    q = _as_float_array(q, "q", min_ndim=2)
    k = _as_float_array(k, "k", min_ndim=2)
    v = _as_float_array(v, "v", min_ndim=2)
    block_size = _positive_int(block_size, "block_size")
    dtype = _np.result_type(q, k, v)
    q, k, v = (a.astype(dtype, copy=False) for a in (q, k, v))
    (n_q, d_k), n_k, d_v = q.shape[-2:], k.shape[-2], v.shape[-1]
    if k.shape[-1] != d_k:
        raise ValueError(
            f"q and k must have the same d_k (last dimension): q has shape {q.shape} "
            f"(..., n_q, d_k), k has shape {k.shape}, needed (..., n_k, {d_k})"
        )
    if v.shape[-2] != n_k:
        raise ValueError(
            f"k and v must have the same number of tokens n_k: k has shape {k.shape} "
            f"(..., n_k, d_k), v has shape {v.shape}, needed (..., {n_k}, d_v)"
        )
    try:
        batch = _np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading (batch) dimensions of q {q.shape}, k {k.shape} and v {v.shape} "
            "do not broadcast together"
        ) from None
    if mask is not None:
        mask = _check_mask(mask, (*batch, n_q, n_k))
        batch = _np.broadcast_shapes(batch, mask.shape[:-2])
        mask = _np.broadcast_to(mask, (*mask.shape[:-2], n_q, n_k))  # (..., n_q, n_k)
    scale = 1.0 / _math.sqrt(d_k) if scale is None else _positive_number(scale, "scale")

    output = _np.empty((*batch, n_q, d_v), dtype)  # (..., n_q, d_v)
    q_scaled = q * dtype.type(scale)  # (..., n_q, d_k)
    k_t = k.swapaxes(-1, -2)  # (..., d_k, n_k), a view
    tiles = scores = 0
    for q_start in range(0, n_q, block_size):
        rows = slice(q_start, q_start + block_size)
        q_block = q_scaled[..., rows, :]  # (..., bq, d_k)
        state = online_softmax_start((*batch, q_block.shape[-2]), d_v, dtype)
        for k_start in range(0, n_k, block_size):
            cols = slice(k_start, k_start + block_size)
            visible = None if mask is None else mask[..., rows, cols]  # (..., bq, bk)
            if visible is not None and skip_hidden_blocks and not visible.any():
                continue  # every weight in this tile is 0: nothing to add
            with _np.errstate(over="ignore", invalid="ignore"):  # reported just below
                s = q_block @ k_t[..., cols]  # (..., bq, bk): this tile's scores
            if not _np.isfinite(s).all():
                raise ValueError(
                    "the scores overflowed to infinity or became NaN: the inputs are too "
                    f"large for dtype {dtype} (tile of queries {q_start}.., keys {k_start}..)"
                )
            if visible is not None and not visible.all():
                s = _np.where(visible, s, -_np.inf)  # masked: exp(-inf) = 0
            state = online_softmax_update(state, s, v[..., cols, :])
            tiles += 1
            scores += s.shape[-2] * s.shape[-1]
        output[..., rows, :] = state.o / state.l  # (..., bq, d_v): softmax(s)·V for these rows
    tiles_total = -(-n_q // block_size) * -(-n_k // block_size)
    return TiledWork(output, tiles, tiles_total, scores, 2 * scores * (d_k + d_v))

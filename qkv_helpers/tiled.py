"""Tiled attention with the online softmax (lesson 13): the weight matrix is never built.

Plain attention builds the whole ``(n_q, n_k)`` score matrix, then its softmax, then
weights·V. Tiled attention walks over the keys and values in blocks (Rabe & Staats, 2021;
FlashAttention, 2022, sizes the blocks for a GPU's on-chip memory) and keeps, for every
query row, three running quantities (m and l: Milakov & Gimelshein's online softmax, 2018)::

    m  the largest score seen so far                     (..., n_q, 1)
    l  the sum of exp(score − m) seen so far             (..., n_q, 1)
    o  the sum of exp(score − m) · value seen so far     (..., n_q, d_v)

When a block brings a larger score, m grows to m_new and everything kept so far was
measured against the old m: multiplying l and o by exp(m − m_new) puts it on the new
footing. After the last block, softmax(scores)·V = o / l. The same arithmetic as plain
attention (the same products and exps, in another order), but only one block of scores
exists at any time: memory O(n_q · block) instead of O(n_q · n_k).

As in FlashAttention, the scores and m, l and o are kept in float32 (at least) whatever
the inputs' dtype: in float16, 70,000 keys would make l overflow (65,504 is float16's
largest), and so would o with values of about 100 over 1,000 keys; and a score near 120,
rounded to float16 (whose step there is 0.0625), would be off by up to 0.03.

In numpy this is slower than plain attention (many small products instead of one large
one); its point is the memory, and the idea. The work it does is counted apart, by
:func:`tiled_attention_with_work`, from the tiles the mask leaves visible.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from . import _validate as validate

__all__ = ["OnlineSoftmaxState", "TiledWork", "online_softmax_start", "online_softmax_update",
           "tiled_attention", "tiled_attention_with_work"]


class OnlineSoftmaxState(NamedTuple):
    """The running quantities of one pass of the online softmax (per query row)."""

    m: np.ndarray
    """``(..., n_q, 1)``: the largest score so far (``-inf`` before any key)."""
    l: np.ndarray  # noqa: E741  (the letter of the FlashAttention paper)
    """``(..., n_q, 1)``: Σ exp(score − m) over the keys so far."""
    o: np.ndarray
    """``(..., n_q, d_v)``: Σ exp(score − m) · value over the keys so far."""


@validate.by(validate.online_start_args)
def online_softmax_start(shape_rows, d_v: int, dtype=np.float64) -> OnlineSoftmaxState:
    """The state before any key: ``m = -inf``, ``l = 0``, ``o = 0`` for rows of ``shape_rows``.

    >>> online_softmax_start((2,), 3).m.ravel()
    array([-inf, -inf])
    """
    return OnlineSoftmaxState(np.full((*shape_rows, 1), -np.inf, dtype),
                              np.zeros((*shape_rows, 1), dtype),
                              np.zeros((*shape_rows, d_v), dtype))


@validate.by(functools.partial(validate.online_update_args, state_type=OnlineSoftmaxState))
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
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))  # (..., n_q, 1)
    # A row that has seen only masked keys so far keeps m = -inf: shift it by 0 instead,
    # so that exp(-inf − 0) = 0 rather than exp(-inf + inf) = NaN.
    shift = np.where(np.isneginf(m_new), 0.0, m_new).astype(m.dtype, copy=False)
    rescale = np.exp(m - shift)  # (..., n_q, 1): exp(m_old − m_new), 0 before any key
    p = np.exp(scores - shift)  # (..., n_q, block): unnormalised weights of this block
    with np.errstate(over="ignore", invalid="ignore"):  # reported just below
        l_new = l * rescale + p.sum(axis=-1, keepdims=True)  # (..., n_q, 1)
        o_new = o * rescale + p @ v_block  # (..., n_q, d_v)
    validate.finite_running_sums(l_new, o_new)
    return OnlineSoftmaxState(m_new, l_new, o_new)


@validate.by(validate.tiled_args)
def tiled_attention(q, k, v, mask=None, block_size: int = 64, scale=None,
                    skip_hidden_blocks: bool = True) -> np.ndarray:
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
        In the dtype of the inputs; the scores, m, l and o were kept in float32 or wider.

    Examples
    --------
    >>> from qkv_helpers import scaled_dot_product_attention, causal_mask
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 10, 4))
    >>> out = tiled_attention(q, k, v, mask=causal_mask(10), block_size=3)
    >>> bool(np.allclose(out, scaled_dot_product_attention(q, k, v, causal_mask(10)).output))
    True
    """
    (n_q, d_k), n_k, d_v = q.shape[-2:], k.shape[-2], v.shape[-1]
    if scale is None:
        scale = 1 / math.sqrt(d_k)
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])  # mask's included
    dtype = v.dtype  # the output's
    # scores, m, l and o in float32 even for float16 inputs, as in FlashAttention
    running = np.promote_types(q.dtype, np.float32)
    with np.errstate(over="ignore", invalid="ignore"):  # too large: the scores say so
        q = q.astype(running, copy=False) * running.type(scale)  # (..., n_q, d_k): scaled once
    k_t = k.astype(running, copy=False).swapaxes(-1, -2)  # (..., d_k, n_k)

    output = np.empty((*batch, n_q, d_v), dtype)  # (..., n_q, d_v)
    for rows in _blocks(n_q, block_size):
        state = online_softmax_start.unchecked((*batch, rows.stop - rows.start), d_v, running)
        for cols in _blocks(n_k, block_size):
            visible = None if mask is None else mask[..., rows, cols]  # (..., bq, bk)
            if skip_hidden_blocks and visible is not None and not visible.any():
                continue  # every weight in this tile is 0: nothing to add
            with np.errstate(over="ignore", invalid="ignore"):  # reported just below
                s = q[..., rows, :] @ k_t[..., cols]  # (..., bq, bk): this tile's scores
            validate.finite_scores(s)
            if visible is not None:
                s = np.where(visible, s, -np.inf)  # masked: exp(-inf) = 0
            state = online_softmax_update.unchecked(state, s, v[..., cols, :])
        output[..., rows, :] = state.o / state.l  # (..., bq, d_v): softmax(s)·V, these rows
    return output


def _blocks(n: int, size: int):
    """``slice(0, size), slice(size, 2·size), ...`` up to ``n``."""
    return [slice(start, min(start + size, n)) for start in range(0, n, size)]


class TiledWork(NamedTuple):
    """What :func:`tiled_attention_with_work` computed, and how much of it."""

    output: np.ndarray
    """``(..., n_q, d_v)``: equal to ``scaled_dot_product_attention(...).output``."""
    tiles: int
    """Tiles (query block × key block) whose scores were computed."""
    tiles_total: int
    """Tiles a computation without skipping does."""
    scores: int
    """Scores computed per batch entry (the sum of the tiles' areas)."""
    flops: int
    """Multiply-adds × 2 of the two products, per batch entry: 2·scores·d_k + 2·scores·d_v."""


@validate.by(validate.tiled_args)
def tiled_attention_with_work(q, k, v, mask=None, block_size: int = 64, scale=None,
                              skip_hidden_blocks: bool = True) -> TiledWork:
    """:func:`tiled_attention`, with the work it did counted: tiles, scores and FLOPs.

    The count is taken from the mask, tile by tile, the way :func:`tiled_attention` skips
    tiles: a tile is computed unless ``skip_hidden_blocks`` and the mask hides all of it.

    >>> from qkv_helpers import causal_mask
    >>> x = np.ones((8, 2))
    >>> full = tiled_attention_with_work(x, x, x, causal_mask(8), 2, skip_hidden_blocks=False)
    >>> skip = tiled_attention_with_work(x, x, x, causal_mask(8), 2)
    >>> full.tiles, skip.tiles, full.scores, skip.scores     # 16 tiles; 6 are all hidden
    (16, 10, 64, 40)
    """
    output = tiled_attention.unchecked(q, k, v, mask, block_size, scale, skip_hidden_blocks)
    (n_q, d_k), n_k, d_v = q.shape[-2:], k.shape[-2], v.shape[-1]
    computed = [(rows.stop - rows.start) * (cols.stop - cols.start)
                for rows in _blocks(n_q, block_size) for cols in _blocks(n_k, block_size)
                if not (skip_hidden_blocks and mask is not None
                        and not mask[..., rows, cols].any())]
    tiles_total = len(_blocks(n_q, block_size)) * len(_blocks(n_k, block_size))
    scores = sum(computed)
    return TiledWork(output, len(computed), tiles_total, scores, 2 * scores * (d_k + d_v))

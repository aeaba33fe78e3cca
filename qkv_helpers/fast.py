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
- :func:`tiled_attention`: keys and values in blocks with the online softmax
  (FlashAttention's idea, lesson 13): the full weight matrix is never built.

Each returns the attention *output* only, ``(..., n_q, d_v)``, like PyTorch's
``scaled_dot_product_attention``: not the weights.
"""

from __future__ import annotations

import math

import numpy as np

from .attention import ScoresOverflowError, check_attention_inputs

LOG2_E = math.log2(math.e)

__all__ = ["OnlineSoftmaxState", "blocked_attention", "decoder_attention", "one_query_attention",
           "online_softmax_start", "online_softmax_update", "tiled_attention",
           "tiled_attention_with_work"]


# --- Blocked attention that skips fully masked key blocks --------------------------------

#: Scores per block (heads × queries × keys): 128 Ki floats, 512 KiB in float32, small
#: enough to stay in a core's L2 cache through the passes over them.
BLOCK_SCORES = 2**17
#: Queries per block under a mask: small enough to skip most masked keys, large enough
#: for BLAS to run at full speed. (Both measured with benchmarks/bench_attention.py.)
MASKED_BLOCK_ROWS = 64


def blocked_attention(q, k, v, mask=None, scale=None, block_size: int | None = None
                      ) -> np.ndarray:
    """``scaled_dot_product_attention(q, k, v, mask, scale).output``, block by block.

    Same arguments and checks as :func:`~qkv_helpers.attention.scaled_dot_product_attention`,
    plus ``block_size``, the queries per block (by default :data:`MASKED_BLOCK_ROWS` with a
    mask over at least half of :data:`BLOCK_SCORES` scores per head, else as many as keep
    a block's scores within :data:`BLOCK_SCORES`; as many heads as fit go in one block).
    Returns the output ``(..., n_q, d_v)``.

    Three things make it faster than the formula as written, each exact:

    - a block of heads and queries at a time, so its scores stay in the CPU's cache;
    - keys that no query of a block may see (under the causal mask: the future) get no
      score at all, and the mask is applied only to the keys that some query of the
      block may not see;
    - when every score is provably small, ``|q·k|·scale <= max|q|·max|k|·scale <=
      ln(largest float) / 2`` (Cauchy–Schwarz), ``exp`` cannot overflow nor lose the
      row's largest term, so the softmax skips the two passes of the max shift;
    - ``exp(s)`` is computed as ``exp2(s·log2 e)`` (log2 e folded into the scale), and
      the row sums as a product with a column of ones: both faster in numpy.

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
    if block_size is not None and (isinstance(block_size, bool)
                                   or not isinstance(block_size, int) or block_size < 1):
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    n_q, d_k, n_k, d_v = *q.shape[-2:], k.shape[-2], v.shape[-1]
    shapes = [q.shape[:-2], k.shape[:-2], v.shape[:-2]]
    if mask is not None:
        shapes.append(mask.shape[:-2])
    batch = np.broadcast_shapes(*shapes)  # the heads (and any other leading dimensions)
    n_b = math.prod(batch)

    # Every batch entry (head) along one axis: (n_b, tokens, dim). Copies only if broadcast.
    with np.errstate(over="ignore"):  # too large: an error below, from the scores
        q = q * (scale * LOG2_E)  # scaled once; exp(s) = 2**(s·log2 e), and exp2 is faster
    q = np.broadcast_to(q, (*batch, n_q, d_k)).reshape(n_b, n_q, d_k)
    k = np.broadcast_to(k, (*batch, n_k, d_k)).reshape(n_b, n_k, d_k)
    v = np.broadcast_to(v, (*batch, n_k, d_v)).reshape(n_b, n_k, d_v)
    if mask is not None:
        shared = mask.ndim == 2  # one (n_q, n_k) mask for every head: never copied
        mask = mask if shared else np.broadcast_to(mask, (*batch, n_q, n_k)).reshape(
            n_b, n_q, n_k)
    k_t = k.swapaxes(-1, -2)  # (n_b, d_k, n_k), a view

    # The shift by the row maximum only guards exp; skip it when no score can be large.
    largest = float(np.finfo(q.dtype).max)
    with np.errstate(over="ignore"):  # an overflowing bound is inf: take the shift
        bound = np.sqrt(np.vecdot(q, q).max()) * np.sqrt(np.vecdot(k, k).max())
    v_max = float(np.abs(v).max())  # and no product of exp(score)·v may overflow
    shift = (q.dtype == np.float16 or not bound <= 0.5 * math.log2(largest)
             or not v_max * n_k <= math.sqrt(largest))
    work = np.promote_types(q.dtype, np.float32)  # float16 sums (of up to n_k) in float32

    skip_keys = mask is not None and n_q * n_k >= BLOCK_SCORES // 2  # small: one block
    rows_per_block = block_size or (MASKED_BLOCK_ROWS if skip_keys
                                    else max(16, min(n_q, BLOCK_SCORES // n_k)))
    heads_per_block = max(1, BLOCK_SCORES // (rows_per_block * n_k))
    out = np.empty((n_b, n_q, d_v), q.dtype)
    v = v.astype(work, copy=False)
    ones = np.ones((n_k, 1), work)  # s @ ones sums the rows of s: BLAS, faster than sum
    for h0 in range(0, n_b, heads_per_block):
        heads = slice(h0, h0 + heads_per_block)
        for r0 in range(0, n_q, rows_per_block):
            rows = slice(r0, r0 + rows_per_block)
            first = end = n_k  # keys [0, first) seen by every query; [end, n_k) by none
            if mask is not None:
                m = mask[rows] if shared else mask[heads, rows]  # (..., rows, n_k)
                over = tuple(range(m.ndim - 1))
                seen_by_some, seen_by_all = m.any(axis=over), m.all(axis=over)  # (n_k,)
                end = n_k - int(np.argmax(seen_by_some[::-1]))
                first = n_k if seen_by_all.all() else int(np.argmin(seen_by_all))
            with np.errstate(over="ignore", invalid="ignore"):  # checked below
                s = q[heads, rows] @ k_t[heads, :, :end]  # (heads, rows, end)
            if first < end:
                np.copyto(s[..., first:], -np.inf, where=~m[..., first:end])
            if shift:
                row_max = s.max(axis=-1, keepdims=True)  # (heads, rows, 1)
                if not np.isfinite(row_max).all():
                    raise ScoresOverflowError(
                        "the scores q·kᵀ·scale overflowed to infinity or became NaN: q and k "
                        f"hold numbers too large for dtype {s.dtype} (largest score "
                        f"{row_max.max()})")
                s -= row_max
            np.exp2(s, out=s)
            # Normalise the output (d_v numbers a row) instead of the weights (end a row).
            s = s.astype(work, copy=False)
            o = s @ v[heads, :end]  # (heads, rows, d_v)
            o /= s @ ones[:end]  # (heads, rows, 1): each row's sum
            out[heads, rows] = o
    _require_finite_output(out, v)
    return out.reshape(*batch, n_q, d_v)


# --- The one-query decoding step ---------------------------------------------------------


def one_query_attention(q, k, v, scale=None) -> np.ndarray:
    """Attention's output for one query per head and no mask: a decoder's cached step.

    Same arguments and checks as :func:`~qkv_helpers.attention.scaled_dot_product_attention`
    without ``mask``, with ``q`` of shape ``(..., 1, d_k)``. Returns ``(..., 1, d_v)``.

    >>> q = np.array([[[1.0, 0.0]]]); k = np.array([[[1.0, 0.0], [0.0, 1.0]]])
    >>> one_query_attention(q, k, 10 * k, scale=1.0).round(3)
    array([[[7.311, 2.689]]])
    """
    q, k, v, _, scale = check_attention_inputs(q, k, v, None, scale)
    if q.shape[-2] != 1:
        raise ValueError(f"q must hold one query, shape (..., 1, d_k); got shape {q.shape} "
                         f"({q.shape[-2]} queries): use blocked_attention")
    return _one_query_attention(q, k, v, scale)


def _one_query_attention(q, k, v, scale: float) -> np.ndarray:
    """:func:`one_query_attention` without its checks, for the decoder's own arrays.

    ``q (..., 1, d_k)``, ``k (..., n_k, d_k)``, ``v (..., n_k, d_v)``: finite float arrays
    of one dtype whose leading dimensions broadcast, ``n_k >= 1``. At every cached step
    the checks would cost about as much as the work.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # checked below
        s = (q * scale) @ k.swapaxes(-1, -2)  # (..., 1, n_k)
    row_max = s.max(axis=-1, keepdims=True)  # (..., 1, 1)
    if not np.isfinite(row_max).all():
        raise ScoresOverflowError(
            "the scores q·kᵀ·scale overflowed to infinity or became NaN: q and k hold "
            f"numbers too large for dtype {s.dtype} (largest score {row_max.max()})")
    s -= row_max
    np.exp(s, out=s)
    work = np.promote_types(s.dtype, np.float32)  # float16 sums (of up to n_k) in float32
    out = s.astype(work, copy=False) @ v.astype(work, copy=False)  # (..., 1, d_v)
    out /= s.sum(axis=-1, keepdims=True, dtype=work)
    out = out.astype(q.dtype, copy=False)
    _require_finite_output(out, v)
    return out


def _require_finite_output(out: np.ndarray, v: np.ndarray) -> None:
    if not np.isfinite(out).all():
        raise ScoresOverflowError(
            f"the output exp(scores)·v overflowed to infinity in {out.dtype} (largest |v| = "
            f"{float(np.abs(v).max()):.3g}): v holds numbers too large for this dtype")


def decoder_attention(q, k, v, causal: bool) -> np.ndarray:
    """A decoder's attention output through the fast paths, ``(..., n_q, d_v)``.

    What ``TinyTransformer(..., fast_attention=True)`` calls. ``q (..., n_q, d_k)`` are the
    last ``n_q`` of the ``n_k`` positions of ``k`` and ``v``; ``causal`` applies the causal
    mask. One query (a cached step) sees every key: :func:`one_query_attention`, without
    its checks when the arrays are plain float arrays of one dtype and matching shapes
    (the decoder's own) and the output is finite; several queries: :func:`blocked_attention`.
    """
    n_q, n_k = q.shape[-2], k.shape[-2]
    if n_q == 1:
        trusted = (all(type(a) is np.ndarray for a in (q, k, v))
                   and q.dtype == k.dtype == v.dtype and q.dtype.kind == "f"
                   and q.shape[:-2] == k.shape[:-2] == v.shape[:-2] and n_k >= 1
                   and q.shape[-1] == k.shape[-1] and v.shape[-2] == n_k)
        if trusted:
            try:
                return _one_query_attention(q, k, v, 1.0 / math.sqrt(q.shape[-1]))
            except ScoresOverflowError:  # or NaN in the inputs: the checks below name it
                pass
        return one_query_attention(q, k, v)
    mask = np.tri(n_q, n_k, k=n_k - n_q, dtype=bool) if causal else None  # causal_mask
    return blocked_attention(q, k, v, mask=mask)


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
from typing import NamedTuple as _NamedTuple  # noqa: E402  (this section's own imports)

import numpy as _np  # noqa: E402  (this section's own imports)

from ._checks import flag as _flag  # noqa: E402  (this section's own imports)
from ._checks import float_array as _float_array  # noqa: E402  (this section's own imports)
from ._checks import float_dtype as _float_dtype  # noqa: E402  (this section's own imports)
from ._checks import instance_of as _instance_of  # noqa: E402  (this section's own imports)
from ._checks import integer as _integer  # noqa: E402  (this section's own imports)
from ._checks import positive_int as _positive_int  # noqa: E402  (this section's own imports)


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
    if not isinstance(shape_rows, (tuple, list)):
        raise TypeError(f"shape_rows must be a tuple of sizes such as (n_q,) or (heads, n_q), "
                        f"got {type(shape_rows).__name__} {shape_rows!r}")
    shape_rows = tuple(_integer(size, "shape_rows", low=1) for size in shape_rows)
    d_v = _positive_int(d_v, "d_v")
    dtype = _float_dtype(dtype)
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
    m, l, o, scores, v_block = _check_online_inputs(state, scores, v_block)  # noqa: E741
    with _np.errstate(over="ignore"):  # reported just below
        new = _online_softmax_update(OnlineSoftmaxState(m, l, o), scores, v_block)
    if not (_np.isfinite(new.l).all() and _np.isfinite(new.o).all()):
        raise ValueError("the running sums overflowed: scores and v_block hold numbers too "
                         f"large for dtype {new.o.dtype}; scale them down")
    return new


def _online_softmax_update(state: OnlineSoftmaxState, scores, v_block) -> OnlineSoftmaxState:
    """:func:`online_softmax_update` without its input checks (tiles checked by the caller)."""
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


def _check_online_inputs(state, scores, v_block):
    """``state``'s arrays, ``scores`` and ``v_block``, checked for one online-softmax update."""
    _instance_of(state, "state", OnlineSoftmaxState, "from online_softmax_start")
    m, l, o = (_np.asarray(a) for a in state)  # noqa: E741
    if any(a.dtype.kind != "f" for a in (m, l, o)) or _np.isnan(m).any() or \
            _np.isposinf(m).any() or not (_np.isfinite(l).all() and _np.isfinite(o).all()):
        raise ValueError("state must hold float arrays: m finite or -inf, l and o finite "
                         "(as online_softmax_start and online_softmax_update leave them)")
    try:
        scores = _np.asarray(scores)
    except ValueError:  # ragged nested lists
        raise TypeError("scores must be a rectangular array of real numbers") from None
    if scores.dtype.kind in "biu":
        scores = scores.astype(_np.float64)
    if scores.dtype.kind != "f":
        raise TypeError(f"scores must be an array of real numbers, got dtype {scores.dtype}")
    if _np.isnan(scores).any() or _np.isposinf(scores).any():
        raise ValueError("scores must hold finite numbers or -inf (a masked key), got NaN or "
                         f"+inf in an array of shape {scores.shape}")
    if scores.ndim < 1 or scores.shape[:-1] != m.shape[:-1] or scores.shape[-1] == 0:
        raise ValueError(f"scores must have shape (..., n_q, block) = {m.shape[:-1] + ('block',)}"
                         f" with block >= 1 for this state, got {scores.shape}")
    v_block = _float_array(v_block, "v_block", min_ndim=2)  # (..., block, d_v)
    if v_block.shape[-2] != scores.shape[-1] or v_block.shape[-1] != o.shape[-1] or \
            v_block.shape[:-2] != o.shape[:-2][len(o.shape) - v_block.ndim:]:
        raise ValueError(f"v_block must have shape (..., block, d_v) = (..., {scores.shape[-1]}, "
                         f"{o.shape[-1]}) for these scores and this state, got {v_block.shape}")
    return m, l, o, scores, v_block


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
    from .attention import check_attention_inputs

    # the same checks as scaled_dot_product_attention: shapes, dtypes, mask, scale
    q, k, v, mask, scale = check_attention_inputs(q, k, v, mask, scale)
    block_size = _positive_int(block_size, "block_size")
    skip_hidden_blocks = _flag(skip_hidden_blocks, "skip_hidden_blocks")
    dtype = q.dtype
    (n_q, d_k), n_k, d_v = q.shape[-2:], k.shape[-2], v.shape[-1]
    batch = _np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])  # mask's included

    with _np.errstate(over="ignore"):  # reported just below
        q_scaled = q * dtype.type(scale)  # (..., n_q, d_k)
    if not _np.isfinite(q_scaled).all():
        raise ValueError(f"q · scale overflows dtype {dtype} (scale = {scale:g}, q up to "
                         f"{_np.abs(q).max():g}): scale down q or scale")

    output = _np.empty((*batch, n_q, d_v), dtype)  # (..., n_q, d_v)
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
                    "the scores overflowed to infinity: q, k and scale give scores too "
                    f"large for dtype {dtype} (tile of queries {q_start}.., keys {k_start}..)"
                )
            if visible is not None and not visible.all():
                s = _np.where(visible, s, -_np.inf)  # masked: exp(-inf) = 0
            state = _online_softmax_update(state, s, v[..., cols, :])  # checked above
            tiles += 1
            scores += s.shape[-2] * s.shape[-1]
        output[..., rows, :] = state.o / state.l  # (..., bq, d_v): softmax(s)·V for these rows
    tiles_total = -(-n_q // block_size) * -(-n_k // block_size)
    return TiledWork(output, tiles, tiles_total, scores, 2 * scores * (d_k + d_v))

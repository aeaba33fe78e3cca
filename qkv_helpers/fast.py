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

from . import _validate as validate
from ._text import t
from ._validate import ScoresOverflowError

LOG2_E = math.log2(math.e)

__all__ = ["blocked_attention", "decoder_attention", "one_query_attention"]


def _checked(q, k, v, mask, scale):
    """Attention's checks; then the default scale and the mask as ``(..., n_q, n_k)``."""
    q, k, v, mask, scale = validate.attention_args(q, k, v, mask, scale)
    n_q, n_k = q.shape[-2], k.shape[-2]
    if mask is not None:
        mask = np.broadcast_to(mask, (*mask.shape[:-2], n_q, n_k))  # a view
    return q, k, v, mask, 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale


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
    q, k, v, mask, scale = _checked(q, k, v, mask, scale)
    if block_size is not None and (isinstance(block_size, bool)
                                   or not isinstance(block_size, int) or block_size < 1):
        raise ValueError(t("err_int_needed", name="block_size", needs=t("err_int_positive"),
                           got=repr(block_size)))
    n_q, d_k, n_k, d_v = *q.shape[-2:], k.shape[-2], v.shape[-1]
    shapes = [q.shape[:-2], k.shape[:-2], v.shape[:-2]]
    if mask is not None:
        shapes.append(mask.shape[:-2])
    batch = np.broadcast_shapes(*shapes)  # the heads (and any other leading dimensions)
    n_b = math.prod(batch)

    # Scores and sums in float32 even for float16 inputs, as in FlashAttention (a float16
    # score near 120 would be off by up to 0.03); the output in the inputs' dtype.
    dtype, work = q.dtype, np.promote_types(q.dtype, np.float32)
    q, k, v = (a.astype(work, copy=False) for a in (q, k, v))
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
    shift = not bound <= 0.5 * math.log2(largest) or not v_max * n_k <= math.sqrt(largest)

    skip_keys = mask is not None and n_q * n_k >= BLOCK_SCORES // 2  # small: one block
    rows_per_block = block_size or (MASKED_BLOCK_ROWS if skip_keys
                                    else max(16, min(n_q, BLOCK_SCORES // n_k)))
    heads_per_block = max(1, BLOCK_SCORES // (rows_per_block * n_k))
    out = np.empty((n_b, n_q, d_v), dtype)
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
                    raise ScoresOverflowError(t("err_scores_overflow", dtype=s.dtype,
                                                largest=row_max.max()))
                s -= row_max
            np.exp2(s, out=s)
            # Normalise the output (d_v numbers a row) instead of the weights (end a row).
            # OpenBLAS may raise "invalid value" on finite numbers now and then (numpy
            # issue 24067); the output is checked for inf and NaN below.
            with np.errstate(over="ignore", invalid="ignore"):
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
    q, k, v, _, scale = _checked(q, k, v, None, scale)
    if q.shape[-2] != 1:
        raise ValueError(t("err_one_query", got=q.shape, n=q.shape[-2]))
    return _one_query_attention(q, k, v, scale)


def _one_query_attention(q, k, v, scale: float) -> np.ndarray:
    """:func:`one_query_attention` without its checks, for the decoder's own arrays.

    ``q (..., 1, d_k)``, ``k (..., n_k, d_k)``, ``v (..., n_k, d_v)``: finite float arrays
    of one dtype whose leading dimensions broadcast, ``n_k >= 1``. At every cached step
    the checks would cost about as much as the work.
    """
    work = np.promote_types(q.dtype, np.float32)  # float16: scores and sums in float32
    with np.errstate(over="ignore", invalid="ignore"):  # checked below
        s = (q.astype(work, copy=False) * scale) @ k.astype(work, copy=False).swapaxes(-1, -2)
    row_max = s.max(axis=-1, keepdims=True)  # (..., 1, 1)
    if not np.isfinite(row_max).all():
        raise ScoresOverflowError(t("err_scores_overflow", dtype=s.dtype, largest=row_max.max()))
    s -= row_max
    np.exp(s, out=s)  # (..., 1, n_k)
    with np.errstate(over="ignore", invalid="ignore"):  # checked below (see blocked_attention)
        out = s @ v.astype(work, copy=False)  # (..., 1, d_v)
        out /= s.sum(axis=-1, keepdims=True, dtype=work)
        out = out.astype(q.dtype, copy=False)
    _require_finite_output(out, v)
    return out


def _require_finite_output(out: np.ndarray, v: np.ndarray) -> None:
    if not np.isfinite(out).all():
        raise ScoresOverflowError(t("err_output_overflow", dtype=out.dtype,
                                    largest=f"{float(np.abs(v).max()):.3g}"))


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

"""The math of attention: softmax, scaled dot-product attention, multi-head attention.

Everything here is numpy only. Shapes are written ``(tokens, d_k)`` as in the lessons,
with ``...`` for any leading batch dimensions.

    attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._checks import as_float_array, positive_int, positive_number

__all__ = [
    "AttentionResult",
    "MultiHeadAttention",
    "Projection",
    "scaled_dot_product_attention",
    "softmax",
]


class AttentionResult(NamedTuple):
    """What attention gives back: the contextual vectors and the weights that made them."""

    output: np.ndarray
    """``(..., n_q, d_v)``: one contextual vector per query."""
    weights: np.ndarray
    """``(..., n_q, n_k)``: how much each query takes from each key's value; rows sum to 1."""


def _softmax_inplace(x: np.ndarray, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """Softmax of ``x`` along ``axis``, written over ``x`` itself; returns ``x``.

    Subtracting the row's maximum first makes the largest exponent exp(0) = 1, so
    nothing overflows and every row sum is at least 1. Entries equal to -inf (masked)
    become exactly 0. The caller makes sure no row is all -inf.
    """
    row_max = x.max(axis=axis, keepdims=True)
    if not np.isfinite(row_max).all():
        raise ValueError(
            "the scores overflowed to infinity or became NaN: the inputs are too large "
            f"for dtype {x.dtype} (largest score {row_max.max()})"
        )
    with np.errstate(over="ignore"):  # a spread wider than the dtype gives -inf: exp -> 0
        x -= row_max  # every entry now <= 0
    if temperature != 1.0:
        with np.errstate(over="ignore"):  # a very small temperature may send scores to -inf
            x /= temperature
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x


def softmax(x, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """Turn scores into probabilities: ``exp(x / T) / sum(exp(x / T))`` along ``axis``.

    Numerically stable for any finite scores (the row maximum is subtracted before
    ``exp``), and ``-inf`` entries, the masked scores, get probability exactly 0.
    Float arrays keep their dtype; integers become float64.

    Parameters
    ----------
    x : array_like
        Scores. May hold ``-inf`` (masked), but not NaN or ``+inf``, and no row may
        be all ``-inf``.
    axis : int
        The axis that sums to 1.
    temperature : float
        ``T > 0``. Large T flattens the distribution towards uniform; T → 0 sharpens
        it towards one-hot on the largest score.

    Examples
    --------
    >>> softmax([1.0, 2.0, 3.0]).round(3)
    array([0.09 , 0.245, 0.665])
    >>> softmax([1000.0, 1001.0]).round(3)   # plain exp(1000) would overflow
    array([0.269, 0.731])
    >>> softmax([0.0, 0.0, -np.inf])
    array([0.5, 0.5, 0. ])
    >>> softmax([1.0, 2.0], temperature=100.0).round(3)
    array([0.498, 0.502])
    """
    temperature = positive_number(temperature, "temperature")
    arr = np.asarray(x)
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise TypeError(f"x must be an array of real numbers, got dtype {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("x must have at least 1 dimension, got a scalar (shape ())")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis {axis} is out of range for x of shape {arr.shape}")
    if np.isnan(arr).any() or np.isposinf(arr).any():
        raise ValueError(f"x must not hold NaN or +inf; got x of shape {arr.shape} with some")
    if arr.size and np.isneginf(arr).all(axis=axis).any():
        row = tuple(int(i) for i in np.argwhere(np.isneginf(arr).all(axis=axis))[0])
        raise ValueError(
            f"every entry of x along axis {axis} is -inf at index {row} (x has shape "
            f"{arr.shape}): softmax over nothing is undefined"
        )
    return _softmax_inplace(arr.copy(), axis=axis, temperature=temperature)


def _check_mask(mask, score_shape: tuple[int, ...]) -> np.ndarray:
    """The mask as a bool array that broadcasts to ``score_shape`` with a key in every row."""
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(
            f"mask must be a boolean array (True = may attend), got dtype {mask.dtype}; "
            "for a 0/1 array use mask.astype(bool)"
        )
    try:
        shape = np.broadcast_shapes(mask.shape, score_shape)
    except ValueError:
        shape = None
    if shape is None or shape[-2:] != score_shape[-2:]:
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the scores' shape "
            f"(..., n_q, n_k) = {score_shape}"
        )
    rows = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # a scalar or 1-D mask: one row
    no_key = ~rows.any(axis=-1)
    if no_key.any():
        where = tuple(int(i) for i in np.argwhere(no_key)[0])
        raise ValueError(
            f"mask allows no key for query row {where[-1]} (mask index {where[:-1]}, "
            f"mask shape {mask.shape}): every query needs at least one True in its row, "
            "otherwise its softmax would be 0/0 = NaN"
        )
    return mask


def scaled_dot_product_attention(q, k, v, mask=None, scale=None) -> AttentionResult:
    """Scaled dot-product attention: ``softmax(q·kᵀ · scale) · v``.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_k)
        Queries, one row per token asking.
    k : array_like, shape (..., n_k, d_k)
        Keys, one row per token that can be attended to.
    v : array_like, shape (..., n_k, d_v)
        Values, what each attended token hands over.
    mask : array_like of bool, optional
        Broadcastable to ``(..., n_q, n_k)``; True where a query may attend to a key.
        Masked weights are exactly 0. Every query needs at least one True.
    scale : float, optional
        Multiplies the scores; defaults to ``1 / sqrt(d_k)``.

    Leading dimensions of ``q``, ``k``, ``v`` broadcast. float32 in gives float32 out.

    Returns
    -------
    AttentionResult
        ``(output, weights)``: ``output`` is ``(..., n_q, d_v)``, ``weights`` is
        ``(..., n_q, n_k)`` with rows that sum to 1.

    Examples
    --------
    >>> q = np.array([[1.0, 0.0]])                # one query, d_k = 2
    >>> k = np.array([[1.0, 0.0], [0.0, 1.0]])    # two keys
    >>> v = np.array([[10.0], [20.0]])            # their values, d_v = 1
    >>> out, w = scaled_dot_product_attention(q, k, v)
    >>> w.round(3)                                # softmax([1, 0] / √2)
    array([[0.67, 0.33]])
    >>> out.round(2)                              # 0.67·10 + 0.33·20
    array([[13.3]])
    >>> scaled_dot_product_attention(q, k, v, mask=np.array([[False, True]])).weights
    array([[0., 1.]])
    """
    q = as_float_array(q, "q", min_ndim=2)
    k = as_float_array(k, "k", min_ndim=2)
    v = as_float_array(v, "v", min_ndim=2)
    dtype = np.result_type(q, k, v)
    q, k, v = (a.astype(dtype, copy=False) for a in (q, k, v))

    n_q, d_k = q.shape[-2:]
    n_k = k.shape[-2]
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
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading (batch) dimensions of q {q.shape}, k {k.shape} and v {v.shape} "
            "do not broadcast together"
        ) from None
    if mask is not None:
        mask = _check_mask(mask, (*batch, n_q, n_k))
        mask = np.broadcast_to(mask, (*mask.shape[:-2], n_q, n_k))  # (..., n_q, n_k), a view
    scale = 1.0 / math.sqrt(d_k) if scale is None else positive_number(scale, "scale")
    return _attention_unchecked(q, k, v, mask, scale)


def _attention_unchecked(q, k, v, mask, scale: float) -> AttentionResult:
    """:func:`scaled_dot_product_attention` after its checks: the computation itself.

    For callers that have checked their inputs already, such as a decoder at every step.
    ``q (..., n_q, d_k)``, ``k (..., n_k, d_k)`` and ``v (..., n_k, d_v)`` are finite float
    arrays of one dtype whose leading dimensions broadcast; ``mask`` is None or a bool array
    ``(..., n_q, n_k)`` with a True in every row; ``scale`` is a float > 0. Nothing is
    checked here: other input gives wrong numbers or a numpy error, not a clear message.

    >>> q = np.array([[1.0, 0.0]]); k = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> _attention_unchecked(q, k, 10 * k, None, 1.0).weights.round(3)
    array([[0.731, 0.269]])
    """
    n_q, n_k = q.shape[-2], k.shape[-2]
    dtype = q.dtype
    if mask is None and n_q == 1 and n_k and q.shape[:-2] == k.shape[:-2] == v.shape[:-2]:
        # One query and no mask, as at every decoder step with a KV cache: in fewer numpy
        # calls. If a score overflowed, the general path below does it again and reports it.
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow shows in the sums
            one = _one_query_exp(q, k, scale)
        if one is not None:
            w, sums = one
            w /= sums  # rows sum to 1
            return AttentionResult(w @ v, w)

    batch = q.shape[:-2]  # the leading (batch) dimensions, usually the same for all
    if not (batch == k.shape[:-2] == v.shape[:-2]):
        batch = np.broadcast_shapes(batch, k.shape[:-2], v.shape[:-2])
    if mask is not None:
        batch = np.broadcast_shapes(batch, mask.shape[:-2])  # the mask may add batch dims
    k_t = k.swapaxes(-1, -2)  # (..., d_k, n_k), a view
    # Keys that a block of queries may not see get no score at all: their weights stay 0.
    weights = (np.empty if mask is None else np.zeros)((*batch, n_q, n_k), dtype)
    output = np.empty((*batch, n_q, v.shape[-1]), dtype)  # (..., n_q, d_v)
    sums = np.empty((*batch, n_q, 1), dtype)  # each row's Σ exp(score)
    blocks = list(_query_blocks(mask, n_q, n_k))
    hidden = None if mask is None else ~mask  # True where a query may not attend
    heads = [...]  # all batch entries (heads) at once
    one_at_a_time = batch and n_q * n_k >= _ONE_HEAD_AT_A_TIME
    if one_at_a_time:
        # Large scores: one head at a time, so that its scores stay in the CPU's cache
        # through the passes below instead of going out to memory after each.
        heads = list(np.ndindex(batch))
        k_t, v = (np.broadcast_to(a, (*batch, *a.shape[-2:])) for a in (k_t, v))
        if hidden is not None:
            hidden = np.broadcast_to(hidden, (*batch, n_q, n_k))

    # softmax(s) = exp(s) / Σ exp(s) does not change when a row of s is shifted by a constant;
    # the usual shift by the row's maximum only keeps exp from overflowing. For the usual
    # O(1) scores nothing overflows without it, so the formula is first computed as it
    # stands ("plain"), without the passes over the scores that the shift costs. The row
    # sums then show whether that was safe: each must be finite (no exp overflowed) and at
    # least n_k·√(n_k/max), max the largest float, so that the row's largest term (at least
    # sum/n_k) is far above underflow. If not, it is all done again with the shift.
    largest = _LARGEST.get(dtype)  # other dtypes (long double) always take the shift
    for plain in (True, False) if largest else (False,):
        # exp(s) = 2**(s·log2 e): with log2 e folded into the scale, numpy's faster exp2 does it.
        scaled = q * (scale * _LOG2_E if plain else scale)  # (..., n_q, d_k)
        if one_at_a_time:
            scaled = np.broadcast_to(scaled, (*batch, n_q, scaled.shape[-1]))
        for h in heads:
            _softmax_times_v(scaled[h], k_t[h], v[h], None if hidden is None else hidden[h],
                             weights[h], output[h], sums[h], blocks, plain)
        if not plain or (sums.min() >= n_k * math.sqrt(n_k / largest)
                         and sums.max() <= largest):  # NaN fails both
            return AttentionResult(output, weights)


def _softmax_times_v(q, k_t, v, hidden, weights, output, sums, blocks, plain: bool) -> None:
    """Fill ``weights = softmax(q·k_t)`` and ``output = weights·v``, block by block of queries.

    ``q (..., n_q, d_k)`` is already scaled (by log2 e too when ``plain``, for exp2);
    ``hidden`` is None or ``~mask``, True where a query may not attend; ``blocks`` come
    from :func:`_query_blocks`; ``weights`` must start at 0 where a block skips keys. When
    ``plain``, the row sums of exp go to ``sums (..., n_q, 1)`` for the caller to check;
    if they are out of range, what is written is wrong and must be computed again.
    """
    ones = np.ones((k_t.shape[-1], 1), q.dtype)  # w @ ones sums each row (BLAS, faster)
    for rows, first, end in blocks:
        w = weights[..., rows, :end]  # (..., block, end): the scores, then in place the weights
        # Overflow, NaN, 1/0: the caller checks the sums (plain), _softmax_inplace reports.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            np.matmul(q[..., rows, :], k_t[..., :end], out=w)
            if plain:
                np.exp2(w, out=w)
                if hidden is not None:  # keys before `first` are visible to the whole block
                    np.copyto(w[..., first:], 0, where=hidden[..., rows, first:end])  # exactly 0
                row_sums = np.matmul(w, ones[:end], out=sums[..., rows, :])  # (..., block, 1)
                w *= 1 / row_sums  # rows sum to 1
            else:  # large scores: shift each row by its maximum first
                if hidden is not None:
                    np.copyto(w, -np.inf, where=hidden[..., rows, :end])
                _softmax_inplace(w)
            np.matmul(w, v[..., :end, :], out=output[..., rows, :])


# From this many scores per head on, heads are done one at a time (see above).
_ONE_HEAD_AT_A_TIME = 128 * 1024

def _one_query_exp(q, k, scale: float):
    """For one query per head: ``exp`` of its scores, shifted by their maximum, and their sum.

    The textbook softmax before its division, in the fewest numpy calls: every term is at
    most 1 and each sum at least 1. ``q (..., 1, d_k)`` and ``k (..., n_k, d_k)`` as for
    :func:`_attention_unchecked`. Returns ``(terms (..., 1, n_k), sums (..., 1, 1))``, or
    None if a score overflowed (then numpy may warn: the caller decides).
    """
    s = (q * (scale * _LOG2_E)) @ k.swapaxes(-1, -2)  # (..., 1, n_k): scores, base 2
    s -= s.max(axis=-1, keepdims=True)  # every score <= 0, the largest 0
    np.exp2(s, out=s)
    sums = np.add.reduce(s, -1, keepdims=True)  # (..., 1, 1), each >= 1; NaN after overflow
    return (s, sums) if math.isfinite(sum(sums.ravel().tolist())) else None


def _one_query_output(q, k, v, scale: float) -> np.ndarray | None:
    """Attention's output for one query per head, no mask, without the weights.

    A decoder's step with a KV cache, where numpy's cost per call outweighs the work: the
    output is normalised instead of the weights (``head_dim`` numbers per head instead of
    ``n_k``). Returns None if a score overflowed (the caller then takes the general path,
    which reports it).
    """
    one = _one_query_exp(q, k, scale)
    if one is None:
        return None
    terms, sums = one
    out = terms @ v  # (..., 1, d_v)
    out /= sums
    return out


_LOG2_E = math.log2(math.e)
_LARGEST = {np.dtype(t): float(np.finfo(t).max) for t in (np.float16, np.float32, np.float64)}



def _query_blocks(mask, n_q: int, n_k: int):
    """Blocks of query rows, each with the range of keys that needs work.

    Yields ``(rows, first, end)``: in every batch entry, every query of the block may see
    keys ``[0, first)`` and none of keys ``[end, n_k)``. So only ``[first, end)`` needs the
    mask, and keys from ``end`` on need no score at all. This is exact for any mask; for the
    causal mask it skips about half the work. Without a mask: one block of all rows.
    """
    if mask is None:
        yield slice(0, n_q), n_k, n_k
        return
    all_but_keys = tuple(range(mask.ndim - 1))
    # Small enough to skip most masked keys, large enough for BLAS to run at full speed.
    block = min(128, max(64, n_q // 2))
    for start in range(0, n_q, block):
        rows = slice(start, start + block)
        seen_by_some = mask[..., rows, :].any(axis=all_but_keys)  # (n_k,)
        seen_by_all = mask[..., rows, :].all(axis=all_but_keys)  # (n_k,)
        end = n_k - int(np.argmax(seen_by_some[::-1]))  # one past the last key seen
        first = n_k if seen_by_all.all() else int(np.argmin(seen_by_all))
        yield rows, first, end


class Projection(NamedTuple):
    """Each head's queries, keys and values, shaped ``(..., n_heads, tokens, head_dim)``."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray


class MultiHeadAttention:
    """Multi-head attention: several attentions side by side, each on its own slice.

    ``d_model`` is split into ``n_heads`` heads of ``head_dim = d_model // n_heads``::

        Q = x_q·W_Q + b_Q,  K = x_kv·W_K + b_K,  V = x_kv·W_V + b_V    # (tokens, d_model)
        head_h = attention(Q_h, K_h, V_h)                             # (n_q, head_dim)
        output = concat(head_1, ..., head_H)·W_O + b_O                # (n_q, d_model)

    Weights are ``(d_model, d_model)`` and act on row vectors, ``x @ w``.

    Parameters
    ----------
    d_model : int
        Width of the token vectors; must be divisible by ``n_heads``.
    n_heads : int
        Number of heads.
    seed : int
        Seed of the random weights (normal, standard deviation 1/√d_model).
    bias : bool
        Whether to add biases (random too, small) after each projection.
    dtype : numpy dtype
        float64 (default) or float32.

    Examples
    --------
    >>> mha = MultiHeadAttention(d_model=8, n_heads=2, seed=0)
    >>> x = np.ones((5, 8))                       # 5 tokens
    >>> out, w = mha(x)                           # self-attention
    >>> out.shape, w.shape                        # w: (n_heads, n_q, n_k)
    ((5, 8), (2, 5, 5))
    >>> mha.project(x).q.shape                    # each head's queries
    (2, 5, 4)
    >>> out, w = mha(x[:3], x_kv=np.zeros((4, 8)))  # cross-attention: 3 queries, 4 keys
    >>> w.shape
    (2, 3, 4)
    """

    def __init__(self, d_model: int, n_heads: int, seed: int = 0, bias: bool = True,
                 dtype=np.float64):
        d_model = positive_int(d_model, "d_model")
        n_heads = _check_heads(d_model, n_heads)
        rng = np.random.default_rng(seed)
        std = 1.0 / math.sqrt(d_model)
        w_q, w_k, w_v, w_o = (rng.normal(0.0, std, (d_model, d_model)) for _ in range(4))
        biases = [rng.normal(0.0, 0.1, d_model) if bias else None for _ in range(4)]
        self._set(n_heads, [w_q, w_k, w_v, w_o], biases, np.dtype(dtype))

    @classmethod
    def from_weights(cls, n_heads, w_q, w_k, w_v, w_o, b_q=None, b_k=None, b_v=None,
                     b_o=None) -> MultiHeadAttention:
        """Build from given ``(d_model, d_model)`` weights and optional ``(d_model,)`` biases.

        >>> eye = np.eye(4)
        >>> mha = MultiHeadAttention.from_weights(2, eye, eye, eye, eye)
        >>> mha.d_model, mha.n_heads, mha.head_dim
        (4, 2, 2)
        """
        names = ("w_q", "w_k", "w_v", "w_o")
        weights = [as_float_array(w, n, min_ndim=2) for w, n in zip((w_q, w_k, w_v, w_o), names)]
        d_model = weights[0].shape[0]
        for w, name in zip(weights, names):
            if w.shape != (d_model, d_model):
                raise ValueError(
                    f"{name} must have shape (d_model, d_model) = ({d_model}, {d_model}) "
                    f"(d_model from w_q's rows), got {w.shape}"
                )
        biases = []
        for b, name in zip((b_q, b_k, b_v, b_o), ("b_q", "b_k", "b_v", "b_o")):
            if b is not None:
                b = as_float_array(b, name)
                if b.shape != (d_model,):
                    raise ValueError(
                        f"{name} must have shape (d_model,) = ({d_model},), got {b.shape}"
                    )
            biases.append(b)
        n_heads = _check_heads(d_model, n_heads)
        dtype = np.result_type(*weights, *[b for b in biases if b is not None])
        self = cls.__new__(cls)
        self._set(n_heads, weights, biases, dtype)
        return self

    def _set(self, n_heads, weights, biases, dtype) -> None:
        self.n_heads = n_heads
        self.d_model = weights[0].shape[0]
        self.head_dim = self.d_model // n_heads
        self.dtype = dtype
        self.w_q, self.w_k, self.w_v, self.w_o = (w.astype(dtype) for w in weights)
        self.b_q, self.b_k, self.b_v, self.b_o = (
            None if b is None else b.astype(dtype) for b in biases
        )
        # K and V are always computed together: one matrix product instead of two.
        self._w_kv = np.concatenate([self.w_k, self.w_v], axis=1)  # (d_model, 2·d_model)
        self._b_kv = (
            None if self.b_k is None and self.b_v is None
            else np.concatenate([_zeros_if_none(self.b_k, self.d_model, dtype),
                                 _zeros_if_none(self.b_v, self.d_model, dtype)])
        )

    def __repr__(self) -> str:
        return (f"MultiHeadAttention(d_model={self.d_model}, n_heads={self.n_heads}, "
                f"head_dim={self.head_dim}, dtype={self.dtype})")

    # --- the pieces, so lessons and the decoder can look inside -------------------

    def _check_x(self, x, name: str) -> np.ndarray:
        x = as_float_array(x, name, min_ndim=2)
        if x.shape[-1] != self.d_model:
            raise ValueError(
                f"{name} must have shape (..., tokens, d_model) = (..., tokens, {self.d_model}), "
                f"got {x.shape}"
            )
        return x.astype(np.result_type(x, self.dtype), copy=False)

    def split_heads(self, x: np.ndarray) -> np.ndarray:
        """``(..., tokens, d_model)`` → ``(..., n_heads, tokens, head_dim)``."""
        *batch, n, _ = x.shape
        return x.reshape(*batch, n, self.n_heads, self.head_dim).swapaxes(-2, -3)

    def merge_heads(self, x: np.ndarray) -> np.ndarray:
        """``(..., n_heads, tokens, head_dim)`` → ``(..., tokens, d_model)``."""
        *batch, _, n, _ = x.shape
        return x.swapaxes(-2, -3).reshape(*batch, n, self.d_model)

    def project_q(self, x_q) -> np.ndarray:
        """Each head's queries, ``(..., n_heads, n_q, head_dim)``, from ``x_q (..., n_q, d_model)``.

        ``Q = x_q·W_Q + b_Q``, then split into heads.
        """
        x_q = self._check_x(x_q, "x_q")
        return self.split_heads(_affine(x_q, self.w_q, self.b_q))

    def project_kv(self, x_kv) -> tuple[np.ndarray, np.ndarray]:
        """Each head's keys and values, ``(..., n_heads, n_k, head_dim)`` each."""
        x_kv = self._check_x(x_kv, "x_kv")
        kv = _affine(x_kv, self._w_kv, self._b_kv)  # (..., n_k, 2·d_model)
        return (self.split_heads(kv[..., : self.d_model]),
                self.split_heads(kv[..., self.d_model:]))

    def project(self, x_q, x_kv=None) -> Projection:
        """Each head's Q, K and V: ``Projection(q, k, v)``.

        Each is ``(..., n_heads, tokens, head_dim)``.

        ``x_kv=None`` takes keys and values from ``x_q`` (self-attention).
        """
        q = self.project_q(x_q)
        k, v = self.project_kv(x_q if x_kv is None else x_kv)
        return Projection(q, k, v)

    def attend(self, q, k, v, mask=None) -> AttentionResult:
        """Attention per head on projected ``q, k, v``, then heads merged and ``W_O`` applied.

        Returns ``(output (..., n_q, d_model), weights (..., n_heads, n_q, n_k))``.
        """
        heads, weights = scaled_dot_product_attention(q, k, v, mask=mask)
        return AttentionResult(_affine(self.merge_heads(heads), self.w_o, self.b_o), weights)

    def _attend_unchecked(self, q, k, v, mask=None) -> np.ndarray:
        """:meth:`attend`'s output, ``(..., n_q, d_model)``, without its input checks.

        For a decoder, at every step: ``q, k, v`` must be arrays of this layer's dtype,
        ``(..., n_heads, tokens, head_dim)``, and ``mask`` None or a bool array
        ``(..., n_q, n_k)`` with a True in every row (see :func:`_attention_unchecked`).
        The weights are not returned; one query without a mask (a cached step) takes
        :func:`_one_query_output`.
        """
        scale = 1.0 / math.sqrt(self.head_dim)
        if mask is None and q.ndim == 3 and q.shape[1] == 1:  # one query: a decoder's step
            heads = _one_query_output(q, k, v, scale)  # (n_heads, 1, head_dim)
            if heads is not None:
                return _affine(heads.reshape(1, self.d_model), self.w_o, self.b_o)
        heads = _attention_unchecked(q, k, v, mask, scale).output
        return _affine(self.merge_heads(heads), self.w_o, self.b_o)

    def __call__(self, x_q, x_kv=None, mask=None) -> AttentionResult:
        """Attend from ``x_q (..., n_q, d_model)`` to ``x_kv (..., n_k, d_model)``.

        ``x_kv=None`` is self-attention (``x_kv = x_q``); otherwise cross-attention.
        ``mask`` broadcasts to ``(..., n_heads, n_q, n_k)``; True = may attend.
        """
        return self.attend(*self.project(x_q, x_kv), mask=mask)


def _check_heads(d_model: int, n_heads) -> int:
    n_heads = positive_int(n_heads, "n_heads")
    if d_model % n_heads:
        raise ValueError(
            f"d_model must be divisible by n_heads to split it into equal heads: "
            f"d_model = {d_model}, n_heads = {n_heads} (remainder {d_model % n_heads})"
        )
    return n_heads


def _zeros_if_none(b, n, dtype):
    return np.zeros(n, dtype) if b is None else b


def _affine(x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """``x @ w + b`` with the bias added in place (no second temporary)."""
    y = x @ w
    if b is not None:
        y += b
    return y

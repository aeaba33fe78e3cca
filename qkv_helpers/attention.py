"""The math of attention: softmax, scaled dot-product attention, multi-head attention.

Everything here is numpy only. Shapes are written ``(tokens, d_k)`` as in the lessons,
with ``...`` for any leading batch dimensions.

    attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._checks import (
    axis_index,
    float_array,
    float_dtype,
    positive_int,
    positive_number,
    seed_int,
    size_int,
)

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


def softmax(x, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """Turn scores into probabilities: ``exp(x / T) / sum(exp(x / T))`` along ``axis``.

    Numerically stable for any finite scores (the row maximum is subtracted before
    ``exp``), and ``-inf`` entries, the masked scores, get probability exactly 0.
    Float arrays keep their dtype; integers become float64.

    Parameters
    ----------
    x : array_like
        Scores, at least 1-D and not empty. May hold ``-inf`` (masked), but not NaN or
        ``+inf``, and no row may be all ``-inf``.
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
    x = _check_scores(x, axis)
    with np.errstate(over="ignore"):  # a spread wider than the dtype gives -inf: exp -> 0
        shifted = x - x.max(axis=axis, keepdims=True)  # same shape as x; every entry <= 0
    # Divided in float64: in float16/32 a tiny T would round to 0 and give 0/0 = NaN.
    with np.errstate(over="ignore"):  # a very negative entry may become -inf: exp -> 0
        z = shifted / np.float64(temperature)
    e = np.exp(z)  # entries in [0, 1], the largest of each row exactly 1
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype, copy=False)


def _check_scores(x, axis) -> np.ndarray:
    """``x`` as softmax takes it: a float array, no NaN or +inf, a finite entry per row."""
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:
        raise TypeError(f"x must be an array of real numbers; numpy could not read it as "
                        f"one: {err}") from None
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise TypeError(f"x must be an array of real numbers, got dtype {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("x must have at least 1 dimension, got a scalar (shape ())")
    axis = axis_index(axis, arr.ndim, arr.shape)
    if arr.shape[axis] == 0:
        raise ValueError(f"x must have at least one entry along axis {axis}: got shape "
                         f"{arr.shape}, and softmax over nothing is undefined")
    if np.isnan(arr).any() or np.isposinf(arr).any():
        raise ValueError(f"x must not hold NaN or +inf; got x of shape {arr.shape} with some")
    if arr.size and np.isneginf(arr).all(axis=axis).any():
        row = tuple(int(i) for i in np.argwhere(np.isneginf(arr).all(axis=axis))[0])
        raise ValueError(
            f"every entry of x along axis {axis} is -inf at index {row} (x has shape "
            f"{arr.shape}): softmax over nothing is undefined"
        )
    return arr


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
    No axis may be empty (no queries, no keys, ``d_k = 0``): that is an error.

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
    q, k, v, mask, scale = check_attention_inputs(q, k, v, mask, scale)

    with np.errstate(over="ignore", invalid="ignore"):  # too large: an error, just below
        scores = (q * scale) @ k.swapaxes(-1, -2)  # (..., n_q, n_k): q·kᵀ/√d_k, every pair
    if mask is not None:
        np.copyto(scores, -np.inf, where=~mask)  # masked keys: exp(-inf) = weight 0
    try:
        weights = _softmax_last_axis(scores)  # (..., n_q, n_k), rows sum to 1
    except ScoresOverflowError:
        _blame_the_scale(q, k, scale)
        raise
    output = weights @ v  # (..., n_q, d_v): each query's weighted sum of values
    _require_finite_result(output, "the output weights·v", v=v)
    return AttentionResult(output, weights)


def _blame_the_scale(q: np.ndarray, k: np.ndarray, scale) -> None:
    """Raise the error that names ``scale`` when q·kᵀ fits the dtype but q·scale or
    q·kᵀ·scale does not (float16 and a large scale); return if q and k are too large."""
    with np.errstate(over="ignore", invalid="ignore"):
        unscaled = q @ k.swapaxes(-1, -2)  # (..., n_q, n_k)
    if np.isfinite(unscaled).all():
        raise ScoresOverflowError(
            f"scale = {float(scale):g} makes the scores overflow dtype {q.dtype} (largest "
            f"{np.finfo(q.dtype).max:g}), though q·kᵀ itself is at most "
            f"{float(np.abs(unscaled).max(initial=0.0)):g}: use a smaller scale (the default "
            "is 1/√d_k) or float32 inputs") from None


def _softmax_last_axis(scores: np.ndarray) -> np.ndarray:
    """The stable softmax of each row of ``scores``, computed in place and returned.

    ``scores`` is a float array with no NaN and no row all -inf. The largest score is
    subtracted from each row before ``exp``, so nothing overflows. float16 rows are
    summed in float32: past 65,504 keys their sum would overflow float16. A score that
    overflowed to ``+inf`` is a clear error.
    """
    row_max = scores.max(axis=-1, keepdims=True)  # (..., n_q, 1)
    if not np.isfinite(row_max).all():
        raise ScoresOverflowError(
            "the scores q·kᵀ·scale overflowed to infinity or became NaN: q and k hold "
            f"numbers too large for dtype {scores.dtype} (largest score {row_max.max()})"
        )
    with np.errstate(over="ignore"):  # a spread wider than the dtype gives -inf: exp -> 0
        scores -= row_max  # every entry <= 0, each row's largest exactly 0
    np.exp(scores, out=scores)  # entries in [0, 1]
    scores /= scores.sum(axis=-1, keepdims=True, dtype=np.promote_types(scores.dtype,
                                                                        np.float32))
    return scores


class ScoresOverflowError(ValueError):
    """Finite inputs whose scores or products overflowed the dtype."""


def _require_finite_result(result: np.ndarray, what: str, **inputs) -> None:
    """Raise if ``result`` overflowed although its inputs were finite, naming them."""
    if not np.isfinite(result).all():
        largest = ", ".join(f"largest |{n}| = {float(np.abs(a).max()):.3g}"
                            for n, a in inputs.items())
        raise ScoresOverflowError(f"{what} overflowed to infinity in {result.dtype} "
                                  f"({largest}): the inputs are too large for this dtype")


def check_attention_inputs(q, k, v, mask=None, scale=None):
    """The checks of :func:`scaled_dot_product_attention`, also used by ``fast``.

    Returns ``q, k, v`` as float arrays of one dtype, ``mask`` as a bool array of shape
    ``(..., n_q, n_k)`` (a view) or None, and ``scale`` as a float (``1/√d_k`` by default).
    Each failure is an error naming the argument, what it got and what it needs.
    """
    q = float_array(q, "q", min_ndim=2)
    k = float_array(k, "k", min_ndim=2)
    v = float_array(v, "v", min_ndim=2)
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
        full = np.broadcast_shapes(batch, mask.shape[:-2])
        if full != batch:  # the mask adds batch dimensions or entries: so do the scores
            q = np.broadcast_to(q, (*full, n_q, d_k))
    scale = 1.0 / math.sqrt(d_k) if scale is None else positive_number(scale, "scale")
    return q, k, v, mask, scale


def _check_mask(mask, score_shape: tuple[int, ...]) -> np.ndarray:
    """The mask as a bool array that broadcasts to ``score_shape`` with a key in every row."""
    try:
        mask = np.asarray(mask)
    except (ValueError, TypeError) as err:
        raise TypeError(f"mask must be a boolean array; numpy could not read it as one: "
                        f"{err}") from None
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
        Seed of the random weights (normal, standard deviation 1/√d_model), >= 0.
    bias : bool
        Whether to add biases (random too, small) after each projection.
    dtype : numpy float dtype
        float64 (default) or float32 (or float16).

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
        d_model = size_int(d_model, "d_model", 2**14, "its weight matrices hold d_model² numbers")
        n_heads = _check_heads(d_model, n_heads)
        rng = np.random.default_rng(seed_int(seed))
        if not isinstance(bias, (bool, np.bool_)):
            raise TypeError(f"bias must be True or False, got {type(bias).__name__} {bias!r}")
        dtype = float_dtype(dtype)
        std = 1.0 / math.sqrt(d_model)
        w_q, w_k, w_v, w_o = (rng.normal(0.0, std, (d_model, d_model)) for _ in range(4))
        biases = [rng.normal(0.0, 0.1, d_model) if bias else None for _ in range(4)]
        self._set(n_heads, [w_q, w_k, w_v, w_o], biases, dtype)

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
        weights = [float_array(w, n, min_ndim=2) for w, n in zip((w_q, w_k, w_v, w_o), names)]
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
                b = float_array(b, name)
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

    def __repr__(self) -> str:
        return (f"MultiHeadAttention(d_model={self.d_model}, n_heads={self.n_heads}, "
                f"head_dim={self.head_dim}, dtype={self.dtype})")

    # --- the pieces, so lessons and the decoder can look inside -------------------

    def _check_x(self, x, name: str) -> np.ndarray:
        x = float_array(x, name, min_ndim=2)
        if x.shape[-1] != self.d_model:
            raise ValueError(
                f"{name} must have shape (..., tokens, d_model) = (..., tokens, {self.d_model}), "
                f"got {x.shape}"
            )
        return x.astype(np.result_type(x, self.dtype), copy=False)

    def split_heads(self, x: np.ndarray) -> np.ndarray:
        """``(..., tokens, d_model)`` → ``(..., n_heads, tokens, head_dim)``."""
        if np.ndim(x) < 2 or np.shape(x)[-1] != self.d_model:
            raise ValueError(f"x must have shape (..., tokens, d_model) = (..., tokens, "
                             f"{self.d_model}) to split into {self.n_heads} heads of "
                             f"{self.head_dim}, got {np.shape(x)}")
        *batch, n, _ = x.shape
        return x.reshape(*batch, n, self.n_heads, self.head_dim).swapaxes(-2, -3)

    def merge_heads(self, x: np.ndarray) -> np.ndarray:
        """``(..., n_heads, tokens, head_dim)`` → ``(..., tokens, d_model)``."""
        if np.ndim(x) < 3 or np.shape(x)[-3] != self.n_heads or np.shape(x)[-1] != self.head_dim:
            raise ValueError(f"x must have shape (..., n_heads, tokens, head_dim) = (..., "
                             f"{self.n_heads}, tokens, {self.head_dim}), got {np.shape(x)}")
        *batch, _, n, _ = x.shape
        return x.swapaxes(-2, -3).reshape(*batch, n, self.d_model)

    def project_q(self, x_q) -> np.ndarray:
        """Each head's queries, ``(..., n_heads, n_q, head_dim)``, from ``x_q (..., n_q, d_model)``.

        ``Q = x_q·W_Q + b_Q``, then split into heads.
        """
        x_q = self._check_x(x_q, "x_q")
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            q = _affine(x_q, self.w_q, self.b_q)  # (..., n_q, d_model)
        _require_finite_result(q, "Q = x_q·w_q + b_q", x_q=x_q, w_q=self.w_q)
        return self.split_heads(q)

    def project_kv(self, x_kv) -> tuple[np.ndarray, np.ndarray]:
        """Each head's keys and values, ``(..., n_heads, n_k, head_dim)`` each.

        ``K = x_kv·W_K + b_K`` and ``V = x_kv·W_V + b_V``, then split into heads.
        """
        x_kv = self._check_x(x_kv, "x_kv")
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            k = _affine(x_kv, self.w_k, self.b_k)  # (..., n_k, d_model)
            v = _affine(x_kv, self.w_v, self.b_v)  # (..., n_k, d_model)
        _require_finite_result(k, "K = x_kv·w_k + b_k", x_kv=x_kv, w_k=self.w_k)
        _require_finite_result(v, "V = x_kv·w_v + b_v", x_kv=x_kv, w_v=self.w_v)
        return self.split_heads(k), self.split_heads(v)

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
        return AttentionResult(self.output(heads), weights)

    def output(self, heads) -> np.ndarray:
        """``concat(heads)·W_O + b_O``: ``(..., n_heads, n_q, head_dim)`` → ``(..., n_q, d_model)``.

        >>> mha = MultiHeadAttention(d_model=8, n_heads=2)
        >>> mha.output(np.ones((2, 5, 4))).shape
        (5, 8)
        """
        heads = float_array(heads, "heads", min_ndim=3)
        if heads.shape[-3:-2] != (self.n_heads,) or heads.shape[-1] != self.head_dim:
            raise ValueError(
                f"heads must have shape (..., n_heads, n_q, head_dim) = (..., {self.n_heads}, "
                f"n_q, {self.head_dim}), got {heads.shape}")
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            out = _affine(self.merge_heads(heads), self.w_o, self.b_o)  # (..., n_q, d_model)
        _require_finite_result(out, "concat(heads)·w_o + b_o", heads=heads, w_o=self.w_o)
        return out

    def __call__(self, x_q, x_kv=None, mask=None) -> AttentionResult:
        """Attend from ``x_q (..., n_q, d_model)`` to ``x_kv (..., n_k, d_model)``.

        ``x_kv=None`` is self-attention (``x_kv = x_q``); otherwise cross-attention.
        ``mask`` broadcasts to ``(..., n_heads, n_q, n_k)``; True = may attend.
        """
        q, k, v = self.project(x_q, x_kv)
        try:
            return self.attend(q, k, v, mask=mask)
        except ScoresOverflowError as err:  # say which of the learner's arguments it was
            which = "x_q holds" if x_kv is None else "x_q and x_kv hold"
            raise ScoresOverflowError(
                f"{which} numbers too large for attention in {self.dtype} "
                f"(largest |x_q| = {float(np.abs(np.asarray(x_q, float)).max()):.3g}): {err}"
            ) from None


def _check_heads(d_model: int, n_heads) -> int:
    n_heads = positive_int(n_heads, "n_heads")
    if d_model % n_heads:
        raise ValueError(
            f"d_model must be divisible by n_heads to split it into equal heads: "
            f"d_model = {d_model}, n_heads = {n_heads} (remainder {d_model % n_heads})"
        )
    return n_heads


def _affine(x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """``x @ w + b`` (the bias, if any, added to every row)."""
    return x @ w if b is None else x @ w + b

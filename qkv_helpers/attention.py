"""The math of attention: softmax, scaled dot-product attention, multi-head attention.

Everything here is numpy only. Shapes are written ``(tokens, d_k)`` as in the lessons,
with ``...`` for any leading batch dimensions.

    attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t
from ._validate import ScoresOverflowError

__all__ = [
    "AttentionResult",
    "MultiHeadAttention",
    "Projection",
    "attention_unchecked",
    "scaled_dot_product_attention",
    "softmax",
    "softmax_unchecked",
]


class AttentionResult(NamedTuple):
    """What attention gives back: the contextual vectors and the weights that made them."""

    output: np.ndarray
    """``(..., n_q, d_v)``: one contextual vector per query."""
    weights: np.ndarray
    """``(..., n_q, n_k)``: how much each query takes from each key's value; rows sum to 1."""


@validate.by(validate.softmax_args)
def softmax(x, axis: int = -1, temperature: float = 1.0, *, out=None) -> np.ndarray:
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
    out : numpy array, optional
        Where to write the probabilities, as in numpy: an array of ``x``'s shape and float
        dtype. ``out=x`` overwrites the scores; attention does, so that it makes no second
        ``(n_q, n_k)`` array.

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
    return softmax_unchecked(x, axis, temperature, out=out)


def softmax_unchecked(x, axis: int = -1, temperature: float = 1.0, *, out=None) -> np.ndarray:
    """:func:`softmax`'s formula, on arguments already checked (by ``softmax``, or by an
    entry point such as :func:`scaled_dot_product_attention` that checked its own)."""
    with np.errstate(over="ignore"):  # a spread wider than the dtype gives -inf: exp -> 0
        shifted = np.subtract(x, x.max(axis=axis, keepdims=True), out=out)  # every entry <= 0
        if temperature != 1.0:  # divided in float64: a tiny T in float16/32 would give 0/0
            shifted = shifted / np.float64(temperature)
    e = np.exp(shifted, out=shifted)  # entries in [0, 1], the largest of each row exactly 1
    # float16 rows summed in float32: past 65,504 keys their sum would overflow float16
    e /= e.sum(axis=axis, keepdims=True, dtype=np.promote_types(e.dtype, np.float32))
    if out is None:
        return e.astype(x.dtype, copy=False)  # (a temperature made a float64 copy)
    if e is not out:
        out[...] = e
    return out


@validate.by(validate.attention_args)
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

    Leading dimensions of ``q``, ``k``, ``v`` broadcast. float32 in gives float32 out;
    float16 in gives float16 out, its scores and softmax computed in float32.
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
    return attention_unchecked(q, k, v, mask, scale)


def attention_unchecked(q, k, v, mask=None, scale=None) -> AttentionResult:
    """:func:`scaled_dot_product_attention`'s formula, on arguments already checked (by it,
    or by an entry point such as :class:`MultiHeadAttention` that checked its own)."""
    d_k = q.shape[-1]
    if scale is None:
        scale = 1 / math.sqrt(d_k)
    # float16 scores are formed, scaled and softmaxed in float32, as FlashAttention does:
    # rounded to float16, a score near 120 would be off by up to 0.03 (float16's step there
    # is 0.0625), and its weight by 3%. float32 and float64 stay as they are.
    work = np.promote_types(q.dtype, np.float32)
    q_work, k_work = q.astype(work, copy=False), k.astype(work, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):  # too large: an error, just below
        scores = (q_work * scale) @ k_work.swapaxes(-1, -2)  # (..., n_q, n_k): q·kᵀ/√d_k
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # masked keys: exp(-inf) = weight 0
    validate.finite_scores(scores, q=q_work, k=k_work, scale=scale)
    weights = softmax_unchecked(scores, out=scores)  # (..., n_q, n_k), rows sum to 1
    with np.errstate(over="ignore", invalid="ignore"):  # too large: an error, just below
        output = weights @ v  # (..., n_q, d_v): each query's weighted sum of values
        output = output.astype(v.dtype, copy=False)  # float16 in, float16 out
    validate.finite_product(output, t("err_what_output_weights_v"), v=v)
    return AttentionResult(output, weights.astype(q.dtype, copy=False))


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
        d_model = validate.integer(d_model, "d_model", 1, 2**14,
                                   why=t("err_why_mha_weights"))
        n_heads = validate.heads(d_model, n_heads)
        rng = np.random.default_rng(validate.seed(seed))
        bias = validate.flag(bias, "bias")
        dtype = validate.float_dtype(dtype)
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
        weights = [validate.array(w, n, min_ndim=2, bools=False, empty=False)
                   for w, n in zip((w_q, w_k, w_v, w_o), names)]
        d_model = weights[0].shape[0]
        for w, name in zip(weights, names):
            if w.shape != (d_model, d_model):
                raise ValueError(t("err_mha_weight_shape", name=name, d_model=d_model,
                                   got=w.shape))
        biases = []
        for b, name in zip((b_q, b_k, b_v, b_o), ("b_q", "b_k", "b_v", "b_o")):
            if b is not None:
                b = validate.array(b, name, bools=False, empty=False)
                if b.shape != (d_model,):
                    raise ValueError(t("err_mha_bias_shape", name=name, d_model=d_model,
                                       got=b.shape))
            biases.append(b)
        n_heads = validate.heads(d_model, n_heads)
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

    def split_heads(self, x: np.ndarray) -> np.ndarray:
        """``(..., tokens, d_model)`` → ``(..., n_heads, tokens, head_dim)``."""
        if np.ndim(x) < 2 or np.shape(x)[-1] != self.d_model:
            raise ValueError(t("err_split_heads", d_model=self.d_model, n_heads=self.n_heads,
                               head_dim=self.head_dim, got=np.shape(x)))
        *batch, n, _ = x.shape
        return x.reshape(*batch, n, self.n_heads, self.head_dim).swapaxes(-2, -3)

    def merge_heads(self, x: np.ndarray) -> np.ndarray:
        """``(..., n_heads, tokens, head_dim)`` → ``(..., tokens, d_model)``."""
        if np.ndim(x) < 3 or np.shape(x)[-3] != self.n_heads or np.shape(x)[-1] != self.head_dim:
            raise ValueError(t("err_merge_heads", n_heads=self.n_heads, head_dim=self.head_dim,
                               got=np.shape(x)))
        *batch, _, n, _ = x.shape
        return x.swapaxes(-2, -3).reshape(*batch, n, self.d_model)

    @validate.by(validate.mha_args)
    def project_q(self, x_q) -> np.ndarray:
        """Each head's queries, ``(..., n_heads, n_q, head_dim)``, from ``x_q (..., n_q, d_model)``.

        ``Q = x_q·W_Q + b_Q``, then split into heads.
        """
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            q = _affine(x_q, self.w_q, self.b_q)  # (..., n_q, d_model)
        validate.finite_product(q, "Q = x_q·w_q + b_q", x_q=x_q, w_q=self.w_q)
        return self.split_heads(q)

    @validate.by(validate.mha_args)
    def project_kv(self, x_kv) -> tuple[np.ndarray, np.ndarray]:
        """Each head's keys and values, ``(..., n_heads, n_k, head_dim)`` each.

        ``K = x_kv·W_K + b_K`` and ``V = x_kv·W_V + b_V``, then split into heads.
        """
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            k = _affine(x_kv, self.w_k, self.b_k)  # (..., n_k, d_model)
            v = _affine(x_kv, self.w_v, self.b_v)  # (..., n_k, d_model)
        validate.finite_product(k, "K = x_kv·w_k + b_k", x_kv=x_kv, w_k=self.w_k)
        validate.finite_product(v, "V = x_kv·w_v + b_v", x_kv=x_kv, w_v=self.w_v)
        return self.split_heads(k), self.split_heads(v)

    @validate.by(validate.mha_args)
    def project(self, x_q, x_kv=None) -> Projection:
        """Each head's Q, K and V: ``Projection(q, k, v)``.

        Each is ``(..., n_heads, tokens, head_dim)``.

        ``x_kv=None`` takes keys and values from ``x_q`` (self-attention).
        """
        q = self._project_q(x_q)
        k, v = self._project_kv(x_q if x_kv is None else x_kv)
        return Projection(q, k, v)

    @validate.by(validate.mha_args)
    def attend(self, q, k, v, mask=None) -> AttentionResult:
        """Attention per head on projected ``q, k, v``, then heads merged and ``W_O`` applied.

        Returns ``(output (..., n_q, d_model), weights (..., n_heads, n_q, n_k))``.
        """
        heads, weights = attention_unchecked(q, k, v, mask)  # (..., n_heads, n_q, head_dim)
        return AttentionResult(self._output(heads), weights)

    @validate.by(validate.mha_args)
    def output(self, heads) -> np.ndarray:
        """``concat(heads)·W_O + b_O``: ``(..., n_heads, n_q, head_dim)`` → ``(..., n_q, d_model)``.

        >>> mha = MultiHeadAttention(d_model=8, n_heads=2)
        >>> mha.output(np.ones((2, 5, 4))).shape
        (5, 8)
        """
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            out = _affine(self.merge_heads(heads), self.w_o, self.b_o)  # (..., n_q, d_model)
        validate.finite_product(out, "concat(heads)·w_o + b_o", heads=heads, w_o=self.w_o)
        return out

    @validate.by(validate.mha_args)
    def __call__(self, x_q, x_kv=None, mask=None) -> AttentionResult:
        """Attend from ``x_q (..., n_q, d_model)`` to ``x_kv (..., n_k, d_model)``.

        ``x_kv=None`` is self-attention (``x_kv = x_q``); otherwise cross-attention.
        ``mask`` broadcasts to ``(..., n_heads, n_q, n_k)``; True = may attend.
        """
        q, k, v = self._project(x_q, x_kv)  # (..., n_heads, tokens, head_dim) each
        try:
            heads, weights = attention_unchecked(q, k, v, mask)  # (..., n_heads, n_q, head_dim)
        except ScoresOverflowError as err:  # say which of the learner's arguments it was
            which = "err_mha_overflow_self" if x_kv is None else "err_mha_overflow_cross"
            raise ScoresOverflowError(t(which, dtype=self.dtype,
                                        largest=f"{float(np.abs(x_q).max()):.3g}",
                                        err=err)) from None
        return AttentionResult(self._output(heads), weights)

    # The same, without the checks: for the decoder and the other entry points, whose
    # arguments are already checked (``mha._project(x_q, x_kv)`` and so on).
    _project_q = project_q.unchecked
    _project_kv = project_kv.unchecked
    _project = project.unchecked
    _output = output.unchecked


# The decoder's name for it (decoding.py imports ``_attention``).
_attention = attention_unchecked


def _affine(x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """``x @ w + b`` (the bias, if any, added to every row)."""
    return x @ w if b is None else x @ w + b

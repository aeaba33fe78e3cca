"""Why attention divides by √d_k (lesson 03), measured rather than asserted.

*If* the entries of q and k are independent with mean 0 and variance 1 (the paper's
assumption, roughly true of random projections at initialisation), then
``q·k = Σ q_i k_i`` is a sum of d_k terms of variance 1: its variance is d_k, so its
typical size grows like √d_k. Unscaled, large d_k makes the scores far apart, softmax
puts almost all weight on one key (it *saturates*), and its gradient, the Jacobian
``diag(p) − p pᵀ``, goes to zero, so training gets almost no signal. Dividing by √d_k
brings the variance back to 1. The point is stable gradients, not speed. numpy only.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t
from .attention import softmax

__all__ = [
    "DkStats",
    "GradientSpread",
    "dk_stats",
    "dot_product_variance",
    "query_gradient_spread",
    "random_queries_keys",
    "softmax_gradient_norm",
    "softmax_jacobian",
]


def random_queries_keys(d_k: int, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` seeded random queries and keys of width ``d_k``, entries standard normal.

    They stand in for what a projection gives before training: mean 0, variance 1.

    Examples
    --------
    >>> q, k = random_queries_keys(d_k=16, n=3, seed=1)
    >>> q.shape, k.shape
    ((3, 16), (3, 16))
    """
    d_k = validate.integer(d_k, "d_k", 1)
    n = validate.integer(n, "n", 1)
    rng = np.random.default_rng(validate.seed(seed))
    q = rng.standard_normal((n, d_k))  # (n, d_k)
    k = rng.standard_normal((n, d_k))  # (n, d_k)
    return q, k


_BLOCK_VALUES = 1 << 20  # numbers per block of random pairs in dot_product_variance (8 MB)


def dot_product_variance(d_k: int, n: int = 20_000, seed: int = 0) -> tuple[float, float]:
    """Measured variance of ``q·k`` and of ``q·k/√d_k`` over ``n`` random pairs.

    Returns
    -------
    (raw, scaled) : (float, float)
        The raw variance is close to ``d_k``, the scaled one close to 1.

    Examples
    --------
    >>> raw, scaled = dot_product_variance(64, n=20_000, seed=0)
    >>> 58 < raw < 70, 0.9 < scaled < 1.1
    (True, True)
    """
    n = validate.integer(n, "n", low=2)  # a variance needs at least two pairs
    d_k = validate.integer(d_k, "d_k", 1)
    # The pairs of random_queries_keys(d_k, n, seed), a block of rows at a time: all of them
    # at once would be 2·n·d_k numbers (328 MB for 20,000 pairs at d_k = 1024). Its queries
    # and keys are one random stream (all queries, then all keys): one generator reads the
    # queries, a second one skips them to read the keys.
    queries = np.random.default_rng(validate.seed(seed))
    keys = np.random.default_rng(validate.seed(seed))
    rows = max(1, _BLOCK_VALUES // d_k)
    for start in range(0, n, rows):
        keys.standard_normal((min(rows, n - start), d_k))  # the queries' part of the stream
    dots = np.empty(n)  # (n,): one dot product per pair
    for start in range(0, n, rows):
        b = min(rows, n - start)
        q, k = queries.standard_normal((b, d_k)), keys.standard_normal((b, d_k))  # (b, d_k)
        dots[start:start + b] = np.einsum("nd,nd->n", q, k)
    return float(dots.var()), float((dots / math.sqrt(d_k)).var())


def softmax_jacobian(p) -> np.ndarray:
    """The Jacobian of softmax at probabilities ``p``: ``J = diag(p) − p pᵀ``.

    ``J[i, j] = ∂p_i/∂s_j``. When one p is close to 1 and the rest close to 0, every
    entry is close to 0: softmax has saturated and passes back almost no gradient.

    Examples
    --------
    >>> softmax_jacobian([0.5, 0.5])
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    >>> np.abs(softmax_jacobian([1.0, 0.0])).max()
    np.float64(0.0)
    """
    p = validate.array(p, "p", ndim=1, shape="(n,)", widen=True, empty=False)
    with np.errstate(over="ignore"):
        total = float(p.sum())
    if p.min() < 0.0 or p.max() > 1.0 or abs(total - 1.0) > 1e-6:
        raise ValueError(t("err_probabilities", low=f"{p.min():.3g}", high=f"{p.max():.3g}",
                           total=f"{total:.6g}"))
    return np.diag(p) - np.outer(p, p)  # (n, n)


def softmax_gradient_norm(scores) -> float:
    """Size (Frobenius norm) of softmax's Jacobian at one row of ``scores``.

    Examples
    --------
    >>> round(softmax_gradient_norm([0.0, 0.0]), 3)       # even: largest gradient
    0.5
    >>> softmax_gradient_norm([0.0, 40.0]) < 1e-12          # saturated: none left
    True
    """
    return float(np.linalg.norm(softmax_jacobian(softmax(validate.array(scores, "scores", ndim=1,
                                                                        shape="(n,)", widen=True,
                                                                        empty=False)))))


class DkStats(NamedTuple):
    """What one d_k does to one query's scores against ``n_keys`` random keys.

    Attributes
    ----------
    raw, scaled : ndarray, shape (n_keys,)
        ``q·k`` and ``q·k/√d_k`` for the query.
    weights_raw, weights_scaled : ndarray, shape (n_keys,)
        Softmax of each.
    grad_raw, grad_scaled : float
        Norm of softmax's Jacobian at each, averaged over ``n_queries`` queries.
    max_raw, max_scaled : float
        Largest weight, averaged over the queries.
    """

    d_k: int
    raw: np.ndarray
    scaled: np.ndarray
    weights_raw: np.ndarray
    weights_scaled: np.ndarray
    max_raw: float
    max_scaled: float
    grad_raw: float
    grad_scaled: float


def dk_stats(d_k: int, n_keys: int = 8, n_queries: int = 200, seed: int = 0) -> DkStats:
    """Scores, weights, saturation and gradient size for random q, k of width ``d_k``.

    The arrays are for the first query; the maxima and gradient norms are means over
    ``n_queries`` queries, so they change smoothly with ``d_k``.

    Examples
    --------
    >>> small, big = dk_stats(4), dk_stats(512)
    >>> bool(big.max_raw > 0.9 > small.max_raw)         # unscaled, big d_k saturates
    True
    >>> bool(big.grad_raw < 0.1 < big.grad_scaled)      # and its gradient vanishes
    True
    """
    d_k = validate.integer(d_k, "d_k", 1)
    n_keys = validate.integer(n_keys, "n_keys", 1)
    n_queries = validate.integer(n_queries, "n_queries", 1)
    rng = np.random.default_rng(validate.seed(seed))
    q = rng.standard_normal((n_queries, d_k))  # (n_queries, d_k)
    k = rng.standard_normal((n_keys, d_k))  # (n_keys, d_k)
    raw = q @ k.T  # (n_queries, n_keys)
    scaled = raw / math.sqrt(d_k)  # (n_queries, n_keys)
    w_raw, w_scaled = softmax(raw), softmax(scaled)  # (n_queries, n_keys) each

    def mean_grad(weights: np.ndarray) -> float:
        return float(np.mean([np.linalg.norm(softmax_jacobian(row)) for row in weights]))

    return DkStats(d_k, raw[0], scaled[0], w_raw[0], w_scaled[0],
                   float(w_raw.max(axis=1).mean()), float(w_scaled.max(axis=1).mean()),
                   mean_grad(w_raw), mean_grad(w_scaled))


_QUERY_BLOCK = 128  # queries per block in query_gradient_spread: about 8 MB at d_k = 1024


class GradientSpread(NamedTuple):
    """Per-query gradient sizes without and with scaling (see :func:`query_gradient_spread`).

    Attributes
    ----------
    raw, scaled : ndarray, shape (n_queries,)
        ``‖∂p/∂q‖`` for each query: the Frobenius norm of the gradient of its softmax
        weights p with respect to the query vector q, for scores ``q·k`` and ``q·k/√d_k``.
    """

    d_k: int
    raw: np.ndarray
    scaled: np.ndarray


def query_gradient_spread(d_k: int, n_keys: int = 8, n_queries: int = 2000,
                          seed: int = 0) -> GradientSpread:
    """How large the gradient that reaches each query is, unscaled and scaled.

    For scores ``s = c · K q`` (``c = 1`` unscaled, ``c = 1/√d_k`` scaled) the weights are
    ``p = softmax(s)`` and, by the chain rule,

        ∂p/∂q = J · K · c,     J = diag(p) − p pᵀ  (softmax's Jacobian)

    J alone only shrinks (saturation), but K's rows have length about √d_k, so without
    scaling the result is not uniformly small: for most queries softmax has saturated and
    it is almost 0, for the few whose two best scores are close it is large. With scaling
    every query gets a gradient of about the same size.

    Returns
    -------
    GradientSpread
        ``raw`` and ``scaled``: one norm per query, each of shape (n_queries,).

    Examples
    --------
    >>> g = query_gradient_spread(1024, n_queries=500)
    >>> g.raw.shape, g.scaled.shape
    ((500,), (500,))
    >>> bool(np.median(g.raw) < 0.01 < 0.1 < np.median(g.scaled))   # most raw ones vanish
    True
    >>> bool(g.raw.max() > 10 * g.scaled.max())                      # a few blow up
    True
    """
    d_k = validate.integer(d_k, "d_k", 1)
    n_keys = validate.integer(n_keys, "n_keys", 1)
    n_queries = validate.integer(n_queries, "n_queries", 1)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_queries, d_k))  # (n_queries, d_k)
    k = rng.standard_normal((n_keys, d_k))  # (n_keys, d_k)

    def norms(c: float) -> np.ndarray:
        out = np.empty(n_queries)  # (n_queries,)
        # A block of queries at a time: every query's gradient is (n_keys, d_k), so all of
        # them at once would be n_queries·n_keys·d_k numbers (131 MB for 2000 × 8 × 1024).
        for start in range(0, n_queries, _QUERY_BLOCK):
            block = q[start:start + _QUERY_BLOCK]  # (b, d_k)
            p = softmax(c * (block @ k.T))  # (b, n_keys)
            # J for each query of the block: diag(p) − p pᵀ               # (b, n_keys, n_keys)
            jac = p[:, :, None] * np.eye(n_keys) - p[:, :, None] * p[:, None, :]
            grad = c * (jac @ k)  # (b, n_keys, d_k): ∂p/∂q for each query
            out[start:start + len(block)] = np.linalg.norm(grad, axis=(1, 2))
        return out

    return GradientSpread(d_k, norms(1.0), norms(1.0 / math.sqrt(d_k)))

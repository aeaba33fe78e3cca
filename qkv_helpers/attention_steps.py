"""The whole of attention, step by step, for the recap of lesson 10.

    x → Q, K, V → scores = Q·Kᵀ → scaled = scores / √d_k → weights = softmax(scaled)
      → output = weights · V

numpy only.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t
from .attention import softmax

__all__ = ["PipelineSteps", "pipeline_steps"]


class PipelineSteps(NamedTuple):
    """Every intermediate array of one attention, in the order it is computed."""

    x: np.ndarray
    """``(tokens, d_model)``: the embeddings."""
    q: np.ndarray
    """``(tokens, d_k)``: ``x·W_Q``."""
    k: np.ndarray
    """``(tokens, d_k)``: ``x·W_K``."""
    v: np.ndarray
    """``(tokens, d_v)``: ``x·W_V``."""
    scores: np.ndarray
    """``(tokens, tokens)``: ``Q·Kᵀ``."""
    scaled: np.ndarray
    """``(tokens, tokens)``: ``Q·Kᵀ / √d_k``."""
    weights: np.ndarray
    """``(tokens, tokens)``: ``softmax(scaled)`` (masked entries exactly 0), rows sum to 1."""
    output: np.ndarray
    """``(tokens, d_v)``: ``weights·V``, one contextual vector per token."""


@validate.by(validate.pipeline_args)
def pipeline_steps(x, w_q, w_k, w_v, mask=None) -> PipelineSteps:
    """Compute self-attention one named step at a time.

    Parameters
    ----------
    x : array_like, shape (tokens, d_model)
    w_q, w_k : array_like, shape (d_model, d_k)
    w_v : array_like, shape (d_model, d_v)
    mask : array_like of bool, broadcastable to (tokens, tokens), optional
        True where a query may attend (e.g. :func:`qkv_helpers.causal_mask`); attention's
        rules (every row a True).

    Examples
    --------
    >>> from qkv_helpers import running_example, scaled_dot_product_attention
    >>> ex = running_example()
    >>> steps = pipeline_steps(ex.x, ex.w_q, ex.w_k, ex.w_v)
    >>> [a.shape for a in steps]
    [(7, 8), (7, 4), (7, 4), (7, 4), (7, 7), (7, 7), (7, 7), (7, 4)]
    >>> bool(np.allclose(steps.output, scaled_dot_product_attention(ex.q, ex.k, ex.v).output))
    True
    """
    with np.errstate(over="ignore", invalid="ignore"):
        q, k, v = x @ w_q, x @ w_k, x @ w_v  # (tokens, d_k), (tokens, d_k), (tokens, d_v)
        scores = q @ k.T  # (tokens, tokens)
    validate.finite_result(np.concatenate([q.ravel(), v.ravel(), scores.ravel()]),
                  t("err_what_q_v_scores"), t("err_names_x_w"))
    scaled = scores / math.sqrt(q.shape[1])  # (tokens, tokens)
    masked = scaled if mask is None else np.where(mask, scaled, -np.inf)  # exp(-inf) = 0
    weights = softmax(masked)  # (tokens, tokens), masked weights exactly 0
    with np.errstate(over="ignore", invalid="ignore"):
        output = weights @ v  # (tokens, d_v)
    validate.finite_result(output, t("err_what_output_weights_V"), t("err_names_x_w_v"))
    return PipelineSteps(x, q, k, v, scores, scaled, weights, output)

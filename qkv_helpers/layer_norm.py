"""Layer norm: each token's vector shifted to mean 0 and scaled to variance 1.

One layer norm for the whole package: :func:`normalize` is the formula, which every
block (:mod:`qkv_helpers.block`) runs, keeping ``1/σ`` for :func:`layer_norm_backward`
(lesson 14 trains with it); :func:`layer_norm` is the same with its argument checked, and
:class:`LayerNorm` adds the learned γ and β of lesson 11's pretrained model.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t

__all__ = ["LayerNorm", "Normalized", "layer_norm", "layer_norm_backward", "normalize"]


class Normalized(NamedTuple):
    """:func:`normalize`'s result: the normalised rows and what the backward needs."""

    y: np.ndarray
    """``(..., d)``: ``(x - mean) / σ``, row by row."""
    inv_std: np.ndarray
    """``(..., 1)``: ``1/σ``, ``σ = sqrt(variance + eps)``."""


def normalize(x, eps: float = 1e-5) -> Normalized:
    """``(x - mean) / sqrt(var + eps)`` along the last axis, and ``1/σ``; no checks.

    >>> normalize(np.array([[1.0, 2.0, 3.0]])).y.round(3)
    array([[-1.225,  0.   ,  1.225]])
    """
    centred = x - x.mean(axis=-1, keepdims=True)  # (..., d), each row's mean 0
    std = np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps)  # (..., 1)
    return Normalized(centred / std, 1 / std)  # (..., d), (..., 1)


def layer_norm_backward(d_out, y, inv_std) -> np.ndarray:
    """``d_x = (d_y - mean(d_y) - y·mean(d_y·y)) / σ``, row by row.

    ``y`` is the normalised output: moving x's mean or scale leaves it unchanged, so
    the gradient loses its component along 1 and along y.
    """
    mean_d = d_out.mean(axis=-1, keepdims=True)  # (..., 1)
    mean_dy = (d_out * y).mean(axis=-1, keepdims=True)  # (..., 1)
    return (d_out - mean_d - y * mean_dy) * inv_std  # (..., d)


def layer_norm(x, eps: float = 1e-5) -> np.ndarray:
    """Each row of ``x`` shifted to mean 0 and scaled to variance 1 (no learned scale/shift).

    ``(x - mean) / sqrt(variance + eps)``, row by row (along the last axis). A trained
    layer norm also multiplies by a learned ``γ`` and adds a learned ``β``; at
    initialisation they are 1 and 0, which is what an untrained model has.

    Examples
    --------
    >>> layer_norm(np.array([[1.0, 2.0, 3.0]])).round(3)
    array([[-1.225,  0.   ,  1.225]])
    """
    x = validate.array(x, "x", bools=False, empty=False)
    eps = validate.positive_number(eps, "eps")
    with np.errstate(over="ignore", invalid="ignore"):  # too large: an error, just below
        y, inv_std = normalize(x, eps)  # same shape as x
    if not np.isfinite(inv_std).all() or not (inv_std > 0).all():
        raise ValueError(t("err_layer_norm_overflow", dtype=x.dtype, shape=x.shape,
                           largest=np.abs(x).max()))
    return y


class LayerNorm(NamedTuple):
    """Layer norm with its learned scale ``gamma`` (γ) and shift ``beta`` (β), ``(d_model,)``.

    ``γ · (x - mean) / sqrt(variance + eps) + β``, over each token's vector: the
    :func:`layer_norm` of lesson 09's decoder, then γ and β.

    >>> norm = LayerNorm(gamma=np.array([1.0, 2.0]), beta=np.array([0.0, 10.0]), eps=1e-12)
    >>> norm(np.array([[1.0, 3.0]]))          # normalised: [-1, 1]; then ·γ + β
    array([[-1., 12.]])
    """

    gamma: np.ndarray
    beta: np.ndarray
    eps: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        normed = layer_norm(x, self.eps)  # (..., d_model), x checked
        if normed.shape[-1:] != self.gamma.shape:
            raise ValueError(t("err_layer_norm_width", d_model=self.gamma.shape[0],
                               shape=normed.shape))
        return self.gamma * normed + self.beta  # (..., d_model)

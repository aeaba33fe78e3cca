"""Layer norm: each token's vector shifted to mean 0 and scaled to variance 1.

One layer norm for the whole package: :func:`layer_norm` is what lesson 09's decoder
(:class:`~qkv_helpers.TinyTransformer`, untrained, no learned scale or shift) runs, and
:class:`LayerNorm` adds the learned γ and β of lesson 11's pretrained model.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _validate as validate

__all__ = ["LayerNorm", "layer_norm"]


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
        centred = x - x.mean(axis=-1, keepdims=True)  # same shape as x, each row's mean 0
        variance = (centred * centred).mean(axis=-1, keepdims=True)  # (..., 1)
    if not np.isfinite(variance).all():
        raise ValueError(f"x is too large for layer_norm in {x.dtype}: a row's variance "
                         f"overflowed (x has shape {x.shape}, largest |x| {np.abs(x).max()})")
    return centred / np.sqrt(variance + eps)  # same shape as x


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
            raise ValueError(f"x must have shape (..., d_model) = (..., {self.gamma.shape[0]}) "
                             f"for this LayerNorm, got {normed.shape}")
        return self.gamma * normed + self.beta  # (..., d_model)

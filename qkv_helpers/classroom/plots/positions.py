"""Lesson 12's pictures: position vectors as heat maps, and RoPE's score against distance."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes

from ... import _validate as validate
from ...lang import t
from ._common import as_matrix, as_series, new_axes

__all__ = ["plot_position_vectors", "plot_position_similarity", "plot_rope_score_by_distance"]


def _finite(values: np.ndarray, name: str) -> np.ndarray:
    validate.require_finite(values, name)  # a NaN or inf: a blank cell, or flat colours
    return values


def plot_position_vectors(pe, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """A table of position vectors, ``(positions, d_model)``, as a heat map (blue −1, red +1).

    Examples
    --------
    >>> from qkv_helpers.positions import sinusoidal_positions
    >>> ax = plot_position_vectors(sinusoidal_positions(50, 64))
    >>> ax.get_xlabel() != ""
    True
    """
    values = _finite(as_matrix(pe, "pe"), "pe")
    ax = new_axes(ax, figsize=(7.0, 4.0))
    limit = float(np.abs(values).max()) or 1.0
    image = ax.imshow(values, aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit,
                      interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, shrink=0.85)
    ax.set_xlabel(t("p_pos_dimension"))
    ax.set_ylabel(t("p_pos_position"))
    ax.set_title(title if title is not None else t("p_pos_vectors_title"))
    return ax


def plot_position_similarity(similarity, *, ax: Axes | None = None,
                             title: str | None = None) -> Axes:
    """Cosine similarity of every position with every position, ``(n, n)``, as a heat map.

    Examples
    --------
    >>> ax = plot_position_similarity(np.eye(4))
    >>> ax.get_ylabel() != ""
    True
    """
    values = _finite(as_matrix(similarity, "similarity"), "similarity")
    if values.shape[0] != values.shape[1]:
        raise ValueError(t("err_similarity_square", got=values.shape))
    if np.abs(values).max() > 1 + 1e-3:  # float32 rounding may pass 1 a little
        raise ValueError(t("err_similarity_range", low=f"{values.min():g}",
                           high=f"{values.max():g}"))
    ax = new_axes(ax, figsize=(5.2, 4.4))
    image = ax.imshow(values, cmap="viridis", vmin=-1, vmax=1, interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, shrink=0.85)
    ax.set_xlabel(t("p_pos_position"))
    ax.set_ylabel(t("p_pos_position"))
    ax.set_title(title if title is not None else t("p_pos_similarity_title"))
    return ax


def plot_rope_score_by_distance(distances, scores, *, ax: Axes | None = None) -> Axes:
    """RoPE's average score against the distance ``m − n`` between query and key.

    Examples
    --------
    >>> ax = plot_rope_score_by_distance([0, 1, 2], [4.0, 3.1, 1.5])
    >>> ax.lines[0].get_ydata().tolist()
    [4.0, 3.1, 1.5]
    """
    x = as_series(distances, "distances")  # (n,)
    y = as_series(scores, "scores", len(x), per="distances")  # (n,)
    ax = new_axes(ax, figsize=(6.4, 3.6))
    ax.plot(x, y, color="tab:blue")
    ax.axhline(0, color="0.6", linewidth=0.8)
    ax.set_xlabel(t("p_pos_distance"))
    ax.set_ylabel(t("p_pos_score"))
    ax.set_title(t("p_pos_decay_title"))
    return ax

"""Small pieces every plot shares: a fresh Axes, token labels, numbers in cells."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes


def new_axes(ax: Axes | None, figsize=(6.4, 4.0)) -> Axes:
    """``ax`` itself, or the Axes of a new pyplot figure (shown by the notebook)."""
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def as_matrix(values, name: str) -> np.ndarray:
    """``values`` as a 2-D float array, or a ValueError naming ``name`` and its shape."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (rows, columns), got shape {arr.shape}")
    return arr


def check_labels(labels, n: int, name: str, axis: str) -> list[str]:
    """``labels`` as a list of ``n`` strings, or a ValueError that says what went wrong."""
    labels = [str(label) for label in labels]
    if len(labels) != n:
        raise ValueError(f"{name} has {len(labels)} labels but the {axis} has {n} entries")
    return labels


def annotate_cells(ax: Axes, values: np.ndarray, image, fmt: str = "{:.2f}",
                   skip: np.ndarray | None = None) -> None:
    """Write each cell's value in it, dark on light cells and light on dark ones."""
    cmap, norm = image.get_cmap(), image.norm
    for (i, j), value in np.ndenumerate(values):
        if skip is not None and skip[i, j]:
            continue
        r, g, b, _ = cmap(norm(value))
        light = 0.299 * r + 0.587 * g + 0.114 * b > 0.5
        ax.text(j, i, fmt.format(value), ha="center", va="center", fontsize="small",
                color="black" if light else "white")

"""Small pieces every plot shares: a fresh Axes, token labels, numbers in cells."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from ... import _validate as validate
from ...lang import t


def new_axes(ax: Axes | None, figsize=(6.4, 4.0)) -> Axes:
    """``ax`` itself, or the Axes of a new pyplot figure (shown by the notebook)."""
    if ax is not None:
        if not isinstance(ax, Axes):
            raise TypeError(t("err_ax_type", got=type(ax).__name__))
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def as_matrix(values, name: str, finite: bool = True) -> np.ndarray:
    """``values`` as a 2-D float array of finite numbers, or an error naming ``name``.

    A NaN would be a blank cell and one infinity would stretch the colour scale until every
    other cell looks the same: both are refused (``finite=False`` leaves them to the caller).
    """
    return drawable(validate.array(values, name, ndim=2, shape="(rows, columns), 2-D", widen=True,
                                   empty=False, finite=finite), name)


def drawable(arr: np.ndarray, name: str) -> np.ndarray:
    """``arr`` if matplotlib can scale it: colour and axis ranges (``vmax − vmin``) overflow
    for numbers beyond about 1e300, and would draw nothing or the wrong colours."""
    with np.errstate(invalid="ignore"):
        big = np.abs(arr[np.isfinite(arr)]).max(initial=0.0)
    if big > 1e300:
        raise ValueError(t("err_too_large_to_draw", name=name, big=f"{big:.3g}"))
    return arr


def check_labels(labels, n: int, name: str, axis: str) -> list[str]:
    """``labels`` as a list of ``n`` strings, or a ValueError that says what went wrong."""
    if labels is None or isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise TypeError(t("err_axis_labels_type", name=name, n=n, axis=axis,
                          got=f"{type(labels).__name__} {labels!r}"))
    labels = [str(label) for label in labels]
    if len(labels) != n:
        raise ValueError(t("err_axis_labels_count", name=name, got=len(labels), axis=axis, n=n))
    return labels


def text_color_on(color, alpha: float = 1.0) -> str:
    """"black" or "white": whichever reads on ``color`` (drawn with ``alpha`` over white).

    >>> text_color_on("#F0E442"), text_color_on("#0072B2"), text_color_on("#0072B2", 0.3)
    ('black', 'white', 'black')
    """
    from matplotlib.colors import to_rgb

    r, g, b = (alpha * c + (1 - alpha) for c in to_rgb(color))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def annotate_cells(ax: Axes, values: np.ndarray, image, fmt: str = "{:.2f}",
                   skip: np.ndarray | None = None) -> None:
    """Write each cell's value in it, dark on light cells and light on dark ones."""
    cmap, norm = image.get_cmap(), image.norm
    for (i, j), value in np.ndenumerate(values):
        if skip is not None and skip[i, j]:
            continue
        ax.text(j, i, fmt.format(value), ha="center", va="center", fontsize="small",
                color=text_color_on(cmap(norm(value))))


def as_series(values, name: str, n: int | None = None, *, low: float | None = None,
              positive: bool = False, per: str = "point") -> np.ndarray:
    """``values`` as a 1-D array of finite numbers, or an error naming ``name``.

    ``n`` of them (one per entry of ``per``), each >= ``low``, or > 0 if ``positive``. A NaN
    or infinity would be a missing point or bar, or an axis stretched until the rest is flat.
    """
    arr = drawable(validate.array(values, name, ndim=1,
                                  shape="(points,)" if n is None else f"({n},)", widen=True,
                                  empty=False), name)
    if n is not None and arr.shape[0] != n:
        raise ValueError(t("err_series_count", name=name, per=per, n=n, got=arr.shape[0]))
    if positive and arr.min() <= 0:
        raise ValueError(t("err_log_axis_positive", name=name, got=f"{arr.min():g}"))
    if low is not None and arr.min() < low:
        raise ValueError(t("err_real_low", name=name, low=f"{low:g}", got=f"{arr.min():g}"))
    return arr


def optional_index(x, name: str, n: int) -> int | None:
    """None, or ``x`` as a row/bar index in ``0..n-1``."""
    return None if x is None else validate.integer(x, name, 0, n - 1)

"""Change a drawn plot in place: the update mode of ``LiveFigure`` (``_live.py``).

Each ``*_handle`` function draws with the package's plot function once, marks the artists
that will change as animated (drawn over a fixed background) and returns a dict of them;
the matching ``set_*`` function moves them to new values. Building the artists again costs
far more than changing them (text is the main cost), so a widget redraw does the latter.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes

from ..plots.attention_maps import (
    BAR_COLOR,
    HIGHLIGHT_COLOR,
    plot_attention_heatmap,
    plot_query_bars,
)

__all__ = ["animate", "bars_handle", "heatmap_handle", "set_bars", "set_heatmap",
           "padded_limits"]

BAR_LABEL_PAD = 2  # points, as plot_query_bars gives ``bar_label``


def animate(*artists) -> None:
    """Mark artists as changing: blitting draws them over the static background."""
    for artist in artists:
        artist.set_animated(True)


def padded_limits(values, margin: float = 0.15) -> tuple[float, float]:
    """The y-limits autoscaling with ``margins(y=margin)`` gives bars of all ``values`` and 0.

    Examples
    --------
    >>> padded_limits([[-1.0, 2.0], [0.5, 1.0]])
    (-1.45, 2.45)
    """
    values = np.asarray(values, dtype=float)
    lo, hi = min(0.0, float(values.min())), max(0.0, float(values.max()))
    pad = margin * (hi - lo)
    return lo - pad, hi + pad


def bars_handle(ax: Axes, values, labels, *, ylim, highlight: int | None = None,
                **kwargs) -> dict:
    """:func:`plot_query_bars` with fixed y-limits; bars, labels, zero line and title animated.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> h = bars_handle(Figure().add_subplot(), [0.2, 0.8], ["a", "b"], ylim=(0, 1))
    >>> set_bars(h, [0.6, 0.4], highlight=0)
    >>> [text.get_text() for text in h["texts"]], h["bars"][0].get_height()
    (['0.60', '0.40'], 0.6)
    """
    plot_query_bars(values, labels, ax=ax, highlight=highlight, **kwargs)
    ax.set_ylim(*ylim)
    bars = list(ax.containers[0])
    texts = list(ax.texts[-len(bars):])  # bar_label's annotations, one per bar
    animate(*bars, *texts, ax.lines[-1], ax.title)
    return dict(ax=ax, bars=bars, texts=texts)


def set_bars(handle: dict, values, highlight: int | None = None, title: str | None = None,
             alphas=None) -> None:
    """New heights, labels and highlight for the bars of :func:`bars_handle`."""
    for i, (bar, text, value) in enumerate(zip(handle["bars"], handle["texts"], values)):
        value = float(value)
        bar.set_height(value)
        bar.set_facecolor(HIGHLIGHT_COLOR if i == highlight else BAR_COLOR)
        if alphas is not None:
            bar.set_alpha(alphas[i])
        text.xy = (text.xy[0], value)
        text.set_text(f"{value:.2f}")
        sign = -1 if value < 0 else 1
        text.xyann = (0, sign * BAR_LABEL_PAD)
        text.set_verticalalignment("top" if value < 0 else "bottom")
    if title is not None:
        handle["ax"].title.set_text(title)


def heatmap_handle(ax: Axes, weights, row_labels, col_labels=None, *,
                   highlight_row: int | None = None, values_change: bool = True,
                   **kwargs) -> dict:
    """:func:`plot_attention_heatmap` (weights 0..1); image, cell values, outline and title
    animated (the image and numbers only if ``values_change``).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> h = heatmap_handle(Figure().add_subplot(), [[0.9, 0.1], [0.3, 0.7]], ["a", "b"],
    ...                    highlight_row=0)
    >>> set_heatmap(h, [[0.5, 0.5], [0.2, 0.8]], highlight_row=1)
    >>> [text.get_text() for text in h["texts"]], h["outline"].get_y()
    (['0.50', '0.50', '0.20', '0.80'], 0.5)
    """
    plot_attention_heatmap(weights, row_labels, col_labels, ax=ax,
                           highlight_row=highlight_row, **kwargs)
    image = ax.images[0]
    n_cells = image.get_array().size
    texts = list(ax.texts[:n_cells])
    outline = ax.patches[-1] if highlight_row is not None else None
    if values_change:
        animate(image, *texts)
    animate(ax.title, *([outline] if outline is not None else []))
    return dict(ax=ax, image=image, texts=texts, outline=outline)


def set_heatmap(handle: dict, weights=None, highlight_row: int | None = None,
                title: str | None = None) -> None:
    """New values (image and numbers), outlined row and title for :func:`heatmap_handle`."""
    if weights is not None:
        values = np.asarray(weights, dtype=float)
        image = handle["image"]
        image.set_data(values)
        cmap, norm = image.get_cmap(), image.norm
        rgba = cmap(norm(values.ravel()))  # (cells, 4)
        light = rgba[:, :3] @ np.array([0.299, 0.587, 0.114]) > 0.5  # (cells,)
        for text, value, is_light in zip(handle["texts"], values.ravel(), light):
            text.set_text(f"{value:.2f}")
            text.set_color("black" if is_light else "white")
    if highlight_row is not None and handle["outline"] is not None:
        handle["outline"].set_y(highlight_row - 0.5)
    if title is not None:
        handle["ax"].title.set_text(title)

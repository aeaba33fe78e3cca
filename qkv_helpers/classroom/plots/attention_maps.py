"""Pictures of attention: weight heat maps, one query's bars, masked scores, alignment."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.patches import Rectangle

from ... import _validate as validate
from ...lang import t
from .. import style
from ._common import (
    annotate_cells,
    as_matrix,
    as_series,
    check_labels,
    new_axes,
    optional_index,
)

BAR_COLOR = style.COLORS[0]  # blue
HIGHLIGHT_COLOR = style.COLORS[1]  # orange: lighter than the blue, so it reads in grey too

__all__ = [
    "plot_attention_heatmap",
    "plot_cross_attention",
    "plot_masked_scores",
    "plot_query_bars",
]


def plot_attention_heatmap(weights, row_labels, col_labels=None, *, ax: Axes | None = None,
                           title: str | None = None, annotate: bool = True,
                           highlight_row: int | None = None, signed: bool = False,
                           xlabel: str | None = None, ylabel: str | None = None) -> Axes:
    """A heat map of a (rows, columns) matrix, token labels on both axes, values in the cells.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k)
        Attention weights (0..1), or scores with ``signed=True``.
    row_labels : sequence of str
        One per query (row).
    col_labels : sequence of str, optional
        One per key (column); defaults to ``row_labels`` (self-attention).
    ax : matplotlib Axes, optional
        Draw here; otherwise a new figure.
    title : str, optional
        Defaults to "attention weights" (``signed=True``: "similarity score") in the
        current language.
    annotate : bool
        Write each value in its cell.
    highlight_row : int, optional
        Outline one query's row.
    signed : bool
        Scores that may be negative: a diverging colour map centred on 0.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_attention_heatmap([[0.9, 0.1], [0.3, 0.7]], ["a", "b"])
    >>> [label.get_text() for label in ax.get_xticklabels()]
    ['a', 'b']
    """
    values = as_matrix(weights, "weights")
    n_q, n_k = values.shape
    rows = check_labels(row_labels, n_q, "row_labels", t("err_axis_rows_queries"))
    cols = check_labels(row_labels if col_labels is None else col_labels, n_k,
                        "col_labels", t("err_axis_columns_keys"))
    signed, annotate = validate.flag(signed, "signed"), validate.flag(annotate, "annotate")
    highlight_row = optional_index(highlight_row, "highlight_row", n_q)
    if not signed and (values.min() < 0.0 or values.max() > 1.0 + 1e-9):
        raise ValueError(t("err_heatmap_range", low=f"{values.min():.3g}",
                           high=f"{values.max():.3g}"))
    ax = new_axes(ax, figsize=(1.0 + 0.75 * n_k, 0.8 + 0.6 * n_q))
    if signed:
        limit = float(np.abs(values).max()) or 1.0
        image = ax.imshow(values, cmap=style.DIVERGING_CMAP, vmin=-limit, vmax=limit)
    else:
        image = ax.imshow(values, cmap=style.CMAP, vmin=0.0, vmax=1.0)
    ax.figure.colorbar(image, ax=ax, shrink=0.8)
    _token_axes(ax, rows, cols, xlabel, ylabel)
    if annotate:
        annotate_cells(ax, values, image)
    if highlight_row is not None:
        ax.add_patch(Rectangle((-0.5, highlight_row - 0.5), n_k, 1, fill=False,
                               edgecolor=HIGHLIGHT_COLOR, linewidth=3))
    if title is None:
        title = t("score") if signed else t("weights")
    ax.set_title(title)
    return ax


def plot_query_bars(values, labels, *, ax: Axes | None = None, title: str | None = None,
                    ylabel: str | None = None, highlight: int | None = None,
                    xlabel: str | None = None) -> Axes:
    """One query's scores or weights as bars, one bar per key token.

    Parameters
    ----------
    values : array_like, shape (n_k,)
        The query's scores (may be negative) or weights.
    labels : sequence of str
        The key tokens.
    highlight : int, optional
        Index of a bar to draw in the highlight colour (e.g. the largest).

    Examples
    --------
    >>> ax = plot_query_bars([0.2, 0.5, 0.3], ["The", "cat", "sat"], highlight=1)
    >>> len(ax.patches)
    3
    """
    values = as_series(values, "values")
    labels = check_labels(labels, len(values), "labels", "values")
    highlight = optional_index(highlight, "highlight", len(values))
    ax = new_axes(ax, figsize=(1.2 + 0.8 * len(values), 3.6))
    colors = [HIGHLIGHT_COLOR if i == highlight else BAR_COLOR
              for i in range(len(values))]
    bars = ax.bar(range(len(values)), values, color=colors)
    ax.bar_label(bars, fmt="%.2f", padding=2, fontsize="small")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(values)), labels)
    ax.set_xlabel(t("key") if xlabel is None else xlabel)
    ax.set_ylabel(t("score") if ylabel is None else ylabel)
    ax.margins(y=0.15)
    if title is not None:
        ax.set_title(title)
    return ax


def plot_masked_scores(scores, mask, labels, *, ax: Axes | None = None,
                       title: str | None = None, annotate: bool = True) -> Axes:
    """A score matrix with the masked cells drawn distinctly (grey, hatched, "−∞").

    Given weights after softmax (every visible value in 0..1), the masked cells read "0"
    instead: the weight a hidden key gets is exactly 0.

    Parameters
    ----------
    scores : array_like, shape (n_q, n_k)
        The scores before masking (or weights after softmax: values in 0..1);
        ``n_q <= n_k``.
    mask : array_like of bool, shape (n_q, n_k)
        True where a query may attend (e.g. :func:`qkv_helpers.causal_mask`).
    labels : sequence of str
        Token labels (queries are the last ``n_q`` of them when ``n_q < n_k``).

    Examples
    --------
    >>> from qkv_helpers import causal_mask
    >>> ax = plot_masked_scores(np.full((3, 3), 2.0), causal_mask(3), ["a", "b", "c"])
    >>> sum(text.get_text() == "−∞" for text in ax.texts)
    3
    """
    values = as_matrix(scores, "scores", finite=False)
    mask = np.broadcast_to(validate.attention_mask(mask, values.shape), values.shape)
    annotate = validate.flag(annotate, "annotate")
    if not np.isfinite(values[mask]).all():  # hidden cells may hold anything (e.g. -inf)
        i, j = np.argwhere(mask & ~np.isfinite(values))[0]
        raise ValueError(t("err_plot_scores_finite", got=values[i, j], index=(int(i), int(j))))
    n_q, n_k = values.shape
    if n_q > n_k:  # the rows' labels are the last n_q of the keys': there are not enough
        raise ValueError(t("err_plot_more_queries", shape=values.shape))
    cols = check_labels(labels, n_k, "labels", t("err_axis_columns_keys"))
    rows = cols[n_k - n_q:]
    ax = new_axes(ax, figsize=(1.0 + 0.75 * n_k, 0.8 + 0.6 * n_q))
    shown = np.ma.masked_array(values, ~mask)
    weights_like = values[mask].min() >= 0.0 and values[mask].max() <= 1.0
    if weights_like:
        image = ax.imshow(shown, cmap=style.CMAP, vmin=0.0, vmax=1.0)
    else:
        limit = float(np.abs(values[mask]).max()) or 1.0
        image = ax.imshow(shown, cmap=style.DIVERGING_CMAP, vmin=-limit, vmax=limit)
    ax.figure.colorbar(image, ax=ax, shrink=0.8)
    hidden_text = "0" if weights_like else "−∞"
    # The masked cells: a flat colour with hatching, readable in greyscale too.
    ax.imshow(np.ma.masked_array(np.zeros_like(values), mask),
              cmap=ListedColormap([style.MASK_COLOR]), vmin=0, vmax=1)
    for i, j in np.argwhere(~mask):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch=style.MASK_HATCH,
                               edgecolor="white", linewidth=0))
        # On a patch of the cell's own grey, so the hatching does not run through the text.
        ax.text(j, i, hidden_text, ha="center", va="center", fontsize="medium",
                fontweight="bold", color="black",
                bbox=dict(boxstyle="round,pad=0.12", facecolor=style.MASK_COLOR,
                          edgecolor="none"))
    _token_axes(ax, rows, cols, None, None)
    if annotate:
        annotate_cells(ax, values, image, skip=~mask)
    ax.set_title(t("masked_scores") if title is None else title)
    return ax


def plot_cross_attention(weights, target_tokens, source_tokens, *, ax: Axes | None = None,
                         title: str | None = None, highlight_row: int | None = None) -> Axes:
    """Cross-attention alignment: target (decoder) tokens × source (encoder) tokens.

    Examples
    --------
    >>> ax = plot_cross_attention(np.full((2, 3), 1 / 3), ["가", "나"], ["a", "b", "c"])
    >>> ax.get_ylabel() == t("target_tokens")
    True
    """
    values = as_matrix(weights, "weights")
    target_tokens = check_labels(target_tokens, values.shape[0], "target_tokens",
                                 t("err_axis_rows_target"))
    source_tokens = check_labels(source_tokens, values.shape[1], "source_tokens",
                                 t("err_axis_columns_source"))
    return plot_attention_heatmap(
        values, target_tokens, source_tokens, ax=ax, highlight_row=highlight_row,
        title=t("cross_attention") if title is None else title,
        xlabel=t("source_tokens"), ylabel=t("target_tokens"),
    )


def _token_axes(ax: Axes, rows, cols, xlabel, ylabel) -> None:
    """Token labels on both axes; keys along the top like a table's header."""
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel(t("key_axis") if xlabel is None else xlabel)
    ax.set_ylabel(t("query_axis") if ylabel is None else ylabel)
    ax.tick_params(length=0)

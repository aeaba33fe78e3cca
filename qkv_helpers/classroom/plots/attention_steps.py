"""The recap of lesson 10: the whole of attention in one picture, with shapes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.patches import ConnectionPatch, Rectangle

from ... import _validate as validate
from ...attention_steps import PipelineSteps, pipeline_steps
from ...examples import running_example
from ...lang import t
from .. import style
from ._common import as_matrix, check_labels, optional_index

__all__ = ["plot_pipeline"]

# Panel order, left to right: (field of PipelineSteps, language key, grid rows).
_PANELS = (
    ("x", "plot_pipeline_x", slice(0, 3)),
    ("q", "plot_pipeline_q", slice(0, 1)),
    ("k", "plot_pipeline_k", slice(1, 2)),
    ("v", "plot_pipeline_v", slice(2, 3)),
    ("scores", "plot_pipeline_scores", slice(0, 2)),
    ("scaled", "plot_pipeline_scaled", slice(0, 2)),
    ("weights", "plot_pipeline_weights", slice(0, 2)),
    ("output", "plot_pipeline_output", slice(0, 2)),
)
_COLUMNS = {"x": 0, "q": 1, "k": 1, "v": 1, "scores": 2, "scaled": 3, "weights": 4, "output": 5}
# Arrows between panels: (from, to, where they leave, where they arrive) in axes fractions.
_ARROWS = (
    ("x", "q", (1.0, 0.5), (0.0, 0.5)),
    ("x", "k", (1.0, 0.5), (0.0, 0.5)),
    ("x", "v", (1.0, 0.5), (0.0, 0.5)),
    ("q", "scores", (1.0, 0.5), (0.0, 0.6)),
    ("k", "scores", (1.0, 0.5), (0.0, 0.4)),
    ("scores", "scaled", (1.0, 0.5), (0.0, 0.5)),
    ("scaled", "weights", (1.0, 0.5), (0.0, 0.5)),
    ("weights", "output", (1.0, 0.5), (0.0, 0.5)),
    ("v", "output", (1.0, 0.5), (0.5, 0.0)),
)


def plot_pipeline(steps: PipelineSteps | None = None, tokens=None, *,
                  fig: Figure | None = None, highlight_row: int | None = None) -> Figure:
    """x → Q, K, V → scores → scaled → softmax → weights → output, each a small heat map.

    Every panel is titled with its formula, its shape and its range of values; rows are
    the tokens in every panel (labelled once, on x). Signed arrays use the diverging
    colour map, the weights the sequential one.

    Parameters
    ----------
    steps : PipelineSteps, optional
        Defaults to the running example's (:func:`qkv_helpers.attention_steps.pipeline_steps`).
    tokens : sequence of str, optional
        Row labels; default the running example's tokens.
    fig : matplotlib Figure, optional
        Draw into it; otherwise a new pyplot figure.
    highlight_row : int, optional
        Outline one token's row in every panel where that row is its own (x, Q, scores,
        scaled, weights, output): the path of one query. K and V are left plain, since
        every query uses all their rows.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_pipeline()
    >>> len(fig.axes) >= 8
    True
    """
    if steps is None or tokens is None:
        ex = running_example()
        steps = pipeline_steps(ex.x, ex.w_q, ex.w_k, ex.w_v) if steps is None else steps
        tokens = ex.tokens if tokens is None else tokens
    validate.instance_of(steps, "steps", PipelineSteps,
                         "from qkv_helpers.attention_steps.pipeline_steps")
    for name in PipelineSteps._fields:
        as_matrix(getattr(steps, name), f"steps.{name}")  # finite, 2-D
    tokens = check_labels(tokens, steps.x.shape[0], "tokens", t("err_axis_rows_of_x"))
    highlight_row = optional_index(highlight_row, "highlight_row", len(tokens))
    if fig is not None:
        validate.instance_of(fig, "fig", Figure, "a matplotlib Figure, or None for a new one")
    if fig is None:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(15.0, 5.6), layout="constrained")
    engine = fig.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        engine.set(wspace=0.15)  # room for the arrows between the panels
    grid = fig.add_gridspec(3, 6, width_ratios=[8, 4, 7, 7, 7, 5])  # 5: room for a title
    axes = {}
    for name, key, rows in _PANELS:
        values = np.asarray(getattr(steps, name), dtype=float)
        ax = fig.add_subplot(grid[rows, _COLUMNS[name]])
        if name == "weights":
            ax.imshow(values, cmap=style.CMAP, vmin=0.0, vmax=1.0)
        else:
            limit = float(np.abs(values).max()) or 1.0
            ax.imshow(values, cmap=style.DIVERGING_CMAP, vmin=-limit, vmax=limit)
        ax.set_xticks([])
        if name == "x":
            ax.set_yticks(range(len(tokens)), tokens)
            ax.tick_params(length=0)
        else:
            ax.set_yticks([])
        low, high = values.min(), values.max()
        # The output's title is wider than its (7, 4) map, at the figure's right edge, which
        # constrained layout does not keep clear: aligned right, it reaches into the gap.
        ax.set_title(f"{t(key)}\n{values.shape}\n[{low:.2f}, {high:.2f}]", fontsize="medium",
                     loc="right" if name == "output" else "center", multialignment="center")
        if highlight_row is not None and name not in ("k", "v"):
            ax.add_patch(Rectangle((-0.5, highlight_row - 0.5), values.shape[1], 1, fill=False,
                                   edgecolor=style.COLORS[1], linewidth=2.5))
        axes[name] = ax
    for start, end, leave, arrive in _ARROWS:
        style_kw = ({"connectionstyle": "angle,angleA=0,angleB=90"} if start == "v" and
                    end == "output" else {})
        fig.add_artist(ConnectionPatch(
            leave, arrive, coordsA="axes fraction", coordsB="axes fraction",
            axesA=axes[start], axesB=axes[end], arrowstyle="-|>", mutation_scale=16,
            color=style.COLORS[7], linewidth=1.5, shrinkA=4, shrinkB=4, **style_kw))
    fig.suptitle(t("plot_pipeline_title"))
    return fig

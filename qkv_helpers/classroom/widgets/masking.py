"""Lesson 07's widget: move the query position and see what the causal mask hides."""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import Rectangle

from ... import _validate as validate
from ...attention import scaled_dot_product_attention
from ...examples import RunningExample, running_example
from ...lang import t
from ...masks import causal_mask
from .. import style
from ..plots.attention_maps import HIGHLIGHT_COLOR, plot_masked_scores
from ._artists import animate, bars_handle, set_bars
from ._live import LiveFigure, Panel

__all__ = ["causal_mask_explorer"]


def causal_mask_explorer(example: RunningExample | None = None, position: int = 2) -> Panel:
    """A slider picks the query position; the masked scores and that query's weights redraw.

    Left: the scaled scores Q·Kᵀ/√d_k with the causal mask (hidden cells grey, "−∞"), the
    chosen query's row outlined. Right: that query's weights after softmax; the hidden keys
    (shaded) get exactly 0.

    Parameters
    ----------
    example : RunningExample, optional
        Defaults to the running example.
    position : int
        The query position shown first.

    Examples
    --------
    >>> panel = causal_mask_explorer()
    >>> panel.state["visible"]
    ['The', 'cat', 'sat']
    >>> panel.controls["position"].value = 0
    >>> panel.state["weights_row"].round(2).tolist()
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    ex = running_example() if example is None else example
    validate.instance_of(ex, "example", RunningExample, "e.g. running_example(), or None for it")
    tokens = list(ex.tokens)
    n = len(tokens)
    position = validate.integer(position, "position", 0, n - 1)
    scores = ex.q @ ex.k.T / math.sqrt(ex.d_k)  # (tokens, tokens)
    mask = causal_mask(n)  # (tokens, tokens)
    weights = scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=mask).weights
    slider = widgets.IntSlider(value=position, min=0, max=n - 1, description=t("w_mask_query"),
                               style={"description_width": "initial"})  # the whole label

    def update(panel: Panel) -> None:
        i = slider.value
        visible = [tok for tok, ok in zip(tokens, mask[i]) if ok]
        hidden = [tok for tok, ok in zip(tokens, mask[i]) if not ok]
        panel.state = dict(position=i, visible=visible, hidden=hidden,
                           masked_row=np.where(mask[i], scores[i], -np.inf),  # (tokens,)
                           weights_row=weights[i])  # (tokens,)
        panel.caption.value = t(
            "w_mask_caption", token=tokens[i], position=i, visible=", ".join(visible),
            hidden=", ".join(hidden) if hidden else t("w_mask_nothing_hidden"))

    def draw(fig, panel: Panel) -> dict:
        state = panel.state
        i = state["position"]
        left, right = fig.subplots(1, 2, width_ratios=[1.1, 1.0])
        plot_masked_scores(scores, mask, tokens, ax=left, annotate=False,
                           title=t("w_mask_scores_title"))
        outline = left.add_patch(Rectangle((-0.5, i - 0.5), n, 1, fill=False,
                                           edgecolor=HIGHLIGHT_COLOR, linewidth=3))
        bars = bars_handle(right, state["weights_row"], tokens, ylim=(0, 1.1),
                           ylabel=t("weights"), highlight=int(state["weights_row"].argmax()),
                           title=t("w_mask_weights_title", token=tokens[i]))
        # The hidden keys' shade: from just after the query to the last key.
        shade = right.axvspan(i + 0.5, n - 0.5, color=style.MASK_COLOR,
                              hatch=style.MASK_HATCH, zorder=0, linewidth=0)
        shade.set_visible(i + 1 < n)
        right.set_xlim(-0.5 - 0.4, n - 0.5 + 0.4)  # as the bars alone give
        animate(outline, shade)
        return dict(outline=outline, bars=bars, shade=shade)

    def change(handle: dict, panel: Panel) -> None:
        state = panel.state
        i = state["position"]
        handle["outline"].set_y(i - 0.5)
        set_bars(handle["bars"], state["weights_row"],
                 highlight=int(state["weights_row"].argmax()),
                 title=t("w_mask_weights_title", token=tokens[i]))
        handle["shade"].set_x(i + 0.5)
        handle["shade"].set_width(n - 1 - i)
        handle["shade"].set_visible(i + 1 < n)

    return Panel("causal_mask_explorer", {"position": slider},
                 LiveFigure(draw, figsize=(11.0, 4.4), update=change), update)

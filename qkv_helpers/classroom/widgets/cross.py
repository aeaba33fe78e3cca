"""Lesson 08's widget: pick a decoder token and see where its cross-attention looks."""

from __future__ import annotations

import ipywidgets as widgets

from ... import _validate as validate
from ...attention import scaled_dot_product_attention
from ...examples import TranslationExample, translation_example
from ...lang import t
from ._artists import bars_handle, heatmap_handle, set_bars, set_heatmap
from ._live import LiveFigure, Panel

__all__ = ["cross_attention_explorer"]


def cross_attention_explorer(example: TranslationExample | None = None) -> Panel:
    """A slider picks a target (decoder) token; its row of the alignment is shown.

    Left: the (target tokens, source tokens) weights with the chosen row outlined. Right:
    that row as bars over the source tokens, the largest highlighted.

    Examples
    --------
    >>> panel = cross_attention_explorer()
    >>> panel.state["token"], panel.state["source"]
    ('고양이가', 'cat')
    >>> panel.controls["target"].value = 1
    >>> panel.state["token"], panel.state["source"]
    ('매트', 'mat')
    """
    ex = translation_example() if example is None else example
    validate.instance_of(ex, "example", TranslationExample,
                         "e.g. translation_example(), or None for it")
    source, target = list(ex.source_tokens), list(ex.target_tokens)
    weights = scaled_dot_product_attention(ex.q, ex.k, ex.v).weights  # (target, source)
    slider = widgets.SelectionSlider(options=[(tok, i) for i, tok in enumerate(target)],
                                     value=0, description=t("w_cross_target"))

    def update(panel: Panel) -> None:
        i = slider.value
        j = int(weights[i].argmax())
        panel.state = dict(row=i, token=target[i], source=source[j], weights_row=weights[i])
        panel.caption.value = t("w_cross_caption", token=target[i], source=source[j],
                                weight=f"{weights[i, j]:.2f}")

    def draw(fig, panel: Panel) -> dict:
        state = panel.state
        i = state["row"]
        left, right = fig.subplots(1, 2, width_ratios=[1.2, 1.0])
        # plot_cross_attention's picture; the weights stay, the outlined row moves.
        alignment = heatmap_handle(left, weights, target, source, highlight_row=i,
                                   values_change=False, title=t("cross_attention"),
                                   xlabel=t("source_tokens"), ylabel=t("target_tokens"))
        bars = bars_handle(right, state["weights_row"], source, ylim=(0, 1.1),
                           xlabel=t("w_cross_bars_xlabel"), ylabel=t("weights"),
                           highlight=int(state["weights_row"].argmax()),
                           title=t("w_cross_bars_title", token=state["token"]))
        return dict(alignment=alignment, bars=bars)

    def change(handle: dict, panel: Panel) -> None:
        state = panel.state
        set_heatmap(handle["alignment"], highlight_row=state["row"])
        set_bars(handle["bars"], state["weights_row"],
                 highlight=int(state["weights_row"].argmax()),
                 title=t("w_cross_bars_title", token=state["token"]))

    return Panel("cross_attention_explorer", {"target": slider},
                 LiveFigure(draw, figsize=(11.5, 4.4), update=change), update)

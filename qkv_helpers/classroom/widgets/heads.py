"""Lesson 06's widget: pick a head of multi-head attention and see its weights."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ... import _validate as validate
from ...encoder_decoder import EncoderExample, encoder_example, top_keys
from ...lang import t
from ._artists import heatmap_handle, set_heatmap
from ._live import LiveFigure, Panel

__all__ = ["head_selector"]


def head_selector(example: EncoderExample | None = None) -> Panel:
    """A slider picks one head; its (tokens, tokens) weight heat map redraws.

    The caption lists each query's strongest key in that head and counts the queries
    whose strongest key differs in another head.

    Parameters
    ----------
    example : EncoderExample, optional
        Defaults to :func:`qkv_helpers.encoder_decoder.encoder_example`.

    Examples
    --------
    >>> panel = head_selector()
    >>> panel.state["head"], panel.state["weights"].shape
    (0, (7, 7))
    >>> panel.controls["head"].value = 1
    >>> panel.state["head"]
    1
    """
    enc = encoder_example() if example is None else example
    validate.instance_of(enc, "example", EncoderExample, "e.g. encoder_example(), or None for it")
    tokens = list(enc.tokens)
    weights = enc.mha(enc.x).weights  # (n_heads, tokens, tokens)
    n_heads = weights.shape[0]
    favourite = np.asarray(top_keys(weights, tokens))  # (n_heads, tokens)
    slider = widgets.SelectionSlider(
        options=[(t("w_heads_option", number=h), h) for h in range(n_heads)],
        value=0, description=t("head"))

    def update(panel: Panel) -> None:
        h = slider.value
        others = np.delete(favourite, h, axis=0)  # (n_heads - 1, tokens)
        differ = int((others != favourite[h]).any(axis=0).sum())
        panel.state = dict(head=h, weights=weights[h], favourite=list(favourite[h]),
                           differ=differ)
        pairs = ", ".join(f"{q} → {k}" for q, k in zip(tokens, favourite[h]))
        panel.caption.value = t("w_heads_caption", number=h, pairs=pairs, differ=differ,
                                total=len(tokens))

    def draw(fig, panel: Panel) -> dict:
        state = panel.state
        return heatmap_handle(fig.add_subplot(), state["weights"], tokens,
                              title=t("w_heads_title", number=state["head"]))

    def change(handle: dict, panel: Panel) -> None:
        state = panel.state
        set_heatmap(handle, state["weights"], title=t("w_heads_title", number=state["head"]))

    return Panel("head_selector", {"head": slider},
                 LiveFigure(draw, figsize=(6.4, 5.0), update=change), update)

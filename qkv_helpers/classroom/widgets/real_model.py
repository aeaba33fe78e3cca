"""Lesson 11's widget: every head of the real model at once, one of them enlarged.

The 6 × 12 heads of all-MiniLM-L6-v2 are drawn as one mosaic of small heat maps (rows:
layers, columns: heads); the layer and head sliders pick one, which is outlined in the
mosaic and drawn large with its tokens. Typing a sentence (Enter) runs the model again.
Moving a slider only changes the large map, its title and the outline (blitting); a new
sentence changes the mosaic and the tick labels too.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import Rectangle

from ... import _validate as validate
from ...lang import t
from ...pretrained import MiniLM, classify_heads, head_scores, load_minilm
from .. import style
from ._live import LiveFigure, Panel

__all__ = ["minilm_explorer", "mosaic"]

OUTLINE_COLOR = style.COLORS[1]


def mosaic(weights: np.ndarray) -> np.ndarray:
    """``(layers, heads, n, n)`` weights → one ``(layers·(n+1) - 1, heads·(n+1) - 1)`` image.

    Tile ``(l, h)`` starts at row ``l·(n+1)``, column ``h·(n+1)``; the one-pixel gaps
    between tiles are NaN (drawn blank).

    >>> mosaic(np.ones((2, 3, 2, 2))).shape
    (5, 8)
    """
    layers, heads, n, _ = weights.shape
    out = np.full((layers * (n + 1) - 1, heads * (n + 1) - 1), np.nan)
    for layer in range(layers):
        for head in range(heads):
            r, c = layer * (n + 1), head * (n + 1)
            out[r:r + n, c:c + n] = weights[layer, head]
    return out


def _forward(model: MiniLM, text: str) -> dict:
    """The model's weights, tokens and head labels for one sentence."""
    out = model(text)
    weights = np.stack([a[0] for a in out.attentions])  # (layers, heads, n, n)
    scores = head_scores(out)
    return dict(text=text, tokens=out.tokens[0], all_weights=weights, scores=scores,
                labels=classify_heads(scores))


def _sentence_problem(model: MiniLM, text: str) -> str | None:
    """Why the sentence typed in the box cannot be shown, in the box's own words (the
    model's errors name its argument ``texts``, which the box has none of); None if it can."""
    if not text.strip():
        return t("w_l11_empty")
    n = len(model.tokenizer.encode_batch([text])[0].ids)  # [CLS] and [SEP] included
    if n <= 2:
        return t("w_l11_no_token")
    if n > model.max_positions:
        return t("w_l11_too_long", n=n, positions=model.max_positions)
    return None


def minilm_explorer(text: str = "The cat sat on the mat.", model: MiniLM | None = None) -> Panel:
    """All 72 heads of the real model as small heat maps; the chosen one enlarged.

    Parameters
    ----------
    text : str
        The first sentence shown; the learner can type another.
    model : MiniLM, optional
        Defaults to :func:`qkv_helpers.pretrained.load_minilm`.

    Examples
    --------
    >>> panel = minilm_explorer()
    >>> panel.state["tokens"][:3], panel.state["weights"].shape
    (['[CLS]', 'the', 'cat'], (9, 9))
    >>> panel.controls["layer"].value, panel.controls["head"].value = 0, 2
    >>> str(panel.state["label"])
    'previous'
    >>> panel.controls["text"].value = ""          # refused, with a message; nothing breaks
    >>> panel.state["tokens"][:3], panel.state["error"] is not None
    (['[CLS]', 'the', 'cat'], True)
    """
    if not isinstance(text, str):
        raise TypeError(t("err_text_type", where="text", got=f"{type(text).__name__} {text!r}"))
    if not text.strip():
        raise ValueError(t("err_text_empty", where="text", got=repr(text)))
    model = load_minilm() if model is None else validate.instance_of(model, "model", MiniLM,
                                                            "from load_minilm()")
    n_layers = len(model.layers)
    n_heads = model.layers[0].attention.n_heads
    box = widgets.Text(value=text, description=t("w_l11_sentence"), continuous_update=False)
    box.layout.width = "28em"
    layer = widgets.IntSlider(value=0, min=0, max=n_layers - 1, description=t("w_l11_layer"))
    head = widgets.IntSlider(value=0, min=0, max=n_heads - 1, description=t("w_l11_head"))
    current = {"data": _forward(model, text)}

    def update(panel: Panel) -> None:
        error = None
        if box.value != current["data"]["text"]:
            error = _sentence_problem(model, box.value)  # empty, too long: say so, keep the last
            if error is None:
                current["data"] = _forward(model, box.value)
        data = current["data"]
        lay, h = layer.value, head.value
        s = {p: float(v[lay, h]) for p, v in data["scores"].items()}
        label = data["labels"][lay, h]
        panel.state = dict(text=data["text"], tokens=data["tokens"], layer=lay, head=h,
                           weights=data["all_weights"][lay, h], label=label, scores=s,
                           all_weights=data["all_weights"], error=error)
        caption = t("w_l11_caption", layer=lay, head=h, n=len(data["tokens"]),
                    label=t("l11_pattern_" + label),
                    **{p: f"{v:.2f}" for p, v in s.items()})
        if error is not None:
            caption = t("w_l11_error", error=html.escape(error)) + "<br>" + caption
        panel.caption.value = caption

    def draw(fig, panel: Panel) -> dict:
        grid_ax, big_ax = fig.subplots(1, 2, width_ratios=[1.6, 1.0])
        handle = dict(fig=fig, grid_ax=grid_ax, big_ax=big_ax)
        grid = grid_ax.imshow(np.zeros((1, 1)), cmap=style.CMAP, vmin=0, vmax=1,
                              interpolation="nearest", aspect="auto")
        big = big_ax.imshow(np.zeros((1, 1)), cmap=style.CMAP, vmin=0, vmax=1)
        outline = Rectangle((0, 0), 1, 1, fill=False, edgecolor=OUTLINE_COLOR, linewidth=2.5,
                            animated=True)
        grid_ax.add_patch(outline)
        grid_ax.set_title(t("w_l11_grid_title"))
        grid_ax.set_xlabel(t("w_l11_head"))
        grid_ax.set_ylabel(t("w_l11_layer"))
        big_ax.set_xlabel(t("key"))
        big_ax.set_ylabel(t("query"))
        big.set_animated(True)
        big_ax.title.set_animated(True)
        handle.update(grid=grid, big=big, outline=outline, tokens=None,
                      longest=max(len(token) for token in panel.state["tokens"]))
        _new_sentence(handle, panel.state)
        _new_head(handle, panel.state)
        return handle

    def change(handle: dict, panel: Panel) -> bool:
        state = panel.state
        sentence_changed = handle["tokens"] != state["tokens"]
        if sentence_changed:
            _new_sentence(handle, state)
            longest = max(len(token) for token in state["tokens"])
            if longest > handle["longest"]:  # longer tick labels: lay the figure out again
                fig = handle["fig"]
                fig.set_layout_engine("constrained")
                fig.canvas.draw()
                fig.set_layout_engine("none")
                handle["longest"] = longest
        _new_head(handle, state)
        return sentence_changed  # the mosaic and the tick labels are static parts

    return Panel("minilm_explorer", {"text": box, "layer": layer, "head": head},
                 LiveFigure(draw, figsize=(11.0, 4.6), update=change), update)


def _new_sentence(handle: dict, state: dict) -> None:
    """A new sentence: the mosaic, the tick labels and the axes' extents."""
    weights = state["all_weights"]  # (layers, heads, n, n)
    layers, heads, n, _ = weights.shape
    image = mosaic(weights)
    grid, grid_ax = handle["grid"], handle["grid_ax"]
    grid.set_data(np.ma.masked_invalid(image))
    grid.set_extent((-0.5, image.shape[1] - 0.5, image.shape[0] - 0.5, -0.5))
    grid_ax.set_xticks([h * (n + 1) + (n - 1) / 2 for h in range(heads)], range(heads))
    grid_ax.set_yticks([i * (n + 1) + (n - 1) / 2 for i in range(layers)], range(layers))
    grid_ax.tick_params(length=0)
    big, big_ax = handle["big"], handle["big_ax"]
    big.set_data(weights[0, 0])
    big.set_extent((-0.5, n - 0.5, n - 0.5, -0.5))
    tokens = state["tokens"]
    big_ax.set_xticks(range(n), tokens, rotation=90)
    big_ax.set_yticks(range(n), tokens)
    handle["outline"].set_width(n)
    handle["outline"].set_height(n)
    handle["tokens"] = list(tokens)
    handle["n"] = n


def _new_head(handle: dict, state: dict) -> None:
    """Another head: the enlarged map, its title and the outline in the mosaic."""
    n = handle["n"]
    handle["big"].set_data(state["weights"])
    handle["outline"].set_xy((state["head"] * (n + 1) - 0.5, state["layer"] * (n + 1) - 0.5))
    handle["big_ax"].title.set_text(t("w_l11_title", layer=state["layer"], head=state["head"],
                                      label=t("l11_pattern_" + state["label"])))

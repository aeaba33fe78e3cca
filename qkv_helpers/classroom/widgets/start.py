"""Lesson 00's widget: a slider that proves widgets (and Korean text in plots) work."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ...attention import softmax
from ...examples import running_example
from ...lang import t
from ._artists import bars_handle, set_bars
from ._live import LiveFigure, Panel

__all__ = ["widget_check"]


def widget_check() -> Panel:
    """A slider that sharpens a softmax over the running sentence; the bars follow it.

    Moving the slider should redraw the bars at once. It also previews the course:
    scores become weights, and a bigger multiplier makes one token take almost all. At
    multiplier 1 the bars are the weights lessons 01-06 show for "cat" (scores scaled by
    1/sqrt(d_k)), so the preview and the lessons agree.

    Examples
    --------
    >>> panel = widget_check()
    >>> before = panel.state["weights"].copy()
    >>> panel.controls["sharpness"].value = 3.0
    >>> bool((panel.state["weights"] != before).any())
    True
    >>> panel.controls["sharpness"].value = 1.0   # the lessons' weights: "sat" gets 0.47
    >>> round(float(panel.state["weights"][2]), 2)
    0.47
    """
    ex = running_example()
    d_k = ex.q.shape[-1]
    scores = (ex.q @ ex.k.T)[ex.index("cat")] / np.sqrt(d_k)  # (tokens,): "cat" asks each token
    slider = widgets.FloatSlider(value=1.0, min=0.0, max=3.0, step=0.25,
                                 description=t("w_start_sharpness"), continuous_update=True,
                                 style={"description_width": "initial"})

    def update(panel: Panel) -> None:
        weights = softmax(slider.value * scores)  # (tokens,)
        top = int(np.argmax(weights))
        panel.state = {"weights": weights}
        panel.caption.value = t("w_start_caption", value=f"{slider.value:.2f}",
                                token=ex.tokens[top], weight=f"{weights[top]:.2f}")

    def draw(fig, panel: Panel) -> dict:
        weights = panel.state["weights"]
        return bars_handle(fig.add_subplot(), weights, ex.tokens, ylim=(0, 1.05),
                           ylabel=t("weights"), highlight=int(np.argmax(weights)),
                           title=t("w_start_title"))

    def change(handle: dict, panel: Panel) -> None:
        weights = panel.state["weights"]
        set_bars(handle, weights, highlight=int(np.argmax(weights)))

    live = LiveFigure(draw, figsize=(8.0, 4.0), update=change)
    panel = Panel("widget_check", {"sharpness": slider}, live, update)
    return panel

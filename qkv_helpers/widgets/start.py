"""Lesson 00's widget: a slider that proves widgets (and Korean text in plots) work."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..attention import softmax
from ..examples import running_example
from ..lang import t
from ..plots import plot_query_bars
from ._live import LiveFigure, Panel

__all__ = ["widget_check"]


def widget_check() -> Panel:
    """A slider that sharpens a softmax over the running sentence; the bars follow it.

    Moving the slider should redraw the bars at once. It also previews the course:
    scores become weights, and a bigger multiplier makes one token take almost all.

    Examples
    --------
    >>> panel = widget_check()
    >>> before = panel.state["weights"].copy()
    >>> panel.controls["sharpness"].value = 3.0
    >>> bool((panel.state["weights"] != before).any())
    True
    """
    ex = running_example()
    scores = (ex.q @ ex.k.T)[ex.index("cat")]  # (tokens,): "cat" asking every token
    slider = widgets.FloatSlider(value=1.0, min=0.0, max=3.0, step=0.25,
                                 description=t("w_start_sharpness"), continuous_update=True,
                                 style={"description_width": "initial"})

    def update(panel: Panel) -> None:
        weights = softmax(slider.value * scores)  # (tokens,)
        top = int(np.argmax(weights))
        panel.state = {"weights": weights}
        panel.caption.value = t("w_start_caption", value=f"{slider.value:.2f}",
                                token=ex.tokens[top], weight=f"{weights[top]:.2f}")

    def draw(fig, panel: Panel) -> None:
        weights = panel.state["weights"]
        plot_query_bars(weights, ex.tokens, ax=fig.add_subplot(), ylabel=t("weights"),
                        highlight=int(np.argmax(weights)), title=t("w_start_title"))
        fig.axes[0].set_ylim(0, 1.05)

    live = LiveFigure(draw, figsize=(6.4, 3.6))
    panel = Panel("widget_check", {"sharpness": slider}, live, update)
    return panel

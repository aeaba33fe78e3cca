"""Lesson 10's widget: follow one query through the whole of attention."""

from __future__ import annotations

import ipywidgets as widgets

from ... import _validate as validate
from ...attention_steps import pipeline_steps
from ...examples import RunningExample, running_example
from ...lang import t
from ..plots.attention_steps import plot_pipeline
from ._artists import animate
from ._live import LiveFigure, Panel

__all__ = ["pipeline_explorer"]


def pipeline_explorer(example: RunningExample | None = None, token: str = "cat") -> Panel:
    """A slider picks a query token; its row is outlined in every step of the pipeline.

    The caption gives that row's numbers: the largest score and the key it belongs to,
    the same score after scaling, its weight after softmax.

    Examples
    --------
    >>> panel = pipeline_explorer()
    >>> panel.state["token"], panel.state["top"], round(panel.state["weight"], 2)
    ('cat', 'sat', 0.47)
    >>> panel.controls["query"].value = 3
    >>> panel.state["token"]
    'on'
    """
    ex = running_example() if example is None else example
    validate.instance_of(ex, "example", RunningExample, "e.g. running_example(), or None for it")
    validate.token_of(token, "token", ex.tokens)
    tokens = list(ex.tokens)
    steps = pipeline_steps(ex.x, ex.w_q, ex.w_k, ex.w_v)
    slider = widgets.SelectionSlider(options=[(tok, i) for i, tok in enumerate(tokens)],
                                     value=ex.index(token), description=t("w_pipe_query"))

    def update(panel: Panel) -> None:
        i = slider.value
        j = int(steps.weights[i].argmax())
        panel.state = dict(row=i, token=tokens[i], top=tokens[j],
                           score=float(steps.scores[i, j]), scaled=float(steps.scaled[i, j]),
                           weight=float(steps.weights[i, j]), output=steps.output[i])
        panel.caption.value = t(
            "w_pipe_caption", token=tokens[i], top=tokens[j], score=f"{steps.scores[i, j]:.2f}",
            scaled=f"{steps.scaled[i, j]:.2f}", weight=f"{steps.weights[i, j]:.2f}")

    def draw(fig, panel: Panel) -> list:
        plot_pipeline(steps, tokens, fig=fig, highlight_row=panel.state["row"])
        outlines = [patch for ax in fig.axes for patch in ax.patches]  # the row outlines
        animate(*outlines)
        return outlines

    def change(outlines: list, panel: Panel) -> None:
        for outline in outlines:
            outline.set_y(panel.state["row"] - 0.5)

    return Panel("pipeline_explorer", {"query": slider},
                 LiveFigure(draw, figsize=(12.0, 4.8), update=change), update)

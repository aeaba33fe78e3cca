"""Lesson 15's widgets: a training progress bar, and a slider over the training steps that
shows both heads' attention maps forming with the curves beside them."""

from __future__ import annotations

import ipywidgets as widgets

from ..._validate import instance_of, integer
from ...induction import InductionRun, cliff_step
from ...lang import t
from ..plots.induction import draw_induction_curves, draw_induction_maps
from ._artists import animate
from ._live import LiveFigure, Panel

__all__ = ["induction_explorer", "induction_progress"]


class InductionProgress(widgets.VBox):
    """A progress bar and a line of numbers; pass :meth:`update` as ``train(callback=...)``."""

    def __init__(self, steps: int):
        self.bar = widgets.IntProgress(value=0, min=0, max=int(steps),
                                       description=t("w_l15_training"))
        self.label = widgets.HTML()
        super().__init__(children=[self.bar, self.label])

    def update(self, record: dict) -> None:
        self.bar.value = min(self.bar.max, record["step"])
        self.label.value = t("w_l15_progress", step=record["step"], steps=self.bar.max,
                             repeat=f"{record['repeat']:.2f}",
                             prev=f"{record['previous_token']:.2f}",
                             ind=f"{record['induction']:.2f}")

    def __repr__(self) -> str:
        return "<InductionProgress>"


def induction_progress(steps: int) -> InductionProgress:
    """A progress bar for ``induction.train(steps=steps, callback=bar.update)``.

    >>> bar = induction_progress(1200)
    >>> bar.update({"step": 600, "repeat": 2.5, "previous_token": 0.3, "induction": 0.4})
    >>> bar.bar.value
    600
    """
    steps = integer(steps, "steps", 1)
    return InductionProgress(steps)


def induction_explorer(run: InductionRun) -> Panel:
    """A slider over the evaluated training steps: both layers' attention on one held-out
    sequence at that step (the previous token and the copy target outlined), and the
    curves with the step marked.

    >>> from qkv_helpers.induction import train
    >>> panel = induction_explorer(train(steps=100, eval_every=50, n_eval=20))
    >>> panel.controls["step"].value = 100
    >>> panel.state["step"], panel.state["maps"].shape
    (100, (2, 31, 31))
    """
    instance_of(run, "run", InductionRun, "what qk.induction.train(...) returns")
    steps = [r["step"] for r in run.history]
    cliff = cliff_step(run.history)
    slider = widgets.SelectionSlider(options=steps, value=steps[0],
                                     description=t("w_l15_step"), continuous_update=True)
    n_layers = run.snapshots[0].shape[0]

    def update(panel: Panel) -> None:
        i = steps.index(slider.value)
        r = run.history[i]
        panel.state = dict(step=r["step"], maps=run.snapshots[i], record=r)
        panel.caption.value = t("w_l15_caption", step=r["step"], first=f"{r['first']:.2f}",
                                repeat=f"{r['repeat']:.2f}",
                                prev=f"{r['previous_token']:.2f}",
                                ind=f"{r['induction']:.2f}")

    def draw(fig, panel: Panel) -> dict:
        grid = fig.add_gridspec(2, 2 * n_layers, height_ratios=[1.5, 1.0])
        map_axes = [fig.add_subplot(grid[0, 2 * j: 2 * j + 2]) for j in range(n_layers)]
        curve_axes = [fig.add_subplot(grid[1, :n_layers]), fig.add_subplot(grid[1, n_layers:])]
        handle = draw_induction_maps(map_axes, panel.state["maps"], run.shown)
        draw_induction_curves(curve_axes, run.history, cliff)
        handle["marks"] = [ax.axvline(panel.state["step"], color="black", linewidth=2)
                           for ax in curve_axes]
        overlays = [a for ax in map_axes for a in (*ax.collections, *ax.lines)]  # over the maps
        animate(*handle["images"], *handle["marks"], *overlays)
        return handle

    def change(handle: dict, panel: Panel) -> None:
        for image, m in zip(handle["images"], panel.state["maps"]):
            image.set_data(m)
        for mark in handle["marks"]:
            mark.set_xdata([panel.state["step"]] * 2)

    return Panel("induction_explorer", {"step": slider},
                 LiveFigure(draw, update=change, figsize=(4.0 * n_layers, 6.4)), update)

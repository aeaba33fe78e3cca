"""Widgets redraw in place (update mode): the changed picture equals a fresh drawing.

A widget in update mode builds its figure once and afterwards only changes the artists
that move, drawing them over a kept background. If an update forgot something (a label,
a highlight, a limit), the picture after a control change would differ from the picture
a fresh build of the same state gives; these tests compare the two, pixel by pixel.
"""

from __future__ import annotations

import io
import warnings

import ipywidgets
import numpy as np
import PIL.Image
import pytest

import qkv_helpers as qk
from qkv_helpers import widgets

WIDGETS = ["widget_check", "dot_product_explorer", "query_explorer", "scaling_explorer",
           "temperature_explorer", "weighted_sum_stepper", "head_selector",
           "causal_mask_explorer", "cross_attention_explorer", "pipeline_explorer",
           "kv_cache_stepper",
           "rope_explorer",  # lesson 12
           "tiling_animation", "paged_cache_view"]  # lesson 13


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(PIL.Image.open(io.BytesIO(bytes(png))).convert("RGB")).astype(int)


def moves(control) -> list:
    """A few new values for a control (None: click a button)."""
    if isinstance(control, ipywidgets.Button):
        return [None, None]
    if getattr(control, "options", None):
        values = [opt[1] if isinstance(opt, tuple) else opt for opt in control.options]
        return values[1:3] + values[-1:]
    span = control.max - control.min
    return [type(control.value)(control.min + f * span) for f in (0.2, 0.9)]


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("name", WIDGETS)
def test_update_draws_what_a_fresh_build_draws(name, lang):
    qk.setup(lang=lang)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. a missing Hangul glyph
        panel = getattr(widgets, name)()
        live = panel.live
        assert live.update is not None, "the widget should redraw in update mode"
        for control in panel.controls.values():
            for value in moves(control):
                if value is None:
                    control.click()
                else:
                    control.value = value
                changed = pixels(live.image.value)
                live._handle = None  # build the same state from scratch
                live.redraw(panel)
                fresh = pixels(live.image.value)
                assert changed.shape == fresh.shape
                # Anti-aliasing where a moved outline is drawn over the background may
                # differ in a pixel or two; anything missing or stale differs in hundreds.
                differ = int((np.abs(changed - fresh).max(axis=2) > 40).sum())
                assert differ <= 5, f"{name}: {differ} pixels differ after setting {value!r}"


def test_update_mode_changes_only_animated_artists():
    """Blitting: the background is rendered once; later redraws only draw animated artists."""
    from qkv_helpers.classroom.widgets._live import LiveFigure

    drawn = []

    def build(fig, y):
        ax = fig.add_subplot()
        ax.set_ylim(0, 2)
        return ax.plot([0, 1], [y, y], animated=True)[0]

    def move(line, y):
        drawn.append(y)
        line.set_ydata([y, y])

    live = LiveFigure(build, figsize=(2, 2), update=move)
    live.redraw(1.0)
    background = live._background
    first = pixels(live.image.value)
    live.redraw(0.5)
    assert drawn == [0.5] and live._background is background
    second = pixels(live.image.value)
    assert (np.abs(first - second).max(axis=2) > 40).any()  # the line moved
    live.redraw(1.0)
    np.testing.assert_array_equal(pixels(live.image.value), first)  # and back, exactly

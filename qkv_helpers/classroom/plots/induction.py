"""Lesson 15's pictures: the loss falling off its plateau, the two heads' scores, their
attention maps, and the loss at each position of one sequence."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.patches import Rectangle

from ... import _validate as validate
from ...induction import VOCAB_SIZE, Sequences, cliff_step, copying_targets
from ...lang import t
from .. import style

__all__ = ["draw_induction_curves", "draw_induction_maps", "plot_induction_curves",
           "plot_induction_maps", "plot_loss_per_position"]

_KEYS = {"step", "first", "repeat", "previous_token", "induction"}


def _history(history) -> list:
    if not isinstance(history, (list, tuple)) or not history or not all(
            isinstance(r, dict) and _KEYS <= r.keys() for r in history):
        raise ValueError(t("err_l15_history_plot"))
    return list(history)


def draw_induction_curves(axes, history, cliff=None) -> dict:
    """The losses by part (left) and the two heads' scores (right) against the step."""
    history = _history(history)
    steps = [r["step"] for r in history]
    left, right = axes
    chance = math.log(VOCAB_SIZE)
    left.plot(steps, [r["first"] for r in history], color=style.COLORS[0],
              label=t("p_l15_first"))
    left.plot(steps, [r["repeat"] for r in history], color=style.COLORS[1], linestyle="--",
              label=t("p_l15_repeat"))
    left.axhline(chance, color="grey", linewidth=1, linestyle=(0, (1, 3)))
    left.text(steps[-1], chance - 0.08, t("p_l15_chance"), color="grey", fontsize="small",
              ha="right", va="top")
    left.set_ylim(0, max(4.5, max(r["first"] for r in history) + 0.3))
    left.set_xlabel(t("p_l15_step"))
    left.set_ylabel(t("p_l15_loss"))
    left.set_title(t("p_l15_loss_title"))
    left.legend(loc="lower left", fontsize="small")
    right.plot(steps, [r["previous_token"] for r in history], color=style.COLORS[2],
               label=t("p_l15_prev"))
    right.plot(steps, [r["induction"] for r in history], color=style.COLORS[3],
               linestyle="--", label=t("p_l15_induction"))
    right.set_ylim(-0.03, 1.03)
    right.set_xlabel(t("p_l15_step"))
    right.set_title(t("p_l15_scores_title"))
    right.legend(loc="upper left", fontsize="small")
    if cliff is not None:
        for ax in axes:
            ax.axvline(cliff, color="grey", linestyle=":", linewidth=1.5)
        label = t("p_l15_cliff", step=cliff)
        if cliff > 0.65 * steps[-1]:  # near the right edge: the label goes left of the line
            right.text(cliff, 0.03, label + " ", color="grey", fontsize="small", va="bottom",
                       ha="right")
        else:
            right.text(cliff, 0.03, " " + label, color="grey", fontsize="small", va="bottom",
                       ha="left")
    return {"axes": axes}


def plot_induction_curves(history):
    """The loss on the first occurrence and on the repeat, and the previous-token and
    induction scores, against the training step; the cliff (:func:`cliff_step`) marked.

    >>> fig = plot_induction_curves([
    ...     {"step": 0, "first": 3.5, "repeat": 3.5, "previous_token": 0.1, "induction": 0.0},
    ...     {"step": 50, "first": 3.5, "repeat": 1.0, "previous_token": 0.9, "induction": 0.8}])
    >>> len(fig.axes)
    2
    """
    history = _history(history)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), layout="constrained")
    draw_induction_curves(axes, history, cliff_step(history))
    return fig


def _maps(maps, name: str = "maps") -> np.ndarray:
    maps = validate.array(maps, name, ndim=3, empty=False, shape="(layers, n, n)")
    if maps.shape[1] != maps.shape[2] or maps.min() < 0 or maps.max() > 1 + 1e-6:
        raise ValueError(t("err_l15_maps_range", name=name, shape=maps.shape))
    return maps


def _check_shown(seq, n) -> Sequences:
    validate.instance_of(seq, "seq", Sequences, "e.g. run.shown")
    if len(seq.tokens) != 1 or seq.tokens.shape[1] < n:
        raise ValueError(t("err_l15_one_sequence", n=n, shape=seq.tokens.shape))
    return seq


def draw_induction_maps(axes, maps, seq, title=None) -> dict:
    """Each layer's map into its Axes; the tokens on the axes; on layer 0 the previous
    token outlined, on layer 1 the token after the earlier occurrence (the copy target)."""
    maps = _maps(maps)
    n = maps.shape[1]
    seq = _check_shown(seq, n)
    _, queries, keys = copying_targets(seq)
    ticks = [str(x) for x in seq.tokens[0, :n]]
    images = []
    for layer, (ax, m) in enumerate(zip(axes, maps)):
        images.append(ax.imshow(m, cmap=style.CMAP, vmin=0.0, vmax=1.0))
        ax.set_title(t("p_l15_layer", layer=layer) + (f" · {title}" if title else ""))
        ax.set_xticks(range(n), ticks, fontsize=8, rotation=90)  # 31 tokens: readable at 8 pt
        ax.set_yticks(range(n), ticks, fontsize=8)
        ax.set_xlabel(t("p_l15_key"))
        ax.set_ylabel(t("p_l15_query"))
        # layer 0: the previous token (in the segment and the repeat); layer 1: the copy target
        start = max(1, int(seq.first[0]))
        cells = (zip(range(start, n), range(start - 1, n - 1)) if layer == 0
                 else zip(queries, keys))
        ax.add_collection(PatchCollection(  # one artist: a widget redraws it fast
            [Rectangle((j - 0.5, i - 0.5), 1, 1) for i, j in cells], facecolor="none",
            edgecolor=style.COLORS[1], linewidth=1.8), autolim=False)
        for edge in (seq.first[0], seq.repeat[0]):  # where the segment and its repeat start
            ax.axhline(edge - 0.5, color="white", linewidth=0.6)
            ax.axvline(edge - 0.5, color="white", linewidth=0.6)
    return {"images": images}


def plot_induction_maps(before, after, seq, steps=None):
    """Both layers' attention on one sequence, before training (top) and after (bottom).

    ``before``, ``after`` are ``(layers, n, n)`` (``run.snapshots[0]`` and
    ``run.snapshots[-1]``); ``seq`` the sequence they were taken on (``run.shown``).
    Orange outlines: the previous token (layer 0, in the segment and the repeat) and the
    token after the earlier occurrence (layer 1, in the repeat).
    """
    before, after = _maps(before, "before"), _maps(after, "after")
    rows = 2
    cols = before.shape[0]
    fig, axes = plt.subplots(rows, cols, figsize=(6.0 * cols, 11.6), layout="constrained",
                             squeeze=False)
    labels = steps if steps is not None else (None, None)
    for row, maps, step in zip(axes, (before, after), labels):
        draw_induction_maps(row, maps, seq,
                            title=None if step is None else t("p_l15_at_step", step=step))
    return fig


def plot_loss_per_position(losses, seq, ax=None):
    """The loss at each position of one sequence: ``losses (n − 1,)`` from
    :func:`~qkv_helpers.induction.loss_per_position`; the first occurrence and the repeat
    shaded, chance (ln V) dotted.

    >>> from qkv_helpers.induction import make_sequences
    >>> s = make_sequences(1, seed=0)
    >>> ax = plot_loss_per_position(np.full(31, 3.0), s)
    >>> len(ax.lines)
    2
    """
    from ._common import new_axes

    validate.instance_of(seq, "seq", Sequences, "e.g. run.shown")
    losses = validate.array(losses, "losses", ndim=1, empty=False, shape="(n − 1,)")
    if len(seq.tokens) != 1 or len(losses) != seq.tokens.shape[1] - 1:
        raise ValueError(t("err_l15_losses_per_position", shape=losses.shape,
                           seqs=seq.tokens.shape))
    ax = new_axes(ax, figsize=(9, 3.2))
    targets = np.arange(1, len(losses) + 1)  # position t predicts token t+1: x = the target
    first, repeat, length = int(seq.first[0]), int(seq.repeat[0]), int(seq.length[0])
    ax.axvspan(first - 0.5, repeat - 0.5, color=style.COLORS[0], alpha=0.12,
               label=t("p_l15_first"))
    ax.axvspan(repeat + 0.5, repeat + length - 0.5, color=style.COLORS[1], alpha=0.15,
               label=t("p_l15_repeat"))
    ax.plot(targets, losses, marker="o", markersize=3, color="black")
    ax.axhline(math.log(VOCAB_SIZE), color="grey", linewidth=1, linestyle=(0, (1, 3)))
    ax.set_xticks(targets, [str(x) for x in seq.tokens[0, 1:]], fontsize=8)
    ax.set_xlabel(t("p_l15_position"))
    ax.set_ylabel(t("p_l15_loss"))
    ax.set_title(t("p_l15_per_position_title"))
    ax.legend(loc="lower left", fontsize="small")
    return ax

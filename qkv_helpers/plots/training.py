"""Lesson 14's pictures: the training curves, and cross-attention against the gold alignment."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np  # noqa: F401 (the doctests)
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, NullFormatter

from .. import _validate as validate
from .. import style
from ..lang import t
from ._common import check_labels, new_axes

__all__ = ["alignment_formed_step", "draw_alignment_maps", "draw_training_curves",
           "plot_alignment_maps", "plot_training_curves", "plot_backward_memory"]

GOLD_COLOR = style.COLORS[1]  # orange outline: the gold alignment


def alignment_formed_step(history, threshold: float = 0.8):
    """The first evaluated step whose alignment agreement reaches ``threshold`` (or None).

    >>> alignment_formed_step([{"step": 0, "alignment": 0.1}, {"step": 10, "alignment": 0.85}])
    10
    """
    threshold = validate.real_number(threshold, "threshold", 0.0, 1.0)
    return next((r["step"] for r in history if r["alignment"] >= threshold), None)


def _history(history) -> list:
    if not isinstance(history, (list, tuple)) or not history or not all(
            isinstance(r, dict) and {"step", "loss", "exact_match", "alignment"} <= r.keys()
            for r in history):
        raise ValueError("history must be train(...).history: a non-empty list of dicts "
                         "with step, loss, exact_match and alignment")
    for i, r in enumerate(history):
        validate.integer(r["step"], f"history[{i}]['step']", 0)
        validate.positive_number(r["loss"], f"history[{i}]['loss']")
        validate.real_number(r["exact_match"], f"history[{i}]['exact_match']", 0.0, 1.0)
        validate.real_number(r["alignment"], f"history[{i}]['alignment']", 0.0, 1.0)
    return list(history)


def draw_training_curves(axes, history, formed=None) -> dict:
    """Draw the loss (left) and held-out accuracy (right) into two Axes; returns the lines."""
    history = _history(history)
    steps = [r["step"] for r in history]
    left, right = axes
    left.plot(steps, [r["loss"] for r in history], color=style.COLORS[0])
    left.set_yscale("log")
    plain = FuncFormatter(lambda value, _: f"{value:g}")  # 0.01 and 3, not 10⁻² and 3×10⁰
    left.yaxis.set_major_formatter(plain)
    losses = [r["loss"] for r in history if r["loss"] > 0]
    within_a_decade = bool(losses) and max(losses) < 10 * min(losses)
    left.yaxis.set_minor_formatter(plain if within_a_decade else NullFormatter())
    left.set_xlabel(t("p_l14_step"))
    left.set_ylabel(t("p_l14_loss"))
    left.set_title(t("p_l14_loss_title"))
    right.plot(steps, [r["exact_match"] for r in history], color=style.COLORS[0],
               label=t("p_l14_exact_match"))
    if all("token_accuracy" in r for r in history):
        right.plot(steps, [r["token_accuracy"] for r in history], color=style.COLORS[2],
                   linestyle="-.", label=t("p_l14_token_accuracy"))
    right.plot(steps, [r["alignment"] for r in history], color=style.COLORS[1],
               linestyle="--", label=t("p_l14_alignment"))
    right.set_ylim(-0.03, 1.03)
    right.set_xlabel(t("p_l14_step"))
    right.set_title(t("p_l14_accuracy_title"))
    if formed is not None:
        for ax in axes:
            ax.axvline(formed, color="grey", linestyle=":", linewidth=1.5)
        right.text(formed, 0.08, " " + t("p_l14_formed", step=formed), color="grey",
                   fontsize="small", va="center", ha="left")
    right.legend(loc="center right", fontsize="small")  # the curves sit at 0 and 1 there
    return {"axes": axes}


def plot_training_curves(history, threshold: float = 0.8):
    """Loss and held-out accuracy against the training step; the step where the
    alignment agreement first reaches ``threshold`` marked on both.

    >>> fig = plot_training_curves([{"step": 0, "loss": 4.0, "exact_match": 0.0,
    ...                              "alignment": 0.1}, {"step": 10, "loss": 1.0,
    ...                              "exact_match": 0.5, "alignment": 0.9}])
    >>> len(fig.axes)
    2
    """
    history = _history(history)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), layout="constrained")
    draw_training_curves(axes, history, alignment_formed_step(history, threshold))
    return fig


def _maps(weights, target, source, alignment):
    w = validate.array(weights, "weights", ndim=3, empty=False,
                       shape="(heads, target tokens, source tokens)")
    if w.min() < 0 or w.max() > 1 + 1e-6:
        raise ValueError(f"weights must be cross-attention weights (heads, target tokens, "
                         f"source tokens) in 0..1, got shape {w.shape}")
    target = check_labels(target, w.shape[1], "target", "target rows")
    source = check_labels(source, w.shape[2], "source", "source columns")
    alignment = [] if alignment is None else [
        int(j) for j in validate.int_sequence(alignment, "alignment", min_len=0)]
    if len(alignment) > w.shape[1] or any(not 0 <= j < w.shape[2] for j in alignment):
        raise ValueError(f"alignment must give a source column (0..{w.shape[2] - 1}) for "
                         f"each of at most {w.shape[1]} target rows, got {alignment}")
    return w, target, source, alignment


def draw_alignment_maps(axes, weights, target, source, alignment=None, titles=None) -> dict:
    """Each head's map, then the head average, into ``len(heads) + 1`` Axes (one if a
    single head); gold cells outlined. Returns the images (for a widget to update)."""
    w, target, source, alignment = _maps(weights, target, source, alignment)
    maps = [w[0]] if len(w) == 1 else [*w, w.mean(axis=0)]
    names = ([t("p_l14_head", head=h) for h in range(len(w))] + [t("p_l14_mean")]
             if len(w) > 1 else [t("p_l14_one_head")])
    images = []
    for ax, m, name in zip(axes, maps, titles or names):
        images.append(ax.imshow(m, cmap=style.CMAP, vmin=0.0, vmax=1.0))
        for i, j in enumerate(alignment):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, zorder=3,
                                   edgecolor=GOLD_COLOR, linewidth=2.5))
        ax.set_xticks(range(len(source)), source, rotation=60, ha="right")
        ax.set_yticks(range(len(target)), target)
        ax.set_title(name)
    axes[0].set_ylabel(t("target_tokens"))
    return {"images": images, "axes": list(axes)}


def plot_alignment_maps(weights, target, source, alignment=None):
    """Cross-attention ``(heads, target, source)`` per head and averaged, gold outlined.

    >>> fig = plot_alignment_maps(np.full((2, 2, 3), 1 / 3), ["a", "b"], ["x", "y", "z"], [0, 2])
    >>> len(fig.axes), len(fig.axes[0].patches)
    (3, 2)
    """
    w = validate.array(weights, "weights", ndim=3, empty=False,
                       shape="(heads, target tokens, source tokens)")
    n = 1 if w.ndim == 3 and len(w) == 1 else (len(w) + 1 if w.ndim == 3 else 1)
    fig, axes = plt.subplots(1, n, figsize=(0.6 + 3.2 * n, 3.6), layout="constrained",
                             squeeze=False)
    draw_alignment_maps(axes[0], weights, target, source, alignment)
    return fig


def plot_backward_memory(costs, ax=None):
    """What each backward keeps and its peak, against ``n`` (log–log).

    ``costs`` is :func:`qkv_helpers.attention_backward.measure_backward`'s table.
    """
    from ..attention_backward import BackwardCosts

    validate.instance_of(costs, "costs", BackwardCosts,
                         "attention_backward.measure_backward(lengths)")
    for field in ("kept_plain", "peak_plain", "kept_recompute", "peak_recompute"):
        values = validate.array(getattr(costs, field), f"costs.{field}", ndim=1, empty=False)
        if len(values) != len(costs.lengths) or not (values > 0).all():
            raise ValueError(f"costs.{field} must hold one byte count > 0 per length "
                             f"({len(costs.lengths)}), got {list(values)}")
    ax = new_axes(ax)
    n = costs.lengths
    ax.loglog(n, costs.kept_plain, "o-", color=style.COLORS[0], label=t("p_l14_kept_plain"))
    ax.loglog(n, costs.peak_plain, "o--", color=style.COLORS[0], label=t("p_l14_peak_plain"))
    ax.loglog(n, costs.kept_recompute, "s-", color=style.COLORS[1],
              label=t("p_l14_kept_recompute"))
    ax.loglog(n, costs.peak_recompute, "s--", color=style.COLORS[1],
              label=t("p_l14_peak_recompute"))
    ax.set_xticks(n, [str(x) for x in n])
    ax.minorticks_off()
    ax.set_xlabel(t("p_l14_tokens"))
    ax.set_ylabel(t("p_l14_bytes"))
    ax.set_title(t("p_l14_backward_title"))
    ax.legend(fontsize="small")
    return ax

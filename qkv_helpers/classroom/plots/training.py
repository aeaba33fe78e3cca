"""Lesson 14's pictures: the training curves, and cross-attention against the gold alignment."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np  # noqa: F401 (the doctests)
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, NullFormatter, NullLocator

from ... import _validate as validate
from ...lang import t
from .. import style
from ._common import check_labels, new_axes

__all__ = ["alignment_formed_step", "draw_alignment_maps", "draw_training_curves",
           "plot_alignment_maps", "plot_training_curves", "plot_backward_memory",
           "plot_gradient_check", "plot_optimiser", "plot_score_push"]

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
        raise ValueError(t("err_plot_history"))
    for i, r in enumerate(history):
        validate.integer(r["step"], f"history[{i}]['step']", 0)
        validate.positive_number(r["loss"], f"history[{i}]['loss']")
        validate.real_number(r["exact_match"], f"history[{i}]['exact_match']", 0.0, 1.0)
        validate.real_number(r["alignment"], f"history[{i}]['alignment']", 0.0, 1.0)
    return list(history)


def draw_training_curves(axes, history, formed=None, legend: str = "center right") -> dict:
    """Draw the loss (left) and held-out accuracy (right) into two Axes; returns the lines.

    ``legend`` is matplotlib's ``loc``: "center right" suits a run that learns (its curves
    sit at 0 and 1 there) and a live picture (it stays put); "best" finds where a broken
    run's curves are not."""
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
    right.legend(loc=legend, fontsize="small")
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
    draw_training_curves(axes, history, alignment_formed_step(history, threshold), "best")
    return fig


def _maps(weights, target, source, alignment):
    w = validate.array(weights, "weights", ndim=3, empty=False,
                       shape="(heads, target tokens, source tokens)")
    if w.min() < 0 or w.max() > 1 + 1e-6:
        raise ValueError(t("err_cross_weights", got=w.shape))
    target = check_labels(target, w.shape[1], "target", t("err_axis_target_rows"))
    source = check_labels(source, w.shape[2], "source", t("err_axis_source_columns"))
    alignment = [] if alignment is None else [
        int(j) for j in validate.int_sequence(alignment, "alignment", min_len=0)]
    if len(alignment) > w.shape[1] or any(not 0 <= j < w.shape[2] for j in alignment):
        raise ValueError(t("err_alignment", last=w.shape[2] - 1, rows=w.shape[1], got=alignment))
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

    ``costs`` is :func:`qkv_helpers.measure.attention_backward.measure_backward`'s table.
    """
    from ...measure.attention_backward import BackwardCosts

    validate.instance_of(costs, "costs", BackwardCosts,
                         "attention_backward.measure_backward(lengths)")
    for field in ("kept_plain", "peak_plain", "kept_recompute", "peak_recompute"):
        values = validate.array(getattr(costs, field), f"costs.{field}", ndim=1, empty=False)
        if len(values) != len(costs.lengths) or not (values > 0).all():
            raise ValueError(t("err_costs_field", field=field, n=len(costs.lengths),
                               got=list(values)))
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


def plot_gradient_check(errors, by_eps, threshold: float = 1e-6, eps: float | None = None):
    """The gradient check shown: each parameter array's relative error (left), and one
    array's error against ε on log–log axes (right), the pass line ``threshold`` on both.

    ``errors`` is :func:`qkv_helpers.translator.gradient_check`'s ``{name: error}``;
    ``by_eps`` :func:`~qkv_helpers.translator.gradient_check_by_eps`'s ``{eps: error}``;
    ``eps`` the step the left panel used (marked on the right).

    >>> fig = plot_gradient_check({"w_q": 1e-9, "w_k": 3e-9}, {1e-2: 1e-5, 1e-5: 1e-9,
    ...                                                        1e-8: 1e-6}, eps=1e-5)
    >>> len(fig.axes)
    2
    """
    for what, table in (("errors", errors), ("by_eps", by_eps)):
        if not isinstance(table, dict) or not table or not all(
                isinstance(v, float) and v > 0 for v in table.values()):
            raise ValueError(t("err_plot_errors_dict", name=what, got=repr(table)[:150]))
    threshold = validate.positive_number(threshold, "threshold")
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6), layout="constrained",
                                      gridspec_kw={"width_ratios": [1.1, 1.0]})
    names = list(errors)
    left.barh(range(len(names)), [errors[n] for n in names], color=style.COLORS[0])
    left.set_yticks(range(len(names)), names, fontsize="small")
    left.invert_yaxis()
    left.set_xscale("log")
    left.axvline(threshold, color=style.COLORS[3], linestyle="--")
    shown = f"1e{round(np.log10(threshold))}" if np.log10(threshold).is_integer() else (
        f"{threshold:g}")
    left.text(threshold, len(names) - 1, t("p_l14_pass_line", value=shown) + " ",
              color=style.COLORS[3], fontsize="small", ha="right", va="center")
    left.set_xlabel(t("p_l14_relative_error"))
    left.set_title(t("p_l14_check_title") if eps is None else
                   t("p_l14_check_title_eps", eps=f"{eps:g}"))
    steps = sorted(by_eps)
    right.loglog(steps, [by_eps[e] for e in steps], "o-", color=style.COLORS[0])
    right.axhline(threshold, color=style.COLORS[3], linestyle="--")
    if eps is not None and eps in by_eps:
        right.plot([eps], [by_eps[eps]], "o", markersize=12, fillstyle="none",
                   color=style.COLORS[1])
    low, high = steps[0], steps[-1]  # guides: ε² from the largest ε, 1/ε from the smallest
    guide = np.array([low, high])
    right.loglog(guide, by_eps[high] * (guide / high) ** 2, ":", color="grey")
    right.loglog(guide, by_eps[low] * low / guide, ":", color="grey")
    # the labels above the end points, where the curve does not pass
    right.text(high, by_eps[high] * 1.6, t("p_l14_truncation"), color="grey",
               fontsize="small", ha="right", va="bottom")
    right.text(low, by_eps[low] * 1.6, t("p_l14_rounding"), color="grey", fontsize="small",
               ha="left", va="bottom")
    top = max(by_eps.values())
    right.set_ylim(min(by_eps.values()) / 10, top * 10)
    right.set_xlabel("ε")
    right.set_ylabel(t("p_l14_relative_error"))
    right.set_title(t("p_l14_eps_title"))
    powers = FuncFormatter(lambda value, _: f"1e{round(np.log10(value))}")  # 1e-9, not 10⁻⁹
    for axis in (left.xaxis, right.xaxis, right.yaxis):
        axis.set_major_formatter(powers)
        axis.set_minor_locator(NullLocator())  # the decades are enough (and draw faster)
    return fig


def plot_score_push(run, steps, row=None):
    """Why attention aligns, for one row of the first held-out sentence: the push of each
    training step on the row's scores (top: :func:`~qkv_helpers.translator.score_push`,
    up where the loss falls if that key is read more) and the row's attention weights
    (bottom) at each of ``steps``; right, over the whole run, how often the push and how
    often the weights peak on the gold word.

    ``row`` is the Korean token's row, the verb's (the last) by default. Each step's push
    is drawn on its own scale: it shrinks as the row finds its word.
    """
    from ...translator import TrainingRun, chance_agreement

    validate.instance_of(run, "run", TrainingRun, "what qk.translator.train(...) returns")
    if not run.pushes:
        raise ValueError(t("err_plot_run_pushes"))
    evaluated = [r["step"] for r in run.history]
    steps = [int(s) for s in validate.int_sequence(steps, "steps")]
    if any(s not in evaluated for s in steps):
        raise ValueError(t("err_plot_steps_evaluated", evaluated=evaluated[:6], got=steps))
    pair = run.corpus.heldout[0]
    row = len(pair.korean) - 1 if row is None else validate.integer(
        row, "row", 0, len(pair.korean) - 1)
    source = [*pair.english, "<eos>"]
    gold = pair.alignment[row]
    k = len(steps)
    fig = plt.figure(figsize=(3.0 * k + 4.6, 5.4), layout="constrained")
    grid = fig.add_gridspec(2, k + 2)
    x = np.arange(len(source))
    colors = [GOLD_COLOR if j == gold else style.COLORS[0] for j in x]
    for c, step in enumerate(steps):
        i = evaluated.index(step)
        push = run.pushes[i].mean(axis=0)[row, : len(source)]  # (n_src,)
        weights = run.snapshots[i].mean(axis=0)[row, : len(source)]
        top, bottom = fig.add_subplot(grid[0, c]), fig.add_subplot(grid[1, c])
        scale = np.abs(push).max() or 1.0
        top.bar(x, push / scale, color=colors)
        top.axhline(0, color="black", linewidth=0.8)
        top.set_ylim(-1.1, 1.1)
        top.set_title(t("p_l14_push_step", step=step))
        bottom.bar(x, weights, color=colors)
        bottom.set_ylim(0, 1)
        bottom.set_title(t("p_l14_weights_step", step=step))
        top.set_xticks(x, [])  # the same tokens as the weights below
        bottom.set_xticks(x, source, rotation=60, ha="right", fontsize="small")
        if c == 0:
            top.set_ylabel(t("p_l14_push_axis"))
            bottom.set_ylabel(t("p_l14_weight_axis", token=pair.korean[row]))
        else:
            top.set_yticklabels([])
            bottom.set_yticklabels([])
    curves = fig.add_subplot(grid[:, k:])
    curves.plot(evaluated, [r["push"] for r in run.history], color=style.COLORS[3],
                label=t("p_l14_push_agreement"))
    curves.plot(evaluated, [r["alignment"] for r in run.history], color=style.COLORS[1],
                linestyle="--", label=t("p_l14_alignment"))
    curves.axhline(chance_agreement(run.corpus.heldout[:100]), color="grey", linestyle=":",
                   label=t("p_l14_chance"))
    for step in steps:
        curves.axvline(step, color="black", linewidth=0.6, alpha=0.4)
    curves.set_ylim(-0.03, 1.03)
    curves.set_xlabel(t("p_l14_step"))
    curves.set_title(t("p_l14_push_curves_title"))
    curves.legend(fontsize="small", loc="lower right")
    return fig


def plot_optimiser(history, steps: int = 300, peak: float = 1e-2, warmup: int = 20):
    """The training's two guard rails: the learning rate each step (warm-up, then a cosine
    down to 0; left) and the gradients' norm before clipping (the largest over each
    evaluation's window of steps; right), with the clipping line at 1.0.

    >>> fig = plot_optimiser([{"step": 0, "grad_norm": 1.5}, {"step": 10, "grad_norm": 0.5}])
    >>> len(fig.axes)
    2
    """
    from ...backprop import learning_rate

    steps = validate.integer(steps, "steps", 1)
    warmup = validate.integer(warmup, "warmup", 0)
    peak = validate.positive_number(peak, "peak")
    if not isinstance(history, (list, tuple)) or not history or not all(
            isinstance(r, dict) and {"step", "grad_norm"} <= r.keys() for r in history):
        raise ValueError(t("err_plot_history_grad_norm"))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.2), layout="constrained")
    x = np.arange(steps)
    left.plot(x + 1, [learning_rate(s, peak, warmup, steps) for s in x], color=style.COLORS[0])
    left.axvline(warmup, color="grey", linestyle=":")
    left.text(warmup, 0.05 * peak, " " + t("p_l14_warmup", steps=warmup), color="grey",
              fontsize="small")
    left.set_xlabel(t("p_l14_step"))
    left.set_ylabel(t("p_l14_lr"))
    left.set_title(t("p_l14_lr_title"))
    right.plot([r["step"] for r in history], [r["grad_norm"] for r in history], "o-",
               markersize=3, color=style.COLORS[0])
    right.axhline(1.0, color=style.COLORS[3], linestyle="--")
    right.text(history[-1]["step"], 1.0, t("p_l14_clip_line"), color=style.COLORS[3],
               fontsize="small", ha="right", va="bottom")
    right.set_yscale("log")
    right.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    right.set_xlabel(t("p_l14_step"))
    right.set_ylabel(t("p_l14_grad_norm"))
    right.set_title(t("p_l14_grad_norm_title"))
    return fig

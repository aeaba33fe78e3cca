"""Lesson 11's pictures: what each head of the real model does, and what it hands over."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ... import _validate as validate
from ...lang import t
from ...pretrained import HEAD_PATTERNS, ValueNorms, check_head_scores
from .. import style
from ._common import as_matrix, as_series, check_labels

__all__ = ["plot_head_scores", "plot_weight_vs_contribution"]


def plot_head_scores(scores: dict[str, np.ndarray]) -> Figure:
    """One (layers, heads) heat map per pattern of :func:`~qkv_helpers.pretrained.head_scores`.

    Examples
    --------
    >>> scores = {p: np.zeros((6, 12)) for p in HEAD_PATTERNS}
    >>> len(plot_head_scores(scores).axes)          # six maps and a colour bar
    7
    """
    scores = check_head_scores(scores)  # one (layers, heads) array per pattern, in [0, 1]
    # A fixed layout (no constrained layout): it draws once instead of three times.
    fig, axes = plt.subplots(2, 3, figsize=(12, 5.0), sharex=True, sharey=True,
                             gridspec_kw=dict(left=0.05, right=0.9, bottom=0.1, top=0.93,
                                              wspace=0.06, hspace=0.3))
    for ax, pattern in zip(axes.flat, HEAD_PATTERNS):
        values = np.asarray(scores[pattern], dtype=float)  # (layers, heads)
        image = ax.imshow(values, cmap=style.CMAP, vmin=0, vmax=1)
        best = np.unravel_index(values.argmax(), values.shape)
        ax.text(best[1], best[0], f"{values[best]:.2f}", ha="center", va="center",
                fontsize="x-small", color="black" if values[best] > 0.5 else "white")
        ax.set_title(t("l11_scores_title", pattern=t("l11_pattern_" + pattern)))
        ax.set_xticks(range(values.shape[1]))
        ax.set_yticks(range(values.shape[0]))
    for ax in axes[-1]:
        ax.set_xlabel(t("w_l11_head"))
    for ax in axes[:, 0]:
        ax.set_ylabel(t("w_l11_layer"))
    fig.colorbar(image, cax=fig.add_axes((0.92, 0.15, 0.015, 0.7)))
    return fig


def plot_weight_vs_contribution(vn: ValueNorms, tokens, query: int) -> Figure:
    """One query's weights next to what each key hands over, ``w · ‖v·W_O‖``, as shares.

    Both bars are shares of their row's total, so they can be compared: a key with a
    large weight but a short value vector gets a small contribution.

    Examples
    --------
    >>> vn = ValueNorms(np.array([[0.9, 0.1]]), np.array([0.1, 2.0]), np.array([[0.09, 0.2]]))
    >>> len(plot_weight_vs_contribution(vn, ["[CLS]", "cat"], query=0).axes[0].patches)
    4
    """
    validate.instance_of(vn, "vn", ValueNorms, "from weighted_value_norms")
    norms = as_series(vn.value_norms, "vn.value_norms", low=0)  # (n,)
    all_weights = as_matrix(vn.weights, "vn.weights")  # (n_q, n)
    contributions = as_matrix(vn.contributions, "vn.contributions")  # (n_q, n)
    if all_weights.shape != contributions.shape or all_weights.shape[1] != len(norms):
        raise ValueError(t("err_vn_shapes", w=all_weights.shape, c=contributions.shape,
                           norms=norms.shape))
    labels = check_labels(tokens, len(norms), "tokens", t("err_axis_keys"))
    query = validate.integer(query, "query", 0, all_weights.shape[0] - 1)
    weights = all_weights[query]  # (n,)
    if contributions[query].sum() <= 0:
        raise ValueError(t("err_vn_sum", query=query, got=f"{contributions[query].sum():g}"))
    share = contributions[query] / contributions[query].sum()  # (n,)
    fig, ax = plt.subplots(figsize=(1.5 + 0.8 * len(labels), 3.6), layout="constrained")
    x = np.arange(len(labels))
    ax.bar(x - 0.2, weights, width=0.4, color=style.COLORS[0], label=t("l11_bar_weight"))
    ax.bar(x + 0.2, share, width=0.4, color=style.COLORS[1], label=t("l11_bar_contribution"))
    ax.set_xticks(x, labels)
    ax.set_xlabel(t("key"))
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title(t("l11_bar_title", token=labels[query]))
    return fig

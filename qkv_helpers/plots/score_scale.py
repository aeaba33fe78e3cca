"""Lesson 03's pictures: how wide the scores spread for a given d_k, raw and scaled."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from .. import _validate as validate
from .. import style
from ..lang import t
from ..score_scale import random_queries_keys
from ._common import as_series, new_axes

__all__ = ["plot_score_histogram", "plot_variance_vs_dk"]


def plot_score_histogram(d_k: int, *, n: int = 4000, seed: int = 0, ax: Axes | None = None,
                         limit: float | None = None) -> Axes:
    """Histograms of ``q·k`` and ``q·k/√d_k`` for ``n`` random pairs of width ``d_k``.

    Parameters
    ----------
    limit : float, optional
        Half-width of the x-axis (fix it to compare several d_k); by default it fits.

    Examples
    --------
    >>> ax = plot_score_histogram(16)
    >>> len(ax.get_legend().get_texts())
    2
    """
    q, k = random_queries_keys(d_k, n, seed)
    if limit is not None:
        limit = validate.real_number(limit, "limit", low=0.0, low_open=True)
    raw = np.einsum("nd,nd->n", q, k)  # (n,)
    scaled = raw / math.sqrt(d_k)  # (n,)
    ax = new_axes(ax, figsize=(6.4, 3.6))
    limit = limit or float(np.abs(raw).max())
    bins = np.linspace(-limit, limit, 61)
    ax.hist(np.clip(raw, -limit, limit), bins=bins, alpha=0.6, color=style.COLORS[0],
            label=t("p_scal_raw", var=f"{raw.var():.1f}"))
    ax.hist(np.clip(scaled, -limit, limit), bins=bins, alpha=0.6, color=style.COLORS[1],
            label=t("p_scal_scaled", var=f"{scaled.var():.2f}"))
    ax.set_xlabel(t("score"))
    ax.set_ylabel(t("p_scal_count"))
    ax.set_title(t("p_scal_hist_title", d_k=d_k))
    ax.legend(loc="upper right", fontsize="small")
    return ax


def plot_variance_vs_dk(d_ks, raw, scaled, *, ax: Axes | None = None) -> Axes:
    """Measured variance of the raw and scaled scores against d_k, on log-log axes.

    Examples
    --------
    >>> ax = plot_variance_vs_dk([1, 4, 16], [1.0, 4.1, 15.8], [1.0, 1.02, 0.99])
    >>> len(ax.lines)
    3
    """
    d_ks = as_series(d_ks, "d_ks", positive=True)  # (n,)
    raw = as_series(raw, "raw", len(d_ks), positive=True, per="d_ks")  # (n,)
    scaled = as_series(scaled, "scaled", len(d_ks), positive=True, per="d_ks")  # (n,)
    ax = new_axes(ax, figsize=(6.0, 3.8))
    # The line y = d_k, wide and light under the raw variances that lie on it: a dashed
    # line there would be hidden by them, yet listed in the legend.
    ax.plot(d_ks, d_ks, color="#bbbbbb", linewidth=9, solid_capstyle="round",
            label=t("p_scal_line"))
    ax.plot(d_ks, raw, "o-", color=style.COLORS[0], label=t("p_scal_raw_short"))
    ax.plot(d_ks, scaled, "s-", color=style.COLORS[1], label=t("p_scal_scaled_short"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("d_k")
    ax.set_ylabel(t("p_scal_variance"))
    ax.set_title(t("p_scal_var_title"))
    ax.legend(fontsize="small")
    return ax

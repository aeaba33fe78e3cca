"""Lesson 03's pictures: how wide the scores spread for a given d_k, raw and scaled."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from ... import _validate as validate
from ...lang import t
from ...score_scale import random_queries_keys
from .. import style
from ._common import as_series, new_axes

__all__ = ["plot_score_histogram", "plot_variance_vs_dk", "score_histograms"]


def score_histograms(raw, d_k: int, limit: float, bins: int = 60):
    """Bin edges and densities of the raw scores and of the scaled ones (raw / √d_k).

    The raw scores get ``bins`` bins over ``±limit``; the scaled scores the same bins with
    every edge divided by √d_k, so each bin holds the same scores in both. On the raw
    scores' bins the scaled scores would fill two or three bins, a spike that shows no
    shape. Histograms on bins of different widths compare only as densities (each has area
    1): the scaled one is the raw one, √d_k times narrower and √d_k times taller. Scores
    beyond ``±limit`` are counted in the outermost bin.

    Returns ``(edges_raw, density_raw, edges_scaled, density_scaled)``.

    >>> e_raw, h_raw, e_scaled, h_scaled = score_histograms([-2.0, 0.5, 3.0], 4, 4.0, bins=4)
    >>> e_raw.tolist(), e_scaled.tolist()
    ([-4.0, -2.0, 0.0, 2.0, 4.0], [-2.0, -1.0, 0.0, 1.0, 2.0])
    >>> h_raw.round(3).tolist(), h_scaled.round(3).tolist()  # one score in each of bins 1-3
    ([0.0, 0.167, 0.167, 0.167], [0.0, 0.333, 0.333, 0.333])
    """
    raw = as_series(raw, "raw")  # (n,)
    d_k = validate.integer(d_k, "d_k", 1)
    limit = validate.real_number(limit, "limit", low=0.0, low_open=True)
    bins = validate.integer(bins, "bins", 1)
    edges_raw = np.linspace(-limit, limit, bins + 1)  # (bins + 1,)
    density_raw = np.histogram(np.clip(raw, -limit, limit), bins=edges_raw,
                               density=True)[0]  # (bins,)
    root = math.sqrt(d_k)
    return edges_raw, density_raw, edges_raw / root, density_raw * root


def plot_score_histogram(d_k: int, *, n: int = 4000, seed: int = 0, ax: Axes | None = None,
                         limit: float | None = None) -> Axes:
    """Histograms of ``q·k`` and ``q·k/√d_k`` for ``n`` random pairs of width ``d_k``.

    As densities (area 1), the scaled scores on the raw scores' bins divided by √d_k:
    see :func:`score_histograms`.

    Parameters
    ----------
    limit : float, optional
        Half-width of the x-axis (fix it to compare several d_k); by default it fits.

    Examples
    --------
    >>> ax = plot_score_histogram(16)
    >>> len(ax.get_legend().get_texts()), len(ax.patches)  # one outline per histogram
    (2, 2)
    """
    q, k = random_queries_keys(d_k, n, seed)
    if limit is not None:
        limit = validate.real_number(limit, "limit", low=0.0, low_open=True)
    raw = np.einsum("nd,nd->n", q, k)  # (n,)
    scaled = raw / math.sqrt(d_k)  # (n,)
    ax = new_axes(ax, figsize=(6.4, 3.6))
    limit = limit or float(np.abs(raw).max())
    e_raw, h_raw, e_scaled, h_scaled = score_histograms(raw, d_k, limit)
    ax.stairs(h_raw, e_raw, fill=True, alpha=0.6, linewidth=0, color=style.COLORS[0],
              label=t("p_scal_raw", var=f"{raw.var():.1f}"))
    ax.stairs(h_scaled, e_scaled, fill=True, alpha=0.6, linewidth=0, color=style.COLORS[1],
              label=t("p_scal_scaled", var=f"{scaled.var():.2f}"))
    ax.set_xlim(-limit, limit)
    # Room above the tallest bin for the legend, so that it covers no bar.
    ax.set_ylim(0, 1.45 * max(h_raw.max(), h_scaled.max()))
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
    # Plain numbers every other power of 2 (1, 4, 16, 64, ...): superscripts (2⁴, 2⁶) are
    # small on a projector, and the lessons' d_k are written as plain numbers.
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=4))
        axis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
        axis.set_minor_locator(NullLocator())
    ax.set_xlabel("d_k")
    ax.set_ylabel(t("p_scal_variance"))
    ax.set_title(t("p_scal_var_title"))
    ax.legend(fontsize="small")
    return ax

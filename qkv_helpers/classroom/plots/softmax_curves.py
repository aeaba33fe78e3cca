"""Lesson 04's picture: softmax of two scores, one curve per temperature."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes

from ... import _validate as validate
from ...attention import softmax
from ...lang import t
from .. import style
from ._common import new_axes

__all__ = ["plot_softmax_curves"]

#: The widest ``span`` drawn: at 1e308 the axis's width 2·span overflows (numpy's linspace,
#: then matplotlib's own arithmetic); 1e300 draws.
SPAN_MAX = 1e300


def plot_softmax_curves(temperatures=(0.25, 1.0, 4.0), *, ax: Axes | None = None,
                        span: float = 6.0, highlight: float | None = None) -> Axes:
    """The weight softmax gives the first of two tokens, against their score difference.

    One curve per temperature T: small T makes a step (the larger score takes all),
    large T a gentle slope (both near 0.5).

    Parameters
    ----------
    temperatures : sequence of float
    span : float
        The x-axis runs from ``-span`` to ``span``; ``0 < span <= 1e300``.
    highlight : float, optional
        Draw the curve of this temperature thick and black, the others dashed
        (the widgets use it).

    Examples
    --------
    >>> ax = plot_softmax_curves((0.5, 2.0))
    >>> len(ax.lines)
    2
    """
    if isinstance(temperatures, (str, bytes)) or not hasattr(temperatures, "__iter__"):
        raise TypeError(t("err_temperatures_type", got=repr(temperatures)))
    temperatures = [validate.real_number(temp, "each of temperatures", low=0.0, low_open=True)
                    for temp in temperatures]
    if not temperatures and highlight is None:
        raise ValueError(t("err_temperatures_empty"))
    span = validate.real_number(span, "span", low=0.0, high=SPAN_MAX, low_open=True)
    if highlight is not None:
        highlight = validate.real_number(highlight, "highlight", low=0.0, low_open=True)
    ax = new_axes(ax, figsize=(6.0, 3.8))
    diff = np.linspace(-span, span, 241)  # (points,)
    pairs = np.stack([diff, np.zeros_like(diff)], axis=1)  # (points, 2): scores s1, s2
    for i, temp in enumerate(temperatures):
        weights = softmax(pairs, axis=-1, temperature=float(temp))[:, 0]  # (points,)
        ax.plot(diff, weights, color=style.COLORS[i % len(style.COLORS)],
                linestyle="-" if highlight is None else "--",
                label=t("p_smax_legend", t=f"{temp:g}"))
    if highlight is not None:
        weights = softmax(pairs, axis=-1, temperature=float(highlight))[:, 0]
        ax.plot(diff, weights, color="black", linewidth=3.5,
                label=t("p_smax_legend", t=f"{highlight:.2g}"))
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(t("p_smax_xlabel"))
    ax.set_ylabel(t("p_smax_ylabel"))
    ax.set_title(t("p_smax_title"))
    ax.legend(fontsize="small", loc="upper left")
    return ax

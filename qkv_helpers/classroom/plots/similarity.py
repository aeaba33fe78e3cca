"""Lesson 02's picture: two 2-D vectors, the angle between them and their dot product."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Arc

from ... import _validate as validate
from ...lang import t
from ...similarity import dot_and_angle
from .. import style
from ._common import drawable, new_axes

__all__ = ["plot_vectors_2d"]


def plot_vectors_2d(a, b, *, labels=("q", "k"), ax: Axes | None = None,
                    title: str | None = None, limit: float | None = None) -> Axes:
    """Two 2-D vectors as arrows from the origin, the angle between them marked.

    The title gives ``q·k = |q| |k| cos θ`` with the numbers filled in.

    Parameters
    ----------
    a, b : array_like, shape (2,)
    labels : (str, str)
        Names written at the arrow heads.
    limit : float, optional
        Half-width of the square view; by default it fits both vectors.

    Examples
    --------
    >>> ax = plot_vectors_2d([1.0, 0.0], [0.0, 2.0])
    >>> "0.00" in ax.get_title() and "90" in ax.get_title()
    True
    """
    a = drawable(validate.array(a, "a", ndim=1, shape="(2,)", widen=True, empty=False), "a")
    b = drawable(validate.array(b, "b", ndim=1, shape="(2,)", widen=True, empty=False), "b")
    if a.shape != (2,) or b.shape != (2,):
        raise ValueError(t("err_vectors_2d", a=a.shape, b=b.shape))
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__") or len(labels) != 2:
        raise TypeError(t("err_two_labels", got=repr(labels)))
    if limit is not None:
        limit = validate.real_number(limit, "limit", low=0.0, low_open=True)
    d = dot_and_angle(a, b)
    if min(d.length_a, d.length_b) < 1e-100:  # the view, the arc and the title read 0.00
        raise ValueError(t("err_vectors_short", a=f"{d.length_a:.3g}", b=f"{d.length_b:.3g}"))
    ax = new_axes(ax, figsize=(4.8, 4.8))
    limit = limit or 1.25 * max(d.length_a, d.length_b)
    for vec, label, colour in ((a, labels[0], style.COLORS[0]), (b, labels[1], style.COLORS[1])):
        ax.annotate("", xy=vec, xytext=(0, 0),
                    arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2.5})
        ax.text(*(vec * 1.1), label, color=colour, fontsize="large", ha="center", va="center")
    start = np.degrees(np.arctan2(a[1], a[0]))
    end = np.degrees(np.arctan2(b[1], b[0]))
    if (end - start) % 360 > 180:
        start, end = end, start
    radius = 0.35 * min(d.length_a, d.length_b)
    ax.add_patch(Arc((0, 0), 2 * radius, 2 * radius, theta1=start, theta2=end,
                     color="black", lw=1.2))
    ax.axhline(0, color="grey", lw=0.6)
    ax.axvline(0, color="grey", lw=0.6)
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect("equal")
    ax.set_title(title if title is not None else t(
        "p_sim_title", dot=f"{d.dot:.2f}", la=f"{d.length_a:.2f}", lb=f"{d.length_b:.2f}",
        cos=f"{d.cos_angle:.2f}", angle=f"{d.angle_deg:.0f}"), fontsize="medium")
    return ax

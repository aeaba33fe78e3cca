"""Lesson 12's widget: RoPE turns a query and a key by their positions; the score follows m − n."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..examples import running_example
from ..lang import t
from ..positions import apply_rope, rope_angles
from ._artists import animate
from ._live import LiveFigure, Panel

__all__ = ["rope_explorer"]

_STYLE = {"description_width": "initial"}
MAX_POSITION = 20


def rope_explorer(query_position: int = 3, key_position: int = 1) -> Panel:
    """Two sliders place "cat"'s query at position m and "sat"'s key at position n.

    The running example's q and k have d_k = 4, so RoPE turns two pairs of dimensions:
    (0, 2) by 1 radian per position and (1, 3) by 0.01 radian per position. The left panels
    show each pair as a 2-D arrow (faint: before rotation); the right panel shows the score
    ``RoPE(q, m) · RoPE(k, n)`` for every distance ``m − n``, with the current one marked.
    Moving both sliders by the same amount leaves the score where it was.

    Examples
    --------
    >>> panel = rope_explorer()
    >>> before = panel.state["score"]
    >>> panel.controls["m"].value, panel.controls["n"].value = 10, 8   # same m − n = 2
    >>> bool(abs(panel.state["score"] - before) < 1e-12)
    True
    >>> panel.controls["n"].value = 0                                 # m − n = 10
    >>> bool(abs(panel.state["score"] - before) > 0.01)
    True
    """
    for value, name in ((query_position, "query_position"), (key_position, "key_position")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not (
                0 <= value <= MAX_POSITION):
            raise ValueError(f"{name} must be an integer from 0 to {MAX_POSITION}, got {value!r}")
    ex = running_example()
    q = ex.q[ex.index("cat")][None, :]  # (1, 4)
    k = ex.k[ex.index("sat")][None, :]  # (1, 4)
    d = q.shape[-1]
    half = d // 2
    distances = np.arange(-MAX_POSITION, MAX_POSITION + 1)  # (41,)
    # the score for every distance: q at position |Δ| or 0, k at 0 or |Δ|
    curve = np.array([float(apply_rope(q, [max(s, 0)])[0] @ apply_rope(k, [max(-s, 0)])[0])
                      for s in distances])  # (41,)
    m_slider = widgets.IntSlider(value=query_position, min=0, max=MAX_POSITION,
                                 description=t("w_rope_m"), style=_STYLE)
    n_slider = widgets.IntSlider(value=key_position, min=0, max=MAX_POSITION,
                                 description=t("w_rope_n"), style=_STYLE)

    def update(panel: Panel) -> None:
        m, n = m_slider.value, n_slider.value
        q_rot = apply_rope(q, [m])[0]  # (4,)
        k_rot = apply_rope(k, [n])[0]  # (4,)
        score = float(q_rot @ k_rot)
        panel.state = dict(m=m, n=n, q=q_rot, k=k_rot, score=score)
        panel.caption.value = t("w_rope_caption", m=m, n=n, distance=m - n,
                                score=f"{score:.3f}")

    def draw(fig, panel: Panel) -> dict:
        state = panel.state
        axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1.6]})
        handle: dict = {"arrows": []}
        per_position = rope_angles([1], d)[0]  # (2,): radians per position, each pair
        for i, ax in enumerate(axes[:2]):
            pair = [i, i + half]
            for vector, color in ((q[0], "tab:blue"), (k[0], "tab:orange")):
                ax.annotate("", xy=tuple(vector[pair]), xytext=(0, 0),
                            arrowprops=dict(arrowstyle="-|>", color=color, alpha=0.25, lw=1.5))
            arrows = []
            for vector, color in ((state["q"], "tab:blue"), (state["k"], "tab:orange")):
                arrow = ax.annotate("", xy=tuple(vector[pair]), xytext=(0, 0),
                                    arrowprops=dict(arrowstyle="-|>", color=color, lw=2.2))
                animate(arrow)
                arrows.append(arrow)
            handle["arrows"].append(arrows)
            limit = 1.15 * max(np.hypot(*q[0][pair]), np.hypot(*k[0][pair]), 1e-9)
            ax.set_xlim(-limit, limit)
            ax.set_ylim(-limit, limit)
            ax.set_aspect("equal")
            ax.axhline(0, color="0.85", lw=0.8)
            ax.axvline(0, color="0.85", lw=0.8)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(t("w_rope_pair", first=i, second=i + half,
                           speed=f"{per_position[i]:.2g}"), fontsize=10)
        axes[0].plot([], [], color="tab:blue", label=t("w_rope_q"))
        axes[0].plot([], [], color="tab:orange", label=t("w_rope_k"))
        axes[0].legend(loc="lower left", fontsize=8, frameon=False)
        ax = axes[2]
        ax.plot(distances, curve, color="0.4", lw=1.2)
        marker, = ax.plot([state["m"] - state["n"]], [state["score"]], "o", color="tab:red",
                          markersize=8)
        animate(marker)
        ax.axhline(0, color="0.85", lw=0.8)
        ax.set_xlabel(t("p_pos_distance"))
        ax.set_ylabel(t("p_pos_score"))
        ax.set_title(t("w_rope_curve_title"), fontsize=10)
        handle["marker"] = marker
        return handle

    def change(handle: dict, panel: Panel) -> None:
        state = panel.state
        for i, (q_arrow, k_arrow) in enumerate(handle["arrows"]):
            pair = [i, i + half]
            q_arrow.xy = tuple(state["q"][pair])
            k_arrow.xy = tuple(state["k"][pair])
        handle["marker"].set_data([state["m"] - state["n"]], [state["score"]])

    live = LiveFigure(draw, figsize=(9.6, 3.4), update=change)
    return Panel("rope_explorer", {"m": m_slider, "n": n_slider}, live, update)

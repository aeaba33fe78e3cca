"""Lesson 12's widget: RoPE turns a query and a key by their positions; the score follows m − n."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ...examples import running_example
from ...lang import t
from ...positions import apply_rope, rope_angles
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
            raise ValueError(t("err_int_needed", name=name,
                               needs=t("err_int_range", low=0, high=MAX_POSITION), got=repr(value)))
    ex = running_example()
    q = ex.q[ex.index("cat")][None, :]  # (1, 4)
    k = ex.k[ex.index("sat")][None, :]  # (1, 4)
    d = q.shape[-1]
    half = d // 2
    distances = np.arange(-MAX_POSITION, MAX_POSITION + 1)  # (41,)


    def score_curve(keep: np.ndarray) -> np.ndarray:
        """The score for every distance, from the dimensions in ``keep`` only: q at
        position |Δ| or 0, k at 0 or |Δ|. Each pair turns on its own, so the pairs'
        curves add up to the whole one."""
        q_part, k_part = q * keep, k * keep  # (1, 4) each
        return np.array([float(apply_rope(q_part, [max(s, 0)])[0]
                               @ apply_rope(k_part, [max(-s, 0)])[0])
                         for s in distances])  # (41,)

    curve = score_curve(np.ones(d))  # (41,)
    # The slow pair's share: with d_k = 4 there are only two speeds, so the score swings
    # with the fast pair around the slow pair's nearly constant share, and does not decay.
    slow = score_curve(np.isin(np.arange(d), [half - 1, d - 1]).astype(float))  # (41,)
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
        # Positions are whole numbers: a dot per distance, joined by a faint line.
        ax.plot(distances, curve, "o-", color="0.35", lw=0.6, markersize=3.5,
                label=t("w_rope_curve_all"))
        ax.plot(distances, slow, "--", color="tab:green", lw=1.5,
                label=t("w_rope_curve_slow", first=half - 1, second=d - 1))
        ax.legend(loc="lower center", fontsize=8, ncols=2, frameon=False,
                  bbox_to_anchor=(0.5, 1.0), borderaxespad=0.2)
        marker, = ax.plot([state["m"] - state["n"]], [state["score"]], "o", color="tab:red",
                          markersize=8)
        animate(marker)
        ax.axhline(0, color="0.85", lw=0.8)
        ax.set_xlabel(t("p_pos_distance"))
        ax.set_ylabel(t("p_pos_score"))
        ax.set_title(t("w_rope_curve_title"), fontsize=10, pad=22)
        handle["marker"] = marker
        return handle

    def change(handle: dict, panel: Panel) -> None:
        state = panel.state
        for i, (q_arrow, k_arrow) in enumerate(handle["arrows"]):
            pair = [i, i + half]
            q_arrow.xy = tuple(state["q"][pair])
            k_arrow.xy = tuple(state["k"][pair])
        handle["marker"].set_data([state["m"] - state["n"]], [state["score"]])

    live = LiveFigure(draw, figsize=(9.6, 3.8), update=change)
    return Panel("rope_explorer", {"m": m_slider, "n": n_slider}, live, update)

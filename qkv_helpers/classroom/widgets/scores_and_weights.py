"""The widgets of lessons 01-05: query word, dot product, d_k, temperature, weighted sum.

Each function returns a :class:`Panel`; ``panel.state`` holds what the figure shows, so a
test can move a control in Python and see the data change.
"""

from __future__ import annotations

import functools

import ipywidgets as widgets
import numpy as np

from ... import _validate as validate
from ...attention import scaled_dot_product_attention, softmax
from ...examples import running_example
from ...lang import t
from ...score_scale import dk_stats, random_queries_keys
from ...similarity import dot_and_angle, query_scores, vector_from_angle
from ...weighted_sum import weighted_sum_steps
from ..plots.score_scale import plot_score_histogram, score_histograms
from ..plots.similarity import plot_vectors_2d
from ..plots.softmax_curves import plot_softmax_curves
from ._artists import animate, bars_handle, padded_limits, set_bars
from ._live import LiveFigure, Panel

__all__ = [
    "dot_product_explorer",
    "query_explorer",
    "scaling_explorer",
    "temperature_explorer",
    "weighted_sum_stepper",
]

_STYLE = {"description_width": "initial"}
DK_VALUES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def _token_dropdown(tokens, token: str, name: str = "token") -> widgets.Dropdown:
    validate.token_of(token, name, tokens)
    options = [(f"{i}: {tok}", i) for i, tok in enumerate(tokens)]
    return widgets.Dropdown(options=options, value=tokens.index(token),
                            description=t("w_query_select"), style=_STYLE)


def _fmt(vector) -> str:
    return np.array2string(np.asarray(vector), precision=2, suppress_small=True)


def query_explorer(token: str = "cat", key: str = "sat") -> Panel:
    """Lesson 01: pick a query word; see its scores q·k/√d_k and its weights as bars.

    A slider picks one key to compare with: its bars are drawn in the highlight colour and
    the caption gives its score and weight.

    Examples
    --------
    >>> panel = query_explorer()
    >>> panel.state["top"], panel.state["key"]
    ('sat', 'sat')
    >>> panel.controls["query"].value = 3          # "on"
    >>> panel.state["token"], panel.state["top"]
    ('on', 'the')
    >>> panel.controls["key"].value = 0            # compare "on" with "The"
    >>> panel.state["key"]
    'The'
    """
    ex = running_example()
    validate.token_of(key, "key", ex.tokens)
    dropdown = _token_dropdown(ex.tokens, token)
    slider = widgets.IntSlider(value=ex.index(key), min=0, max=len(ex.tokens) - 1,
                               description=t("w_query_key"), style=_STYLE)
    state: dict = {}

    def update(panel: Panel) -> None:
        index, j = dropdown.value, slider.value
        s = query_scores(ex.q, ex.k, index)
        top = int(np.argmax(s.weights))
        state.update(token=ex.tokens[index], scores=s.scaled, weights=s.weights,
                     top=ex.tokens[top], key=ex.tokens[j], key_index=j)
        panel.state = state
        panel.caption.value = (
            t("w_query_caption", token=ex.tokens[index], top=ex.tokens[top],
              weight=f"{s.weights[top]:.2f}", total=f"{s.weights.sum():.2f}") + " "
            + t("w_query_key_caption", word=ex.tokens[j], score=f"{s.scaled[j]:.2f}",
                weight=f"{s.weights[j]:.2f}"))

    # One y-range for every query's scores, so bars of different queries compare.
    all_scores = np.stack([query_scores(ex.q, ex.k, i).scaled for i in range(len(ex.tokens))])
    score_limits = padded_limits(all_scores)

    def draw(fig, *_) -> dict:
        left, right = fig.subplots(1, 2)
        j = state["key_index"]
        return dict(
            scores=bars_handle(left, state["scores"], ex.tokens, ylim=score_limits,
                               highlight=j,
                               title=t("w_query_scores_title", token=state["token"])),
            weights=bars_handle(right, state["weights"], ex.tokens, ylim=(0, 1.0),
                                ylabel=t("weights"), highlight=j,
                                title=t("w_query_weights_title", token=state["token"])))

    def change(handle: dict, *_) -> None:
        j = state["key_index"]
        set_bars(handle["scores"], state["scores"], highlight=j,
                 title=t("w_query_scores_title", token=state["token"]))
        set_bars(handle["weights"], state["weights"], highlight=j,
                 title=t("w_query_weights_title", token=state["token"]))

    live = LiveFigure(draw, figsize=(11.0, 3.8), update=change)
    return Panel("query_explorer", {"query": dropdown, "key": slider}, live, update)


def dot_product_explorer(q_angle: float = 30.0, q_length: float = 1.5) -> Panel:
    """Lesson 02: rotate and stretch k; see q·k = |q|·|k|·cos θ change.

    Examples
    --------
    >>> panel = dot_product_explorer()
    >>> panel.state["dot"] > 0                      # k starts 30° from q
    True
    >>> panel.controls["angle"].value = 120         # 90° from q
    >>> abs(panel.state["dot"]) < 1e-9
    True
    >>> panel.controls["angle"].value = 210         # opposite to q
    >>> round(panel.state["dot"], 2)                # -|q|·|k| = -1.5 × 1.5
    -2.25
    """
    q_angle = validate.real_number(q_angle, "q_angle")
    q_length = validate.real_number(q_length, "q_length", 0.0, 2.5,
                                    low_open=True)  # inside the view
    q = vector_from_angle(q_angle, q_length)  # (2,)
    angle = widgets.IntSlider(value=60, min=0, max=360, step=5, description=t("w_dot_angle"),
                              style=_STYLE)
    length = widgets.FloatSlider(value=1.5, min=0.25, max=2.5, step=0.25,
                                 description=t("w_dot_length"), style=_STYLE)
    state: dict = {"q": q, "q_angle": q_angle}

    def update(panel: Panel) -> None:
        k = vector_from_angle(angle.value, length.value)  # (2,)
        d = dot_and_angle(q, k)
        if d.cos_angle > 0.995:
            hint = "w_dot_same"
        elif d.cos_angle < -0.995:
            hint = "w_dot_opposite"
        elif abs(d.cos_angle) < 0.005:
            hint = "w_dot_right"
        else:
            hint = "w_dot_positive" if d.cos_angle > 0 else "w_dot_negative"
        state.update(k=k, dot=d.dot, angle_deg=d.angle_deg)
        panel.state = state
        panel.caption.value = t("w_dot_caption", dot=f"{d.dot:.2f}", hint=t(hint))

    def draw(fig, *_) -> dict:
        ax = plot_vectors_2d(q, state["k"], ax=fig.add_subplot(), limit=2.8)
        arrow, label, arc = ax.texts[2], ax.texts[3], ax.patches[0]  # k's arrow, name, angle
        animate(arrow, label, arc, ax.title)
        return dict(ax=ax, arrow=arrow, label=label, arc=arc)

    def change(handle: dict, *_) -> None:
        # What plot_vectors_2d draws for the new k: its arrow and name, the angle's arc,
        # the title with the numbers.
        k = state["k"]
        d = dot_and_angle(q, k)
        handle["arrow"].xy = tuple(k)
        handle["label"].set_position(tuple(k * 1.1))
        start = np.degrees(np.arctan2(q[1], q[0]))
        end = np.degrees(np.arctan2(k[1], k[0]))
        if (end - start) % 360 > 180:
            start, end = end, start
        arc = handle["arc"]
        arc.theta1, arc.theta2 = start, end
        diameter = 2 * 0.35 * min(d.length_a, d.length_b)
        arc.set_width(diameter)
        arc.set_height(diameter)
        handle["ax"].title.set_text(t(
            "p_sim_title", dot=f"{d.dot:.2f}", la=f"{d.length_a:.2f}", lb=f"{d.length_b:.2f}",
            cos=f"{d.cos_angle:.2f}", angle=f"{d.angle_deg:.0f}"))

    live = LiveFigure(draw, figsize=(5.6, 5.4), update=change)
    return Panel("dot_product_explorer", {"angle": angle, "length": length}, live, update)


def scaling_explorer(d_k: int = 4) -> Panel:
    """Lesson 03: a d_k slider; the spread of the scores and the weights, raw and scaled.

    Examples
    --------
    >>> panel = scaling_explorer()
    >>> small = panel.state["max_raw"]
    >>> panel.controls["d_k"].value = 512
    >>> bool(panel.state["max_raw"] > small), round(panel.state["var_scaled"], 1)
    (True, 1.0)
    """
    if isinstance(d_k, (bool, np.bool_)) or not isinstance(d_k, (int, np.integer)) \
            or d_k not in DK_VALUES:
        raise (ValueError if isinstance(d_k, (int, np.integer)) else TypeError)(
            t("err_choice", name="d_k", allowed=DK_VALUES, got=repr(d_k)))
    slider = widgets.SelectionSlider(options=list(DK_VALUES), value=int(d_k),
                                     description=t("w_dk_slider"), style=_STYLE)
    limit = 4.0 * np.sqrt(max(DK_VALUES)) / 2  # the histogram's fixed half-width
    state: dict = {}

    @functools.cache  # once per d_k: the slider comes back to values it has shown
    def scores(d: int) -> tuple[np.ndarray, np.ndarray]:
        """The 4000 raw and scaled scores plot_score_histogram and the caption use."""
        q, k = random_queries_keys(d, 4000, 0)  # (4000, d) each
        raw = np.einsum("nd,nd->n", q, k)  # (4000,)
        return raw, raw / np.sqrt(d)

    def densities(d: int) -> tuple[np.ndarray, np.ndarray]:
        """The heights plot_score_histogram draws for d: raw and scaled, (60,) each."""
        _, raw, _, scaled = score_histograms(scores(d)[0], d, limit)
        return raw, scaled

    def scaled_edges(d: int) -> np.ndarray:
        """The scaled histogram's bin edges for d (the raw ones / √d), (61,)."""
        return score_histograms([0.0], d, limit)[2]

    def update(panel: Panel) -> None:
        stats = dk_stats(slider.value)
        raw, scaled = scores(slider.value)
        state.update(d_k=slider.value, weights_raw=stats.weights_raw,
                     weights_scaled=stats.weights_scaled, max_raw=stats.max_raw,
                     max_scaled=stats.max_scaled, grad_raw=stats.grad_raw,
                     grad_scaled=stats.grad_scaled, var_raw=float(raw.var()),
                     var_scaled=float(scaled.var()))
        state["density_raw"], state["density_scaled"] = densities(slider.value)
        panel.state = state
        panel.caption.value = t("w_dk_caption", d_k=slider.value,
                                max_raw=f"{stats.max_raw:.2f}",
                                max_scaled=f"{stats.max_scaled:.2f}",
                                grad_raw=f"{stats.grad_raw:.3f}",
                                grad_scaled=f"{stats.grad_scaled:.3f}")

    def draw(fig, *_) -> dict:
        left, right = fig.subplots(1, 2)
        plot_score_histogram(state["d_k"], ax=left, limit=limit)
        # One density axis for every d_k (the tallest bin of any), so it stays put.
        tallest = max(max(raw.max(), scaled.max()) for raw, scaled in map(densities, DK_VALUES))
        left.set_ylim(0, 1.45 * tallest)  # room above the tallest bin for the legend
        hist_raw, hist_scaled = left.patches[:2]  # one outline per histogram
        x = np.arange(len(state["weights_raw"]))
        bars_raw = right.bar(x - 0.2, state["weights_raw"], width=0.4, label=t("w_dk_unscaled"))
        bars_scaled = right.bar(x + 0.2, state["weights_scaled"], width=0.4,
                                label=t("w_dk_scaled"))
        # Room above the bars (a weight reaches 1) for the legend, so it covers none.
        right.set_ylim(0, 1.45)
        right.set_yticks(np.linspace(0, 1, 6))
        right.set_xticks(x, [f"k{i + 1}" for i in x])
        right.set_ylabel(t("weights"))
        right.set_title(t("w_dk_weights_title"))  # the same size as the left panel's
        right.legend(fontsize="small", loc="upper center", ncols=2)
        animate(hist_raw, hist_scaled, left.get_legend(), left.title, *bars_raw,
                *bars_scaled, right.get_legend())
        return dict(hist_raw=hist_raw, hist_scaled=hist_scaled, left=left,
                    bars_raw=list(bars_raw), bars_scaled=list(bars_scaled))

    def change(handle: dict, *_) -> None:
        handle["hist_scaled"].set_data(edges=scaled_edges(state["d_k"]))
        for key in ("raw", "scaled"):
            handle[f"hist_{key}"].set_data(state[f"density_{key}"])
            for bar, weight in zip(handle[f"bars_{key}"], state[f"weights_{key}"]):
                bar.set_height(weight)
        left = handle["left"]
        # The texts plot_score_histogram writes for this d_k.
        legend_raw, legend_scaled = left.get_legend().get_texts()
        legend_raw.set_text(t("p_scal_raw", var=f"{state['var_raw']:.1f}"))
        legend_scaled.set_text(t("p_scal_scaled", var=f"{state['var_scaled']:.2f}"))
        left.title.set_text(t("p_scal_hist_title", d_k=state["d_k"]))

    live = LiveFigure(draw, figsize=(11.0, 3.8), update=change)
    return Panel("scaling_explorer", {"d_k": slider}, live, update)


def temperature_explorer(token: str = "cat") -> Panel:
    """Lesson 04: a temperature slider; the query's weights and the two-score curve.

    Examples
    --------
    >>> panel = temperature_explorer()
    >>> panel.controls["temperature"].value = 0.1
    >>> bool(panel.state["weights"].max() > 0.9)
    True
    >>> panel.controls["temperature"].value = 10.0
    >>> bool(panel.state["weights"].max() < 0.25)
    True
    """
    ex = running_example()
    index = ex.index(validate.token_of(token, "token", ex.tokens))
    scaled = query_scores(ex.q, ex.k, index).scaled  # (tokens,)
    slider = widgets.FloatLogSlider(value=1.0, base=10, min=-1, max=1, step=0.05,
                                    description=t("w_temp_slider"), style=_STYLE,
                                    readout_format=".2f")
    state: dict = {}

    def update(panel: Panel) -> None:
        weights = softmax(scaled, temperature=slider.value)  # (tokens,)
        top = int(np.argmax(weights))
        state.update(temperature=slider.value, weights=weights)
        panel.state = state
        panel.caption.value = t("w_temp_caption", t=f"{slider.value:.2f}",
                                high=f"{weights.max():.2f}", top=ex.tokens[top],
                                low=f"{weights.min():.3f}",
                                uniform=f"{1 / len(weights):.2f}")

    def draw(fig, *_) -> dict:
        left, right = fig.subplots(1, 2)
        weights = state["weights"]
        bars = bars_handle(left, weights, ex.tokens, ylim=(0, 1.05), ylabel=t("weights"),
                           highlight=int(np.argmax(weights)),
                           title=t("w_temp_title", token=token,
                                   t=f"{state['temperature']:.2f}"))
        plot_softmax_curves((1.0,), ax=right, highlight=state["temperature"])
        animate(right.lines[-1], right.get_legend())
        return dict(bars=bars, line=right.lines[-1],
                    legend_text=right.get_legend().get_texts()[-1])

    def change(handle: dict, *_) -> None:
        weights, temp = state["weights"], state["temperature"]
        set_bars(handle["bars"], weights, highlight=int(np.argmax(weights)),
                 title=t("w_temp_title", token=token, t=f"{temp:.2f}"))
        # The same curve plot_softmax_curves draws for the highlighted temperature.
        line = handle["line"]
        diff = line.get_xdata()  # (points,)
        pairs = np.stack([diff, np.zeros_like(diff)], axis=1)  # (points, 2)
        line.set_ydata(softmax(pairs, axis=-1, temperature=float(temp))[:, 0])
        handle["legend_text"].set_text(t("p_smax_legend", t=f"{temp:.2g}"))

    live = LiveFigure(draw, figsize=(11.0, 3.8), update=change)
    return Panel("temperature_explorer", {"temperature": slider}, live, update)


def weighted_sum_stepper(token: str = "cat") -> Panel:
    """Lesson 05: add the weighted value rows of one query one key at a time.

    Examples
    --------
    >>> panel = weighted_sum_stepper()
    >>> panel.controls["step"].value = 7
    >>> from qkv_helpers import running_example, scaled_dot_product_attention
    >>> ex = running_example()
    >>> out = scaled_dot_product_attention(ex.q, ex.k, ex.v).output
    >>> bool(np.allclose(panel.state["partial"], out[1]))
    True
    """
    ex = running_example()
    weights_all = scaled_dot_product_attention(ex.q, ex.k, ex.v).weights  # (tokens, tokens)
    n = len(ex.tokens)
    dropdown = _token_dropdown(ex.tokens, token)
    step = widgets.IntSlider(value=0, min=0, max=n, description=t("w_sum_step"), style=_STYLE)
    state: dict = {}

    def update(panel: Panel) -> None:
        index = dropdown.value
        steps = weighted_sum_steps(weights_all[index], ex.v)
        s = step.value
        state.update(token=ex.tokens[index], weights=weights_all[index], step=s,
                     partial=steps.partial_sums[s], output=steps.output)
        panel.state = state
        if s == 0:
            text = t("w_sum_caption_start")
        elif s == n:
            text = t("w_sum_caption_done", n=n, partial=_fmt(steps.output),
                     token=ex.tokens[index])
        else:
            text = t("w_sum_caption", step=s, n=n, weight=f"{weights_all[index, s - 1]:.2f}",
                     word=ex.tokens[s - 1], term=_fmt(steps.contributions[s - 1]),
                     partial=_fmt(steps.partial_sums[s]))
        panel.caption.value = text

    outputs = weights_all @ ex.v  # (tokens, d_v): every query's final output
    limit = 1.15 * max(np.abs(ex.v).max() * 0.6, np.abs(outputs).max())

    def alphas(s: int) -> list[float]:
        return [1.0 if i < s else 0.3 for i in range(n)]  # keys not added yet: faint

    def draw(fig, *_) -> dict:
        left, right = fig.subplots(1, 2)
        s = state["step"]
        bars = bars_handle(left, state["weights"], ex.tokens, ylim=(0, 1.0),
                           ylabel=t("weights"), highlight=s - 1 if s else None,
                           title=t("w_sum_weights_title", token=state["token"]))
        for patch, alpha in zip(bars["bars"], alphas(s)):
            patch.set_alpha(alpha)
        x = np.arange(len(state["output"]))
        partial = right.bar(x, state["partial"], width=0.6, label=t("w_sum_partial"))
        final = right.scatter(x, state["output"], marker="_", s=900, color="black",
                              linewidths=3, label=t("w_sum_final"), zorder=3)
        zero = right.axhline(0, color="black", linewidth=0.8)
        # One range for every query's output, so the axis stays put while stepping.
        right.set_ylim(-limit, limit)
        right.set_xticks(x, [f"v[{i}]" for i in x])
        right.set_xlabel(t("w_sum_component"))
        right.set_title(t("w_sum_vector_title"), fontsize="medium")
        legend = right.legend(fontsize="small", loc="lower right")
        animate(*partial, final, zero, legend)
        return dict(bars=bars, partial=list(partial), final=final)

    def change(handle: dict, *_) -> None:
        s = state["step"]
        set_bars(handle["bars"], state["weights"], highlight=s - 1 if s else None,
                 title=t("w_sum_weights_title", token=state["token"]), alphas=alphas(s))
        for bar, value in zip(handle["partial"], state["partial"]):
            bar.set_height(value)
        x = np.arange(len(state["output"]))
        handle["final"].set_offsets(np.column_stack([x, state["output"]]))

    live = LiveFigure(draw, figsize=(11.0, 3.8), update=change)
    return Panel("weighted_sum_stepper", {"query": dropdown, "step": step}, live, update)

"""Lesson 09's pictures: the KV cache's bytes, the FLOPs of decoding, the speed-up, the fill."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ... import _validate as validate
from ...lang import t
from .. import style
from ._common import as_series, check_labels, new_axes

__all__ = [
    "plot_cache_fill",
    "plot_cache_growth",
    "plot_flops_per_step",
    "plot_speedup",
    "plot_step_memory",
    "plot_step_times",
    "plot_total_flops",
]


def plot_cache_growth(tokens, measured_bytes, formula_bytes, *, uncached_bytes=None,
                      allocated_bytes=None, ax: Axes | None = None) -> Axes:
    """Cache bytes against tokens kept: measured points on the formula's line.

    Parameters
    ----------
    tokens : sequence of int
        Tokens kept after each step.
    measured_bytes, formula_bytes : sequence of int
        The bytes measured (e.g. ``Step.cache_bytes``) and those the formula gives.
    uncached_bytes : sequence of int, optional
        Bytes kept between steps without a cache (all 0), drawn for contrast.
    allocated_bytes : sequence of int, optional
        Bytes reserved for the cache, used or not (``KVCache.allocated_nbytes``), drawn
        as a step line above the bytes in use.

    Examples
    --------
    >>> ax = plot_cache_growth([1, 2, 3], [256, 512, 768], [256, 512, 768])
    >>> [line.get_label() for line in ax.lines][:1] == [t("p_kv_formula")]
    True
    """
    tokens = as_series(tokens, "tokens", low=0)  # (steps,)
    measured_bytes = as_series(measured_bytes, "measured_bytes", len(tokens), low=0, per="tokens")
    formula_bytes = as_series(formula_bytes, "formula_bytes", len(tokens), low=0, per="tokens")
    if uncached_bytes is not None:
        uncached_bytes = as_series(uncached_bytes, "uncached_bytes", len(tokens), low=0,
                                   per="tokens")
    ax = new_axes(ax, figsize=(6.4, 3.8))
    ax.plot(tokens, formula_bytes, color="grey", linestyle="--", linewidth=1.5,
            label=t("p_kv_formula"))
    ax.plot(tokens, measured_bytes, "o", color=style.COLORS[0], markersize=4,
            label=t("p_kv_measured"))
    if uncached_bytes is not None:
        ax.plot(tokens, uncached_bytes, "s", color=style.COLORS[1], markersize=3,
                label=t("p_kv_uncached_kept"))
    if allocated_bytes is not None:
        allocated_bytes = as_series(allocated_bytes, "allocated_bytes", len(tokens), low=0,
                                    per="tokens")
        ax.plot(tokens, allocated_bytes, "-", color=style.COLORS[2], linewidth=2,
                label=t("p_kv_allocated"))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # tokens are whole numbers
    ax.set_xlabel(t("p_kv_tokens"))
    ax.set_ylabel(t("p_kv_bytes"))
    ax.set_title(t("p_kv_growth_title"))
    # Room above the highest line for the legend (up to four rows), so that it covers none
    # of the lines (the reserved bytes are a flat line at the top).
    highest = max(formula_bytes.max(), measured_bytes.max(),
                  0 if allocated_bytes is None else allocated_bytes.max(), 1)
    rows = 2 + (uncached_bytes is not None) + (allocated_bytes is not None)
    ax.set_ylim(0, highest * (1 + 0.17 * rows))
    ax.legend(fontsize="small", loc="upper left")
    return ax


def plot_flops_per_step(context, cached, uncached, *, ax: Axes | None = None,
                        title: str | None = None) -> Axes:
    """FLOPs of each decoding step, with and without the cache, against the tokens so far.

    Examples
    --------
    >>> ax = plot_flops_per_step([1, 2, 3], [10, 11, 12], [10, 21, 33])
    >>> ax.get_xlabel() == t("p_kv_step_axis")
    True
    """
    context = as_series(context, "context", low=0)  # (steps,)
    cached = as_series(cached, "cached", len(context), low=0, per="context")
    uncached = as_series(uncached, "uncached", len(context), low=0, per="context")
    ax = new_axes(ax, figsize=(6.4, 3.8))
    width = 0.4
    ax.bar(context - width / 2, uncached, width, color=style.COLORS[1],
           label=t("p_kv_uncached"))
    ax.bar(context + width / 2, cached, width, color=style.COLORS[0], label=t("p_kv_cached"))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(t("p_kv_step_axis"))
    ax.set_ylabel(t("p_kv_flops"))
    ax.set_title(t("p_kv_step_title") if title is None else title)
    ax.legend(fontsize="small", loc="upper left")
    return ax


def plot_total_flops(lengths, cached, uncached, *, ax: Axes | None = None) -> Axes:
    """Total FLOPs of generating T tokens, with and without the cache, against T.

    Examples
    --------
    >>> ax = plot_total_flops([1, 2, 4], [10, 20, 40], [10, 30, 100])
    >>> len(ax.lines)
    2
    """
    lengths = as_series(lengths, "lengths", low=0)  # (n,)
    cached = as_series(cached, "cached", len(lengths), low=0, per="lengths")
    uncached = as_series(uncached, "uncached", len(lengths), low=0, per="lengths")
    ax = new_axes(ax, figsize=(6.4, 3.8))
    ax.plot(lengths, uncached, "s-", color=style.COLORS[1], markersize=4,
            label=t("p_kv_uncached"))
    ax.plot(lengths, cached, "o-", color=style.COLORS[0], markersize=4, label=t("p_kv_cached"))
    ax.set_xlabel(t("p_kv_total_axis"))
    _label_in_powers_of_ten(ax, max(uncached.max(), cached.max()), t("p_kv_flops"))
    ax.set_title(t("p_kv_total_title"))
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small", loc="upper left")
    return ax


def _label_in_powers_of_ten(ax: Axes, largest: float, label: str) -> None:
    """The y label "FLOPs (×10¹⁰)" and ticks 0, 1, 2, ... in those units, instead of
    matplotlib's bare "1e10" above the axis (from 10⁶ up, where it would print one)."""
    exponent = int(np.floor(np.log10(largest))) if largest >= 1e6 else 0
    if exponent == 0:
        ax.set_ylabel(label)
        return
    unit = 10.0 ** exponent
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value / unit:g}"))
    ax.set_ylabel(f"{label} ($\\times 10^{{{exponent}}}$)")  # mathtext: any font shows it


def plot_speedup(lengths, measured, flop_ratio, predicted=None, *, overhead_us=None,
                 per_step: bool = False, ax: Axes | None = None) -> Axes:
    """Measured speed-up (uncached / cached time) against the FLOP ratio, over T.

    Parameters
    ----------
    lengths : sequence of int
        Tokens generated, T.
    measured : sequence of float
        Measured time ratios.
    flop_ratio : sequence of float
        Theory: the FLOP ratios.
    predicted : sequence of float, optional
        Theory with a fixed overhead per step (``overhead_us`` microseconds, for the label).
    per_step : bool
        The ratios are of single steps at context length ``lengths`` (the x label says
        so), not of whole runs generating ``lengths`` tokens. The y axis is then
        logarithmic, like the step times', so that a measured point below or above the
        dotted prediction shows even where the FLOP ratio is a hundred times larger.

    Examples
    --------
    >>> ax = plot_speedup([16, 32], [2.0, 3.5], [9.0, 17.0], [2.2, 3.6], overhead_us=300)
    >>> len(ax.get_legend().get_texts())
    3
    """
    lengths = as_series(lengths, "lengths", low=0)  # (n,)
    measured = as_series(measured, "measured", len(lengths), low=0, per="lengths")
    flop_ratio = as_series(flop_ratio, "flop_ratio", len(lengths), low=0, per="lengths")
    if predicted is not None:
        predicted = as_series(predicted, "predicted", len(lengths), low=0, per="lengths")
    if overhead_us is not None:
        overhead_us = validate.real_number(overhead_us, "overhead_us", low=0.0)
    ax = new_axes(ax, figsize=(6.4, 3.8))
    ax.plot(lengths, flop_ratio, "--", color="grey", linewidth=1.5, label=t("p_kv_flop_ratio"))
    if predicted is not None:
        label = t("p_kv_predicted", overhead=f"{overhead_us:.0f}" if overhead_us else "?")
        ax.plot(lengths, predicted, ":", color=style.COLORS[2], linewidth=2, label=label)
    ax.plot(lengths, measured, "o-", color=style.COLORS[0], markersize=5,
            label=t("p_kv_measured_speedup"))
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_xlabel(t("p_kv_step_axis") if per_step else t("p_kv_total_axis"))
    ax.set_ylabel(t("p_kv_speedup"))
    ax.set_title(t("p_kv_speedup_title"))
    if per_step:  # the FLOP ratio runs along the top: the legend goes below the lines
        ax.set_yscale("log")
        low = min(measured.min(), flop_ratio.min(), 1.0)
        ax.set_ylim(bottom=low / 8)  # room below the lines for the legend
        ax.legend(fontsize="small", loc="lower right")
    else:
        ax.set_ylim(bottom=0)
        ax.legend(fontsize="small", loc="upper left")
    return ax


def plot_cache_fill(values, capacity: int, *, tokens=None, n_heads: int | None = None,
                    vmax: float | None = None, ax: Axes | None = None) -> Axes:
    """The cache as a grid: a row per (layer, head), a column per position up to ``capacity``.

    Kept positions are coloured by ``values`` (e.g. the length of each key vector), on the
    colour scale drawn beside the grid; the positions not yet filled are hatched.

    Parameters
    ----------
    values : array, shape (layers · heads, tokens kept)
    capacity : int
        Columns to draw (tokens kept <= capacity).
    tokens : sequence of str, optional
        The words at the kept positions, for the x tick labels.
    n_heads : int, optional
        Heads per layer, to label the rows "layer l, head h" (otherwise "row r").
    vmax : float, optional
        The top of the colour scale (default: the largest value). A widget that adds
        columns step by step fixes it, so that a colour keeps its meaning.

    Examples
    --------
    >>> ax = plot_cache_fill(np.ones((8, 3)), 6, tokens=["The", "cat", "sat"], n_heads=4)
    >>> [label.get_text() for label in ax.get_xticklabels()][:3]
    ['The', 'cat', 'sat']
    >>> ax.images[0].colorbar.ax.get_ylabel() == t("p_kv_fill_scale")
    True
    """
    values = validate.array(values, "values", ndim=2, shape="(layers · heads, tokens kept)",
                            widen=True, empty=True)
    rows, kept = values.shape
    capacity = validate.integer(capacity, "capacity", 1)
    if rows == 0:
        raise ValueError(t("err_fill_rows", got=values.shape))
    if kept > capacity:
        raise ValueError(t("err_fill_capacity", kept=kept, capacity=capacity))
    if kept and values.min() < 0:
        raise ValueError(t("err_fill_negative", got=f"{values.min():g}"))
    if n_heads is not None:
        n_heads = validate.integer(n_heads, "n_heads", 1)
        if rows % n_heads:
            raise ValueError(t("err_fill_heads", rows=rows, n_heads=n_heads))
    if tokens is not None:
        tokens = check_labels(tokens, kept, "tokens", t("err_axis_cache"))
    if vmax is None:
        vmax = float(values.max()) if kept and values.max() > 0 else 1.0
    vmax = validate.real_number(vmax, "vmax", low=0.0, low_open=True)
    ax = new_axes(ax, figsize=(7.2, 3.2))
    grid = np.full((rows, capacity), np.nan)  # (rows, capacity)
    grid[:, :kept] = values
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=style.CMAP, vmin=0.0, vmax=vmax,
                      aspect="auto", interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, label=t("p_kv_fill_scale"), fraction=0.05, pad=0.02)
    ax.add_patch(_hatched(kept, rows, capacity))
    if n_heads:
        labels = [t("p_kv_fill_row", layer=r // n_heads, head=r % n_heads) for r in range(rows)]
    else:
        labels = [str(r) for r in range(rows)]
    ax.set_yticks(range(rows), labels, fontsize="small")
    ticks = list(range(capacity))
    names = [str(i) for i in ticks]
    if tokens is not None:
        names[:kept] = tokens
    ax.set_xticks(ticks, names, rotation=90, fontsize="small")
    ax.set_xlim(-0.5, capacity - 0.5)
    ax.set_xlabel(t("p_kv_fill_x"))
    ax.set_title(t("p_kv_fill_title"))
    return ax


def _hatched(kept: int, rows: int, capacity: int):
    """A hatched rectangle over the empty positions ``kept .. capacity - 1``."""
    from matplotlib.patches import Rectangle

    return Rectangle((kept - 0.5, -0.5), capacity - kept, rows, facecolor=style.MASK_COLOR,
                     edgecolor="white", hatch=style.MASK_HATCH, linewidth=0)


def plot_step_times(contexts, seconds_cached, seconds_uncached, fitted_cached=None,
                    fitted_uncached=None, *, ax: Axes | None = None) -> Axes:
    """Time of one decoding step (ms) against the tokens so far, t, with and without the cache.

    Parameters
    ----------
    contexts : sequence of int
        Tokens so far when the step runs.
    seconds_cached, seconds_uncached : sequence of float
        Measured time of one step.
    fitted_cached, fitted_uncached : sequence of float, optional
        The same from the fitted model overhead + FLOPs × time per FLOP, drawn dotted.

    Examples
    --------
    >>> ax = plot_step_times([16, 32], [1e-4, 1.1e-4], [3e-4, 5e-4], [1e-4, 1e-4], [3e-4, 5e-4])
    >>> len(ax.lines), len(ax.get_legend().get_texts()), ax.get_yscale()
    (4, 3, 'log')
    """
    contexts = as_series(contexts, "contexts", positive=True)  # (n,): a log axis
    series = [(name, None if values is None and name.startswith("fitted") else
               as_series(values, name, len(contexts), positive=True, per="contexts"))
              for name, values in (("seconds_cached", seconds_cached),
                                   ("seconds_uncached", seconds_uncached),
                                   ("fitted_cached", fitted_cached),
                                   ("fitted_uncached", fitted_uncached))]
    ax = new_axes(ax, figsize=(6.4, 3.8))
    for (_, seconds), (_, fitted), color, marker, key in (
            (series[1], series[3], style.COLORS[1], "s-", "p_kv_uncached"),
            (series[0], series[2], style.COLORS[0], "o-", "p_kv_cached")):
        ax.plot(contexts, np.asarray(seconds) * 1e3, marker, color=color, markersize=5,
                label=t(key))
        if fitted is not None:  # one legend entry for both dotted lines
            ax.plot(contexts, np.asarray(fitted) * 1e3, ":", color=color, linewidth=2,
                    label="_" if key == "p_kv_cached" else t("p_kv_fitted"))
    # Both axes logarithmic: a cached step (a tenth of a ms) and an uncached one (many ms)
    # are both readable, and time ∝ t is a straight line of slope 1.
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(contexts, [f"{c:g}" for c in contexts])
    ax.minorticks_off()
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))  # 0.1, 1, 10
    ax.set_xlabel(t("p_kv_step_axis"))
    ax.set_ylabel(t("p_kv_step_ms"))
    ax.set_title(t("p_kv_step_time_title"))
    ax.legend(fontsize="small", loc="upper left")
    return ax


def plot_step_memory(contexts, peak_uncached, peak_cached, cache_bytes, *,
                     ax: Axes | None = None) -> Axes:
    """Memory of one step (KB) against the tokens so far: peaks during it, cache kept.

    Parameters
    ----------
    contexts : sequence of int
        Tokens so far when the step runs.
    peak_uncached, peak_cached : sequence of int
        Peak bytes allocated during one step without and with the cache.
    cache_bytes : sequence of int
        Bytes the cache keeps between steps.

    Examples
    --------
    >>> ax = plot_step_memory([8, 60], [16765, 135276], [4424, 5480], [2048, 15360])
    >>> len(ax.lines)
    3
    """
    contexts = as_series(contexts, "contexts", low=0)  # (n,)
    peak_uncached, peak_cached, cache_bytes = (
        as_series(values, name, len(contexts), low=0, per="contexts")
        for name, values in (("peak_uncached", peak_uncached), ("peak_cached", peak_cached),
                             ("cache_bytes", cache_bytes)))
    ax = new_axes(ax, figsize=(6.4, 3.8))
    ax.plot(contexts, np.asarray(peak_uncached) / 1e3, "s-", color=style.COLORS[1],
            markersize=5, label=t("p_kv_peak_uncached"))
    ax.plot(contexts, np.asarray(peak_cached) / 1e3, "o-", color=style.COLORS[0],
            markersize=5, label=t("p_kv_peak_cached"))
    ax.plot(contexts, np.asarray(cache_bytes) / 1e3, "--", color=style.COLORS[2],
            linewidth=2, label=t("p_kv_kept"))
    ax.set_xlabel(t("p_kv_step_axis"))
    ax.set_ylabel(t("p_kv_kb"))
    ax.set_title(t("p_kv_memory_title"))
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small", loc="upper left")
    return ax

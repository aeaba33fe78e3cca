"""Lesson 13's pictures: the quadratic cost, tiled memory, serving memory, the roofline."""

from __future__ import annotations

import matplotlib.pyplot as plt  # noqa: F401  (the doctests close their figures)
import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

from ... import _validate as validate
from ...lang import t
from .. import style
from ._common import as_series, new_axes

__all__ = ["plot_cost_loglog", "plot_roofline", "plot_serving_memory", "readable_number"]


_SUFFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def readable_number(value, _position=None) -> str:
    """A log axis' tick label as a plain number: 0.1, 1, 10, 100, 1k, 10k, 1M, 3M, 1G.

    Superscript exponents (10¹, 10², 10³) are specks on a projector; plain numbers with
    k, M, G, T (thousand, million, billion, trillion) read at a glance. Only values with one
    significant digit get a label (the ticks of a log axis); others get none.

    >>> [readable_number(v) for v in (0.1, 1, 10, 300, 1e3, 3e4, 1e6, 2e9, 1e12, 1.5)]
    ['0.1', '1', '10', '300', '1k', '30k', '1M', '2G', '1T', '']
    """
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        return ""
    digits = f"{value:.0e}"  # e.g. '3e+04': one significant digit
    if not np.isclose(float(digits), value, rtol=1e-6):
        return ""
    for size, suffix in _SUFFIXES:
        if value >= size:
            return f"{value / size:g}{suffix}"
    return f"{value:g}"


def _plain_log_ticks(ax: Axes, x: bool = True, y: bool = True) -> None:
    """Label the log axes' decades with :func:`readable_number`, and also 3× each decade
    when an axis spans fewer than three decades (else it would show one or two labels)."""
    for axis, on in ((ax.xaxis, x), (ax.yaxis, y)):
        if on:
            low, high = axis.get_view_interval()
            few = np.log10(max(high, 1e-300) / max(low, 1e-300)) < 3
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 3.0) if few else (1.0,)))
            axis.set_major_formatter(FuncFormatter(readable_number))
            axis.set_minor_formatter(NullFormatter())


def _positive_1d(values, name: str, n: int | None = None) -> np.ndarray:
    """``values`` as 1-D finite numbers > 0 (a log axis), ``n`` of them if given."""
    arr = as_series(values, name, positive=True)  # (points,)
    if n is not None and arr.size != n:
        raise ValueError(t("err_series_per_length", name=name, n=n, got=arr.size))
    return arr


def plot_cost_loglog(lengths, series: dict, *, ylabel: str, ax: Axes | None = None,
                     slope_guide: float | None = 2.0) -> Axes:
    """Measured costs against sequence length on log–log axes, with a slope guide.

    Parameters
    ----------
    lengths : sequence of int
        Sequence lengths n.
    series : dict
        Label → values (one per length), e.g. ``{"plain": seconds, "tiled": seconds}``.
    ylabel : str
        What the values are (seconds, bytes).
    slope_guide : float or None
        Draw a dashed line ∝ n**slope_guide through the first series' last point.

    Examples
    --------
    >>> ax = plot_cost_loglog([256, 512, 1024], {"plain": [1, 4, 16]}, ylabel="bytes")
    >>> ax.get_xscale(), ax.get_yscale(), len(ax.lines)
    ('log', 'log', 2)
    >>> plt.close(ax.figure)
    """
    n = _positive_1d(lengths, "lengths")  # (points,)
    if not isinstance(series, dict) or not series:
        raise TypeError(t("err_series_dict", got=f"{type(series).__name__} {series!r}"[:120]))
    if not isinstance(ylabel, str):
        raise TypeError(t("err_ylabel_type", got=f"{type(ylabel).__name__} {ylabel!r}"))
    if slope_guide is not None:
        slope_guide = validate.real_number(slope_guide, "slope_guide")
    ax = new_axes(ax, figsize=(6.4, 4.0))
    first = None
    for i, (label, values) in enumerate(series.items()):
        y = _positive_1d(values, f"series[{label!r}]", n.size)
        first = y if first is None else first
        ax.plot(n, y, "o-", color=style.COLORS[i % len(style.COLORS)], label=label)
    if slope_guide is not None and first is not None:
        guide = first[-1] * (n / n[-1]) ** slope_guide
        ax.plot(n, guide, "--", color="grey", linewidth=1,
                label=t("p_s13_slope", slope=f"{slope_guide:g}"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(n))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    _plain_log_ticks(ax, x=False)
    ax.set_xlabel(t("p_s13_tokens"))
    ax.set_ylabel(ylabel)
    ax.legend()
    return ax


def plot_serving_memory(memory, *, ax: Axes | None = None) -> Axes:
    """Bars: bytes used, held by a paged cache, and reserved for max_len per request.

    ``memory`` is a :class:`~qkv_helpers.measure.long_context.ServingMemory`.

    >>> from qkv_helpers.measure.long_context import serve_requests
    >>> ax = plot_serving_memory(serve_requests([3, 17, 40], max_len=64))
    >>> len(ax.patches)
    3
    >>> plt.close(ax.figure)
    """
    from ...measure.long_context import ServingMemory

    validate.instance_of(memory, "memory", ServingMemory, "from serve_requests")
    values = np.array([validate.real_number(getattr(memory, field), f"memory.{field}", 0.0)
                       for field in ("used", "paged_reserved", "max_len_reserved")]) / 2**20
    if values.max() == 0:
        raise ValueError(t("err_memory_zero"))
    labels = [t("p_s13_used"), t("p_s13_paged"), t("p_s13_max_len")]
    ax = new_axes(ax, figsize=(6.4, 3.8))
    bars = ax.bar(labels, values, color=[style.COLORS[2], style.COLORS[0], style.COLORS[1]])
    for bar, value in zip(bars, values):
        ax.text(bar.get_x() + bar.get_width() / 2, value, f"{value:.1f} MiB", ha="center",
                va="bottom")
    ax.set_ylabel(t("p_s13_mib"))
    ax.set_ylim(0, values.max() * 1.15)
    return ax


def plot_roofline(gpu, points: dict, *, ax: Axes | None = None) -> Axes:
    """The roofline of ``gpu`` and where each step lands (attainable FLOP/s vs FLOPs per byte).

    ``points`` maps a label to a :class:`~qkv_helpers.measure.long_context.StepCost`. Left of
    the ridge, memory bandwidth limits a step; right of it, the arithmetic units.

    >>> from qkv_helpers.measure.long_context import A100_80GB, LLAMA_2_7B, step_cost
    >>> ax = plot_roofline(A100_80GB, {"decode": step_cost(LLAMA_2_7B, 1, 512)})
    >>> ax.get_xscale()
    'log'
    >>> plt.close(ax.figure)
    """
    from ...measure.long_context import Gpu, StepCost

    validate.instance_of(gpu, "gpu", Gpu, "e.g. A100_80GB")
    for field in ("peak_flops", "bandwidth"):
        validate.real_number(getattr(gpu, field), f"gpu.{field}", 0.0, low_open=True)
    if not isinstance(points, dict):
        raise TypeError(t("err_points_dict", got=type(points).__name__))
    for label, cost in points.items():
        validate.instance_of(cost, f"points[{label!r}]", StepCost, "from step_cost")
        validate.real_number(cost.flops, f"points[{label!r}].flops", 0.0, low_open=True)
        validate.real_number(cost.bytes_read, f"points[{label!r}].bytes_read", 0.0, low_open=True)
    ax = new_axes(ax, figsize=(6.8, 4.2))
    x = np.logspace(-1, 4.5, 200)  # FLOPs per byte
    roof = np.minimum(gpu.peak_flops, gpu.bandwidth * x) / 1e12  # TFLOP/s
    ax.plot(x, roof, color="black", linewidth=2, label=t("p_s13_roof", gpu=gpu.name))
    ax.axvline(gpu.ridge, color="grey", linestyle=":", linewidth=1)
    ax.text(gpu.ridge * 1.1, gpu.peak_flops / 1e12 * 0.04,
            t("p_s13_ridge", ridge=f"{gpu.ridge:.0f}"), color="grey")
    for i, (label, cost) in enumerate(points.items()):
        y = min(gpu.peak_flops, gpu.bandwidth * cost.intensity) / 1e12
        ax.plot([cost.intensity], [y], "o", markersize=9,
                color=style.COLORS[i % len(style.COLORS)],
                label=f"{label}: {cost.intensity:,.0f} FLOP/B")
    ax.set_xscale("log")
    ax.set_yscale("log")
    _plain_log_ticks(ax)
    ax.set_xlabel(t("p_s13_intensity"))
    ax.set_ylabel(t("p_s13_tflops"))
    ax.legend(loc="lower right", fontsize="small")
    return ax

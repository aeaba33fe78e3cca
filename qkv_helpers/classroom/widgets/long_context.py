"""Lesson 13's widgets: the online softmax streaming over key blocks; a paged KV cache's pool."""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import Rectangle

from ... import _validate as validate
from ...kv_cache import PagedKVCache
from ...lang import t
from ...measure.long_context import online_softmax_trace
from .. import style
from ..plots._common import text_color_on
from ._artists import animate
from ._live import LiveFigure, Panel

__all__ = ["paged_cache_view", "tiling_animation"]

#: Opacity of the fill of a held block (its text colour is chosen for the colour seen).
FILL_ALPHA = 0.85


def tiling_animation(n_keys: int = 24, block_size: int = 4, d_v: int = 3, seed: int = 3,
                     step: int = 1) -> Panel:
    """A slider moves through the key blocks of one query row, as tiled attention does.

    Left: the row's scores, one bar per key; the blocks already taken in are coloured, the
    current one outlined, the rest grey, and a line marks the running maximum ``m``.
    Middle: ``m`` and the running sum ``l`` after each block (``l`` drops when ``m`` grows:
    the rescaling by ``exp(m_old − m_new)``). Right: the running output ``o / l`` beside
    the final one, ``softmax(scores)·V``, which it reaches at the last block.

    Examples
    --------
    >>> panel = tiling_animation()
    >>> panel.state["keys_seen"], panel.state["blocks"]
    (4, 6)
    >>> panel.controls["step"].value = 6
    >>> bool(np.allclose(panel.state["output"], panel.state["final"]))
    True
    """
    n_keys = validate.integer(n_keys, "n_keys",
                              low=3)  # the late large score sits at n_keys // 2 + 1
    block_size = validate.integer(block_size, "block_size", 1, n_keys)
    d_v, seed = validate.integer(d_v, "d_v", 1), validate.seed(seed)
    n_blocks = -(-n_keys // block_size)
    step = validate.integer(step, "step", 1, n_blocks)
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=n_keys) * 1.5  # (n_keys,): one query's scaled scores
    scores[n_keys // 2 + 1] += 3.0  # a large score arrives late: the maximum must move
    v = rng.normal(size=(n_keys, d_v))  # (n_keys, d_v)
    trace = online_softmax_trace(scores, v, block_size)
    final = trace[-1].output  # softmax(scores) @ v
    slider = widgets.IntSlider(value=step, min=1, max=n_blocks,
                               description=t("w_s13_block"))

    def update(panel: Panel) -> None:
        s = trace[slider.value - 1]
        panel.state = dict(step=slider.value, blocks=n_blocks, keys_seen=s.keys_seen, m=s.m,
                           l=s.l, rescale=s.rescale, output=s.output, final=final)
        panel.caption.value = t(
            "w_s13_tiling_caption", step=slider.value, blocks=n_blocks, seen=s.keys_seen,
            n=n_keys, m=f"{s.m:.2f}", l=f"{s.l:.3f}", rescale=f"{s.rescale:.3f}")

    steps = np.arange(1, n_blocks + 1)  # (blocks,)
    ms = np.array([s.m for s in trace])  # (blocks,): m after each block
    ls = np.array([s.l for s in trace])  # (blocks,): l after each block
    low, high = scores.min() - 0.5, scores.max() + 0.8

    def draw(fig, panel: Panel) -> dict:
        left, middle, right = fig.subplots(1, 3, width_ratios=[2.2, 1.2, 1.0])
        bars = left.bar(np.arange(n_keys), scores, color=style.MASK_COLOR)
        for b in range(1, n_blocks):
            left.axvline(b * block_size - 0.5, color="white", linewidth=1.5)
        frame = left.add_patch(Rectangle((-0.5, low), block_size, high - low, fill=False,
                                         edgecolor=style.COLORS[1], linewidth=2.5))
        m_line = left.axhline(0.0, color=style.COLORS[1], linestyle="--", linewidth=1.2)
        m_text = left.text(n_keys - 0.5, 0.0, "", color=style.COLORS[1], va="bottom",
                           ha="right")
        left.set_xlim(-0.5 - 0.6, n_keys - 0.5 + 0.6)
        left.set_ylim(low, high)
        left.set_xlabel(t("w_s13_key"))
        left.set_ylabel(t("w_s13_score"))
        left.set_title(t("w_s13_scores_title"))
        (m_curve,) = middle.plot([], [], "o-", color=style.COLORS[1], label="m")
        (l_curve,) = middle.plot([], [], "s-", color=style.COLORS[0], label="l")
        middle.set_xlim(0.5, n_blocks + 0.5)
        middle.set_ylim(min(0.0, ms.min()) - 0.3, max(ms.max(), ls.max()) + 0.5)
        middle.set_xlabel(t("w_s13_block"))
        middle.set_title(t("w_s13_running_title"))
        middle.legend(loc="upper left")
        x = np.arange(d_v)
        running = right.bar(x - 0.2, np.zeros(d_v), width=0.4, color=style.COLORS[0],
                            label=t("w_s13_running_out"))
        right.bar(x + 0.2, final, width=0.4, color="grey", alpha=0.6, label=t("w_s13_final"))
        limit = max(np.abs([s.output for s in trace]).max(), 0.1) * 1.3
        right.set_ylim(-limit, limit)
        right.set_xticks(x)
        right.set_title(t("w_s13_output_title"))
        right.legend(loc="lower right", fontsize="small")
        handle = dict(bars=list(bars), frame=frame, m_line=m_line, m_text=m_text,
                      m_curve=m_curve, l_curve=l_curve, running=list(running))
        animate(*handle["bars"], frame, m_line, m_text, m_curve, l_curve, *handle["running"])
        change(handle, panel)
        return handle

    def change(handle: dict, panel: Panel) -> None:
        state = panel.state
        seen, block = state["keys_seen"], state["step"]
        for j, bar in enumerate(handle["bars"]):
            bar.set_color(style.COLORS[0] if j < seen else style.MASK_COLOR)
        start = (block - 1) * block_size
        handle["frame"].set_x(start - 0.5)
        handle["frame"].set_width(min(block_size, n_keys - start))
        handle["m_line"].set_ydata([state["m"], state["m"]])
        handle["m_text"].set_y(state["m"])
        handle["m_text"].set_text(f" m = {state['m']:.2f}")
        handle["m_curve"].set_data(steps[:block], ms[:block])
        handle["l_curve"].set_data(steps[:block], ls[:block])
        for bar, value in zip(handle["running"], state["output"]):
            bar.set_height(value)

    return Panel("tiling_animation", {"step": slider},
                 LiveFigure(draw, figsize=(12.0, 3.9), update=change), update)


def _paged_schedule(n_sequences: int, max_len: int, seed: int):
    """Arrival step and length of each request: they come in one after another, staggered."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(2, max_len + 1, size=n_sequences)
    arrivals = np.cumsum(rng.integers(0, 4, size=n_sequences))
    arrivals -= arrivals[0]
    return arrivals, lengths


def paged_cache_view(n_blocks: int = 24, block_size: int = 4, n_sequences: int = 6,
                     max_len: int = 18, seed: int = 1, time: int | None = None) -> Panel:
    """A slider moves time on a server: requests arrive, grow a token per step, finish.

    Each request appends one token per step to a :class:`~qkv_helpers.PagedKVCache` until it
    reaches its length, then is freed. The pool is drawn as a grid of blocks, coloured by the
    request that holds each (white = free), with the used slots of each block filled. The
    caption compares the bytes used, held by the paged cache and reserved by a cache that
    keeps ``max_len`` tokens per live request. ``time`` is where the slider starts (step 8,
    or the last step if there are fewer, by default).

    Examples
    --------
    >>> panel = paged_cache_view()
    >>> panel.controls["time"].value = 0
    >>> panel.state["owners"].count(-1) == 24 - len(panel.state["tables"][0])
    True
    >>> panel.controls["time"].value = 30
    >>> panel.state["used_tokens"] <= panel.state["held_blocks"] * 4
    True
    """
    n_blocks = validate.integer(n_blocks, "n_blocks", 1)
    block_size = validate.integer(block_size, "block_size", 1)
    n_sequences = validate.integer(n_sequences, "n_sequences", 1)
    max_len, seed = validate.integer(max_len, "max_len", low=2), validate.seed(seed)
    arrivals, lengths = _paged_schedule(n_sequences, max_len, seed)
    end = int((arrivals + lengths).max())
    time = min(8, end) if time is None else validate.integer(time, "time", 0, end)
    slider = widgets.IntSlider(value=time, min=0, max=end,
                               description=t("w_s13_time"))

    def replay(now: int) -> tuple[PagedKVCache, dict]:
        cache = PagedKVCache(1, 1, block_size, n_blocks)
        ids, token = {}, np.zeros((1, 1, 1), np.float32)
        for step in range(now + 1):
            for r in range(n_sequences):
                age = step - int(arrivals[r])
                if age == 0:
                    ids[r] = cache.new_sequence()
                if 0 <= age < lengths[r]:
                    cache.append(ids[r], token, token)
                elif age == lengths[r] and r in ids:
                    cache.free(ids.pop(r))
        return cache, ids

    try:  # every step, once: the pool must hold the blocks of the busiest moment
        replay(end)
    except MemoryError:
        raise ValueError(t("err_blocks_too_few", n_blocks=n_blocks,
                           block_size=block_size)) from None

    def update(panel: Panel) -> None:
        cache, ids = replay(slider.value)
        owners = [-1] * n_blocks  # request holding each block, -1 = free
        filled = [0] * n_blocks  # used slots of each block
        tables = {}
        for r, seq in ids.items():
            table = cache.block_table(seq)
            tables[r] = table
            for i, b in enumerate(table):
                owners[b] = r
                filled[b] = min(block_size, cache.length(seq) - i * block_size)
        used = sum(cache.length(s) for s in ids.values())
        held = sum(len(tb) for tb in tables.values())
        reserved = len(ids) * max_len
        panel.state = dict(time=slider.value, owners=owners, filled=filled, tables=tables,
                           used_tokens=used, held_blocks=held, max_len_tokens=reserved)
        panel.caption.value = t(
            "w_s13_paged_caption", time=slider.value, live=len(ids), used=used,
            held=held * block_size, blocks=held, reserved=reserved, pool=n_blocks * block_size,
            free=cache.free_blocks)

    cols = 8
    rows = math.ceil(n_blocks / cols)

    def draw(fig, panel: Panel) -> dict:
        ax = fig.add_subplot()
        fills, labels, numbers = [], [], []
        for b in range(n_blocks):
            r, c = divmod(b, cols)
            ax.add_patch(Rectangle((c, -r), 0.92, -0.85, facecolor="white", edgecolor="grey",
                                   linewidth=1))
            fills.append(ax.add_patch(Rectangle((c, -r), 0.0, -0.85, edgecolor="none",
                                                alpha=FILL_ALPHA)))
            labels.append(ax.text(c + 0.46, -r - 0.42, "", ha="center", va="center",
                                  fontsize="small"))
            # The block's number, drawn over its fill (so animated, like the fill).
            numbers.append(ax.text(c + 0.04, -r - 0.08, str(b), fontsize=8, color="0.35",
                                   va="top"))
        ax.set_xlim(-0.1, cols + 0.1)
        ax.set_ylim(-rows - 0.1, 0.2)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(t("w_s13_pool_title", n=n_blocks, size=block_size))
        handle = dict(fills=fills, labels=labels, numbers=numbers)
        animate(*fills, *labels, *numbers)
        change(handle, panel)
        return handle

    def change(handle: dict, panel: Panel) -> None:
        state = panel.state
        for b, (fill, label, number) in enumerate(zip(handle["fills"], handle["labels"],
                                                      handle["numbers"])):
            owner, filled = state["owners"][b], state["filled"][b]
            held = owner >= 0
            fill.set_visible(held)
            label.set_visible(held)
            # Text on the fill in black or white, whichever reads on the request's colour;
            # the number sits in the first slot, the label in the middle of the block.
            color = style.COLORS[owner % len(style.COLORS)] if held else "white"
            on_fill = text_color_on(color, FILL_ALPHA)
            number.set_color(on_fill if held and filled > 0 else "0.35")
            if held:
                fill.set_width(0.92 * filled / block_size)
                fill.set_facecolor(color)
                label.set_text(f"R{owner}\n{filled}/{block_size}")
                label.set_color(on_fill if 2 * filled > block_size else "black")

    return Panel("paged_cache_view", {"time": slider},
                 LiveFigure(draw, figsize=(9.0, 3.8), update=change), update)

"""Lesson 09's widget: a "next token" button that decodes one token with the KV cache."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.ticker import FixedFormatter

from ... import _validate as validate
from ...kv_cache.arithmetic import kv_cache_bytes, step_flops
from ...lang import t
from ...measure.kv_cache_experiments import WORDS, CachedDecoder, lesson_model, to_ids, to_words
from ..plots.kv_cache import plot_cache_fill, plot_flops_per_step
from ._artists import animate
from ._live import LiveFigure, Panel

__all__ = ["kv_cache_stepper"]


def kv_cache_stepper(prompt: str = "The cat sat", max_tokens: int = 20) -> Panel:
    """Each click of "next token" decodes one token with the cache; "reset" starts over.

    The panel opens with the prompt already run (its keys and values in the cache, the
    first new word chosen). Left: the cache, a row per (layer, head), a column per
    position, coloured by the length of each kept key (one colour scale for the whole
    run, beside the grid); empty positions hatched. Right:
    the FLOPs of every step so far, with the cache and without. The caption gives the
    words, the cache's bytes by the formula and this step's FLOPs.

    Examples
    --------
    >>> panel = kv_cache_stepper()
    >>> panel.state["cache_tokens"], panel.state["cache_bytes"]
    (3, 768)
    >>> panel.controls["next"].click()
    >>> panel.state["cache_tokens"], panel.state["cache_bytes"]
    (4, 1024)
    >>> panel.controls["reset"].click()
    >>> panel.state["cache_tokens"]
    3
    """
    if not isinstance(prompt, str):
        raise TypeError(t("err_prompt_type", words=WORDS, got=repr(prompt)))
    unknown = [word for word in prompt.split() if word not in WORDS]
    if unknown:
        raise ValueError(t("err_prompt_word", words=WORDS, got=repr(unknown[0])))
    prompt_ids = to_ids(prompt)
    if not prompt_ids:
        raise ValueError(t("err_prompt_empty", words=WORDS, got=repr(prompt)))
    max_tokens = validate.integer(max_tokens, "max_tokens", low=len(prompt_ids) + 1)
    model = lesson_model()
    decoder = CachedDecoder(model, prompt_ids, capacity=max_tokens)
    itemsize = model.dtype.itemsize
    per_token = kv_cache_bytes(model.n_layers, model.n_heads, model.head_dim, 1,
                               bytes_per_value=itemsize)
    next_button = widgets.Button(description=t("w_kv_next"), button_style="primary")
    reset_button = widgets.Button(description=t("w_kv_reset"))

    def update(panel: Panel) -> None:
        steps = decoder.steps
        n = len(decoder)
        panel.state = dict(
            words=to_words(decoder.ids), cache_tokens=n, cache_bytes=decoder.cache_bytes,
            per_token_bytes=per_token, key_norms=decoder.key_norms(),  # (layers·heads, n)
            context=[s.context for s in steps], flops_cached=[s.flops for s in steps],
            flops_uncached=[s.flops_uncached for s in steps])
        last = steps[-1]
        full = n >= max_tokens
        next_button.disabled = full
        panel.caption.value = t(
            "w_kv_caption", words=to_words(decoder.ids[:-1]),
            new=to_words(decoder.ids[-1:]), n=n, per_token=per_token,
            bytes=f"{decoder.cache_bytes:,}", layers=model.n_layers, heads=model.n_heads,
            head_dim=model.head_dim, itemsize=itemsize, new_tokens=last.new_tokens,
            cached=f"{last.flops:,}", uncached=f"{last.flops_uncached:,}",
            ratio=f"{last.flops_uncached / last.flops:.1f}",
        ) + (t("w_kv_full") if full else "")

    # The right-hand plot's axes are fixed: steps from the prompt's to the last one, FLOPs
    # up to the last step's without a cache (the largest), so only the bars change.
    sizes = dict(d_model=model.d_model, n_layers=model.n_layers,
                 vocab_size=model.vocab_size, d_ff=model.d_ff)
    first_context = len(decoder.prompt)
    # One colour scale for the whole run: decoding is greedy, so a run to max_tokens made
    # now holds every key the stepper will show (a kept key's length never changes).
    whole_run = CachedDecoder(model, prompt_ids, capacity=max_tokens)
    while len(whole_run) < max_tokens:
        whole_run.step()
    longest_key = float(whole_run.key_norms().max())
    most_flops = step_flops(max_tokens, max_tokens, **sizes)
    contexts = np.arange(first_context, max_tokens + 1)  # (steps,): every step's context

    def draw(fig, panel: Panel) -> dict:
        state = panel.state
        left, right = fig.subplots(1, 2, width_ratios=[1.5, 1.0])
        plot_cache_fill(state["key_norms"], max_tokens, n_heads=model.n_heads, ax=left,
                        vmax=longest_key,
                        tokens=to_words(decoder.ids[: state["cache_tokens"]]).split())
        # Every step's bars made now, empty until the step is done.
        empty = np.zeros(len(contexts))  # (steps,)
        plot_flops_per_step(contexts, empty, empty, ax=right)
        right.set_xlim(first_context - 0.8, max_tokens + 0.8)
        right.set_ylim(0, 1.05 * most_flops)
        uncached, cached = right.containers
        # What changes with a step: the cache image, its hatching, the token names along
        # the x-axis and the bars.
        animate(left.images[0], left.patches[0], left.xaxis, *uncached, *cached)
        names = FixedFormatter([label.get_text() for label in left.get_xticklabels()])
        left.xaxis.set_major_formatter(names)  # its names change with each step
        handle = dict(left=left, uncached=list(uncached), cached=list(cached), names=names)
        change(handle, panel)
        return handle

    def change(handle: dict, panel: Panel) -> None:
        state = panel.state
        left = handle["left"]
        values = state["key_norms"]  # (rows, kept)
        rows, kept = values.shape
        grid = np.full((rows, max_tokens), np.nan)  # (rows, capacity)
        grid[:, :kept] = values
        image = left.images[0]
        image.set_data(np.ma.masked_invalid(grid))  # on the fixed scale of the colour bar
        hatched = left.patches[0]
        hatched.set_x(kept - 0.5)
        hatched.set_width(max_tokens - kept)
        names = [str(i) for i in range(max_tokens)]
        names[:kept] = to_words(decoder.ids[:kept]).split()
        handle["names"].seq = names
        done = dict(zip(state["context"], zip(state["flops_uncached"], state["flops_cached"])))
        for context, bar_u, bar_c in zip(contexts, handle["uncached"], handle["cached"]):
            flops_u, flops_c = done.get(context, (0, 0))
            bar_u.set_height(flops_u)
            bar_c.set_height(flops_c)
            bar_u.set_visible(context in done)
            bar_c.set_visible(context in done)

    def step(_button) -> None:
        if len(decoder) < max_tokens:
            decoder.step()
            panel.refresh()

    def reset(_button) -> None:
        decoder.reset()
        decoder.step()  # run the prompt again
        panel.refresh()

    decoder.step()  # the prompt
    panel = Panel("kv_cache_stepper", {"next": next_button, "reset": reset_button},
                  LiveFigure(draw, figsize=(11.5, 4.2), update=change), update)
    next_button.on_click(step)
    reset_button.on_click(reset)
    return panel

"""A battery of bad inputs against the lesson helpers, plots and widgets of ``qkv_helpers``.

Run it to see how each public entry point answers input it should refuse::

    .venv/bin/python tools/bad_inputs_lessons.py          # counts, then the bad cases
    .venv/bin/python tools/bad_inputs_lessons.py -v       # every case

Covered: ``similarity``, ``score_scale``, ``weighted_sum``, ``examples``, ``pipeline``,
``encoder_decoder``, ``kv_cache.arithmetic``, ``lang`` (``set_language``, ``t``, ``setup``),
``measure.kv_cache_experiments.to_words``, every plot in ``qkv_helpers.classroom.plots`` and
every widget in ``qkv_helpers.classroom.widgets``; and (:func:`cases_lessons_11_13`)
``positions``, ``grouped_query``, ``masks.sliding_window_mask``, ``PagedKVCache``, ``tiled``'s
tiled attention and online softmax, ``long_context``, ``pretrained`` and lesson 09's
measurements in ``measure.kv_cache_experiments``.
(Attention, masks, the KV cache and the decoder have their own, tests/core/test_bad_inputs_core.py.)

Each case calls one entry point with one argument replaced by a bad value and is classed:

- ``ours``: a ValueError or TypeError (KeyError for a text key) raised by qkv_helpers whose
  message names the argument as the learner passed it;
- ``foreign``: any other exception (numpy's or Python's message, or ours without the name);
- ``silent``: it returned a result, and no check of that result said it was right.

A case may carry a ``correct`` check for inputs that are odd but allowed (huge or tiny
values): returning a result that passes it counts as ``ours`` (a right answer).
tests/classroom/test_bad_input_lessons.py runs every case and requires ``ours``.
"""

from __future__ import annotations

import math
import os
import sys
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import matplotlib

# Agg in this process only: not through MPLBACKEND, which the kernels that make test starts
# beside this module (nbval) would inherit, and then draw nothing inline.
matplotlib.use("Agg")

import numpy as np  # noqa: E402

NAN, INF = float("nan"), float("inf")


@dataclass
class Case:
    entry: str  # e.g. "similarity.dot_and_angle"
    arg: str  # the argument replaced, as the learner writes it
    what: str  # a short description of the bad value
    call: Callable[[], Any]
    correct: Callable[[Any], bool] | None = None


def _with_nan(a, value=NAN):
    a = np.array(a, dtype=float)
    a.flat[0] = value
    return a


def bad_arrays(good, *, batch_ok: bool = False, empty_ok: bool = False) -> list[tuple[str, Any]]:
    """Bad stand-ins for a real array argument whose good value is ``good``."""
    good = np.asarray(good, dtype=float)
    out = [
        ("NaN entry", _with_nan(good)),
        ("+inf entry", _with_nan(good, INF)),
        ("-inf entry", _with_nan(good, -INF)),
        ("complex dtype", good.astype(complex) + 1j),
        ("strings", np.full(good.shape, "a")),
        ("object array with None", np.full(good.shape, None, dtype=object)),
        ("None", None),
        ("a string", "abc"),
        ("0-d array", np.float64(1.0)),
    ]
    if good.ndim >= 1 and good.shape[0] >= 2:
        rows = good.tolist()
        ragged = [rows[0], rows[1][:-1] if isinstance(rows[1], list) and len(rows[1]) > 1
                  else [rows[1], rows[1]]]
        out.append(("ragged nested list", ragged))
    if not empty_ok:
        out.append(("empty first axis", np.zeros((0,) + good.shape[1:])))
        if good.ndim >= 2:
            out.append(("empty last axis", np.zeros(good.shape[:-1] + (0,))))
    if not batch_ok:
        out.append(("extra batch axis", np.stack([good, good])))
    if good.ndim >= 2:
        out.append(("one axis too few", good[0]))
    return out


BAD_INTS = [("0", 0), ("-1", -1), ("1.7", 1.7), ("2.0 (float)", 2.0), ("True", True),
            ("np.True_", np.True_), ("'3'", "3"), ("None", None), ("NaN", NAN), ("[1]", [1])]
BAD_SEEDS = [("-1", -1), ("1.5", 1.5), ("True", True), ("'a'", "a"), ("None", None),
             ("[1, 2]", [1, 2])]
BAD_REALS = [("NaN", NAN), ("inf", INF), ("-inf", -INF), ("'1'", "1"), ("None", None),
             ("1j", 1j), ("[1.0]", [1.0]), ("True", True)]
BAD_POSITIVE_REALS = BAD_REALS + [("0", 0.0), ("-1", -1.0)]
BAD_OPTIONAL_POSITIVE_REALS = [b for b in BAD_POSITIVE_REALS if b[0] != "None"]
BAD_FLAGS = [("'no'", "no"), ("None", None), ("0.5", 0.5), ("[]", [])]
BAD_TOKENS = [("'dog'", "dog"), ("3", 3), ("None", None), ("''", ""), ("['cat']", ["cat"]),
              ("'Cat'", "Cat")]


def bad_positions(n: int) -> list[tuple[str, Any]]:
    return [(str(n), n), ("99", 99), ("-1", -1), ("1.7", 1.7), ("True", True),
            ("np.True_", np.True_), ("'1'", "1"), ("None", None), ("[1]", [1])]


def bad_labels(n: int) -> list[tuple[str, Any]]:
    return [("one label too few", [str(i) for i in range(n - 1)]),
            ("one label too many", [str(i) for i in range(n + 1)]),
            ("a string", "abcdefghijk"[:n]), ("None", None), ("an int", 5)]


# Each entry point's function and good arguments, as the cases first name them: the kinds
# tried on every entry point that takes the argument (an ``ax`` that is not an Axes).
GOOD_CALLS: dict[str, tuple[Callable, dict]] = {}


def bad_axes() -> list[tuple[str, Any]]:
    from matplotlib.figure import Figure

    return [("a string", "left"), ("an int", 1), ("a Figure", Figure()), ("a list", [None])]


def _cases_for_every_ax() -> list[Case]:
    """A non-Axes ``ax`` for every plot (and any entry point) with an ``ax`` argument."""
    import inspect

    out = []
    for entry, (fn, good) in GOOD_CALLS.items():
        try:
            signature = inspect.signature(fn)
            signature.bind(**good)  # good arguments given per case ({}): named below
        except (TypeError, ValueError):
            continue
        takes_ax = "ax" in signature.parameters
        if takes_ax:
            for what, value in bad_axes():
                kwargs = dict(good, ax=value)
                out.append(Case(entry, "ax", what, lambda fn=fn, kw=kwargs: fn(**kw)))
    return out


def cases_issue_26() -> list[Case]:
    """The kinds of issue 26 for the entry points above that can meet them."""
    import qkv_helpers as qk
    from qkv_helpers import attention_steps as pl
    from qkv_helpers import plots
    from qkv_helpers.kv_cache import arithmetic as km
    from qkv_helpers.measure import kv_cache_experiments as kv_experiments

    ex = qk.running_example()
    out = []
    # a span of 1e308, and vectors too short to draw (1e-200, subnormal)
    for what, (a, b, arg) in {
            "1e308 at 90°": ([1e308, 0.0], [0.0, 1e308], "a"),
            "1e308 in b": ([1.0, 0.0], [0.0, 1e308], "b"),
            "1e-200 vectors": ([1e-200, 0.0], [1e-200, 1e-200], "a"),
            "subnormal vectors": ([5e-324, 0.0], [0.0, 5e-324], "a")}.items():
        out.append(Case("plots.plot_vectors_2d", arg, what,
                        lambda a=a, b=b: plots.plot_vectors_2d(a, b)))
    # a sentence expected: lengths [], None, a list of words, a number
    for what, text in (("[]", []), ("None", None), ("a list of words", ["The", "cat"]),
                       ("an int", 3), ("bytes", b"The cat")):
        out.append(Case("kv_experiments.to_ids", "text", what,
                        lambda text=text: kv_experiments.to_ids(text)))
    # a fit over all-zero columns
    good = dict(steps=[10, 10, 20], flops=[1e6, 5e6, 2e7], seconds=[0.0011, 0.0015, 0.004])
    for arg in ("steps", "flops"):
        kwargs = dict(good, **{arg: [0, 0, 0]})
        out.append(Case("kv_math.fit_step_time", arg, "all zero",
                        lambda kw=kwargs: km.fit_step_time(**kw)))
    # scores that overflow in the pipeline (lesson 10)
    for what, (x, w_q, w_k) in {
            "x·1e160": (ex.x * 1e160, ex.w_q, ex.w_k),
            "w_q and w_k·1e160 (only the scores overflow)": (ex.x, ex.w_q * 1e160,
                                                             ex.w_k * 1e160)}.items():
        arg = "x" if what.startswith("x") else "w_q"
        out.append(Case("attention_steps.pipeline_steps", arg, what,
                        lambda x=x, w_q=w_q, w_k=w_k: pl.pipeline_steps(x, w_q, w_k, ex.w_v)))
    # a plot given more queries than keys for a causal mask
    out.append(Case("plots.plot_masked_scores", "mask", "causal, 5 queries for 3 keys",
                    lambda: plots.plot_masked_scores(np.zeros((5, 3)), qk.causal_mask(5, 3),
                                                     list("abcde"))))
    return out


def _collector(out: list[Case]):
    """``add`` (one argument's bad values, the others good) and ``add_all`` (several
    arguments' pools), both appending to ``out``; the good call is kept in GOOD_CALLS."""

    def add(entry: str, fn: Callable, good: dict, arg: str, bads, correct=None):
        GOOD_CALLS.setdefault(entry, (fn, good))
        for what, value in bads:
            kwargs = dict(good, **{arg: value})
            out.append(Case(entry, arg, what, lambda fn=fn, kw=kwargs: fn(**kw), correct))

    def add_all(entry: str, fn: Callable, good: dict, pools: dict, correct=None):
        for arg, bads in pools.items():
            add(entry, fn, good, arg, bads, correct)

    return add, add_all


def cases() -> list[Case]:
    """Every case of the battery."""
    import matplotlib

    matplotlib.use("Agg")
    import qkv_helpers as qk
    from qkv_helpers import attention_steps as pl
    from qkv_helpers import encoder_decoder as ed
    from qkv_helpers import plots, score_scale, similarity, weighted_sum, widgets
    from qkv_helpers.kv_cache import arithmetic as km
    from qkv_helpers.measure.kv_cache_experiments import to_words

    out: list[Case] = []

    add, add_all = _collector(out)

    ex = qk.running_example()
    tr = qk.translation_example()
    enc = ed.encoder_example()
    n = len(ex.tokens)

    # --- similarity ---------------------------------------------------------------------
    add_all("similarity.vector_from_angle", similarity.vector_from_angle,
            dict(angle_deg=30.0, length=1.0),
            {"angle_deg": BAD_REALS, "length": BAD_REALS + [("-1", -1.0)]})
    a, b = [1.0, 2.0], [3.0, -1.0]
    add_all("similarity.dot_and_angle", similarity.dot_and_angle, dict(a=a, b=b),
            {"a": bad_arrays(a) + [("zero vector", [0.0, 0.0]), ("length 3", [1.0, 2.0, 3.0])],
             "b": bad_arrays(b) + [("zero vector", [0.0, 0.0])]})

    def angle_is(expected):
        return lambda d: (math.isfinite(d.angle_deg) and abs(d.angle_deg - expected) < 1e-6
                          and -1.0 <= d.cos_angle <= 1.0)

    for what, (va, vb, angle) in {
            "1e200 opposite": ([1e200, 0.0], [-1e200, 0.0], 180.0),
            "1e308 at 90°": ([1e308, 0.0], [0.0, 1e308], 90.0),
            "1e308 same way": ([1e308, 1e308], [1e308, 1e308], 0.0),
            "subnormal opposite": ([5e-324, 0.0], [-5e-324, 0.0], 180.0),
            "subnormal at 90°": ([1e-310, 0.0], [0.0, 1e-310], 90.0),
            "float16 60000": (np.array([60000, 0], np.float16),
                              np.array([0, 60000], np.float16), 90.0)}.items():
        out.append(Case("similarity.dot_and_angle", "a", what,
                        lambda va=va, vb=vb: similarity.dot_and_angle(va, vb), angle_is(angle)))
    add_all("similarity.query_scores", similarity.query_scores,
            dict(q=ex.q, k=ex.k, index=1),
            {"q": bad_arrays(ex.q), "k": bad_arrays(ex.k) + [("other d_k", ex.k[:, :3])],
             "index": bad_positions(n)})

    # --- score_scale --------------------------------------------------------------------------
    add_all("score_scale.random_queries_keys", score_scale.random_queries_keys,
            dict(d_k=4, n=3, seed=0), {"d_k": BAD_INTS, "n": BAD_INTS, "seed": BAD_SEEDS})
    add_all("score_scale.dot_product_variance", score_scale.dot_product_variance,
            dict(d_k=4, n=100, seed=0),
            {"d_k": BAD_INTS, "n": BAD_INTS + [("1 (no variance)", 1)], "seed": BAD_SEEDS})
    p = [0.25, 0.75]
    add("score_scale.softmax_jacobian", score_scale.softmax_jacobian, dict(p=p), "p",
        bad_arrays(p) + [("negative entry", [-0.5, 1.5]), ("sums to 2", [1.0, 1.0]),
                         ("above 1", [2.0, 0.0])])
    add("score_scale.softmax_gradient_norm", score_scale.softmax_gradient_norm,
        dict(scores=[0.0, 1.0]), "scores", bad_arrays([0.0, 1.0]))
    add_all("score_scale.dk_stats", score_scale.dk_stats,
            dict(d_k=4, n_keys=3, n_queries=5, seed=0),
            {"d_k": BAD_INTS, "n_keys": BAD_INTS, "n_queries": BAD_INTS, "seed": BAD_SEEDS})

    # --- weighted_sum -----------------------------------------------------------------------
    w = [0.25, 0.75]
    v = [[4.0, 0.0], [0.0, 4.0]]
    add_all("weighted_sum.weighted_sum_steps", weighted_sum.weighted_sum_steps,
            dict(weights=w, v=v),
            {"weights": bad_arrays(w) + [("3 weights for 2 rows", [0.2, 0.3, 0.5])],
             "v": bad_arrays(v)})

    # --- examples ----------------------------------------------------------------------------
    add("running_example", qk.running_example, {}, "seed", BAD_SEEDS)
    add("translation_example", qk.translation_example, {}, "seed", BAD_SEEDS)
    add("RunningExample.index", ex.index, {}, "token", BAD_TOKENS)

    # --- pipeline ----------------------------------------------------------------------------
    good = dict(x=ex.x, w_q=ex.w_q, w_k=ex.w_k, w_v=ex.w_v)
    add_all("attention_steps.pipeline_steps", pl.pipeline_steps, good,
            {"x": bad_arrays(ex.x), "w_q": bad_arrays(ex.w_q), "w_k": bad_arrays(ex.w_k),
             "w_v": bad_arrays(ex.w_v),
             "mask": [("int mask", np.ones((n, n), int)), ("wrong shape", np.ones((3, 3), bool)),
                      ("a row hiding every key", np.eye(n, dtype=bool) & False),
                      ("a string", "causal")]})

    # --- encoder_decoder ---------------------------------------------------------------------
    add("encoder_decoder.encoder_example", ed.encoder_example, {}, "seed", BAD_SEEDS)
    wts = np.full((2, 3, 3), 1 / 3)
    add_all("encoder_decoder.top_keys", ed.top_keys, dict(weights=wts, tokens=["a", "b", "c"]),
            {"weights": bad_arrays(wts, empty_ok=False)[:-1]
             + [("4-D", wts[None, None]), ("negative weight", wts - 1)],
             "tokens": bad_labels(3)})
    order = list(range(n))[::-1]
    add_all("encoder_decoder.permutation_check", ed.permutation_check,
            dict(mha=enc.mha, x=enc.x, order=order),
            {"mha": [("None", None), ("a function", lambda x: x), ("an array", np.eye(8))],
             "x": bad_arrays(enc.x),
             "order": [("booleans", [True] * n), ("bool array", np.ones(n, bool)),
                       ("floats", [float(i) for i in order]), ("repeats", [0] * n),
                       ("too short", order[:-1]), ("None", None), ("a string", "abc"),
                       ("2-D", [order])]})
    good = dict(x=ex.x, w_q=ex.w_q, w_k=ex.w_k, w_v=ex.w_v, position=4)
    add_all("encoder_decoder.change_future_token", ed.change_future_token, good,
            {"x": bad_arrays(ex.x), "w_q": bad_arrays(ex.w_q) + [("wrong rows", ex.w_q[:5])],
             "w_k": bad_arrays(ex.w_k), "w_v": bad_arrays(ex.w_v),
             "position": bad_positions(n), "masked": BAD_FLAGS, "seed": BAD_SEEDS})
    add_all("encoder_decoder.attend_one_at_a_time", ed.attend_one_at_a_time,
            dict(q=ex.q, k=ex.k, v=ex.v),
            {"q": bad_arrays(ex.q), "k": bad_arrays(ex.k), "v": bad_arrays(ex.v)})
    add_all("encoder_decoder.cross_attention_at_step", ed.cross_attention_at_step,
            dict(example=tr, step=2),
            {"example": [("None", None), ("a RunningExample", ex), ("a string", "cat")],
             "step": BAD_INTS + [("6", 6)]})

    # --- kv_cache.arithmetic --------------------------------------------------------------
    good = dict(layers=2, kv_heads=4, head_dim=4, tokens=3, batch=1, bytes_per_value=4)
    add_all("kv_cache.arithmetic.kv_cache_bytes", km.kv_cache_bytes, good,
            {name: [b for b in BAD_INTS if not (name == "tokens" and b[0] == "0")]
             for name in good})
    add("kv_cache.arithmetic.format_bytes", km.format_bytes, {}, "n",
        [("-1", -1), ("1.7", 1.7), ("NaN", NAN), ("'12'", "12"), ("None", None),
         ("True", True), ("inf", INF)])
    sizes = dict(d_model=2, n_layers=1, vocab_size=5, d_ff=8)
    good = dict(new_tokens=1, context=3, **sizes)
    pools = {name: BAD_INTS for name in good}
    pools["d_ff"] = [b for b in BAD_INTS if b[0] != "None"]  # None: 4 · d_model
    pools["source_tokens"] = [b for b in BAD_INTS if b[0] != "0"]
    pools["cross_kv"] = BAD_FLAGS
    pools["encoder"] = BAD_FLAGS
    add_all("kv_cache.arithmetic.step_flops_by_part", km.step_flops_by_part, good, pools)
    add_all("kv_cache.arithmetic.step_flops", km.step_flops, good,
            {k: BAD_INTS for k in ("new_tokens", "context", "d_model")})
    good = dict(prompt_tokens=1, new_tokens=4, **sizes)
    pools = {name: BAD_INTS for name in good}
    pools["d_ff"] = [b for b in BAD_INTS if b[0] != "None"]
    pools["use_cache"] = BAD_FLAGS
    pools["source_tokens"] = [b for b in BAD_INTS if b[0] != "0"]
    add_all("kv_cache.arithmetic.decoding_flops", km.decoding_flops, good, pools)
    add_all("kv_cache.arithmetic.approx_flop_ratio", km.approx_flop_ratio,
            dict(prompt_tokens=1, new_tokens=9),
            {"prompt_tokens": BAD_INTS,
             "new_tokens": [b for b in BAD_INTS if b[0] != "[1]"]
             + [("array with a 0", np.array([1, 0])), ("float array", np.array([1.5, 2.0])),
                ("bool array", np.array([True, True]))]})
    good = dict(steps=[10, 10, 20], flops=[1e6, 5e6, 2e7], seconds=[0.0011, 0.0015, 0.004])
    add_all("kv_cache.arithmetic.fit_step_time", km.fit_step_time, good,
            {"steps": bad_arrays(good["steps"]) + [("negative", [-10, 10, 20])],
             "flops": bad_arrays(good["flops"]),
             "seconds": bad_arrays(good["seconds"]) + [("negative", [-1.0, 0.1, 0.2])]})
    fit = km.StepTimeFit(1e-4, 1e-10)
    good = dict(fit=fit, steps=[100], flops_cached=[1e6], flops_uncached=[5e7])
    add_all("kv_cache.arithmetic.predicted_speedup", km.predicted_speedup, good,
            {"fit": [("None", None), ("a tuple", (1e-4, 1e-10)),
                     ("NaN overhead", km.StepTimeFit(NAN, 1e-10)),
                     ("zero fit", km.StepTimeFit(0.0, 0.0))],
             "steps": bad_arrays([100.0], empty_ok=False)[:-1],
             "flops_cached": bad_arrays([1e6])[:-1],
             "flops_uncached": bad_arrays([5e7])[:-1] + [("two entries", [5e7, 6e7])]})
    one_number = [b for b in bad_arrays([10.0])[:-1] if b[0] != "0-d array"]
    add_all("kv_cache.arithmetic.StepTimeFit.seconds", fit.seconds, dict(steps=[10], flops=[1e6]),
            {"steps": one_number,
             "flops": [b for b in bad_arrays([1e6])[:-1] if b[0] != "0-d array"]})
    # One number for steps or flops is allowed (lesson 09: ``fit.seconds(1, flops_per_step)``):
    # the right answer is overhead·steps + seconds_per_flop·flops, broadcast.
    for arg, kwargs, want in (
            ("steps", dict(steps=np.float64(1.0), flops=[1e6, 2e6]), [1e-4 + 1e-4, 1e-4 + 2e-4]),
            ("flops", dict(steps=[10, 20], flops=np.float64(1e6)), [1e-3 + 1e-4, 2e-3 + 1e-4]),
            ("steps", dict(steps=1, flops=1e6), 2e-4)):
        out.append(Case("kv_cache.arithmetic.StepTimeFit.seconds", arg, "one number (allowed)",
                        lambda kw=kwargs: fit.seconds(**kw),
                        lambda got, want=want: np.allclose(got, want, rtol=1e-12, atol=0)
                        and np.shape(got) == np.shape(want)))

    # --- lang, setup, to_words ---------------------------------------------------------------
    add("lang.set_language", qk.set_language, {}, "lang",
        [("'fr'", "fr"), ("'KO'", "KO"), ("None", None), ("['ko']", ["ko"]), ("1", 1)])
    add("setup", qk.setup, {}, "lang", [("'fr'", "fr"), ("None", None), ("['en']", ["en"])])
    out += [
        Case("lang.t", "key", "unknown key", lambda: qk.t("no_such_key")),
        Case("lang.t", "key", "None", lambda: qk.t(None)),
        Case("lang.t", "key", "a list", lambda: qk.t(["query"])),
        Case("lang.t", "values", "placeholder left empty", lambda: qk.t("p_scal_hist_title")),
        Case("lang.t", "values", "placeholder missing", lambda: qk.t("p_kv_fill_row", layer=1)),
    ]
    add("kv_experiments.to_words", to_words, {}, "ids",
        [("1.7", [1.7]), ("-1", [-1]), ("7 (no such word)", [7]), ("True", [True]),
         ("'1'", ["1"]), ("None", None), ("an int", 3), ("NaN", [NAN]), ("2-D", [[1, 2]])])

    # --- plots -------------------------------------------------------------------------------
    wq = np.array([[0.9, 0.1], [0.3, 0.7]])
    good = dict(weights=wq, row_labels=["a", "b"])
    add_all("plots.plot_attention_heatmap", plots.plot_attention_heatmap, good,
            {"weights": bad_arrays(wq) + [("weights above 1", wq * 3),
                                          ("negative weights", wq - 1)],
             "row_labels": bad_labels(2),
             "col_labels": bad_labels(2)[:2] + [("an int", 5)],
             "highlight_row": [("2", 2), ("-1", -1), ("1.5", 1.5), ("True", True),
                               ("'a'", "a")],
             "annotate": BAD_FLAGS[:2], "signed": BAD_FLAGS[:2]})
    add("plots.plot_attention_heatmap", plots.plot_attention_heatmap,
        dict(row_labels=["a", "b"], signed=True), "weights",
        [("signed with one inf", _with_nan([[1.0, -2.0], [0.5, 3.0]], INF)),
         ("signed with NaN", _with_nan([[1.0, -2.0], [0.5, 3.0]]))])
    good = dict(weights=np.full((2, 3), 1 / 3), target_tokens=["가", "나"],
                source_tokens=["a", "b", "c"])
    add_all("plots.plot_cross_attention", plots.plot_cross_attention, good,
            {"weights": bad_arrays(good["weights"]),
             "target_tokens": bad_labels(2), "source_tokens": bad_labels(3),
             "highlight_row": [("2", 2), ("-1", -1), ("True", True)]})
    bars = [0.2, 0.5, 0.3]
    good = dict(values=bars, labels=["The", "cat", "sat"])
    add_all("plots.plot_query_bars", plots.plot_query_bars, good,
            {"values": bad_arrays(bars), "labels": bad_labels(3),
             "highlight": [("3", 3), ("-1", -1), ("1.5", 1.5), ("True", True), ("'cat'", "cat")]})
    sc = np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0], [2.0, -2.0, 1.0]])
    mask = qk.causal_mask(3)
    good = dict(scores=sc, mask=mask, labels=["a", "b", "c"])
    add_all("plots.plot_masked_scores", plots.plot_masked_scores, good,
            {"scores": bad_arrays(sc)[:3] + bad_arrays(sc)[3:]
             + [("+inf where visible", _with_nan(sc, INF))],
             "mask": [("int mask", mask.astype(int)), ("wrong shape", np.ones((2, 3), bool)),
                      ("None", None), ("a row hiding every key", np.zeros((3, 3), bool))],
             "labels": bad_labels(3), "annotate": BAD_FLAGS[:2]})
    good = dict(tokens=[1, 2, 3], measured_bytes=[256, 512, 768], formula_bytes=[256, 512, 768])
    add_all("plots.plot_cache_growth", plots.plot_cache_growth, good,
            {"tokens": bad_arrays([1.0, 2.0, 3.0]) + [("2 entries", [1, 2])],
             "measured_bytes": bad_arrays([256.0, 512.0, 768.0]) + [("negative", [-1, 0, 1])],
             "formula_bytes": bad_arrays([256.0, 512.0, 768.0]),
             "uncached_bytes": [("NaN entry", [0, NAN, 0]), ("2 entries", [0, 0]),
                                ("a string", "abc")]})
    good = dict(context=[1, 2, 3], cached=[10, 11, 12], uncached=[10, 21, 33])
    add_all("plots.plot_flops_per_step", plots.plot_flops_per_step, good,
            {"context": bad_arrays([1.0, 2.0, 3.0]), "cached": bad_arrays([10.0, 11.0, 12.0]),
             "uncached": bad_arrays([10.0, 21.0, 33.0])})
    good = dict(lengths=[1, 2, 4], cached=[10, 20, 40], uncached=[10, 30, 100])
    add_all("plots.plot_total_flops", plots.plot_total_flops, good,
            {"lengths": bad_arrays([1.0, 2.0, 4.0]), "cached": bad_arrays([10.0, 20.0, 40.0]),
             "uncached": bad_arrays([10.0, 30.0, 100.0])})
    good = dict(lengths=[16, 32], measured=[2.0, 3.5], flop_ratio=[9.0, 17.0])
    add_all("plots.plot_speedup", plots.plot_speedup, good,
            {"lengths": bad_arrays([16.0, 32.0]), "measured": bad_arrays([2.0, 3.5]),
             "flop_ratio": bad_arrays([9.0, 17.0]),
             "predicted": [("NaN entry", [NAN, 1.0]), ("3 entries", [1.0, 2.0, 3.0])],
             "overhead_us": [("NaN", NAN), ("'300'", "300"), ("-5", -5.0)]})
    vals = np.ones((8, 3))
    good = dict(values=vals, capacity=6, tokens=["The", "cat", "sat"], n_heads=4)
    add_all("plots.plot_cache_fill", plots.plot_cache_fill, good,
            {"values": bad_arrays(vals, empty_ok=False)[:-3]
             + [("more columns than capacity", np.ones((8, 7))),
                ("negative entries", -vals)],
             "capacity": BAD_INTS + [("2 (< tokens kept)", 2)],
             "tokens": [b for b in bad_labels(3) if b[0] != "None"],
             "n_heads": [("0", 0), ("-1", -1), ("3 (8 rows not divisible)", 3), ("1.5", 1.5),
                         ("'4'", "4"), ("True", True)]})
    steps = pl.pipeline_steps(ex.x, ex.w_q, ex.w_k, ex.w_v)
    nan_steps = steps._replace(scores=_with_nan(steps.scores))
    add_all("plots.plot_pipeline", plots.plot_pipeline, dict(steps=steps, tokens=ex.tokens),
            {"steps": [("a tuple", tuple(steps)), ("a NaN in scores", nan_steps),
                       ("a string", "steps"), ("an array", ex.x)],
             "tokens": [b for b in bad_labels(n) if b[0] != "None"],
             "highlight_row": [(str(n), n), ("-1", -1), ("1.5", 1.5), ("True", True)],
             "fig": [("an Axes-like string", "fig"), ("an int", 1)]})
    add_all("plots.plot_score_histogram", plots.plot_score_histogram, dict(d_k=4, n=100),
            {"d_k": BAD_INTS, "n": BAD_INTS, "seed": BAD_SEEDS,
             "limit": BAD_OPTIONAL_POSITIVE_REALS})
    good = dict(d_ks=[1, 4, 16], raw=[1.0, 4.1, 15.8], scaled=[1.0, 1.02, 0.99])
    add_all("plots.plot_variance_vs_dk", plots.plot_variance_vs_dk, good,
            {"d_ks": bad_arrays([1.0, 4.0, 16.0]) + [("a zero (log axis)", [0, 4, 16])],
             "raw": bad_arrays([1.0, 4.1, 15.8]) + [("a zero (log axis)", [0.0, 4.1, 15.8]),
                                                    ("2 entries", [1.0, 4.0])],
             "scaled": bad_arrays([1.0, 1.02, 0.99]) + [("negative", [-1.0, 1.0, 1.0])]})
    good = dict(a=[1.0, 0.0], b=[0.0, 2.0])
    add_all("plots.plot_vectors_2d", plots.plot_vectors_2d, good,
            {"a": bad_arrays([1.0, 0.0]) + [("3-D vector", [1.0, 0.0, 0.0]),
                                            ("zero vector", [0.0, 0.0])],
             "b": bad_arrays([0.0, 2.0]),
             "labels": [("one label", ("q",)), ("None", None), ("a string", "qk")],
             "limit": BAD_OPTIONAL_POSITIVE_REALS})
    add_all("plots.plot_softmax_curves", plots.plot_softmax_curves, {},
            {"temperatures": [("a zero", (0.0, 1.0)), ("negative", (-1.0,)), ("NaN", (NAN,)),
                              ("inf", (INF,)), ("'1'", ("1",)), ("None", None),
                              ("a bare number", 1.0), ("empty", ())],
             "span": BAD_POSITIVE_REALS, "highlight": BAD_OPTIONAL_POSITIVE_REALS})

    # --- widgets -----------------------------------------------------------------------------
    add_all("widgets.query_explorer", widgets.query_explorer, {},
            {"token": BAD_TOKENS, "key": BAD_TOKENS})
    add_all("widgets.dot_product_explorer", widgets.dot_product_explorer, {},
            {"q_angle": BAD_REALS, "q_length": BAD_POSITIVE_REALS + [("5 (off the view)", 5.0)]})
    add("widgets.scaling_explorer", widgets.scaling_explorer, {}, "d_k",
        BAD_INTS + [("3 (not a slider value)", 3), ("1024", 1024)])
    add("widgets.temperature_explorer", widgets.temperature_explorer, {}, "token", BAD_TOKENS)
    add("widgets.weighted_sum_stepper", widgets.weighted_sum_stepper, {}, "token", BAD_TOKENS)
    add_all("widgets.causal_mask_explorer", widgets.causal_mask_explorer, {},
            {"position": bad_positions(n),
             "example": [("a TranslationExample", tr), ("a string", "cat"), ("an int", 1)]})
    add("widgets.cross_attention_explorer", widgets.cross_attention_explorer, {}, "example",
        [("a RunningExample", ex), ("a string", "cat"), ("an int", 1)])
    add("widgets.head_selector", widgets.head_selector, {}, "example",
        [("a RunningExample", ex), ("a string", "cat"), ("an int", 1)])
    add_all("widgets.pipeline_explorer", widgets.pipeline_explorer, {},
            {"token": BAD_TOKENS,
             "example": [("a TranslationExample", tr), ("a string", "cat"), ("an int", 1)]})
    add_all("widgets.kv_cache_stepper", widgets.kv_cache_stepper, {},
            {"prompt": [("'The dog'", "The dog"), ("''", ""), ("None", None), ("an int", 3),
                        ("a list of ids", [0, 1])],
             "max_tokens": BAD_INTS + [("2 (< prompt)", 2)]})
    out += cases_lessons_11_13()
    out += cases_lesson_14()
    out += cases_lesson_15()
    return out + _cases_for_every_ax() + cases_issue_26()


def cases_lessons_11_13() -> list[Case]:
    """The entry points of lessons 11-13 and lesson 09's measurements (added later)."""
    import matplotlib

    matplotlib.use("Agg")
    import qkv_helpers as qk
    from qkv_helpers import (
        grouped_query,
        kv_cache,
        long_context,
        plots,
        positions,
        pretrained,
        tiled,
        widgets,
    )
    from qkv_helpers.encoder_decoder import encoder_example
    from qkv_helpers.kv_cache.paged import PagedKVCache
    from qkv_helpers.masks import sliding_window_mask
    from qkv_helpers.measure import kv_cache_experiments as kv_experiments

    out: list[Case] = []

    add, add_all = _collector(out)

    bad_dtypes = [("'banana'", "banana"), ("np.int64", np.int64), ("bool", bool),
                  ("complex", complex), ("None", None), ("an int", 3)]
    bad_int_lists = [("NaN", [NAN]), ("booleans", [True, False]), ("-1", [-1]),
                     ("1.5", [1.5]), ("2-D", [[0, 1]]), ("strings", ["a"]),
                     ("None", None), ("complex", [1j]), ("objects", [None]),
                     ("a string", "01")]
    ex = qk.running_example()
    n = len(ex.tokens)

    # --- positions (lesson 12) -----------------------------------------------------------
    add_all("positions.rope_angles", positions.rope_angles,
            dict(positions=[0, 1, 2], d=4),
            {"positions": bad_int_lists, "d": BAD_INTS + [("3 (odd)", 3)],
             "base": BAD_POSITIVE_REALS})
    add_all("positions.apply_rope", positions.apply_rope, dict(x=ex.q),
            {"x": bad_arrays(ex.q, batch_ok=True) + [("odd d", ex.q[:, :3])],
             "positions": [b for b in bad_int_lists if b[0] != "None"]
             + [("one too few", list(range(n - 1))), ("bool array", np.ones(n, bool))],
             "base": BAD_POSITIVE_REALS})
    add_all("positions.rope_rotation_matrix", positions.rope_rotation_matrix,
            dict(position=1, d=4),
            {"position": [("-1", -1), ("1.7", 1.7), ("True", True), ("'1'", "1"),
                          ("None", None), ("[1]", [1]), ("NaN", NAN)],
             "d": BAD_INTS + [("3 (odd)", 3)], "base": BAD_POSITIVE_REALS})
    add_all("positions.rope_score_by_distance", positions.rope_score_by_distance,
            dict(d=4, distances=[0, 1, 2]),
            {"d": BAD_INTS + [("3 (odd)", 3)], "distances": bad_int_lists,
             "base": BAD_POSITIVE_REALS})
    add_all("positions.sinusoidal_shift_matrix", positions.sinusoidal_shift_matrix,
            dict(shift=3, d_model=8),
            {"shift": [("1.5", 1.5), ("True", True), ("'3'", "3"), ("None", None),
                       ("[3]", [3])],
             "d_model": BAD_INTS + [("3 (odd)", 3)], "base": BAD_POSITIVE_REALS})
    vec = [[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]]
    add("positions.cosine_similarity_matrix", positions.cosine_similarity_matrix,
        dict(vectors=vec), "vectors", bad_arrays(vec) + [("a zero row", [[1.0, 0.0], [0.0, 0.0]])])
    enc = encoder_example()
    order = list(range(n))[::-1]
    add_all("positions.causal_permutation_check", positions.causal_permutation_check,
            dict(mha=enc.mha, x=enc.x, order=order),
            {"mha": [("None", None), ("a function", lambda x: x), ("an array", np.eye(8))],
             "x": bad_arrays(enc.x),
             "order": [("booleans", [True] * n), ("floats", [float(i) for i in order]),
                       ("repeats", [0] * n), ("too short", order[:-1]), ("None", None),
                       ("a string", "abc"), ("2-D", [order])]})

    # --- grouped-query attention, sliding windows ------------------------------------------
    rng = np.random.default_rng(0)
    q4, k2, v2 = rng.normal(size=(4, 3, 8)), rng.normal(size=(2, 3, 8)), rng.normal(size=(2, 3, 8))
    add_all("grouped_query.grouped_query_attention", grouped_query.grouped_query_attention,
            dict(q=q4, k=k2, v=v2),
            {"q": bad_arrays(q4, batch_ok=True) + [("3 heads for 2 K/V heads", q4[:3])],
             "k": bad_arrays(k2, batch_ok=True), "v": bad_arrays(v2, batch_ok=True),
             "mask": [("int mask", np.ones((3, 3), int)), ("wrong shape", np.ones((2, 2), bool)),
                      ("a string", "causal")]})
    add_all("grouped_query.repeat_kv", grouped_query.repeat_kv, dict(x=k2, group=2),
            {"x": bad_arrays(k2, batch_ok=True), "group": BAD_INTS})
    add_all("masks.sliding_window_mask", sliding_window_mask, dict(n_q=4, window=2),
            {"n_q": BAD_INTS, "n_k": [b for b in BAD_INTS if b[0] != "None"] + [("2 (< n_q)", 2)],
             "window": BAD_INTS})

    # --- the paged KV cache ------------------------------------------------------------------
    good = dict(n_heads=2, head_dim=4, block_size=4, n_blocks=3)
    add_all("PagedKVCache", PagedKVCache, good,
            {**{name: BAD_INTS for name in good}, "dtype": bad_dtypes})

    def paged(method, **kw):
        cache = PagedKVCache(2, 4, 4, 3)
        seq = cache.new_sequence()
        cache.append(seq, np.ones((2, 1, 4)), np.ones((2, 1, 4)))
        kw.setdefault("seq_id", seq)
        return getattr(cache, method)(**kw)

    bad_ids = [("True", True), ("1.5", 1.5), ("'0'", "0"), ("None", None), ("99", 99),
               ("-1", -1)]
    kv1 = np.ones((2, 2, 4))
    add_all("PagedKVCache.append", lambda **kw: paged("append", **kw), dict(k=kv1, v=kv1),
            {"seq_id": bad_ids,
             "k": bad_arrays(kv1, empty_ok=True) + [("wrong head_dim", np.ones((2, 2, 3)))],
             "v": bad_arrays(kv1, empty_ok=True) + [("other new_tokens", np.ones((2, 3, 4)))]})
    for method in ("length", "block_table", "keys", "values", "free"):
        add(f"PagedKVCache.{method}", lambda method=method, **kw: paged(method, **kw), {},
            "seq_id", bad_ids)

    # --- fast: tiled attention, the online softmax -------------------------------------------
    q, k, v = rng.normal(size=(5, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 2))
    for name, fn in (("tiled.tiled_attention", tiled.tiled_attention),
                     ("tiled.tiled_attention_with_work", tiled.tiled_attention_with_work)):
        add_all(name, fn, dict(q=q, k=k, v=v, block_size=2),
                {"q": bad_arrays(q, batch_ok=True) + [("other d_k", q[:, :3])],
                 "k": bad_arrays(k, batch_ok=True), "v": bad_arrays(v, batch_ok=True)
                 + [("other n_k", v[:5])],
                 "mask": [("int mask", np.ones((5, 6), int)),
                          ("wrong shape", np.ones((5, 5), bool)),
                          ("a row hiding every key", np.zeros((5, 6), bool)),
                          ("a string", "causal")],
                 "block_size": BAD_INTS, "scale": BAD_OPTIONAL_POSITIVE_REALS,
                 "skip_hidden_blocks": BAD_FLAGS})
    add_all("tiled.online_softmax_start", tiled.online_softmax_start,
            dict(shape_rows=(2,), d_v=3),
            {"shape_rows": [("(-1,)", (-1,)), ("'ab'", "ab"), ("None", None), ("(1.5,)", (1.5,)),
                            ("an int", 2)],
             "d_v": BAD_INTS, "dtype": bad_dtypes})
    state = tiled.online_softmax_start((1,), 1)
    sc, vb = np.array([[0.0, 1.0]]), np.array([[10.0], [20.0]])
    add_all("tiled.online_softmax_update", tiled.online_softmax_update,
            dict(state=state, scores=sc, v_block=vb),
            {"state": [("None", None), ("a tuple of numbers", (0.0, 1.0, 2.0)),
                       ("NaN m", tiled.OnlineSoftmaxState(np.full((1, 1), NAN), state.l,
                                                         state.o))],
             "scores": [b for b in bad_arrays(sc)[:-2] if b[0] != "-inf entry"]
             + [("3 scores for 2 values", [[0.0, 1.0, 2.0]])],
             "v_block": bad_arrays(vb)[:-1] + [("one row", [[10.0]])]})

    # -inf is a masked key: allowed, it counts for nothing (the softmax of [1] over [20]).
    out.append(Case("tiled.online_softmax_update", "scores", "-inf entry (a masked key, allowed)",
                    lambda: tiled.online_softmax_update(state, [[-INF, 1.0]], vb),
                    lambda s: float(s.m[0, 0]) == 1.0 and float(s.l[0, 0]) == 1.0
                    and float(s.o[0, 0]) == 20.0))

    # --- long_context (lesson 13) --------------------------------------------------------------
    add_all("long_context.attention_inputs", long_context.attention_inputs, dict(n=4, d=2),
            {"n": BAD_INTS, "d": BAD_INTS, "n_heads": BAD_INTS, "seed": BAD_SEEDS,
             "dtype": bad_dtypes})
    add_all("long_context.attention_flops", long_context.attention_flops, dict(n_q=4, n_k=4, d_k=2),
            {"n_q": BAD_INTS, "n_k": BAD_INTS, "d_k": BAD_INTS,
             "d_v": [b for b in BAD_INTS if b[0] != "None"]})
    add("long_context.measure_peak_memory", long_context.measure_peak_memory, {}, "fn",
        [("None", None), ("a string", "np.ones"), ("an int", 3)])
    add_all("long_context.measure_time", long_context.measure_time, dict(fn=sum),
            {"fn": [("None", None), ("a string", "sum")], "repeats": BAD_INTS})
    add_all("long_context.loglog_slope", long_context.loglog_slope,
            dict(x=[1, 2, 4], y=[3, 12, 48]),
            {"x": bad_arrays([1.0, 2.0, 4.0]) + [("a zero", [0, 2, 4]), ("2 entries", [1, 2])],
             "y": bad_arrays([3.0, 12.0, 48.0]) + [("negative", [-3, 12, 48])]})
    add_all("long_context.measure_costs", long_context.measure_costs,
            dict(lengths=[8], d=2, block_size=4, time_it=False),
            {"lengths": [("0", [0]), ("1.5", [1.5]), ("True", [True]), ("None", None),
                         ("an int", 8), ("'8'", ["8"]), ("empty", [])],
             "d": BAD_INTS, "block_size": BAD_INTS, "repeats": BAD_INTS, "seed": BAD_SEEDS,
             "dtype": bad_dtypes, "time_it": BAD_FLAGS})
    sv = np.array([0.0, 1.0, 3.0])
    vv = np.array([[10.0], [20.0], [30.0]])
    add_all("long_context.online_softmax_trace", long_context.online_softmax_trace,
            dict(scores=sv, v=vv, block_size=2),
            {"scores": bad_arrays(sv) + [("2 scores", sv[:2])], "v": bad_arrays(vv),
             "block_size": BAD_INTS})
    add_all("kv_cache.SlidingWindowKVCache", kv_cache.SlidingWindowKVCache,
            dict(n_heads=1, head_dim=2, window=3),
            {"n_heads": BAD_INTS, "head_dim": BAD_INTS, "window": BAD_INTS,
             "dtype": bad_dtypes})
    one = np.ones((1, 1, 2))

    def window_append(**kw):
        return kv_cache.SlidingWindowKVCache(1, 2, 3).append(**kw)

    add_all("kv_cache.SlidingWindowKVCache.append", window_append, dict(k=one, v=one),
            {"k": bad_arrays(one)[:-3] + [("2 tokens", np.ones((1, 2, 2)))],
             "v": bad_arrays(one)[:-3]})
    qw = rng.normal(size=(1, 4, 2))
    add_all("long_context.windowed_decoding", long_context.windowed_decoding,
            dict(q=qw, k=qw, v=qw, window=2),
            {"q": bad_arrays(qw), "k": bad_arrays(qw), "v": bad_arrays(qw), "window": BAD_INTS})
    add_all("long_context.receptive_field", long_context.receptive_field, dict(window=4, layers=2),
            {"window": BAD_INTS, "layers": BAD_INTS})
    add_all("long_context.receptive_field_by_masks", long_context.receptive_field_by_masks,
            dict(n=6, window=2, layers=2),
            {"n": BAD_INTS, "window": BAD_INTS, "layers": BAD_INTS})
    add_all("long_context.request_lengths", long_context.request_lengths,
            dict(n_requests=3, max_len=5),
            {"n_requests": BAD_INTS, "max_len": BAD_INTS, "seed": BAD_SEEDS})
    add_all("long_context.serve_requests", long_context.serve_requests,
            dict(lengths=[3, 5], max_len=8, block_size=4, n_heads=1, head_dim=2),
            {"lengths": [("0", [0, 5]), ("1.5", [1.5]), ("True", [True]), ("None", None),
                         ("an int", 3), ("'3'", ["3"]), ("empty", []), ("9 > max_len", [9])],
             "max_len": BAD_INTS, "block_size": BAD_INTS, "n_heads": BAD_INTS,
             "head_dim": BAD_INTS, "dtype": bad_dtypes, "tokens_per_step": BAD_INTS})
    add_all("long_context.step_cost", long_context.step_cost,
            dict(model=long_context.LLAMA_2_7B, new_tokens=1, context=4),
            {"model": [("None", None), ("a string", "llama"), ("a Gpu", long_context.A100_80GB)],
             "new_tokens": BAD_INTS, "context": [b for b in BAD_INTS if b[0] != "0"],
             "batch": BAD_INTS, "bytes_per_value": BAD_INTS})
    add_all("long_context.causal_tile_work", long_context.causal_tile_work,
            dict(n=8, block_size=4, d=2),
            {"n": BAD_INTS, "block_size": BAD_INTS, "d": BAD_INTS})

    # --- pretrained (lesson 11): few model runs ---------------------------------------------
    xs = np.array([0.0, 0.5, -1.0])
    for name, fn in (("pretrained.erf", pretrained.erf), ("pretrained.gelu", pretrained.gelu)):
        add(name, fn, dict(x=xs), "x",
            [b for b in bad_arrays(xs, batch_ok=True, empty_ok=True) if b[0] != "0-d array"])
    # one number is allowed: erf(1) = 0.8427007929..., gelu(1) = Φ(1) = 0.8413447460...
    out.append(Case("pretrained.erf", "x", "0-d array (allowed)",
                    lambda: pretrained.erf(np.float64(1.0)),
                    lambda y: np.ndim(y) == 0 and abs(float(y) - math.erf(1.0)) < 2e-7))
    out.append(Case("pretrained.gelu", "x", "0-d array (allowed)",
                    lambda: pretrained.gelu(np.float64(1.0)),
                    lambda y: np.ndim(y) == 0
                    and abs(float(y) - (1 + math.erf(1 / math.sqrt(2))) / 2) < 2e-7))
    norm = pretrained.LayerNorm(np.array([1.0, 2.0]), np.array([0.0, 1.0]), 1e-12)
    xn = np.array([[1.0, 3.0]])
    add("pretrained.LayerNorm", norm, dict(x=xn), "x",
        bad_arrays(xn, batch_ok=True)[:-1] + [("3 features for 2", [[1.0, 2.0, 3.0]])])
    add("pretrained.load_minilm", pretrained.load_minilm, {}, "dtype", bad_dtypes[:3])
    model = pretrained.load_minilm()
    add("pretrained.MiniLM", model, {}, "texts",
        [("None", None), ("an int", 3), ("''", ""), ("[]", []), ("[None]", [None]),
         ("a list with an empty text", ["a", " "])])
    output = model("The cat sat.")
    scores = pretrained.head_scores(output)
    add_all("pretrained.head_scores", pretrained.head_scores, dict(output=output),
            {"output": [("None", None), ("a dict", {}), ("an array", np.eye(3))],
             "index": [("1 (a batch of one)", 1), ("-1", -1), ("True", True), ("1.5", 1.5),
                       ("None", None)]})
    nan_scores = dict(scores, previous=np.full((6, 12), NAN))
    missing = {p: s for p, s in scores.items() if p != "cls"}
    bad_score_dicts = [("None", None), ("an array", np.zeros((6, 12))), ("a key missing", missing),
                       ("NaN scores", nan_scores),
                       ("1-D scores", {p: s[0] for p, s in scores.items()}),
                       ("strings", {p: np.full((6, 12), "a") for p in scores})]
    add_all("pretrained.classify_heads", pretrained.classify_heads, dict(scores=scores),
            {"scores": bad_score_dicts, "threshold": BAD_REALS + [("2", 2.0), ("-1", -1.0)]})
    add("pretrained.strongest_heads", pretrained.strongest_heads, {}, "scores", bad_score_dicts)
    add_all("pretrained.weighted_value_norms", pretrained.weighted_value_norms,
            dict(model=model, output=output, layer=1, head=0),
            {"model": [("None", None), ("a string", "minilm")],
             "output": [("None", None), ("a dict", {})],
             "layer": [("6", 6), ("-1", -1), ("1.5", 1.5), ("True", True), ("None", None)],
             "head": [("12", 12), ("-1", -1), ("1.5", 1.5), ("True", True), ("None", None)],
             "index": [("1", 1), ("-1", -1), ("True", True)]})

    # --- kv_experiments' measurements (lesson 09), cheap arguments -------------------------
    lm = kv_experiments.lesson_model()
    ids = kv_experiments.to_ids("The cat sat")
    add_all("kv_experiments.cache_memory", kv_experiments.cache_memory,
            dict(model=lm, prompt_ids=ids, new_tokens=2),
            {"model": [("None", None), ("a string", "model")],
             "prompt_ids": [("[]", []), ("None", None), ("1.5", [1.5]), ("99", [99]),
                            ("a string", "The cat")],
             "new_tokens": BAD_INTS})
    add_all("kv_experiments.step_memory", kv_experiments.step_memory,
            dict(model=lm, contexts=[4, 6]),
            {"model": [("None", None), ("a string", "model")],
             "contexts": [("1", [1, 4]), ("1.5", [1.5, 4]), ("True", [True, 4]), ("None", None),
                          ("an int", 4), ("'4'", ["4", 6]), ("empty", []), ("NaN", [NAN])],
             "seed": BAD_SEEDS})
    add_all("kv_experiments.measure_step_times", kv_experiments.measure_step_times,
            dict(model=lm, contexts=[4, 6], repeats=1),
            {"model": [("None", None), ("a string", "model")],
             "contexts": [("1", [1, 4]), ("1.5", [1.5, 4]), ("True", [True, 4]),
                          ("None", None), ("an int", 4), ("'4'", ["4", 6]), ("one", [4]),
                          ("NaN", [NAN, 4])],
             "repeats": BAD_INTS, "seed": BAD_SEEDS})
    add("kv_experiments.is_increasing", kv_experiments.is_increasing, {}, "values",
        bad_arrays([1.0, 2.0, 5.0])[:-1] + [("2-D", [[1, 2], [3, 4]])])

    # --- plots ------------------------------------------------------------------------------
    pe = positions.sinusoidal_positions(6, 4, dtype=np.float64)
    add("plots.plot_position_vectors", plots.plot_position_vectors, {}, "pe", bad_arrays(pe))
    GOOD_CALLS["plots.plot_position_vectors"] = (plots.plot_position_vectors, {"pe": pe})
    sim = positions.cosine_similarity_matrix(pe[:, :2] + 1)
    add("plots.plot_position_similarity", plots.plot_position_similarity, {}, "similarity",
        bad_arrays(sim) + [("not square", sim[:2]), ("above 1", sim * 3)])
    GOOD_CALLS["plots.plot_position_similarity"] = (plots.plot_position_similarity,
                                                    {"similarity": sim})
    add_all("plots.plot_rope_score_by_distance", plots.plot_rope_score_by_distance,
            dict(distances=[0, 1, 2], scores=[4.0, 3.1, 1.5]),
            {"distances": bad_arrays([0.0, 1.0, 2.0]) + [("2 entries", [0, 1])],
             "scores": bad_arrays([4.0, 3.1, 1.5])})
    add("plots.plot_head_scores", plots.plot_head_scores, {}, "scores",
        bad_score_dicts + [("above 1", {p: s * 3 for p, s in scores.items()})])
    vn = pretrained.ValueNorms(np.array([[0.9, 0.1]]), np.array([0.1, 2.0]),
                               np.array([[0.09, 0.2]]))
    add_all("plots.plot_weight_vs_contribution", plots.plot_weight_vs_contribution,
            dict(vn=vn, tokens=["[CLS]", "cat"], query=0),
            {"vn": [("None", None), ("a tuple of lists", ([[0.9, 0.1]], [0.1], [[0.1]])),
                    ("NaN weights", vn._replace(weights=np.array([[NAN, 0.1]]))),
                    ("zero contributions", vn._replace(contributions=np.zeros((1, 2))))],
             "tokens": bad_labels(2),
             "query": [("1", 1), ("-1", -1), ("True", True), ("1.5", 1.5), ("None", None)]})
    good = dict(lengths=[256, 512, 1024], series={"plain": [1, 4, 16]}, ylabel="bytes")
    add_all("plots.plot_cost_loglog", plots.plot_cost_loglog, good,
            {"lengths": bad_arrays([256.0, 512.0, 1024.0]) + [("a zero", [0, 512, 1024])],
             "series": [("None", None), ("a list", [1, 4, 16]), ("empty", {}),
                        ("NaN value", {"plain": [1, NAN, 16]}), ("2 values", {"plain": [1, 4]}),
                        ("strings", {"plain": ["a", "b", "c"]})],
             "ylabel": [("None", None), ("an int", 3)],
             "slope_guide": [("NaN", NAN), ("'2'", "2"), ("inf", INF), ("True", True)]})
    memory = long_context.serve_requests([3, 17, 40], max_len=64)
    add("plots.plot_serving_memory", plots.plot_serving_memory, {}, "memory",
        [("None", None), ("a tuple", (1, 2, 3)), ("zero bytes", memory._replace(
            used=0, paged_reserved=0, max_len_reserved=0)),
         ("negative", memory._replace(used=-1)), ("NaN", memory._replace(used=NAN))])
    GOOD_CALLS["plots.plot_serving_memory"] = (plots.plot_serving_memory, {"memory": memory})
    cost = long_context.step_cost(long_context.LLAMA_2_7B, 1, 512)
    add_all("plots.plot_roofline", plots.plot_roofline,
            dict(gpu=long_context.A100_80GB, points={"decode": cost}),
            {"gpu": [("None", None), ("a string", "A100"),
                     ("zero bandwidth", long_context.A100_80GB._replace(bandwidth=0.0)),
                     ("NaN peak", long_context.A100_80GB._replace(peak_flops=NAN))],
             "points": [("None", None), ("a list", [cost]), ("a number", {"x": 3.0}),
                        ("zero bytes", {"x": cost._replace(bytes_read=0)})]})
    good = dict(contexts=[16, 32], seconds_cached=[1e-4, 1.1e-4], seconds_uncached=[3e-4, 5e-4])
    add_all("plots.plot_step_times", plots.plot_step_times, good,
            {"contexts": bad_arrays([16.0, 32.0]) + [("a zero", [0, 32])],
             "seconds_cached": bad_arrays([1e-4, 1.1e-4]) + [("3 entries", [1, 2, 3])],
             "seconds_uncached": bad_arrays([3e-4, 5e-4]) + [("a zero", [0.0, 1.0])],
             "fitted_cached": [("NaN", [NAN, 1.0]), ("3 entries", [1.0, 2.0, 3.0])],
             "fitted_uncached": [("a string", "abc"), ("negative", [-1.0, 1.0])]})
    good = dict(contexts=[8, 60], peak_uncached=[16765, 135276], peak_cached=[4424, 5480],
                cache_bytes=[2048, 15360])
    add_all("plots.plot_step_memory", plots.plot_step_memory, good,
            {name: bad_arrays(np.asarray(value, float)) + [("negative", [-1, 1])]
             for name, value in good.items()})

    # --- widgets ----------------------------------------------------------------------------
    bad_pos = [("-1", -1), ("21", 21), ("1.5", 1.5), ("True", True), ("'3'", "3"), ("None", None)]
    add_all("widgets.rope_explorer", widgets.rope_explorer, {},
            {"query_position": bad_pos, "key_position": bad_pos})
    add_all("widgets.minilm_explorer", widgets.minilm_explorer, {},
            {"text": [("''", ""), ("None", None), ("an int", 3), ("a list", ["a", "b"])],
             "model": [("a string", "minilm"), ("an int", 1)]})
    add_all("widgets.tiling_animation", widgets.tiling_animation, {},
            {"n_keys": BAD_INTS + [("1", 1)], "block_size": BAD_INTS + [("25 (> n_keys)", 25)],
             "d_v": BAD_INTS, "seed": BAD_SEEDS,
             "step": BAD_INTS + [("7 (> blocks)", 7)]})
    add_all("widgets.paged_cache_view", widgets.paged_cache_view, {},
            {"n_blocks": BAD_INTS + [("2 (too few)", 2)], "block_size": BAD_INTS,
             "n_sequences": BAD_INTS, "max_len": BAD_INTS + [("1", 1)], "seed": BAD_SEEDS,
             "time": [("-1", -1), ("1.5", 1.5), ("True", True), ("'3'", "3"),
                      ("999", 999)]})
    return out


def cases_lesson_14() -> list[Case]:
    """Lesson 14's entry points: the toy corpus, the translator, backprop ops, its plots,
    widgets and checkers (a checker must answer ``ok=False``, never raise or accept)."""
    import matplotlib

    matplotlib.use("Agg")
    from qkv_helpers import attention_backward as ab
    from qkv_helpers import backprop as bp
    from qkv_helpers import plots, widgets
    from qkv_helpers import toy_corpus as tc
    from qkv_helpers import translator as trn
    from qkv_helpers.classroom.checks import lesson_14 as checks14
    from qkv_helpers.classroom.checks._feedback import Feedback

    out: list[Case] = []

    add, add_all = _collector(out)

    def refused(feedback) -> bool:  # a checker's answer to a wrong or unreadable input
        return isinstance(feedback, Feedback) and feedback.ok is not True

    bad_words = [("None", None), ("an int", 3), ("'Cat'", "Cat"), ("''", ""),
                 ("['cat']", ["cat"]), ("'unicorn'", "unicorn"), ("True", True)]
    bad_sentences = [("None", None), ("a string", "the cat sat"), ("[]", []),
                     ("a list of words", ["the", "cat"]), ("an int", 3),
                     ("a tuple of tuples", (("the", "cat"), ("고양이가",), (1,)))]
    vocab = tc.Vocabulary()
    pair = tc.build_sentence("cat", "sat", "on", "mat")
    pairs = [pair, tc.build_sentence("duck", "lay", "in", "bag", "white")]
    model, *_ = trn.load_trained()
    batch = trn.make_batch(pairs, vocab)

    # --- toy_corpus ---------------------------------------------------------------------------
    add_all("toy_corpus.build_sentence", tc.build_sentence,
            dict(subject="cat", verb="sat", preposition="on", place="mat"),
            {"subject": bad_words + [("'horse' (a horse does not sit)", "horse")],
             "verb": bad_words + [("'hid' (one does not hide on a thing)", "hid")],
             "preposition": bad_words + [("'in' (a mat has no inside)", "in")],
             "place": bad_words + [("'tree' (not on a tree)", "tree")],
             "subject_adjective": [b for b in bad_words if b[0] != "None"]
             + [("'red' (a red cat)", "red")],
             "place_adjective": [("3", 3), ("'Red'", "Red"), ("['red']", ["red"])]})
    for what, noun in (("None", None), ("''", ""), ("an int", 3), ("English", "cat"),
                       ("a list", ["고양이"])):
        out.append(Case("toy_corpus.subject_particle", "noun", what,
                        lambda noun=noun: tc.subject_particle(noun)))
    add_all("toy_corpus.make_corpus", tc.make_corpus,
            dict(n_train=20, n_valid=5, n_heldout=5),
            {"n_train": BAD_INTS, "n_valid": BAD_INTS,
             "n_heldout": BAD_INTS + [("50000 (more than the grammar holds)", 50000)],
             "seed": BAD_SEEDS,
             "heldout_fraction": BAD_REALS + [("0", 0.0), ("0.5", 0.5), ("-0.1", -0.1)]})
    for what, tokens in (("None", None), ("a string", "the cat"), ("an int", 3),
                         ("[None]", [None]), ("'Cat'", ["the", "Cat"])):
        out.append(Case("toy_corpus.Vocabulary.encode", "tokens", what,
                        lambda tokens=tokens: vocab.encode(tokens)))
    for what, ids in (("None", None), ("99", [99]), ("-1", [-1]), ("1.5", [1.5]),
                      ("a string", "12"), ("True", [True])):
        out.append(Case("toy_corpus.Vocabulary.decode", "ids", what,
                        lambda ids=ids: vocab.decode(ids)))

    # --- translator ---------------------------------------------------------------------------
    add_all("translator.make_batch", trn.make_batch, dict(pairs=pairs, vocab=vocab),
            {"pairs": bad_sentences, "vocab": [("None", None), ("a dict", {"the": 4})]})
    add_all("translator.Translator", trn.Translator, dict(vocab_size=len(vocab), d_model=8),
            {"vocab_size": BAD_INTS, "d_model": BAD_INTS, "n_heads": BAD_INTS + [("3", 3)],
             "d_ff": [b for b in BAD_INTS if b[0] != "None"],
             "encoder_self_attention": BAD_FLAGS, "seed": BAD_SEEDS,
             "dtype": [("'banana'", "banana"), ("np.int64", np.int64), ("None", None)]})
    add_all("translator.Translator.translate", model.translate, dict(pairs=pairs, vocab=vocab),
            {"pairs": bad_sentences, "vocab": [("None", None), ("a string", "vocab")]})
    add("translator.Translator.cross_attention", model.cross_attention, {}, "batch",
        [("None", None), ("a list of pairs", pairs), ("a tuple of lists", ([1], [1], [1])),
         ("ids out of range", batch._replace(source=batch.source + 1000))])
    add("translator.Translator.greedy", model.greedy, dict(source=batch.source), "max_len",
        BAD_INTS)
    add("translator.Translator.greedy", model.greedy, {}, "source",
        [("None", None), ("a string", "the cat"), ("1.5", [[1.5, 2.0]]), ("99", [[999, 2]]),
         ("1-D", [4, 14, 2]), ("[]", [])])
    add_all("translator.exact_match", trn.exact_match,
            dict(model=model, pairs=pairs, vocab=vocab),
            {"model": [("None", None), ("a TrainingRun tuple", (model, [], []))],
             "pairs": bad_sentences, "vocab": [("None", None)]})
    weights = model.cross_attention(batch)
    for entry, fn in (("translator.alignment_agreement", trn.alignment_agreement),
                      ("translator.where_attention_lands", trn.where_attention_lands)):
        add_all(entry, fn, dict(weights=weights, pairs=pairs),
                {"weights": bad_arrays(weights, empty_ok=True)
                 + [("3-D", weights[0]), ("above 1", weights * 3),
                    ("masked", np.ma.masked_array(weights, mask=weights > 0.5))],
                 "pairs": bad_sentences + [("one pair too few", pairs[:1])],
                 "heads": [("1 (one head)", 1), ("-1", -1), ("1.5", 1.5), ("True", True),
                           ("'max'", "max"), ("None", None)]})
    add_all("translator.train", trn.train, dict(steps=1, n_train=40, eval_every=1, n_eval=2),
            {"steps": BAD_INTS, "batch_size": BAD_INTS, "lr": BAD_POSITIVE_REALS,
             "warmup": [b for b in BAD_INTS if b[0] != "0"],
             "n_heads": BAD_INTS + [("3 (does not divide 32)", 3)],
             "encoder_self_attention": BAD_FLAGS, "seed": BAD_SEEDS,
             "n_train": BAD_INTS, "eval_every": BAD_INTS, "n_eval": BAD_INTS,
             "stop_at": [("NaN", NAN), ("'1'", "1"), ("True", True), ("2", 2.0), ("-1", -1.0)],
             "callback": [("a string", "print"), ("an int", 1)],
             "dtype": [("'banana'", "banana"), ("np.int64", np.int64), ("None", None)]})
    add_all("translator.gradient_check", trn.gradient_check,
            dict(model=trn.Translator(len(vocab), seed=0, dtype=np.float64), batch=batch,
                 entries=1),
            {"model": [("None", None), ("a string", "model")],
             "batch": [("None", None), ("a list of pairs", pairs)],
             "entries": BAD_INTS, "eps": BAD_POSITIVE_REALS, "seed": BAD_SEEDS})

    # --- backprop and attention_backward (the ops the lesson calls) ---------------------------
    rng = np.random.default_rng(14)
    p = np.full((2, 3), 1 / 3)
    add_all("backprop.softmax_backward", bp.softmax_backward,
            dict(d_p=rng.normal(size=(2, 3)), p=p),
            {"d_p": bad_arrays(np.ones((2, 3)), batch_ok=True)[:8]
             + [("3 columns → 2", np.ones((2, 2)))],
             "p": bad_arrays(p, batch_ok=True)[:8] + [("above 1", p * 3)]})
    q, k, v = (rng.normal(size=(1, 1, 3, 4)) for _ in range(3))
    _, w = bp.attention(q, k, v)
    add_all("backprop.attention_backward", bp.attention_backward,
            dict(d_out=np.ones((1, 1, 3, 4)), q=q, k=k, v=v, p=w),
            {"d_out": bad_arrays(np.ones((1, 1, 3, 4)), batch_ok=True)[:8]
             + [("wrong shape", np.ones((1, 1, 3, 5)))],
             "q": bad_arrays(q, batch_ok=True)[:8], "v": [("wrong shape", v[..., :2, :])],
             "p": [("wrong shape", w[..., :2]), ("NaN", _with_nan(w))]})
    q2, k2, v2 = (rng.normal(size=(4, 3)) for _ in range(3))
    add("attention_backward.forward_with_logsumexp", ab.forward_with_logsumexp,
        dict(q=q2, k=k2, v=v2), "q", bad_arrays(q2)[:8] + [("d 2 ≠ 3", q2[:, :2])])
    o, p2, lse = ab.forward_with_logsumexp(q2, k2, v2)
    add_all("attention_backward.plain_backward", ab.plain_backward,
            dict(d_out=np.ones((4, 3)), q=q2, k=k2, v=v2, p=p2),
            {"d_out": bad_arrays(np.ones((4, 3)))[:8], "p": [("wrong shape", p2[:2])]})
    add_all("attention_backward.recompute_backward", ab.recompute_backward,
            dict(d_out=np.ones((4, 3)), q=q2, k=k2, v=v2, out=o, lse=lse, block_size=2),
            {"d_out": bad_arrays(np.ones((4, 3)))[:8], "lse": [("NaN", _with_nan(lse)),
                                                               ("wrong shape", lse[:2])],
             "block_size": BAD_INTS})
    add_all("attention_backward.measure_backward", ab.measure_backward,
            dict(lengths=[16, 32], d=4),
            {"lengths": [("None", None), ("an int", 16), ("[]", []), ("1.5", [1.5]),
                         ("0", [0]), ("True", [True]), ("a string", "16")],
             "d": BAD_INTS, "block_size": BAD_INTS, "seed": BAD_SEEDS})

    # --- plots --------------------------------------------------------------------------------
    history = [{"step": 0, "loss": 4.0, "exact_match": 0.0, "alignment": 0.1},
               {"step": 10, "loss": 1.0, "exact_match": 0.5, "alignment": 0.9}]
    add_all("plots.plot_training_curves", plots.plot_training_curves, dict(history=history),
            {"history": [("None", None), ("[]", []), ("a dict", history[0]),
                         ("a list of numbers", [4.0, 1.0]),
                         ("a key missing", [{"step": 0, "loss": 4.0}]),
                         ("NaN loss", [dict(history[0], loss=NAN), history[1]]),
                         ("a string loss", [dict(history[0], loss="4"), history[1]]),
                         ("exact_match 3", [dict(history[0], exact_match=3.0), history[1]]),
                         ("zero loss", [dict(history[0], loss=0.0), history[1]])],
             "threshold": BAD_REALS + [("1.5", 1.5), ("-1", -1.0)]})
    maps = np.full((2, 2, 3), 1 / 3)
    add_all("plots.plot_alignment_maps", plots.plot_alignment_maps,
            dict(weights=maps, target=["a", "b"], source=["x", "y", "z"], alignment=[0, 2]),
            {"weights": bad_arrays(maps) + [("above 1", maps * 4),
                                            ("masked", np.ma.masked_array(maps, mask=maps > 0))],
             "target": bad_labels(2), "source": bad_labels(3),
             "alignment": [("99", [0, 99]), ("-1", [-1, 0]), ("1.5", [1.5, 0]),
                           ("True", [True, 0]), ("a string", "02"), ("an int", 2),
                           ("None inside", [None, 0]), ("three rows for two", [0, 1, 2])]})
    costs = ab.measure_backward([16, 32], d=4)
    add("plots.plot_backward_memory", plots.plot_backward_memory, {}, "costs",
        [("None", None), ("a tuple", (1, 2, 3)), ("a dict", costs._asdict()),
         ("NaN", costs._replace(peak_plain=[NAN, 1])),
         ("zero bytes", costs._replace(kept_plain=[0, 0])),
         ("lengths not matching", costs._replace(kept_recompute=[1]))])
    GOOD_CALLS["plots.plot_backward_memory"] = (plots.plot_backward_memory, {"costs": costs})
    errors = {"w_q": 1e-9, "w_k": 3e-9}
    by_eps = {1e-2: 1e-5, 1e-5: 1e-9, 1e-8: 1e-6}
    bad_tables = [("None", None), ("{}", {}), ("a list", [1e-9]), ("NaN", {"w_q": NAN}),
                  ("zero", {"w_q": 0.0}), ("a string", {"w_q": "1e-9"}), ("negative", {"w": -1.0})]
    add_all("plots.plot_gradient_check", plots.plot_gradient_check,
            dict(errors=errors, by_eps=by_eps, eps=1e-5),
            {"errors": bad_tables, "by_eps": bad_tables,
             "threshold": BAD_REALS + [("0", 0.0), ("-1", -1.0)]})
    pushed = trn.train(steps=2, n_train=40, eval_every=1, n_eval=2)
    add_all("plots.plot_score_push", plots.plot_score_push, dict(run=pushed, steps=[0, 2]),
            {"run": [("None", None), ("a history list", pushed.history),
                     ("a tuple", tuple(pushed))],
             "steps": [("None", None), ("[]", []), ("a step not evaluated", [5]),
                       ("1.5", [1.5]), ("a string", "0")],
             "row": [("99", 99), ("-1", -1), ("1.5", 1.5), ("a string", "verb")]})
    add_all("plots.plot_optimiser", plots.plot_optimiser,
            dict(history=pushed.history, steps=2, peak=1e-2, warmup=1),
            {"history": [("None", None), ("[]", []), ("no grad_norm", history),
                         ("a dict", pushed.history[0])],
             "steps": BAD_INTS, "warmup": [b for b in BAD_INTS if b[0] != "0"],  # 0: none
             "peak": BAD_REALS + [("-1", -1.0)]})

    # --- widgets ------------------------------------------------------------------------------
    add("widgets.training_progress", widgets.training_progress, {}, "steps", BAD_INTS)
    run = trn.train(steps=2, n_train=40, eval_every=1, n_eval=2)
    add("widgets.attention_learning_explorer", widgets.attention_learning_explorer, {}, "run",
        [("None", None), ("a Translator", model), ("a history list", run.history),
         ("a tuple", tuple(run))])
    add_all("widgets.sentence_translator", widgets.sentence_translator, dict(model=model),
            {"model": [("None", None), ("a TrainingRun", run), ("a string", "model")],
             "vocab": [("a string", "vocab"), ("a dict", {"the": 4}), ("an int", 3)]})

    # --- checkers: ok=False for every wrong or unreadable answer, never an exception ------------
    add("checks14.check_attention_backward", checks14.check_attention_backward, {}, "fn",
        [("None", None), ("a string", "my_backward"),
         ("returns inputs", lambda q, k, v, d: (q, k, v)),
         ("returns zeros", lambda q, k, v, d: (0 * q, 0 * k, 0 * v)),
         ("returns NaN", lambda q, k, v, d: (q * NAN, k * NAN, v * NAN)),
         ("returns two", lambda q, k, v, d: (q, k)), ("returns None", lambda q, k, v, d: None),
         ("returns strings", lambda q, k, v, d: ("a", "b", "c")),
         ("raises", lambda q, k, v, d: 1 / 0), ("takes no args", lambda: None),
         ("returns a generator", lambda q, k, v, d: (x for x in (q, k, v)))], refused)
    add_all("checks14.check_row_attention", checks14.check_row_attention,
            dict(answer="sat", model=model, pair=pair, row=pair.korean[-1]),
            {"answer": [("an int", 3), ("a list", ["sat"]), ("''", ""), ("'dog'", "dog"),
                        ("True", True), ("a wrong word", "mat"), ("'<eos>'", "<eos>")],
             "model": [("None", None), ("a string", "model"), ("a TrainingRun", run)],
             "pair": [("None", None), ("a string", "the cat sat on the mat"),
                      ("a tuple", (("the", "cat"), ("고양이가",), (1,)))],
             "row": [("None", None), ("an int", 0), ("a word not in it", "숨다"),
                     ("an English word", "sat")]}, refused)
    add_all("checks14.check_break_it", checks14.check_break_it,
            dict(run=run, diagnosis="a"),
            {"run": [("None", None), ("a Translator", model), ("a string", "run"),
                     ("empty history", run._replace(history=[])),
                     ("a history of strings", run._replace(history=["a"]))],
             "diagnosis": [("an int", 1), ("'d'", "d"), ("'b' (wrong)", "b"),
                           ("'c' (wrong)", "c"), ("''", ""),
                           ("['a']", ["a"])]}, refused)
    return out


def cases_lesson_15() -> list[Case]:
    """Lesson 15's entry points: the data, the model, the scores, training, its plots,
    widgets and checkers (a checker must answer ``ok=False``, never raise or accept)."""
    import matplotlib

    matplotlib.use("Agg")
    from qkv_helpers import induction as ind
    from qkv_helpers import plots, widgets
    from qkv_helpers.classroom.checks import lesson_15 as checks15
    from qkv_helpers.classroom.checks._feedback import Feedback

    out: list[Case] = []
    add, add_all = _collector(out)

    def refused(feedback) -> bool:  # a checker's answer to a wrong or unreadable input
        return isinstance(feedback, Feedback) and feedback.ok is not True

    # --- data, model, scores, training -------------------------------------------------------
    add_all("induction.make_sequences", ind.make_sequences, dict(n_sequences=2),
            {"n_sequences": BAD_INTS, "seed": BAD_SEEDS,
             "repeat_lengths": [("(16, 17)", (16, 17)), ("(1, 4)", (1, 4)), ("(9, 8)", (9, 8)),
                                ("8", 8), ("'8'", "8"), ("None", None), ("(8.5, 9)", (8.5, 9))],
             "length": BAD_INTS, "vocab_size": BAD_INTS})
    add_all("induction.InductionModel", ind.InductionModel, {},
            {"n_layers": BAD_INTS, "d_model": BAD_INTS, "d_head": BAD_INTS, "seed": BAD_SEEDS})
    model = ind.InductionModel(seed=0)
    tokens = ind.make_sequences(2, seed=0).tokens
    add_all("InductionModel.forward", model.forward, dict(tokens=tokens[:, :-1]),
            {"tokens": [("None", None), ("floats", tokens.astype(float)), ("1-D", tokens[0]),
                        ("33 positions", np.zeros((1, 33), int)), ("id 32", tokens * 0 + 32),
                        ("-1", tokens * 0 - 1), ("empty", np.zeros((0, 3), int)),
                        ("a list", tokens.tolist())],
             "knock_out": [("'head1'", "head1"), ("1", 1), ("True", True)]})
    add_all("induction.gradient_check", ind.gradient_check, dict(model=model, tokens=tokens),
            {"model": [("None", None), ("a string", "model")],
             "entries": BAD_INTS, "eps": BAD_POSITIVE_REALS})
    maps = np.full((2, 31, 31), 1 / 31)
    seqs = ind.make_sequences(2, seed=0)
    add("induction.previous_token_score", ind.previous_token_score, {}, "weights",
        [b for b in bad_arrays(maps, batch_ok=True) if b[0] != "one axis too few"]  # one map: ok
        + [("not square", np.ones((2, 3)))])
    add_all("induction.induction_score", ind.induction_score, dict(weights=maps, seqs=seqs),
            {"weights": bad_arrays(maps) + [("one map for two", maps[:1])],
             "seqs": [("None", None), ("tokens", seqs.tokens), ("a tuple", tuple(seqs)[:2])]})
    add_all("induction.loss_by_part", ind.loss_by_part, dict(model=model, seqs=seqs),
            {"model": [("None", None), ("a string", "model")],
             "seqs": [("None", None), ("tokens", seqs.tokens)]})
    add("induction.cliff_step", ind.cliff_step, dict(history=[{"step": 0, "repeat": 3.0}]),
        "history", [("None", None), ("a dict", {"step": 0}), ("[1, 2]", [1, 2])])
    add_all("induction.train", ind.train, dict(steps=1, eval_every=1, n_eval=2),
            {"steps": BAD_INTS, "batch_size": BAD_INTS, "lr": BAD_POSITIVE_REALS,
             "seed": BAD_SEEDS, "eval_every": BAD_INTS, "n_eval": BAD_INTS,
             "repeat_lengths": [("(16, 17)", (16, 17)), ("8", 8)],
             "callback": [("a string", "print"), ("an int", 3)]})

    # --- plots ----------------------------------------------------------------------------------
    run = ind.train(steps=2, eval_every=1, n_eval=4)
    add("plots.plot_induction_curves", plots.plot_induction_curves, {}, "history",
        [("None", None), ("[]", []), ("a dict", run.history[0]), ("[1, 2]", [1, 2]),
         ("missing induction", [{"step": 0, "first": 3.0, "repeat": 3.0,
                                 "previous_token": 0.1}])])
    snap = run.snapshots[-1]
    add_all("plots.plot_induction_maps", plots.plot_induction_maps,
            dict(before=run.snapshots[0], after=snap, seq=run.shown),
            {"before": bad_arrays(snap) + [("above 1", snap * 4), ("not square", snap[:, :3])],
             "after": [("None", None), ("a string", "maps"), ("2-D", snap[0])],
             "seq": [("None", None), ("two sequences", seqs), ("tokens", run.shown.tokens)]})
    losses = np.full(31, 3.0)
    add_all("plots.plot_loss_per_position", plots.plot_loss_per_position,
            dict(losses=losses, seq=run.shown),
            {"losses": bad_arrays(losses, batch_ok=False) + [("one too many", np.ones(32))],
             "seq": [("None", None), ("two sequences", seqs), ("tokens", run.shown.tokens)]})

    # --- widgets --------------------------------------------------------------------------------
    add("widgets.induction_progress", widgets.induction_progress, {}, "steps", BAD_INTS)
    add("widgets.induction_explorer", widgets.induction_explorer, {}, "run",
        [("None", None), ("a model", model), ("a history list", run.history),
         ("a tuple", tuple(run))])

    # --- checkers: ok=False for every wrong or unreadable answer, never an exception ------------
    trained = ind.train(steps=2, eval_every=1, n_eval=4)
    add_all("checks15.check_induction_targets", checks15.check_induction_targets,
            dict(answer=[3, 4], model=trained.model, seq=trained.shown, queries=[25, 26]),
            {"answer": [("'3'", "3"), ("True", True), ("[2.5, 3]", [2.5, 3]),
                        ("[NaN, 3]", [NAN, 3]), ("[99, 3]", [99, 3]), ("[-1, 3]", [-1, 3]),
                        ("[[3], 3]", [[3], 3]), ("[1e300, 3]", [1e300, 3]), ("3", 3),
                        ("[3]", [3]), ("a dict", {0: 3, 1: 4})],
             "model": [("None", None), ("a string", "model"), ("a run", trained)],
             "seq": [("None", None), ("two sequences", seqs), ("tokens", seqs.tokens)]},
            refused)
    add("checks15.check_induction_score", checks15.check_induction_score, {}, "fn",
        [("None", None), ("a string", "my_induction_score"), ("returns 0.5", lambda w, s: 0.5),
         ("returns NaN", lambda w, s: NAN), ("returns a list", lambda w, s: [0.1, 0.2]),
         ("returns a string", lambda w, s: "0.5"), ("raises", lambda w, s: 1 / 0),
         ("takes no args", lambda: 0.5), ("returns the weights", lambda w, s: w),
         ("returns 1e400", lambda w, s: 10**400)], refused)
    add_all("checks15.check_fixed_length", checks15.check_fixed_length,
            dict(run=trained, diagnosis="b"),
            {"run": [("a model", model), ("a string", "run"), ("a tuple", tuple(trained))],
             "diagnosis": [("an int", 1), ("'d'", "d"), ("''", ""), ("['b']", ["b"]),
                           ("'b' (wrong: it learned nothing)", "b")]}, refused)
    return out


def classify(case: Case) -> tuple[str, str]:
    """``("ours" | "foreign" | "silent", detail)`` for one case."""
    import matplotlib.pyplot as plt

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a numpy warning on the way is not "ours" either
            result = case.call()
    except (ValueError, TypeError, KeyError) as error:
        message = str(error)
        frame = traceback.extract_tb(error.__traceback__)[-1]
        in_package = f"{os.sep}qkv_helpers{os.sep}" in frame.filename
        if in_package and case.arg in message:
            return "ours", f"{type(error).__name__}: {message}"
        return "foreign", f"{type(error).__name__}: {message} [{frame.filename}:{frame.lineno}]"
    except Exception as error:  # noqa: BLE001 - anything else is foreign by definition
        return "foreign", f"{type(error).__name__}: {error}"
    finally:
        plt.close("all")
    if case.correct is not None:
        try:
            if case.correct(result):
                return "ours", f"correct result {_short(result)}"
        except Exception:  # noqa: BLE001
            pass
    return "silent", f"returned {_short(result)}"


def _short(value) -> str:
    text = repr(value).replace("\n", " ")
    return text if len(text) < 100 else text[:97] + "..."


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    verbose = "-v" in argv
    results = [(case, *classify(case)) for case in cases()]
    counts = Counter(kind for _, kind, _ in results)
    entries = sorted({case.entry for case, _, _ in results})
    print(f"{len(results)} cases over {len(entries)} entry points: "
          f"silent {counts['silent']}, foreign {counts['foreign']}, ours {counts['ours']}")
    for case, kind, detail in results:
        if verbose or kind != "ours":
            print(f"{kind:8s} {case.entry}({case.arg}={case.what}): {detail}")
    return 0 if counts["silent"] == counts["foreign"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

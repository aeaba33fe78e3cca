"""Lesson 09: the KV cache's arithmetic, the step-by-step decoder, its plots, widget and check."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import qkv_helpers as qk
from qkv_helpers import checks, lang
from qkv_helpers.decoding import TinyTransformer
from qkv_helpers.kv_cache import KVCache
from qkv_helpers.kv_cache.arithmetic import (
    StepTimeFit,
    approx_flop_ratio,
    decoding_flops,
    fit_step_time,
    format_bytes,
    kv_cache_bytes,
    predicted_speedup,
    step_flops,
    step_flops_by_part,
)
from qkv_helpers.measure.kv_cache_experiments import (
    WORDS,
    CachedDecoder,
    lesson_model,
    to_ids,
    to_words,
)

# --- cache bytes --------------------------------------------------------------------------


def test_llama2_7b_at_4096_tokens_in_fp16_is_2_gib():
    assert kv_cache_bytes(32, 32, 128, 4096, batch=1, bytes_per_value=2) == 2 * 1024**3
    assert format_bytes(kv_cache_bytes(32, 32, 128, 4096)) == "2.00 GiB"


def test_kv_cache_bytes_small_case_by_hand():
    # 2 (K and V) · 3 layers · 2 heads · 5 wide · 7 tokens · 2 sequences · 4 bytes
    assert kv_cache_bytes(3, 2, 5, 7, batch=2, bytes_per_value=4) == 2 * 3 * 2 * 5 * 7 * 2 * 4
    assert kv_cache_bytes(3, 2, 5, 0, batch=2, bytes_per_value=4) == 0


@given(layers=st.integers(1, 4), heads=st.integers(1, 4), head_dim=st.integers(1, 8),
       tokens=st.integers(0, 20), dtype=st.sampled_from([np.float16, np.float32, np.float64]))
def test_kv_cache_bytes_equal_what_real_caches_hold(layers, heads, head_dim, tokens, dtype):
    caches = [KVCache(heads, head_dim, capacity=4, dtype=dtype) for _ in range(layers)]
    for cache in caches:
        for _ in range(tokens):  # one token at a time, as in decoding
            kv = np.ones((heads, 1, head_dim), dtype)
            cache.append(kv, kv)
    measured = sum(c.keys.nbytes + c.values.nbytes for c in caches)  # the arrays themselves
    itemsize = np.dtype(dtype).itemsize
    assert kv_cache_bytes(layers, heads, head_dim, tokens, 1, itemsize) == measured
    assert sum(c.nbytes for c in caches) == measured


@given(tokens=st.integers(0, 1000), batch=st.integers(1, 8))
def test_kv_cache_bytes_grow_linearly_with_tokens(tokens, batch):
    per_token = kv_cache_bytes(4, 2, 16, 1, batch, 2)
    assert kv_cache_bytes(4, 2, 16, tokens + 1, batch, 2) - kv_cache_bytes(
        4, 2, 16, tokens, batch, 2) == per_token
    assert kv_cache_bytes(4, 2, 16, tokens, batch, 2) == tokens * per_token


def test_fewer_kv_heads_window_and_precision_shrink_the_cache():
    full = kv_cache_bytes(32, 32, 128, 4096, 1, 2)
    assert kv_cache_bytes(32, 8, 128, 4096, 1, 2) == full // 4  # GQA, 8 K/V heads
    assert kv_cache_bytes(32, 1, 128, 4096, 1, 2) == full // 32  # MQA
    assert kv_cache_bytes(32, 32, 128, 1024, 1, 2) == full // 4  # a window of 1024
    assert kv_cache_bytes(32, 32, 128, 4096, 1, 1) == full // 2  # int8


def test_kv_cache_bytes_errors_name_the_argument():
    with pytest.raises(ValueError, match="layers"):
        kv_cache_bytes(0, 1, 1, 1)
    with pytest.raises(TypeError, match="tokens"):
        kv_cache_bytes(1, 1, 1, 1.5)
    with pytest.raises(ValueError, match="tokens"):
        kv_cache_bytes(1, 1, 1, -1)


def test_format_bytes():
    assert format_bytes(0) == "0 B"
    assert format_bytes(1023) == "1023 B"
    assert format_bytes(1024) == "1.00 KiB"
    assert format_bytes(3 * 1024**2 // 2) == "1.50 MiB"
    assert format_bytes(5 * 1024**4) == "5.00 TiB"


# --- FLOPs --------------------------------------------------------------------------------


def test_step_flops_small_case_by_hand():
    # d = 2, d_ff = 8, vocab 5, one layer; 2 new tokens over 3 keys, source of 4 tokens.
    parts = step_flops_by_part(2, 3, d_model=2, n_layers=1, vocab_size=5, d_ff=8,
                               source_tokens=4, cross_kv=True, encoder=True)
    assert parts == {
        "encoder": 8 * 4 * 4 + 4 * 4 * 2 * 4 + 4 * 4 * 2 * 8,  # 128 + 128 + 256
        "cross_kv": 2 * 4 * 2 * 4,  # (4, 2) @ (2, 4)
        "projections": 2 * 2 * 2 * 6 + 2 * 2 * 2 * 2 + 2 * (2 * 2 * 2 * 2),  # QKV, W_O, cross
        "attention": 2 * (2 * 2 * 2 * 3) + 2 * (2 * 2 * 2 * 4),  # q·kᵀ and w·v: 3 keys, 4 keys
        "mlp": 2 * 2 * 2 * 8 * 2,
        "logits": 2 * 2 * 5,
    }
    assert step_flops(2, 3, d_model=2, n_layers=1, vocab_size=5, d_ff=8, source_tokens=4,
                      cross_kv=True, encoder=True) == sum(parts.values())


@given(d_heads=st.sampled_from([(8, 2), (12, 3), (16, 4)]), layers=st.integers(1, 2),
       d_ff=st.sampled_from([None, 20]), prompt=st.integers(1, 4), new=st.integers(1, 6),
       source=st.integers(0, 3), use_cache=st.booleans(), seed=st.integers(0, 3))
def test_decoding_flops_equal_the_counted_flops(d_heads, layers, d_ff, prompt, new, source,
                                                use_cache, seed):
    d, heads = d_heads
    model = TinyTransformer(11, d, heads, layers, seed=seed, d_ff=d_ff)
    gen = model.generate(list(range(prompt)), new, source_ids=list(range(source)) or None,
                         use_cache=use_cache)
    formula = decoding_flops(prompt, new, use_cache=use_cache, d_model=d, n_layers=layers,
                             vocab_size=11, d_ff=d_ff, source_tokens=source)
    assert formula.tolist() == [s.flops for s in gen.steps]
    t = prompt + new - 1
    by_part = step_flops_by_part(1 if use_cache and new > 1 else t, t, d_model=d,
                                 n_layers=layers, vocab_size=11, d_ff=d_ff,
                                 source_tokens=source, cross_kv=source > 0 and not use_cache,
                                 encoder=False)
    if new > 1:
        assert by_part == gen.steps[-1].flops_by_part


@given(t=st.integers(1, 300), d=st.integers(1, 64), layers=st.integers(1, 4))
def test_without_a_cache_a_step_does_exactly_t_times_the_layer_work(t, d, layers):
    sizes = dict(d_model=d, n_layers=layers, vocab_size=7)
    logits = 2 * d * 7  # the same with and without the cache
    assert step_flops(t, t, **sizes) - logits == t * (step_flops(1, t, **sizes) - logits)


@given(prompt=st.integers(1, 20), new=st.integers(1, 300))
def test_approx_flop_ratio_is_the_mean_work(prompt, new):
    uncached = sum(prompt + i for i in range(new))  # tokens run, step by step
    cached = prompt + (new - 1)
    assert approx_flop_ratio(prompt, new) == pytest.approx(uncached / cached)
    if prompt == 1:
        assert approx_flop_ratio(1, new) == pytest.approx((new + 1) / 2)


def test_approx_flop_ratio_is_close_to_the_exact_ratio_when_weights_dominate():
    sizes = dict(d_model=4096, n_layers=2, vocab_size=2)  # attention and logits negligible
    cached = decoding_flops(1, 64, **sizes).sum()
    uncached = decoding_flops(1, 64, use_cache=False, **sizes).sum()
    assert uncached / cached == pytest.approx(approx_flop_ratio(1, 64), rel=0.01)
    assert approx_flop_ratio(1, np.array([3, 5])).tolist() == [2.0, 3.0]


def test_flop_errors_name_the_argument():
    with pytest.raises(ValueError, match="new_tokens"):
        step_flops(3, 2, d_model=2, n_layers=1, vocab_size=5)
    with pytest.raises(ValueError, match="source_tokens"):
        step_flops(1, 2, d_model=2, n_layers=1, vocab_size=5, cross_kv=True)
    with pytest.raises(ValueError, match="new_tokens"):
        approx_flop_ratio(1, np.array([0, 2]))


# --- timing model -------------------------------------------------------------------------


@given(overhead=st.floats(1e-6, 1e-3), per_flop=st.floats(1e-12, 1e-9))
def test_fit_step_time_recovers_the_coefficients(overhead, per_flop):
    steps = np.array([16, 32, 64, 16, 32, 64])
    flops = np.array([1e6, 2e6, 4e6, 1e7, 4e7, 1.6e8])
    fit = fit_step_time(steps, flops, overhead * steps + per_flop * flops)
    assert fit.overhead == pytest.approx(overhead, rel=1e-6)
    assert fit.seconds_per_flop == pytest.approx(per_flop, rel=1e-6)


def test_fit_step_time_keeps_coefficients_non_negative():
    fit = fit_step_time([1, 2, 3], [10.0, 20.0, 30.0], [1.0, 2.0, 3.0])  # collinear
    assert fit.overhead >= 0 and fit.seconds_per_flop >= 0
    fit = fit_step_time([10, 10], [1.0, 1e6], [1.0, 0.5])  # more FLOPs, less time
    assert fit.seconds_per_flop == 0 and fit.overhead > 0
    with pytest.raises(ValueError, match="same length"):
        fit_step_time([1, 2], [1.0], [1.0, 2.0])


def test_predicted_speedup():
    no_overhead = StepTimeFit(0.0, 1e-9)
    assert predicted_speedup(no_overhead, [10], [100.0], [700.0]).tolist() == [7.0]
    # overhead alone: both paths take the same time
    assert predicted_speedup(StepTimeFit(1e-3, 0.0), [10], [1.0], [9.0]).tolist() == [1.0]
    # in between, the speed-up lies between 1 and the FLOP ratio
    middle = predicted_speedup(StepTimeFit(1e-4, 1e-9), [10], [1e5], [7e5])[0]
    assert 1.0 < middle < 7.0


# --- the step-by-step decoder -------------------------------------------------------------


def test_words():
    assert to_words(to_ids("The cat sat on the mat .")) == "The cat sat on the mat ."
    assert to_ids(" ".join(WORDS)) == list(range(len(WORDS)))
    with pytest.raises(ValueError, match="dog"):
        to_ids("The dog")


@given(prompt=st.lists(st.integers(0, 6), min_size=1, max_size=5), new=st.integers(1, 12),
       seed=st.integers(0, 5))
def test_cached_decoder_matches_generate(prompt, new, seed):
    model = lesson_model(seed)
    decoder = CachedDecoder(model, prompt, capacity=2)  # small: the cache must grow
    steps = [decoder.step() for _ in range(new)]
    cached = model.generate(prompt, new)
    uncached = model.generate(prompt, new, use_cache=False)
    assert [s.token for s in steps] == cached.ids.tolist() == uncached.ids.tolist()
    assert decoder.ids == list(prompt) + cached.ids.tolist()
    assert [s.flops for s in steps] == [s.flops for s in cached.steps]
    assert [s.flops_uncached for s in steps] == [s.flops for s in uncached.steps]
    assert [s.cache_bytes for s in steps] == [s.cache_bytes for s in cached.steps]
    assert [s.new_tokens for s in steps] == [len(prompt)] + [1] * (new - 1)
    assert len(decoder) == len(prompt) + new - 1


def test_cached_decoder_keeps_the_same_keys_as_a_full_pass():
    model = lesson_model()
    decoder = CachedDecoder(model, to_ids("The cat sat"))
    for _ in range(5):
        decoder.step()
    # layer 0's keys of the whole sequence at once: its input is embeddings + positions
    from qkv_helpers.layer_norm import layer_norm
    from qkv_helpers.positions import sinusoidal_positions

    ids = np.array(decoder.ids[: len(decoder)])
    x = model.embedding[ids] + sinusoidal_positions(len(ids), model.d_model)
    k = model.decoder_layers[0].attention.project(layer_norm(x)).k  # (heads, tokens, hd)
    assert np.allclose(decoder.caches[0].keys, k, atol=1e-5)
    norms = decoder.key_norms()
    assert norms.shape == (model.n_layers * model.n_heads, len(decoder))
    assert np.allclose(norms[: model.n_heads], np.linalg.norm(k, axis=-1), atol=1e-5)


def test_cached_decoder_reset_and_errors():
    decoder = CachedDecoder(lesson_model(), [0, 1])
    first = [decoder.step().token for _ in range(4)]
    decoder.reset()
    assert len(decoder) == 0 and decoder.cache_bytes == 0 and decoder.ids == [0, 1]
    assert [decoder.step().token for _ in range(4)] == first
    with pytest.raises(TypeError, match="model"):
        CachedDecoder("model", [0])
    with pytest.raises(ValueError, match="prompt_ids"):
        CachedDecoder(lesson_model(), [9])


# --- plots --------------------------------------------------------------------------------


def _png(ax) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph would warn
        ax.figure.savefig(buffer, format="png")
    import matplotlib.pyplot as plt

    plt.close(ax.figure)
    return buffer.getvalue()


@pytest.mark.parametrize("language", ["ko", "en"])
def test_kv_plots_render_with_their_texts(language):
    qk.setup(language)
    p = qk.plots
    ax = p.plot_cache_growth([1, 2, 3], [256, 512, 768], [256, 512, 768],
                             uncached_bytes=[0, 0, 0])
    assert ax.get_title() == lang.t("p_kv_growth_title")
    assert [x.get_text() for x in ax.get_legend().get_texts()] == [
        lang.t("p_kv_formula"), lang.t("p_kv_measured"), lang.t("p_kv_uncached_kept")]
    assert ax.lines[1].get_ydata().tolist() == [256, 512, 768]
    _png(ax)

    ax = p.plot_flops_per_step([3, 4, 5], [10, 2, 2], [10, 14, 18])
    assert ax.get_title() == lang.t("p_kv_step_title")
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == [10, 14, 18, 10, 2, 2]
    _png(ax)

    ax = p.plot_total_flops([1, 2, 4], [10, 20, 40], [10, 30, 100])
    assert ax.get_xlabel() == lang.t("p_kv_total_axis")
    assert ax.lines[0].get_ydata().tolist() == [10, 30, 100]
    _png(ax)
    ax = p.plot_total_flops([16, 256], [2e8, 3e9], [2e8, 3.4e10])  # lesson 09's sizes
    assert ax.get_ylabel() == lang.t("p_kv_flops") + r" ($\times 10^{10}$)"
    ax.figure.canvas.draw()
    assert not ax.yaxis.get_offset_text().get_text()  # no bare "1e10" above the axis
    assert "3" in [x.get_text() for x in ax.get_yticklabels()]
    _png(ax)
    assert p.plot_total_flops([1, 2], [10, 20], [10, 30]).get_ylabel() == lang.t("p_kv_flops")

    ax = p.plot_speedup([16, 32], [2.0, 3.0], [9.0, 17.0], [2.1, 3.2], overhead_us=123)
    texts = [x.get_text() for x in ax.get_legend().get_texts()]
    assert texts == [lang.t("p_kv_flop_ratio"), lang.t("p_kv_predicted", overhead="123"),
                     lang.t("p_kv_measured_speedup")]
    assert ax.get_yscale() == "linear"
    _png(ax)
    ax = p.plot_speedup([16, 256], [2.0, 8.0], [16.0, 256.0], [2.1, 9.0], per_step=True)
    assert ax.get_yscale() == "log"  # measured vs predicted apart, even under a ratio of 256
    _png(ax)

    ax = p.plot_cache_fill(np.arange(8 * 3).reshape(8, 3), 5, tokens=["The", "cat", "sat"],
                           n_heads=4)
    assert [x.get_text() for x in ax.get_xticklabels()] == ["The", "cat", "sat", "3", "4"]
    assert ax.get_yticklabels()[5].get_text() == lang.t("p_kv_fill_row", layer=1, head=1)
    assert ax.get_title() == lang.t("p_kv_fill_title")
    _png(ax)


def test_kv_plot_errors_name_the_argument():
    with pytest.raises(ValueError, match="measured_bytes"):
        qk.plots.plot_cache_growth([1, 2], [1], [1, 2])
    with pytest.raises(ValueError, match="capacity"):
        qk.plots.plot_cache_fill(np.ones((2, 5)), 3)
    with pytest.raises(ValueError, match="tokens"):
        qk.plots.plot_cache_fill(np.ones((2, 3)), 5, tokens=["a"])


# --- widget -------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["ko", "en"])
def test_next_token_button_decodes_one_token_and_grows_the_cache(language):
    qk.setup(language)
    panel = qk.widgets.kv_cache_stepper()
    model = lesson_model()
    per_token = kv_cache_bytes(model.n_layers, model.n_heads, model.head_dim, 1,
                               bytes_per_value=4)
    assert panel.state["per_token_bytes"] == per_token == 256
    expected_ids = to_ids("The cat sat") + model.generate(to_ids("The cat sat"), 6).ids.tolist()
    for click in range(5):
        before = dict(panel.state)
        image = bytes(panel.live.image.value)
        panel.controls["next"].click()
        state = panel.state
        assert state["cache_tokens"] == before["cache_tokens"] + 1
        assert state["cache_bytes"] - before["cache_bytes"] == per_token
        assert state["key_norms"].shape == (8, state["cache_tokens"])
        assert len(state["flops_cached"]) == len(before["flops_cached"]) + 1
        assert state["flops_uncached"][-1] / state["flops_cached"][-1] > 3
        assert state["words"] == to_words(expected_ids[: 3 + click + 2])
        assert bytes(panel.live.image.value) != image
        assert f"{state['cache_bytes']:,}" in panel.caption.value
    panel.controls["reset"].click()
    assert panel.state["cache_tokens"] == 3
    assert panel.state["words"] == to_words(expected_ids[:4])


def test_next_token_button_stops_when_the_cache_is_full():
    qk.setup("en")
    panel = qk.widgets.kv_cache_stepper(max_tokens=5)
    panel.controls["next"].click()
    panel.controls["next"].click()
    assert panel.state["cache_tokens"] == 5
    assert panel.controls["next"].disabled
    assert lang.t("w_kv_full") in panel.caption.value
    panel.controls["next"].click()  # ignored
    assert panel.state["cache_tokens"] == 5
    panel.controls["reset"].click()
    assert not panel.controls["next"].disabled


# --- check --------------------------------------------------------------------------------

CONFIG = dict(layers=32, kv_heads=8, query_heads=32, head_dim=128, tokens=8192, batch=4,
              bytes_per_value=2)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_check_kv_cache_bytes(language):
    lang.set_language(language)
    right = 2 * 32 * 8 * 128 * 8192 * 4 * 2
    assert checks.check_kv_cache_bytes(..., **CONFIG).ok is None
    feedback = checks.check_kv_cache_bytes(right, **CONFIG)
    assert feedback.ok is True and "4.00 GiB" in feedback.message
    assert checks.check_kv_cache_bytes(float(right), **CONFIG).ok is True
    slips = {
        right // 2: "check_l09_half",
        right * 2: "check_l09_double",
        right // 4: "check_l09_no_batch",
        right // 32: "check_l09_no_layers",
        right * 4: "check_l09_query_heads",
        right * 8: "check_l09_bits",
        4: "check_l09_gib",
        right + 1: "check_l09_nearly",  # not "1 times the right number" (issue 23)
        right + 10**8: "check_l09_wrong",
    }
    for answer, key in slips.items():
        feedback = checks.check_kv_cache_bytes(answer, **CONFIG)
        assert feedback.ok is False, answer
        assert feedback.message == lang.t(
            key, name="my_bytes", got=f"{answer:,.0f}", bytes_per_value=2, batch=4, layers=32,
            kv_heads=8, query_heads=32, ratio=f"{answer / right:.3g}"), (answer, key)
    assert checks.check_kv_cache_bytes("many", **CONFIG).ok is False
    assert checks.check_kv_cache_bytes(float("nan"), **CONFIG).ok is False

"""Lesson 09's measurements: step memory (tracemalloc), cache bytes reserved, step times."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qkv_helpers as qk
from qkv_helpers import lang
from qkv_helpers.kv_cache.arithmetic import kv_cache_bytes, step_flops
from qkv_helpers.measure import kv_cache_experiments as kx
from qkv_helpers.measure.long_context import measure_peak_memory


@given(prompt=st.integers(1, 5), new=st.integers(1, 12))
@settings(max_examples=20, deadline=None)
def test_cache_memory_in_use_grows_while_the_reserved_bytes_stay_flat(prompt, new):
    mem = kx.cache_memory(kx.lesson_model(), list(range(prompt)), new)
    # lesson model: 2 layers, 4 heads of width 4, float32
    assert mem.tokens.tolist() == [prompt + i for i in range(new)]
    assert mem.used_nbytes.tolist() == [kv_cache_bytes(2, 4, 4, n, 1, 4) for n in mem.tokens]
    reserved = kv_cache_bytes(2, 4, 4, prompt + new, 1, 4)  # what generate reserves
    assert mem.allocated_nbytes.tolist() == [reserved] * new
    assert (mem.used_nbytes < mem.allocated_nbytes).all()  # the last token is never run


def test_generate_reserves_what_cache_memory_reports():
    model = kx.lesson_model()
    gen = model.generate([0, 1, 2], 5)
    mem = kx.cache_memory(model, [0, 1, 2], 5)
    assert [s.cache_bytes for s in gen.steps] == mem.used_nbytes.tolist()


def test_peak_bytes_sees_numpy_arrays():
    peak = measure_peak_memory(lambda: np.ones(100_000))  # 800 000 bytes, freed at once
    assert 800_000 <= peak < 810_000
    assert measure_peak_memory(lambda: None) < 1_000


def test_step_memory_uncached_step_allocates_more_than_a_cached_one():
    model = kx.lesson_model()  # 4 heads, d_model 16, 2 layers, float32
    contexts = [8, 30, 60]
    mem = kx.step_memory(model, contexts)
    assert mem.contexts.tolist() == contexts
    assert mem.cache_nbytes.tolist() == [kv_cache_bytes(2, 4, 4, t, 1, 4) for t in contexts]
    for t, uncached, cached in zip(contexts, mem.peak_uncached, mem.peak_cached):
        # lower bound, by hand: the (4, t, t) float32 scores of one layer
        assert uncached >= 4 * t * t * 4
        # a cached step holds one token's rows: far less than t × t scores
        assert cached < uncached
    assert mem.peak_cached[-1] < 4 * 60 * 60 * 4
    assert np.diff(mem.peak_uncached).min() > 0


def test_step_memory_bad_contexts_name_the_argument():
    with pytest.raises(ValueError, match="contexts"):
        kx.step_memory(kx.lesson_model(), [1, 5])
    with pytest.raises(ValueError, match="contexts"):
        kx.step_memory(kx.lesson_model(), [0])


def test_measure_step_times_counts_the_flops_of_the_formula():
    model = qk.TinyTransformer(vocab_size=20, d_model=16, n_heads=2, n_layers=2, seed=1)
    sizes = dict(d_model=16, n_layers=2, vocab_size=20)
    m = kx.measure_step_times(model, [3, 9, 17], repeats=2)
    assert m.flops_uncached.tolist() == [step_flops(t, t, **sizes) for t in (3, 9, 17)]
    assert m.flops_cached.tolist() == [step_flops(1, t, **sizes) for t in (3, 9, 17)]
    assert (m.seconds_cached > 0).all() and (m.seconds_uncached > 0).all()
    assert m.speedup == pytest.approx(m.seconds_uncached / m.seconds_cached)
    assert m.flop_ratio == pytest.approx(m.flops_uncached / m.flops_cached)
    fit = m.fit
    expected = ((fit.overhead + fit.seconds_per_flop * m.flops_uncached)
                / (fit.overhead + fit.seconds_per_flop * m.flops_cached))
    assert m.predicted == pytest.approx(expected)


def test_measure_step_times_bad_input_names_the_argument():
    model = kx.lesson_model()
    with pytest.raises(ValueError, match="contexts"):
        kx.measure_step_times(model, [5])
    with pytest.raises(ValueError, match="contexts"):
        kx.measure_step_times(model, [1, 5])
    with pytest.raises(ValueError, match="repeats"):
        kx.measure_step_times(model, [2, 5], repeats=0)


@given(st.lists(st.integers(-5, 5), min_size=1, max_size=6))
def test_is_increasing_against_a_loop(values):
    assert kx.is_increasing(values) == all(a < b for a, b in zip(values, values[1:]))


def test_new_plots_label_what_they_show():
    import matplotlib.pyplot as plt

    plt.close("all")  # figures left open by earlier tests (and doctests) count too
    lang.set_language("ko")
    try:
        ax = qk.plots.plot_step_times([16, 32], [1e-4, 1.2e-4], [3e-4, 6e-4])
        assert ax.get_title() == lang.t("p_kv_step_time_title")
        assert ax.lines[0].get_ydata().tolist() == pytest.approx([0.3, 0.6])  # ms
        ax = qk.plots.plot_step_memory([8, 60], [16_000, 135_000], [4_000, 5_000],
                                       [2048, 15360])
        assert [t.get_text() for t in ax.get_legend().get_texts()] == [
            lang.t("p_kv_peak_uncached"), lang.t("p_kv_peak_cached"), lang.t("p_kv_kept")]
        ax = qk.plots.plot_cache_growth([1, 2], [256, 512], [256, 512],
                                        allocated_bytes=[512, 512])
        assert lang.t("p_kv_allocated") in [t.get_text() for t in ax.get_legend().get_texts()]
        ax = qk.plots.plot_speedup([16, 32], [2.0, 3.0], [9.0, 17.0], per_step=True)
        assert ax.get_xlabel() == lang.t("p_kv_step_axis")
        with pytest.raises(ValueError, match="seconds_uncached"):
            qk.plots.plot_step_times([16, 32], [1e-4, 1e-4], [3e-4])
        with pytest.raises(ValueError, match="allocated_bytes"):
            qk.plots.plot_cache_growth([1, 2], [256, 512], [256, 512], allocated_bytes=[1])
    finally:
        lang.set_language("en")
        plt.close("all")


def test_step_time_fit_recovers_an_exact_model_of_small_and_large_steps(monkeypatch):
    # Steps whose time is exactly 100 µs + 1 ns per FLOP: the fit must find both numbers,
    # the overhead too, although it is tiny beside the largest steps' time.
    from qkv_helpers import decoding

    real_generate = decoding.TinyTransformer.generate

    def timed(self, *args, **kwargs):
        gen = real_generate(self, *args, **kwargs)
        steps = [s._replace(seconds=1e-4 + 1e-9 * s.flops) for s in gen.steps]
        return gen._replace(steps=steps)

    monkeypatch.setattr(decoding.TinyTransformer, "generate", timed)
    m = kx.measure_step_times(kx.lesson_model(), [2, 16, 64, 200], repeats=1)
    assert m.fit.overhead == pytest.approx(1e-4, rel=1e-6)
    assert m.fit.seconds_per_flop == pytest.approx(1e-9, rel=1e-6)
    assert m.predicted == pytest.approx(m.speedup, rel=1e-6)

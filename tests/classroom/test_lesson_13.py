"""Lesson 13's exercise checks, widgets and plots."""

from __future__ import annotations

import numpy as np
import pytest

from qkv_helpers import checks, lang, softmax
from qkv_helpers.measure.long_context import online_softmax_trace

ODD = [..., None, "3", b"3", 3j, [1, "a"], {"a": 1}, object(), float("nan"), float("inf"),
       10**400, -1, 2.5, True, np.array([[1.0, 2.0]]), [], np.float64(1.0), lambda: 1]


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("answer", ODD, ids=[repr(a)[:20] for a in ODD])
def test_checks_never_raise_and_reject_odd_answers(answer, language):
    lang.set_language(language)
    f = checks.check_gqa_group(answer, n_q_heads=64, n_kv_heads=8, kv_head=5)
    assert f.ok is not True and isinstance(f.message, str) and f.message
    s, v = np.array([0.0, 1.0, 3.0, 2.0]), np.arange(8.0).reshape(4, 2)
    f = checks.check_merged_halves(answer, s, v)
    assert f.ok is not True and f.message
    f = checks.check_merged_halves(np.ones(2), answer, v)  # the inputs overwritten
    assert f.ok is not True and f.message


@pytest.mark.parametrize("n_q, n_kv, kv_head", [(64, 8, 5), (8, 2, 1), (4, 1, 0), (6, 6, 4)])
def test_gqa_group_check(n_q, n_kv, kv_head):
    group = n_q // n_kv
    expected = list(range(kv_head * group, (kv_head + 1) * group))
    assert checks.check_gqa_group(expected, n_q_heads=n_q, n_kv_heads=n_kv, kv_head=kv_head)
    assert checks.check_gqa_group(expected[::-1], n_q_heads=n_q, n_kv_heads=n_kv, kv_head=kv_head)
    assert checks.check_gqa_group(np.array(expected), n_q_heads=n_q, n_kv_heads=n_kv,
                                  kv_head=kv_head)
    for wrong in ([float(h) for h in expected], expected[:-1], [h + 1 for h in expected],
                  [True] * group, str(expected)):
        assert not checks.check_gqa_group(wrong, n_q_heads=n_q, n_kv_heads=n_kv, kv_head=kv_head)


def test_gqa_group_names_the_interleaved_slip():
    lang.set_language("en")
    f = checks.check_gqa_group(list(range(5, 64, 8)), n_q_heads=64, n_kv_heads=8, kv_head=5)
    assert f.ok is False and "interleaved" in f.message


def test_merged_halves_check_the_exercise_and_its_slips():
    lang.set_language("en")
    rng = np.random.default_rng(7)
    s, v = rng.normal(size=8) * 2, rng.normal(size=(8, 3))
    first = online_softmax_trace(s[:4], v[:4], 4)[-1]
    second = online_softmax_trace(s[4:], v[4:], 4)[-1]
    m = max(first.m, second.m)
    w1, w2 = first.l * np.exp(first.m - m), second.l * np.exp(second.m - m)
    solution = (w1 * first.output + w2 * second.output) / (w1 + w2)
    assert checks.check_merged_halves(solution, s, v)
    assert checks.check_merged_halves(list(solution), s, v)
    average = (first.output + second.output) / 2
    assert "average" in checks.check_merged_halves(average, s, v).message
    no_rescale = (first.l * first.output + second.l * second.output) / (first.l + second.l)
    assert "rescal" in checks.check_merged_halves(no_rescale, s, v).message
    assert not checks.check_merged_halves(solution + 1e-3, s, v)
    assert checks.check_merged_halves(np.ones(2), s, v).ok is False
    np.testing.assert_allclose(solution, softmax(s) @ v)


def test_merge_exercise_data_makes_the_rescaling_show():
    """The halves' maxima differ enough that exp(m_old − m_new) is far from 1, so an answer
    that rescales only half of the sums is wrong, not 'rounded' (with seed 13 the factor was
    0.999 and both half-right answers got check_close)."""
    lang.set_language("en")
    rng = np.random.default_rng(7)  # the lesson's exercise cell
    s, v = rng.normal(size=8) * 2, rng.normal(size=(8, 3))
    first = online_softmax_trace(s[:4], v[:4], 4)[-1]
    second = online_softmax_trace(s[4:], v[4:], 4)[-1]
    m = max(first.m, second.m)
    assert np.exp(min(first.m, second.m) - m) < 0.5
    w1, w2 = first.l * np.exp(first.m - m), second.l * np.exp(second.m - m)
    half_right = [(first.l * first.output + second.l * second.output) / (w1 + w2),
                  (w1 * first.output + w2 * second.output) / (first.l + second.l)]
    for answer in half_right:
        assert checks.check_merged_halves(answer, s, v).key == "check_l13_merge_wrong"


def test_tiling_widget_moves_through_the_blocks():
    from qkv_helpers.classroom.widgets import tiling_animation

    panel = tiling_animation(n_keys=12, block_size=5)
    assert panel.state["blocks"] == 3 and panel.state["keys_seen"] == 5
    first = bytes(panel.live.image.value)
    panel.controls["step"].value = 2
    assert panel.state["keys_seen"] == 10 and bytes(panel.live.image.value) != first
    panel.controls["step"].value = 3
    assert panel.state["keys_seen"] == 12
    np.testing.assert_allclose(panel.state["output"], panel.state["final"])


def test_paged_view_replays_the_pool():
    from qkv_helpers.classroom.widgets import paged_cache_view

    panel = paged_cache_view(n_blocks=24, block_size=4)
    slider = panel.controls["time"]
    seen_free = []
    for time in range(slider.max + 1):
        slider.value = time
        st = panel.state
        owners = [o for o in st["owners"] if o >= 0]
        assert len(owners) == st["held_blocks"]
        assert st["used_tokens"] <= st["held_blocks"] * 4 < st["used_tokens"] + 4 * max(
            1, len(st["tables"]))
        assert sum(st["filled"]) == st["used_tokens"]
        seen_free.append(st["owners"].count(-1))
    assert seen_free[-1] == 24  # everything finished: the whole pool is free again
    assert min(seen_free) < 24


def test_plots_draw():
    import matplotlib.pyplot as plt

    from qkv_helpers import plots
    from qkv_helpers.measure.long_context import A100_80GB, LLAMA_2_7B, serve_requests, step_cost

    fig, axes = plt.subplots(1, 3)
    try:
        ax = plots.plot_cost_loglog([256, 512], {"a": [1, 4], "b": [1, 2]}, ylabel="s",
                                    ax=axes[0])
        assert len(ax.lines) == 3
        with pytest.raises(ValueError, match="one entry per length"):
            plots.plot_cost_loglog([256, 512], {"a": [1]}, ylabel="s", ax=axes[0])
        ax = plots.plot_serving_memory(serve_requests([5, 50], max_len=64), ax=axes[1])
        assert len(ax.patches) == 3
        ax = plots.plot_roofline(A100_80GB, {"prefill": step_cost(LLAMA_2_7B, 512),
                                             "decode": step_cost(LLAMA_2_7B, 1, 512)},
                                 ax=axes[2])
        assert len(ax.lines) == 4
    finally:
        plt.close(fig)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_merge_messages_name_what_the_learner_has(language):
    """The learner has each half's output (= o / l), not o: the messages say l · output."""
    lang.set_language(language)
    rng = np.random.default_rng(7)
    s, v = rng.normal(size=8) * 2, rng.normal(size=(8, 3))
    first = online_softmax_trace(s[:4], v[:4], 4)[-1]
    second = online_softmax_trace(s[4:], v[4:], 4)[-1]
    average = checks.check_merged_halves((first.output + second.output) / 2, s, v)
    no_rescale = checks.check_merged_halves(
        (first.l * first.output + second.l * second.output) / (first.l + second.l), s, v)
    lang.set_language("en")
    assert average.key == "check_l13_merge_average" and "(= l · output)" in average.message
    assert no_rescale.key == "check_l13_merge_no_rescale"
    assert "l · output" in no_rescale.message.split(".")[0]

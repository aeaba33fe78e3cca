"""Positions (lesson 12): sinusoidal against the paper's formula, RoPE against two independent
formulations (complex numbers; the "rotate half" code of Llama implementations), and the
relative-position property under hypothesis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import qkv_helpers as qk
from qkv_helpers import positions
from qkv_helpers.encoder_decoder import encoder_example

finite = st.floats(-10, 10, allow_nan=False, width=64)


def rope_complex(x, pos, base=10000.0):
    """Reference 1: pair i with i + d/2 as a complex number x_i + j·x_{i+d/2}, times e^{j·m·θ_i}."""
    d = x.shape[-1]
    out = np.empty_like(x, dtype=np.float64)
    for row, m in enumerate(pos):
        for i in range(d // 2):
            theta = base ** (-2 * i / d)
            z = complex(x[row, i], x[row, i + d // 2]) * complex(math.cos(m * theta),
                                                                  math.sin(m * theta))
            out[row, i], out[row, i + d // 2] = z.real, z.imag
    return out


def rope_rotate_half(x, pos, base=10000.0):
    """Reference 2: the Llama code, ``x·cos + rotate_half(x)·sin`` with cos = cat(f, f)."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (np.arange(0, d, 2, dtype=np.float64) / d))
    freqs = np.outer(np.asarray(pos, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    rotate_half = np.concatenate([-x[..., d // 2:], x[..., : d // 2]], axis=-1)
    return x * np.cos(emb) + rotate_half * np.sin(emb)


def test_exact_small_case():
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    out = qk.apply_rope(x, positions=[2])
    # pair (1, 3) turns by 2 rad, pair (2, 4) by 2·0.01 rad
    expected = [1 * math.cos(2) - 3 * math.sin(2), 2 * math.cos(0.02) - 4 * math.sin(0.02),
                3 * math.cos(2) + 1 * math.sin(2), 4 * math.cos(0.02) + 2 * math.sin(0.02)]
    np.testing.assert_allclose(out[0], expected, rtol=1e-12)


def test_position_zero_changes_nothing_and_default_positions_count_up():
    x = np.random.default_rng(0).normal(size=(5, 6))
    np.testing.assert_array_equal(qk.apply_rope(x[:1]), x[:1])
    np.testing.assert_array_equal(qk.apply_rope(x), qk.apply_rope(x, positions=range(5)))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5).map(lambda h: 2 * h), st.data())
def test_rope_equals_both_references(n, d, data):
    x = data.draw(arrays(np.float64, (n, d), elements=finite))
    pos = data.draw(st.lists(st.integers(0, 5000), min_size=n, max_size=n))
    base = data.draw(st.sampled_from([10000.0, 500000.0, 10.0]))
    out = qk.apply_rope(x, pos, base)
    np.testing.assert_allclose(out, rope_complex(x, pos, base), atol=1e-9)
    np.testing.assert_allclose(out, rope_rotate_half(x, pos, base), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8).map(lambda h: 2 * h), st.integers(0, 2000), st.integers(0, 2000),
       st.integers(0, 2000), st.data())
def test_score_depends_only_on_the_distance(d, m, n, shift, data):
    q = data.draw(arrays(np.float64, (1, d), elements=finite))
    k = data.draw(arrays(np.float64, (1, d), elements=finite))
    score = float(qk.apply_rope(q, [m])[0] @ qk.apply_rope(k, [n])[0])
    shifted = float(qk.apply_rope(q, [m + shift])[0] @ qk.apply_rope(k, [n + shift])[0])
    scale = 1 + float(np.abs(q).sum() * np.abs(k).sum())
    assert abs(score - shifted) <= 1e-9 * scale


@given(st.integers(1, 8).map(lambda h: 2 * h), st.integers(0, 3000))
def test_rotation_matrix_is_the_same_rotation_and_orthogonal(d, m):
    r = positions.rope_rotation_matrix(m, d)
    x = np.random.default_rng(d + m).normal(size=(1, d))
    np.testing.assert_allclose(x @ r, qk.apply_rope(x, [m]), atol=1e-12)
    np.testing.assert_allclose(r @ r.T, np.eye(d), atol=1e-12)


def test_batched_and_float32():
    x = np.random.default_rng(1).normal(size=(2, 3, 4, 8)).astype(np.float32)
    out = qk.apply_rope(x)
    assert out.dtype == np.float32 and out.shape == x.shape
    np.testing.assert_allclose(out[1, 2], rope_complex(x[1, 2].astype(np.float64), range(4)),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x, pos, message", [
    (np.ones((3, 5)), None, "even"),
    (np.ones((3, 4)), [0, 1], "3 tokens"),
    (np.ones((3, 4)), [0, 1, 2.5], "whole numbers"),
    (np.ones((3, 4)), [0, -1, 2], ">= 0"),
    (np.ones((3, 4)), [True, False, True], "integer positions"),
    (np.ones((3, 4)), ["a", "b", "c"], "integer positions"),
    (np.ones(4), None, "x must have at least 2"),
    (np.ones((0, 4)), None, "at least one token"),
    (np.full((2, 4), np.nan), None, "finite"),
])
def test_bad_input_names_the_argument(x, pos, message):
    with pytest.raises((TypeError, ValueError), match=message):
        qk.apply_rope(x, pos)


def test_bad_base():
    with pytest.raises((TypeError, ValueError), match="base"):
        qk.apply_rope(np.ones((2, 4)), base=0)


def test_sinusoidal_positions_match_the_papers_formula():
    d = 6
    pe = qk.positions.sinusoidal_positions(5, d, dtype=np.float64)
    for pos in range(5):
        for i in range(d // 2):
            angle = pos / 10000 ** (2 * i / d)
            assert pe[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-12)
            assert pe[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-12)


@given(st.integers(-50, 50), st.integers(1, 8).map(lambda h: 2 * h))
def test_moving_on_is_one_fixed_matrix(shift, d):
    pe = positions.sinusoidal_positions(120, d, dtype=np.float64)
    m = positions.sinusoidal_shift_matrix(shift, d)
    start = max(0, -shift)
    rows = pe[start:start + 60]
    np.testing.assert_allclose(rows @ m, pe[start + shift:start + shift + 60], atol=1e-9)


def test_score_by_distance_is_the_trace_of_the_rotation_and_decays():
    d = 64
    distances = np.arange(0, 200)
    expected = [np.trace(positions.rope_rotation_matrix(int(k), d)) for k in distances]
    score = positions.rope_score_by_distance(d, distances)
    np.testing.assert_allclose(score, expected, atol=1e-9)
    assert score[0] == d
    # on average it falls: the mean over each next stretch of 50 is smaller
    means = score.reshape(4, 50).mean(axis=1)
    assert np.all(np.diff(means) < 0)


def test_cosine_similarity_matrix():
    v = np.array([[3.0, 4.0], [4.0, -3.0], [6.0, 8.0]])
    np.testing.assert_allclose(positions.cosine_similarity_matrix(v),
                               [[1, 0, 1], [0, 1, 0], [1, 0, 1]], atol=1e-12)
    with pytest.raises(ValueError, match="row 1 is all zeros"):
        positions.cosine_similarity_matrix([[1.0, 0.0], [0.0, 0.0]])


def test_causal_attention_is_not_permutation_equivariant():
    enc = encoder_example()
    check = positions.causal_permutation_check(enc.mha, enc.x, [1, 0, 2, 3, 4, 5, 6])
    assert check.encoder_difference < 1e-12
    assert check.causal_difference > 1e-3
    with pytest.raises(ValueError, match="permutation"):
        positions.causal_permutation_check(enc.mha, enc.x, [0, 0, 1, 2, 3, 4, 5])


def test_lesson_12_checks_accept_the_right_answer_and_refuse_near_misses():
    from qkv_helpers import checks

    ex = qk.running_example()
    q = ex.q[ex.index("cat")][None, :]
    k = ex.k[ex.index("sat")][None, :]
    right = float(qk.apply_rope(q, [7])[0] @ qk.apply_rope(k, [3])[0])
    args = dict(query_token="cat", query_position=7, key_token="sat", key_position=3)
    assert checks.check_rope_score(right, ex, **args).ok is True
    unrotated = float(q[0] @ k[0])
    swapped = float(qk.apply_rope(q, [3])[0] @ qk.apply_rope(k, [7])[0])
    for wrong in (unrotated, swapped, "0.5", ...):
        assert checks.check_rope_score(wrong, ex, **args).ok is not True
    same = dict(query_position=7, key_position=3, new_query_position=1007)
    assert checks.check_same_distance(1003, **same).ok is True
    for wrong in (3, 7, 1007, 4, 1011, 1003.0, "1003", True, ...):
        assert checks.check_same_distance(wrong, **same).ok is not True


def test_rope_widget_keeps_the_score_when_both_positions_move_together():
    from qkv_helpers.classroom.widgets import rope_explorer

    panel = rope_explorer()
    panel.controls["m"].value, panel.controls["n"].value = 5, 5
    at_zero = panel.state["score"]
    image = bytes(panel.live.image.value)
    panel.controls["m"].value, panel.controls["n"].value = 17, 17
    assert panel.state["score"] == pytest.approx(at_zero, abs=1e-12)
    assert bytes(panel.live.image.value) != image  # the arrows turned
    ex = qk.running_example()
    assert at_zero == pytest.approx(float(ex.q[ex.index("cat")] @ ex.k[ex.index("sat")]))
    with pytest.raises(ValueError, match="query_position"):
        rope_explorer(query_position=99)


def test_learned_positions_is_the_models_own_table_read_alone():
    """Lesson 12 reads the one table from the weights file (not the whole model): the same
    numbers lesson 11's model runs with."""
    from qkv_helpers.positions import learned_positions
    from qkv_helpers.pretrained import load_minilm

    table = learned_positions()
    assert table.dtype == np.float32 and table.shape == (512, 384)
    assert np.array_equal(table, load_minilm().position_embeddings)

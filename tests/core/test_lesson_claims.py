"""The functions behind the claims lessons 09, 11, 12 and 13 make (issue 22): each printed
number of those cells comes from one of these, checked here against an independent count,
a naive reference or an exact small case."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qkv_helpers as qk
from qkv_helpers import long_context, positions, pretrained
from qkv_helpers.kv_cache import arithmetic as kv_math

# --- lesson 12: what the causal mask alone gives ------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**16))
def test_a_causal_mask_alone_gives_absolute_position(n, seed):
    signal = positions.causal_position_signal(n)
    np.testing.assert_allclose(signal, 1.0 / np.arange(1, n + 1), rtol=1e-12)
    # the same from any keys, computed directly: q = 0 makes row i the mean of v over 0..i
    k = np.random.default_rng(seed).normal(size=(n, 3))
    v = np.zeros((n, 1))
    v[0] = 1
    direct = qk.scaled_dot_product_attention(np.zeros((n, 3)), k, v, mask=qk.causal_mask(n))
    np.testing.assert_allclose(direct.output[:, 0], signal, rtol=1e-12)
    # without the mask every row is the same, 1/n: no position at all
    plain = qk.scaled_dot_product_attention(np.zeros((n, 3)), k, v).output[:, 0]
    np.testing.assert_allclose(plain, 1.0 / n, rtol=1e-12)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3"])
def test_causal_position_signal_rejects_bad_n(bad):
    with pytest.raises((TypeError, ValueError), match="n"):
        positions.causal_position_signal(bad)


# --- lesson 12: RoPE's decay holds for similar vectors, not for every pair -----------------


def test_rope_mean_score_for_q_equal_k_follows_the_expected_curve():
    distances = [0, 1, 10, 50, 200]
    sampled = positions.rope_mean_score(64, distances, same=True, n_pairs=4000, seed=1)
    expected = positions.rope_score_by_distance(64, distances)
    # q·R q has variance below 2·d per pair: 5 standard errors
    assert np.all(np.abs(sampled - expected) < 5 * np.sqrt(2 * 64 / 4000)), (sampled, expected)
    assert sampled[0] > 60 and sampled[-1] < 30


def test_rope_mean_score_for_independent_pairs_is_zero_at_every_distance():
    sampled = positions.rope_mean_score(64, [0, 1, 10, 50, 200], same=False, n_pairs=4000)
    # q·k for independent standard normals has variance d: 5 standard errors
    assert np.all(np.abs(sampled) < 5 * np.sqrt(64 / 4000)), sampled


def test_rope_mean_score_rejects_bad_arguments():
    with pytest.raises(ValueError, match="d"):
        positions.rope_mean_score(5, [0], same=True)
    with pytest.raises((TypeError, ValueError), match="same"):
        positions.rope_mean_score(4, [0], same="yes")
    with pytest.raises((TypeError, ValueError), match="n_pairs"):
        positions.rope_mean_score(4, [0], same=True, n_pairs=0)


# --- lesson 13: FlashAttention's FLOPs, forward and training --------------------------------


def counted_products(shapes) -> int:
    """FLOPs of matrix products given as (rows, inner, columns): 2 · rows · inner · columns."""
    return sum(2 * m * k * n for m, k, n in shapes)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 50), st.integers(1, 50), st.integers(1, 20))
def test_training_flops_count_each_matrix_product(n_q, n_k, d):
    forward = counted_products([(n_q, d, n_k), (n_q, n_k, d)])  # S = QKᵀ, O = PV
    backward = counted_products([(n_k, n_q, d),  # dV = Pᵀ dO
                                 (n_q, d, n_k),  # dP = dO Vᵀ
                                 (n_q, n_k, d),  # dQ = dS K
                                 (n_k, n_q, d)])  # dK = dSᵀ Q
    plain = long_context.attention_training_flops(n_q, n_k, d)
    flash = long_context.attention_training_flops(n_q, n_k, d, recompute=True)
    assert plain.forward == flash.forward == forward == long_context.attention_flops(n_q, n_k, d)
    assert plain.backward == backward
    assert flash.backward == backward + counted_products([(n_q, d, n_k)])  # S again
    assert flash.total > plain.total


def test_training_flops_exact_small_case():
    flops = long_context.attention_training_flops(2, 2, 3, recompute=True)
    assert (flops.forward, flops.backward, flops.total) == (48, 120, 168)


def test_training_flops_rejects_bad_arguments():
    with pytest.raises((TypeError, ValueError), match="recompute"):
        long_context.attention_training_flops(4, 4, 4, recompute="yes")
    with pytest.raises((TypeError, ValueError), match="d_k"):
        long_context.attention_training_flops(4, 4, 0)


# --- lesson 09: the batch from which the cache outgrows the weights -------------------------


def test_llama_2_7b_cache_passes_its_weights_at_batch_7():
    cache = kv_math.kv_cache_bytes(32, 32, 128, 4096, 1, 2)
    weights = 6_738_415_616 * 2
    assert 6 * cache < weights < 7 * cache


# --- lesson 11: the normaliser, the vocabulary and Hangul; contribution shares ---------------


def test_hangul_count_exact_cases():
    assert pretrained.hangul_count("고양이가 cat") == (4, 0)
    assert pretrained.hangul_count(unicodedata.normalize("NFD", "매트")) == (0, 4)
    assert pretrained.hangul_count("") == (0, 0)
    with pytest.raises(TypeError, match="text"):
        pretrained.hangul_count(3)


@pytest.fixture(scope="module")
def model():
    return pretrained.load_minilm()


def test_the_normaliser_turns_syllables_into_jamo(model):
    sentence = "고양이가 매트 위에 앉았다."
    normalized = pretrained.normalize_text(model, sentence)
    # independent reference: lowercase, NFD, drop combining marks (BERT's strip_accents)
    reference = "".join(c for c in unicodedata.normalize("NFD", sentence.lower())
                        if unicodedata.category(c) != "Mn")
    assert normalized == reference
    assert pretrained.hangul_count(sentence) == (11, 0)
    assert pretrained.hangul_count(normalized) == (0, 25)
    tokens = model(sentence).tokens[0]
    assert (tokens.count("[UNK]"), len(tokens)) == (3, 10)


def test_the_vocabulary_has_jamo_but_no_syllable(model):
    vocab = model.tokenizer.get_vocab()
    counted = pretrained.vocabulary_hangul(model)
    assert counted.syllables == sum(any("가" <= c <= "힣" for c in p) for p in vocab) == 0
    assert counted.jamo == sum(any("\u1100" <= c <= "\u11ff" for c in p) for p in vocab) > 0


def test_contribution_shares_add_up_to_the_attention_output(model):
    out = model("The cat sat on the mat.")
    layer = model.layers[4].attention
    x = out.hidden_states[4][0]
    parts = [pretrained.contribution_shares(model, out, layer=4, head=h) for h in range(12)]
    total = sum(p.head_output for p in parts) + layer.b_o
    np.testing.assert_allclose(total, layer(x)[0], atol=1e-4)
    sink = parts[5]
    np.testing.assert_allclose(sink.projection_share.sum(-1), 1, atol=1e-6)
    np.testing.assert_allclose(sink.norm_share.sum(-1), 1, atol=1e-6)
    vn = pretrained.weighted_value_norms(model, out, layer=4, head=5)
    np.testing.assert_allclose(sink.norm_share,
                               vn.contributions / vn.contributions.sum(-1, keepdims=True),
                               atol=1e-5)
    np.testing.assert_allclose(sink.output_to_residual,
                               np.linalg.norm(sink.head_output, axis=-1)
                               / np.linalg.norm(x, axis=-1), rtol=1e-6)
    # lesson 11's numbers: weight 92 %, norm share 25 %, projection share 6.6 %, 2-5 % of x
    assert round(float(sink.weight[:, 0].mean()), 2) == 0.92
    assert round(float(sink.norm_share[:, 0].mean()), 2) == 0.25
    assert round(float(sink.projection_share[:, 0].mean()), 3) == 0.066
    assert 0.02 < sink.output_to_residual.min() < sink.output_to_residual.max() < 0.06


def test_normalize_text_rejects_bad_arguments(model):
    with pytest.raises(TypeError, match="model"):
        pretrained.normalize_text("model", "text")
    with pytest.raises(TypeError, match="text"):
        pretrained.normalize_text(model, 3)

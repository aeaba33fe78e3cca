"""TinyTransformer: cached and uncached decoding agree, and both agree with a full forward pass
and with an independent reference built from the package's public attention API; the FLOP
counts match formulas derived by hand; cache bytes follow the formula; errors are clear.

Hypothesis properties run in float64, where the two paths agree to ~1e-12 and a near tie
between the two largest logits (which could flip a greedy id) is out of reach; the float32
default is checked on fixed seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qkv_helpers import MultiHeadAttention, TinyTransformer, causal_mask
from qkv_helpers.decoding import FLOP_PARTS, DecodeState, Generation
from qkv_helpers.layer_norm import layer_norm
from qkv_helpers.positions import sinusoidal_positions

# --- an independent reference: the public attention API, plain loops ---------------------


def reference_layer_norm(x, eps=1e-5):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)


def reference_positions(n, d):
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(d):
            angle = pos / 10000 ** ((i - i % 2) / d)
            pe[pos, i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)
    return pe


def reference_forward(model, ids, source_ids=None):
    """All positions' logits, written from the model's description with MultiHeadAttention.

    Uses mha(x_q, x_kv, mask) (the checked public call, with W_Q, W_K, W_V as three
    separate products) rather than anything inside decoding.py.
    """
    def embed(tokens):
        return model.embedding[tokens] + reference_positions(len(tokens), model.d_model)

    def mlp(layer, h):
        return np.maximum(h @ layer.w_in, 0) @ layer.w_out

    memory = None
    if source_ids is not None:
        memory = embed(np.asarray(source_ids))
        for layer in model.encoder_layers:
            memory = memory + layer.attention(reference_layer_norm(memory)).output
            memory = memory + mlp(layer, reference_layer_norm(memory))
        memory = reference_layer_norm(memory)
    x = embed(np.asarray(ids))
    mask = causal_mask(len(ids))
    for layer in model.decoder_layers:
        x = x + layer.attention(reference_layer_norm(x), mask=mask).output
        if memory is not None:
            x = x + layer.cross_attention(reference_layer_norm(x), memory).output
        x = x + mlp(layer, reference_layer_norm(x))
    return reference_layer_norm(x) @ model.w_out


# --- the pieces ------------------------------------------------------------------------


def test_sinusoidal_positions_match_the_formula():
    for d in (1, 2, 5, 8):
        np.testing.assert_allclose(sinusoidal_positions(7, d, np.float64),
                                   reference_positions(7, d), atol=1e-12)


def test_layer_norm_matches_mean_and_variance():
    x = np.random.default_rng(0).normal(3.0, 2.0, (4, 6))
    y = layer_norm(x)
    np.testing.assert_allclose(y, reference_layer_norm(x), atol=1e-12)
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(-1), 1, atol=1e-4)  # eps = 1e-5 against variance 4


@pytest.mark.parametrize("dtype, atol", [(np.float64, 1e-12), (np.float32, 2e-6)])
def test_layer_norm_of_one_row_equals_that_row_among_others(dtype, atol):
    """One row (every cached step) gets the same numbers as among others in a batch."""
    x = np.random.default_rng(1).normal(-2.0, 3.0, (5, 16)).astype(dtype)
    many = layer_norm(x)
    assert many.dtype == dtype
    for i in range(5):
        one = layer_norm(x[i : i + 1])
        assert one.shape == (1, 16) and one.dtype == dtype
        np.testing.assert_allclose(one[0], many[i], atol=atol, rtol=0)
        np.testing.assert_allclose(one, reference_layer_norm(x[i : i + 1].astype(np.float64)),
                                   atol=atol, rtol=0)
    before = x.copy()
    layer_norm(x[:1])
    np.testing.assert_array_equal(x, before)  # the input is not changed


@pytest.mark.parametrize("source", [None, [4, 5, 6, 7]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_fast_attention_switch_gives_the_same_generation(source, dtype):
    """fast_attention=True (qkv_helpers.fast) decodes the same ids, logits to rounding."""
    readable = TinyTransformer(30, 16, 4, 2, seed=5, dtype=dtype)
    fast = TinyTransformer(30, 16, 4, 2, seed=5, dtype=dtype, fast_attention=True)
    atol = 1e-10 if dtype == np.float64 else 1e-4
    for use_cache in (True, False):
        a = readable.generate([1, 2, 3], 12, source_ids=source, use_cache=use_cache)
        b = fast.generate([1, 2, 3], 12, source_ids=source, use_cache=use_cache)
        np.testing.assert_array_equal(a.ids, b.ids)
        np.testing.assert_allclose(a.logits, b.logits, atol=atol, rtol=0)
        assert a.flops == b.flops
    np.testing.assert_allclose(readable.forward(list(range(20))), fast.forward(list(range(20))),
                               atol=atol, rtol=0)


def test_start_and_step_are_what_generate_does():
    """The public decoding step: start (the prefill), then step per token."""
    model = TinyTransformer(20, 8, 2, 2, seed=1)
    gen = model.generate([1, 2, 3], 5, source_ids=[7, 8])
    state = model.start([1, 2, 3], source_ids=[7, 8])
    assert isinstance(state, DecodeState) and state.new_tokens == 3
    ids = []
    for i in range(5):
        if i:
            assert model.step(state, ids[-1]) is state  # updated in place
            assert state.new_tokens == 1
        np.testing.assert_array_equal(state.logits, gen.logits[i])
        assert state.flops == gen.steps[i].flops
        assert state.cache_bytes == gen.steps[i].cache_bytes
        ids.append(int(state.logits.argmax()))
    np.testing.assert_array_equal(ids, gen.ids)
    assert state.ids == [1, 2, 3, *ids[:-1]] and len(state.caches[0]) == 7
    assert "tokens=7" in repr(state)


def test_step_errors_name_the_argument():
    model = TinyTransformer(10, 8, 2, 1, seed=0)
    state = model.start([1, 2])
    with pytest.raises(TypeError, match=r"state must be the DecodeState that start\(\) "
                                        r"returned, got dict"):
        model.step({}, 1)
    with pytest.raises(ValueError, match=r"token_id must hold ids in 0 .. 9 .* got 10"):
        model.step(state, 10)
    with pytest.raises(TypeError, match=r"token_id must hold integer token ids, got dtype float"):
        model.step(state, 1.5)
    with pytest.raises(TypeError, match=r"token_id must hold integer token ids, got dtype bool"):
        model.step(state, True)
    assert len(state.ids) == 2 and len(state.caches[0]) == 2  # nothing changed
    with pytest.raises(ValueError, match=r"capacity must be a positive integer, got 0"):
        model.start([1], capacity=0)


def test_no_code_outside_decoding_touches_tiny_transformer_private_names():
    """Lessons, widgets, experiments and benchmarks use start/step/generate, not internals."""
    import pathlib
    import re

    import qkv_helpers.decoding as decoding

    members = {name for name in vars(decoding.TinyTransformer) if name.startswith("_")
               and not name.startswith("__")}
    assert {"_decoder", "_embed", "_encode", "_check_ids"} <= members
    pattern = re.compile(r"\.(" + "|".join(sorted(members)) + r")\b"  # model._decoder
                         r"|\b(_random_block|DecodeState\()\b")  # decoding's internals
    root = pathlib.Path(decoding.__file__).resolve().parents[1]
    files = [*root.glob("qkv_helpers/**/*.py"), *root.glob("notebooks/src/*.py"),
             *root.glob("benchmarks/*.py"), *root.glob("tools/*.py"), *root.glob("tests/**/*.py")]
    offenders = []
    for path in files:
        if path.name in ("decoding.py", "test_decoding.py"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found = pattern.search(line)
            if found:
                offenders.append(f"{path.relative_to(root)}:{n}: {found.group(0)}")
    assert len(files) > 20
    assert offenders == []


def test_forward_matches_the_reference_decoder_only():
    model = TinyTransformer(30, 16, 4, 2, seed=1, dtype=np.float64)
    ids = [3, 1, 4, 1, 5, 9, 2, 6]
    np.testing.assert_allclose(model.forward(ids), reference_forward(model, ids), atol=1e-10)


def test_forward_matches_the_reference_with_a_source():
    model = TinyTransformer(30, 16, 4, 2, seed=2, dtype=np.float64)
    ids, source = [0, 7, 7, 2], [5, 3, 8, 9, 7, 9]
    np.testing.assert_allclose(model.forward(ids, source), reference_forward(model, ids, source),
                               atol=1e-10)


def test_forward_is_causal():
    """Changing a later token changes no earlier row of the logits."""
    model = TinyTransformer(30, 16, 4, 2, seed=0, dtype=np.float64)
    a = model.forward([1, 2, 3, 4, 5])
    b = model.forward([1, 2, 3, 9, 9])
    np.testing.assert_allclose(a[:3], b[:3], atol=1e-12)
    assert not np.allclose(a[3:], b[3:])


def test_encode_shape_and_no_mask():
    """The encoder sees the whole source: changing the last token changes the first row."""
    model = TinyTransformer(30, 16, 4, 1, seed=0)
    a, b = model.encode([1, 2, 3]), model.encode([1, 2, 4])
    assert a.shape == (3, 16)
    assert not np.allclose(a[0], b[0])


# --- cached and uncached decoding agree --------------------------------------------------


def assert_same_decoding(model, prompt, n, source=None, atol=1e-9):
    cached = model.generate(prompt, n, source_ids=source, use_cache=True)
    uncached = model.generate(prompt, n, source_ids=source, use_cache=False)
    np.testing.assert_array_equal(cached.ids, uncached.ids)
    np.testing.assert_allclose(cached.logits, uncached.logits, atol=atol, rtol=0)
    assert cached.ids.shape == (n,) and cached.logits.shape == (n, model.vocab_size)
    np.testing.assert_array_equal(cached.ids, cached.logits.argmax(axis=1))
    return cached, uncached


@given(
    seed=st.integers(0, 2**16),
    n_layers=st.integers(1, 2),
    n_heads=st.sampled_from([1, 2, 4]),
    head_dim=st.sampled_from([2, 4]),
    vocab_size=st.integers(2, 40),
    prompt=st.lists(st.integers(0, 1000), min_size=1, max_size=6),
    n_new=st.integers(1, 10),
    source=st.none() | st.lists(st.integers(0, 1000), min_size=1, max_size=6),
)
def test_cached_equals_uncached(seed, n_layers, n_heads, head_dim, vocab_size, prompt, n_new,
                                source):
    model = TinyTransformer(vocab_size, n_heads * head_dim, n_heads, n_layers, seed=seed,
                            dtype=np.float64)
    prompt = [i % vocab_size for i in prompt]
    source = None if source is None else [i % vocab_size for i in source]
    assert_same_decoding(model, prompt, n_new, source, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("source", [None, [4, 8, 15, 16, 23, 42]])
def test_cached_equals_uncached_float32(seed, source):
    model = TinyTransformer(64, 32, 4, 2, seed=seed)
    cached, _ = assert_same_decoding(model, [1, 2, 3], 24, source, atol=1e-4)
    assert cached.logits.dtype == np.float32


@pytest.mark.parametrize("source", [None, [9, 8, 7, 6, 5]])
def test_each_step_equals_the_last_row_of_a_full_forward_pass(source):
    model = TinyTransformer(40, 16, 2, 2, seed=5, dtype=np.float64)
    prompt = [3, 1, 4]
    result = model.generate(prompt, 8, source_ids=source)
    for i in range(8):
        seen = prompt + result.ids[:i].tolist()
        full = model.forward(seen, source)  # (len(seen), vocab_size)
        np.testing.assert_allclose(result.logits[i], full[-1], atol=1e-10)
        # and the independent reference agrees too
        np.testing.assert_allclose(full, reference_forward(model, seen, source), atol=1e-10)


def test_a_longer_run_stays_equal_in_float32():
    model = TinyTransformer(256, 64, 4, 2, seed=7)
    assert_same_decoding(model, list(range(8)), 120, atol=2e-4)


# --- greedy decoding is not degenerate -------------------------------------------------


def test_greedy_ids_vary():
    """Most seeds wander over many tokens rather than settle on one token for good.

    (Greedy decoding of an untrained model does fall into loops, as greedy decoding of
    real models can; here most runs still visit many tokens and keep moving.)
    """
    varied = 0
    for source in (None, [3, 4, 5, 6, 7]):
        for seed in range(10):
            ids = TinyTransformer(50, 32, 4, 2, seed=seed).generate([1, 2], 40, source).ids
            varied += len(set(ids.tolist())) >= 6 and len(set(ids[-10:].tolist())) >= 2
    assert varied >= 14  # of 20


def test_logits_are_spread_out():
    result = TinyTransformer(50, 32, 4, 2, seed=0).generate([1, 2], 20)
    spread = result.logits.std(axis=1)
    assert (spread > 0.5).all() and (spread < 5).all()
    top2 = np.sort(result.logits, axis=1)[:, -2:]
    assert np.median(top2[:, 1] - top2[:, 0]) > 1e-2  # greedy choices are not coin flips


# --- FLOPs counted against formulas derived by hand ------------------------------------

V, D, H, L, F = 11, 8, 2, 2, 12  # vocab, d_model, heads, layers, d_ff
P, S, N = 3, 4, 5  # prompt tokens, source tokens, new tokens


def expected_flops(n, t, source, use_cache, first):
    """FLOPs of a step that runs n tokens through the decoder, attending over t tokens.

    Every product is (m, k) @ (k, n_out) -> 2·m·k·n_out. Per decoder layer:
    Q, K, V: 2·n·D·3D; W_O: 2·n·D·D; q·kᵀ and weights·v: 2·H·n·t·(D/H) each;
    MLP: 2·n·D·F + 2·n·F·D. Cross-attention adds Q and W_O (2·n·D·D each) and
    q·kᵀ, weights·v over S keys; its K and V are 2·S·D·2D. Logits: 2·1·D·V.
    """
    parts = dict.fromkeys(FLOP_PARTS, 0)
    parts["projections"] = L * (2 * n * D * 3 * D + 2 * n * D * D)
    parts["attention"] = L * 2 * (2 * H * n * t * (D // H))
    parts["mlp"] = L * (2 * n * D * F + 2 * n * F * D)
    parts["logits"] = 2 * D * V
    if source:
        parts["projections"] += L * 2 * (2 * n * D * D)
        parts["attention"] += L * 2 * (2 * H * n * S * (D // H))
        if first or not use_cache:
            parts["cross_kv"] = L * 2 * S * D * 2 * D
        if first:
            per_layer = 2 * S * D * 3 * D + 2 * S * D * D + 4 * S * S * D + 4 * S * D * F
            parts["encoder"] = L * per_layer
    return parts


@pytest.mark.parametrize("use_cache", [True, False])
@pytest.mark.parametrize("with_source", [False, True])
def test_flops_match_the_hand_formula(use_cache, with_source):
    model = TinyTransformer(V, D, H, L, seed=0, d_ff=F)
    source = list(range(S)) if with_source else None
    result = model.generate([1, 2, 3], N, source_ids=source, use_cache=use_cache)
    for i, step in enumerate(result.steps):
        t = P + i
        n = (P if i == 0 else 1) if use_cache else t
        want = expected_flops(n, t, with_source, use_cache, first=i == 0)
        assert step.flops_by_part == want, f"step {i}"
        assert step.flops == sum(want.values())
        assert (step.new_tokens, step.context) == (n, t)
    assert result.flops == sum(s.flops for s in result.steps)


def test_cross_kv_and_encoder_are_computed_once_with_the_cache():
    model = TinyTransformer(V, D, H, L, seed=0)
    cached = model.generate([1], 6, source_ids=[1, 2, 3])
    uncached = model.generate([1], 6, source_ids=[1, 2, 3], use_cache=False)
    assert [s.flops_by_part["cross_kv"] > 0 for s in cached.steps] == [True] + [False] * 5
    assert all(s.flops_by_part["cross_kv"] > 0 for s in uncached.steps)
    for result in (cached, uncached):
        assert [s.flops_by_part["encoder"] > 0 for s in result.steps] == [True] + [False] * 5


def test_the_cache_saves_flops_and_more_so_for_longer_outputs():
    model = TinyTransformer(64, 32, 4, 2, seed=0)
    ratios = []
    for n in (8, 32, 128):
        cached = model.generate([1, 2], n)
        uncached = model.generate([1, 2], n, use_cache=False)
        ratios.append(uncached.flops / cached.flops)
        # a cached step after the first costs the same except attention, which grows with t
        no_attention = {s.flops - s.flops_by_part["attention"] for s in cached.steps[1:]}
        assert len(no_attention) <= 1
    assert 1 < ratios[0] < ratios[1] < ratios[2]


# --- cache bytes -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cache_bytes_follow_the_formula(dtype):
    model = TinyTransformer(30, 16, 4, 3, seed=0, dtype=dtype)
    itemsize = np.dtype(dtype).itemsize
    result = model.generate([1, 2, 3, 4], 6)
    for step in result.steps:
        # bytes = 2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value
        assert step.cache_bytes == 2 * 3 * 4 * 4 * step.context * 1 * itemsize
    with_source = model.generate([1], 4, source_ids=[1, 2, 3, 4, 5])
    for step in with_source.steps:
        assert step.cache_bytes == 2 * 3 * 4 * 4 * (step.context + 5) * itemsize
    uncached = model.generate([1, 2, 3, 4], 6, use_cache=False)
    assert all(step.cache_bytes == 0 for step in uncached.steps)


def test_generation_fields():
    result = TinyTransformer(30, 16, 4, 1, seed=0).generate([5], 3)
    assert isinstance(result, Generation)
    assert len(result.steps) == 3
    assert result.ids.dtype == np.int64
    assert all(s.seconds > 0 for s in result.steps)
    assert result.seconds == pytest.approx(sum(s.seconds for s in result.steps))


def test_seeds_give_different_models_and_the_same_seed_the_same_one():
    a = TinyTransformer(50, 16, 2, 1, seed=0).generate([1, 2], 10).logits
    b = TinyTransformer(50, 16, 2, 1, seed=0).generate([1, 2], 10).logits
    c = TinyTransformer(50, 16, 2, 1, seed=1).generate([1, 2], 10).logits
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_uses_multi_head_attention():
    model = TinyTransformer(20, 8, 2, 2, seed=0)
    for layer in model.decoder_layers:
        assert isinstance(layer.attention, MultiHeadAttention)
        assert isinstance(layer.cross_attention, MultiHeadAttention)
        assert layer.attention.dtype == np.float32
    assert repr(model).startswith("TinyTransformer(vocab_size=20, d_model=8, n_heads=2")


# --- errors --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model():
    return TinyTransformer(10, 8, 2, 1, seed=0)


@pytest.mark.parametrize("prompt, error, match", [
    ([], ValueError, r"prompt_ids must be a non-empty 1-D sequence .* got shape \(0,\)"),
    ([[1, 2]], ValueError, r"prompt_ids must be a non-empty 1-D .* got shape \(1, 2\)"),
    ([1.0, 2.0], TypeError, r"prompt_ids must hold integer token ids, got dtype float64"),
    ([1, 10], ValueError, r"prompt_ids must hold ids in 0 .. 9 \(vocab_size = 10\); got 10 at "
                          r"index 1"),
    ([-1], ValueError, r"got -1 at index 0"),
])
def test_bad_prompt(model, prompt, error, match):
    with pytest.raises(error, match=match):
        model.generate(prompt, 3)


def test_bad_source_and_length(model):
    with pytest.raises(ValueError, match=r"source_ids must hold ids in 0 .. 9"):
        model.generate([1], 3, source_ids=[11])
    with pytest.raises(ValueError, match=r"max_new_tokens must be a positive integer, got 0"):
        model.generate([1], 0)
    with pytest.raises(ValueError, match=r"ids must be a non-empty"):
        model.forward([])


def test_bad_construction():
    with pytest.raises(ValueError, match=r"d_model must be divisible by n_heads"):
        TinyTransformer(10, 10, 3, 1)
    with pytest.raises(TypeError, match=r"dtype must be one of np.float32 or np.float64, "
                                        r"got float16"):
        TinyTransformer(10, 8, 2, 1, dtype=np.float16)
    with pytest.raises(ValueError, match=r"n_layers must be a positive integer, got 0"):
        TinyTransformer(10, 8, 2, 0)


# --- the package's attention, as the decoder calls it ----------------------------------


@pytest.mark.parametrize("fast_attention", [False, True])
def test_generate_uses_the_package_attention(monkeypatch, fast_attention):
    """Every attention of a decoding step goes through scaled_dot_product_attention's own
    body (its unchecked core, ``attention.attention_unchecked``, as block.py imports it; or,
    with the switch, qkv_helpers.fast): not a copy in decoding.py or block.py."""
    from qkv_helpers import attention, block, fast

    assert block.attention_unchecked is attention.attention_unchecked
    calls = []
    name = "decoder_attention" if fast_attention else "attention_unchecked"
    where = fast if fast_attention else block
    original = getattr(where, name)

    def counting(q, k, v, *args, **kwargs):
        calls.append((q.shape, k.shape))
        return original(q, k, v, *args, **kwargs)

    monkeypatch.setattr(where, name, counting)
    model = TinyTransformer(20, 8, 2, 2, seed=0, fast_attention=fast_attention)
    model.generate([1, 2, 3], 4, source_ids=[4, 5])
    # per step: 2 layers × (self + cross); the encoder (step 0): 2 layers × self
    assert len(calls) == 4 * 2 * 2 + 2
    decoder_self = [c for c in calls if c[1][-2] not in (2,)]
    assert [c[1][-2] for c in decoder_self[-2:]] == [6, 6]  # the last step: 6 tokens kept
    assert decoder_self[-1][0] == (2, 1, 4)  # one query, 2 heads of width 4

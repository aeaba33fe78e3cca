"""The one transformer block (qkv_helpers.block): every model runs through it, and its
backward is the derivative of its forward.

``tests/data/block_reference.npz`` holds outputs computed before the three models shared
the block (the translator's forward, gradients and greedy ids on its saved weights, and
TinyTransformer's generations, alone and holding the translator's weights); MiniLM's
reference is Hugging Face's own (``minilm_reference64.npz``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qkv_helpers import decoding, toy_corpus
from qkv_helpers import translator as tr
from qkv_helpers.block import AttentionTrace, AttentionWeights, Block, block, block_backward
from qkv_helpers.induction import InductionModel
from qkv_helpers.masks import causal_mask

DATA = Path(__file__).resolve().parents[1] / "data"
SAVED = np.load(DATA / "block_reference.npz")


@pytest.fixture(scope="module")
def trained():
    return tr.load_trained()[0]


def _batch():
    pairs = toy_corpus.make_corpus(n_train=8, n_valid=1, n_heldout=1, seed=3).train
    return tr.make_batch(pairs, toy_corpus.Vocabulary())


# --- each model through the block, against its saved outputs ----------------------------------


def test_every_model_is_made_of_blocks(trained):
    from qkv_helpers.pretrained import load_minilm

    tiny = decoding.TinyTransformer(20, 8, 2, 2, seed=0)
    assert all(isinstance(b, Block) for b in tiny.encoder_layers + tiny.decoder_layers)
    assert all(isinstance(b, Block) and b.norm == "pre" for b in trained.blocks())
    minilm = load_minilm()
    assert all(isinstance(b, Block) and b.norm == "post" for b in minilm.layers)
    induction = InductionModel(seed=0)  # lesson 15: attention only, no norm, one head
    blocks = induction.blocks()
    assert len(blocks) == 2 and all(isinstance(b, Block) and b.norm == "none" and
                                    b.w_in is None and b.attention.n_heads == 1 for b in blocks)
    assert blocks[1].attention.w_k is induction.params["l1.w_k"]  # its arrays, not copies


def test_translator_matches_its_saved_outputs(trained):
    batch = _batch()
    logits, cache = trained.forward(batch)
    np.testing.assert_allclose(logits[:2], SAVED["tr_logits"], rtol=0, atol=1e-12)
    assert isinstance(cache["dec.cross"], AttentionTrace)
    np.testing.assert_allclose(cache["dec.cross"].weights, SAVED["tr_cross"], rtol=0, atol=1e-12)
    assert cache["dec.cross"][5] is cache["dec.cross"].weights  # the old index still reads it
    loss, grads = trained.loss_and_grads(batch)
    assert loss == pytest.approx(float(SAVED["tr_loss"]), rel=1e-13)
    for name in ("dec.cross.w_q", "dec.self.w_v", "enc.w_1", "w_out"):
        np.testing.assert_allclose(grads[name], SAVED["tr_grad." + name], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(trained.greedy(batch.source), SAVED["tr_greedy"])


@pytest.mark.parametrize("use_cache", [True, False])
def test_tiny_transformer_holding_the_translator_matches(trained, use_cache):
    vocab = toy_corpus.Vocabulary()
    source = vocab.encode(["the", "cat", "sat", "on", "the", "mat", "<eos>"])
    out = trained.as_tiny_transformer().generate([vocab.bos], 5, source_ids=source,
                                                 use_cache=use_cache)
    np.testing.assert_array_equal(out.ids, SAVED[f"tiny_tr_ids_{use_cache}"])
    np.testing.assert_allclose(out.logits, SAVED[f"tiny_tr_logits_{use_cache}"], rtol=0,
                               atol=1e-12)
    flops = [[s.flops_by_part[p] for p in decoding.FLOP_PARTS] for s in out.steps]
    np.testing.assert_array_equal(flops, SAVED[f"tiny_tr_flops_{use_cache}"])
    np.testing.assert_array_equal([s.cache_bytes for s in out.steps],
                                  SAVED[f"tiny_tr_bytes_{use_cache}"])


@pytest.mark.parametrize("use_cache", [True, False])
@pytest.mark.parametrize("with_source", [True, False])
def test_tiny_transformer_matches_its_saved_generations(use_cache, with_source):
    model = decoding.TinyTransformer(50, 32, 4, 2, seed=3)
    out = model.generate([1, 2, 3], 6, source_ids=[5, 6, 7] if with_source else None,
                         use_cache=use_cache)
    key = f"tiny_float32_{use_cache}_{with_source}"
    np.testing.assert_array_equal(out.ids, SAVED[key + "_ids"])
    np.testing.assert_allclose(out.logits, SAVED[key + "_logits"], rtol=0, atol=1e-5)
    flops = [[s.flops_by_part[p] for p in decoding.FLOP_PARTS] for s in out.steps]
    np.testing.assert_array_equal(flops, SAVED[key + "_flops"])
    np.testing.assert_array_equal([s.cache_bytes for s in out.steps], SAVED[key + "_bytes"])
    np.testing.assert_allclose(model.forward([1, 2, 3, 4], source_ids=[7, 8]),
                               SAVED["tiny_float32_forward"], rtol=0, atol=1e-5)
    np.testing.assert_allclose(model.encode([7, 8, 9]), SAVED["tiny_float32_encode"], rtol=0,
                               atol=1e-5)


def test_minilm_through_the_block_matches_hugging_face():
    from qkv_helpers.pretrained import load_minilm

    ref = np.load(DATA / "minilm_reference64.npz")
    model = load_minilm(np.float64)
    hidden, attentions = model.encode(ref["batch/input_ids"], ref["batch/mask"])
    real = ref["batch/mask"][:, :, None]  # (batch, n, 1): padded rows mean nothing
    for got, want in zip(hidden, ref["batch/hidden_states"]):
        np.testing.assert_allclose(got * real, want * real, rtol=0, atol=1e-10)
    for got, want in zip(attentions, ref["batch/attentions"]):
        np.testing.assert_allclose(got * real[:, None], want * real[:, None], rtol=0,
                                   atol=1e-10)


# --- the backward: central differences ------------------------------------------------------


def _block_of_random_weights(rng, d, h, d_ff, self_attention=True, cross=True, ffn=True,
                             norm="pre"):
    def attention():
        return AttentionWeights(h, *(rng.normal(0, 1 / np.sqrt(d), (d, d)) for _ in range(4)))

    return Block(attention() if self_attention else None,
                 rng.normal(0, 1 / np.sqrt(d), (d, d_ff)) if ffn else None,
                 rng.normal(0, 1 / np.sqrt(d_ff), (d_ff, d)) if ffn else None,
                 cross_attention=attention() if cross else None, norm=norm)


def _arrays(b: Block) -> dict:
    """Every weight of ``b`` under block_backward's names (the same arrays, not copies)."""
    named = {}
    for prefix, a in (("self", b.attention), ("cross", b.cross_attention)):
        if a is not None:
            named.update({f"{prefix}.{w}": getattr(a, w) for w in ("w_q", "w_k", "w_v", "w_o")})
    if b.w_in is not None:
        named.update(w_in=b.w_in, w_out=b.w_out)
    return named


def _numeric(loss, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        up = loss()
        x[i] = old - eps
        down = loss()
        x[i] = old
        g[i] = (up - down) / (2 * eps)
    return g


def _relative_error(a, b):
    return float(np.linalg.norm(a - b) / (np.linalg.norm(a) + np.linalg.norm(b)))


@pytest.mark.parametrize("parts", [
    dict(),  # a decoder block: self-attention, cross-attention, feed-forward
    dict(cross=False),  # an encoder block
    dict(self_attention=False, cross=False),  # the translator's encoder without self-attention
    dict(cross=False, ffn=False, norm="none"),  # attention only, no norm (lesson 15's layers)
])
def test_block_backward_is_the_derivative_of_block(parts):
    rng = np.random.default_rng(0)
    b = _block_of_random_weights(rng, d=6, h=2, d_ff=10, **parts)
    x = rng.normal(size=(2, 4, 6))  # (B, n, d)
    memory = rng.normal(size=(2, 3, 6))  # (B, n_src, d)
    keep = np.array([[True, True, True, False], [True, True, True, True]])  # (B, n) padding
    mask = causal_mask(4) & keep[:, None, None, :]  # (B, 1, n, n)
    memory_mask = np.array([[True, True, False], [True, True, True]])[:, None, None, :]
    d_out = rng.normal(size=x.shape)

    def loss():
        y = block(b, x, mask=mask, memory=memory, memory_mask=memory_mask).x
        return float((y * d_out).sum())

    trace = block(b, x, mask=mask, memory=memory, memory_mask=memory_mask).trace
    grads = block_backward(b, d_out, trace)
    assert _relative_error(grads.d_x, _numeric(loss, x)) < 1e-7
    if b.cross_attention is not None:
        assert _relative_error(grads.d_memory, _numeric(loss, memory)) < 1e-7
    else:
        assert grads.d_memory is None
    weights = _arrays(b)
    assert set(grads.weights) == set(weights)
    for name, w in weights.items():
        assert _relative_error(grads.weights[name], _numeric(loss, w)) < 1e-7, name


def test_block_backward_catches_a_wrong_residual():
    """The check can fail: a backward that forgets the residual's pass-through is far off."""
    rng = np.random.default_rng(1)
    b = _block_of_random_weights(rng, d=4, h=1, d_ff=6, cross=False)
    x, d_out = rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 3, 4))
    trace = block(b, x).trace
    right = block_backward(b, d_out, trace).d_x
    wrong = right - d_out  # without the identity path of x + f(LN(x))
    numeric = _numeric(lambda: float((block(b, x).x * d_out).sum()), x)
    assert _relative_error(right, numeric) < 1e-7 < 0.1 < _relative_error(wrong, numeric)


def test_block_backward_refuses_what_it_does_not_know():
    """Post-norm, GELU or biases: no silently wrong gradient, an error naming the block."""
    from qkv_helpers.pretrained import gelu

    rng = np.random.default_rng(2)
    b = _block_of_random_weights(rng, d=4, h=1, d_ff=6, cross=False)
    x = rng.normal(size=(1, 3, 4))
    for other in (b._replace(norm="post"), b._replace(activation=gelu),
                  b._replace(b_in=np.zeros(6))):
        trace = block(other, x).trace
        with pytest.raises(ValueError, match="block_backward"):
            block_backward(other, np.ones_like(x), trace)


# --- another stream for the queries, keys or values (lesson 15's knock-outs) ---------------------


def _attention_by_hand(a, h_q, h_k, h_v, mask):
    """One batch of multi-head self-attention, head by head with a loop: q from h_q, k from
    h_k, v from h_v, ``(n, d)`` each; its output after W_O ``(n, d)``."""
    d_head = a.w_q.shape[1] // a.n_heads
    heads = []
    for head in range(a.n_heads):
        cols = slice(head * d_head, (head + 1) * d_head)
        q, k, v = h_q @ a.w_q[:, cols], h_k @ a.w_k[:, cols], h_v @ a.w_v[:, cols]
        scores = np.where(mask, q @ k.T / np.sqrt(d_head), -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        heads.append(weights / weights.sum(axis=-1, keepdims=True) @ v)
    return np.concatenate(heads, axis=-1) @ a.w_o


def _layer_norm_by_hand(x):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)


@pytest.mark.parametrize("norm", ["none", "pre", "post"])
@pytest.mark.parametrize("which", ["x_q", "x_k", "x_v"])
def test_a_knock_out_stream_feeds_only_its_input(norm, which):
    """block(b, x, x_k=other): the keys read ``other`` (through the block's layer norm),
    the queries and values read ``x``, and the residual adds to ``x``."""
    rng = np.random.default_rng(4)
    b = _block_of_random_weights(rng, d=6, h=2, d_ff=10, cross=False, ffn=False, norm=norm)
    x, other = rng.normal(size=(2, 5, 6)), rng.normal(size=(2, 5, 6))  # (B, n, d)
    out = block(b, x, causal_mask, **{which: other})
    ln = _layer_norm_by_hand if norm == "pre" else (lambda s: s)
    for i in range(2):
        inputs = {name: ln(other[i] if name == which else x[i]) for name in ("x_q", "x_k", "x_v")}
        expected = x[i] + _attention_by_hand(b.attention, *inputs.values(), causal_mask(5))
        if norm == "post":
            expected = _layer_norm_by_hand(expected)
        np.testing.assert_allclose(out.x[i], expected, rtol=0, atol=1e-12)
    plain = block(b, x, causal_mask).x
    assert not np.allclose(out.x, plain)  # the other stream changed something
    np.testing.assert_array_equal(block(b, x, causal_mask, **{which: None}).x, plain)


def test_block_backward_refuses_a_knock_out():
    """A trace whose keys read another stream has a gradient that belongs partly to that
    stream: block_backward says so instead of adding it to d_x."""
    rng = np.random.default_rng(5)
    b = _block_of_random_weights(rng, d=4, h=1, d_ff=6, cross=False, ffn=False, norm="none")
    x, x0 = rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 3, 4))
    block_backward(b, np.ones_like(x), block(b, x, causal_mask).trace)  # the plain one runs
    for which in ("x_q", "x_k", "x_v"):
        trace = block(b, x, causal_mask, **{which: x0}).trace
        with pytest.raises(ValueError, match="knock-out"):
            block_backward(b, np.ones_like(x), trace)


def test_the_fast_path_refuses_a_mask_it_would_compute_as_causal():
    """block(..., fast=True) knows no mask and the causal mask; another mask (here a key
    hidden from every query) is refused, not silently replaced by the causal one."""
    from qkv_helpers.attention import MultiHeadAttention
    from qkv_helpers.block import Block, block
    from qkv_helpers.masks import causal_mask

    b = Block(MultiHeadAttention(8, 2, seed=0), None, None)  # attention only
    x = np.random.default_rng(0).normal(size=(5, 8))
    plain = block(b, x, causal_mask).x
    np.testing.assert_allclose(block(b, x, causal_mask, fast=True).x, plain, atol=1e-12)
    np.testing.assert_allclose(block(b, x, fast=True).x, block(b, x).x, atol=1e-12)
    other = causal_mask(5, 5) & (np.arange(5) != 0)[None, :]  # no query sees key 0 ...
    other[0, 0] = True  # ... except the first, which has no other
    with pytest.raises(ValueError, match="fast_attention=False"):
        block(b, x, other, fast=True)

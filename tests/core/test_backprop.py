"""Lesson 14's hand-written backward pass, checked against finite differences and torch.

Relative error by norm, ‖analytic − numeric‖ / (‖analytic‖ + ‖numeric‖): a gradient that
is exactly 0 (padding rows, tokens absent from the batch) is then compared fairly,
where an entry-by-entry relative error would divide 0 by 0.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qkv_helpers import backprop as bp
from qkv_helpers.masks import causal_mask
from qkv_helpers.toy_corpus import Vocabulary, build_sentence, make_corpus
from qkv_helpers.translator import Translator, make_batch


def relative_error(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    denom = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denom == 0 else float(np.linalg.norm(a - b) / denom)


def numeric_gradient(f, x, eps=1e-6):
    """Central differences of the scalar f() with respect to every entry of x (in place)."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        up = f()
        x[i] = old - eps
        down = f()
        x[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


rng = np.random.default_rng(0)


def test_linear_backward():
    x, w, r = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5)), rng.normal(size=(2, 3, 5))
    d_x, d_w = bp.linear_backward(r, x, w)
    assert relative_error(d_x, numeric_gradient(lambda: (bp.linear(x, w) * r).sum(), x)) < 1e-9
    assert relative_error(d_w, numeric_gradient(lambda: (bp.linear(x, w) * r).sum(), w)) < 1e-9


def test_relu_backward():
    x, r = rng.normal(size=(3, 7)), rng.normal(size=(3, 7))
    assert relative_error(bp.relu_backward(r, x),
                          numeric_gradient(lambda: (bp.relu(x) * r).sum(), x)) < 1e-9


def test_layer_norm_backward_and_the_formula():
    from qkv_helpers.layer_norm import layer_norm as readable

    x, r = rng.normal(size=(2, 3, 6)), rng.normal(size=(2, 3, 6))
    y, inv_std = bp.layer_norm(x)
    np.testing.assert_allclose(y, readable(x), rtol=1e-12)
    num = numeric_gradient(lambda: (bp.layer_norm(x)[0] * r).sum(), x)
    assert relative_error(bp.layer_norm_backward(r, y, inv_std), num) < 1e-8


def test_embedding_backward_sums_repeated_ids_and_leaves_unused_rows_zero():
    table, ids = rng.normal(size=(6, 3)), np.array([[1, 4, 1], [0, 1, 4]])
    r = rng.normal(size=(2, 3, 3))
    d = bp.embedding_backward(r, ids, 6)
    np.testing.assert_allclose(d[1], r[0, 0] + r[0, 2] + r[1, 1])
    assert not d[[2, 3, 5]].any()
    assert relative_error(d, numeric_gradient(lambda: (bp.embedding(table, ids) * r).sum(),
                                              table)) < 1e-9


def test_softmax_backward_is_the_jacobian_applied():
    s, d_p = rng.normal(size=5), rng.normal(size=5)
    p = np.exp(s) / np.exp(s).sum()
    jacobian = np.diag(p) - np.outer(p, p)  # lesson 03's ∂p_i/∂s_j
    np.testing.assert_allclose(bp.softmax_backward(d_p, p), jacobian @ d_p, rtol=1e-12)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(0, 3), st.integers(1, 4), st.booleans(),
       st.integers(0, 2**16))
def test_attention_backward_matches_finite_differences(n_q, extra, d, masked, seed):
    n_k = n_q + extra  # the causal mask takes the queries as the last n_q positions
    g = np.random.default_rng(seed)
    q, k, v = g.normal(size=(2, n_q, d)), g.normal(size=(2, n_k, d)), g.normal(size=(2, n_k, 3))
    mask = causal_mask(n_q, n_k) if masked else None
    r = g.normal(size=(2, n_q, 3))
    out, p = bp.attention(q, k, v, mask)
    d_q, d_k, d_v = bp.attention_backward(r, q, k, v, p)

    def f():
        return (bp.attention(q, k, v, mask)[0] * r).sum()

    for analytic, x in ((d_q, q), (d_k, k), (d_v, v)):
        assert relative_error(analytic, numeric_gradient(f, x)) < 1e-7
    if masked:  # a key the query may not see gets no gradient from that query
        assert not p[..., ~causal_mask(n_q, n_k)].any()


def test_attention_keeps_float32():
    q = rng.normal(size=(1, 3, 4)).astype(np.float32)
    out, p = bp.attention(q, q, q)
    grads = bp.attention_backward(np.ones_like(out), q, q, q, p)
    assert out.dtype == p.dtype == np.float32
    assert all(g.dtype == np.float32 for g in grads)


def test_cross_entropy_and_its_backward_ignore_padding():
    logits, targets = rng.normal(size=(2, 3, 5)), np.array([[1, 2, 0], [3, 0, 0]])
    loss, probs = bp.cross_entropy(logits, targets)
    by_hand = -np.mean([np.log(np.exp(logits[b, i, t]) / np.exp(logits[b, i]).sum())
                        for b, i, t in ((0, 0, 1), (0, 1, 2), (1, 0, 3))])
    assert loss == pytest.approx(by_hand, rel=1e-12)
    d = bp.cross_entropy_backward(probs, targets)
    assert not d[0, 2].any() and not d[1, 1:].any()
    num = numeric_gradient(lambda: bp.cross_entropy(logits, targets)[0], logits)
    assert relative_error(d, num) < 1e-8


def test_learning_rate_schedule_and_clipping():
    rates = [bp.learning_rate(s, 1.0, 10, 100) for s in range(101)]
    assert np.argmax(rates) == 10 and rates[10] == 1.0 and rates[100] == 0.0
    assert all(a < b for a, b in zip(rates[:10], rates[1:11]))
    assert all(a >= b for a, b in zip(rates[10:], rates[11:]))
    grads = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]])}
    assert bp.clip_by_norm(grads, 1.0) == pytest.approx(5.0)
    assert np.sqrt(sum((g**2).sum() for g in grads.values())) == pytest.approx(1.0)
    small = {"a": np.array([0.3])}
    bp.clip_by_norm(small, 1.0)
    assert small["a"][0] == 0.3


def test_adam_first_step_moves_each_parameter_by_lr_against_the_gradient_sign():
    params = {"w": np.array([1.0, -2.0, 0.5])}
    bp.adam_step(params, {"w": np.array([0.1, -3.0, 2e-3])}, {}, lr=0.01)
    np.testing.assert_allclose(params["w"], [0.99, -1.99, 0.49], rtol=1e-6)


# --- the whole translator ---------------------------------------------------------------

def _small_batch():
    # unequal lengths: padding in the source and in the target
    vocab = Vocabulary()
    pairs = [build_sentence("cat", "sat", "on", "mat", "big", "red"),
             build_sentence("bear", "hid", "behind", "rock"),
             build_sentence("dog", "was", "in", "car", place_adjective="small")]
    return vocab, make_batch(pairs, vocab)


@pytest.mark.parametrize("n_heads, encoder_self_attention", [(2, True), (1, False)])
def test_translator_gradient_matches_finite_differences(n_heads, encoder_self_attention):
    vocab, batch = _small_batch()
    assert (batch.source == 0).any() and (batch.target_in == 0).any()
    model = Translator(len(vocab), d_model=8, n_heads=n_heads, d_ff=12,
                       encoder_self_attention=encoder_self_attention, seed=1, dtype=np.float64)
    _, grads = model.loss_and_grads(batch)
    assert grads.keys() == model.params.keys()
    g = np.random.default_rng(2)
    for name, param in model.params.items():
        # every entry of the small matrices, 40 random entries of the large ones
        flat = param.reshape(-1)
        picks = np.arange(flat.size) if flat.size <= 200 else g.choice(flat.size, 40, False)
        if name == "embedding":  # the ids in the batch (others have gradient 0), and pad
            used = np.unique(np.concatenate([batch.source.ravel(), batch.target_in.ravel()]))
            picks = (used[:, None] * model.d_model + np.arange(model.d_model)).ravel()
        numeric = np.empty(len(picks))
        for j, i in enumerate(picks):
            old = flat[i]
            flat[i] = old + 1e-6
            up = model.loss(batch)
            flat[i] = old - 1e-6
            down = model.loss(batch)
            flat[i] = old
            numeric[j] = (up - down) / 2e-6
        err = relative_error(grads[name].reshape(-1)[picks], numeric)
        assert err <= 1e-6, (name, err)
    # the padding token's embedding never reaches the loss
    assert not grads["embedding"][vocab.pad].any()


def test_gradient_check_passes_a_right_backward_and_catches_a_wrong_one():
    from qkv_helpers.translator import gradient_check

    vocab, batch = _small_batch()
    model = Translator(len(vocab), d_model=8, n_heads=2, d_ff=12, seed=1, dtype=np.float64)
    errors = gradient_check(model, batch)
    assert errors.keys() == model.params.keys() and max(errors.values()) < 1e-6
    right = model.loss_and_grads
    model.loss_and_grads = lambda b: (lambda loss, g: (loss, {**g, "w_out": 2 * g["w_out"]}))(
        *right(b))  # one gradient twice too large: ‖2g − g‖ / (‖2g‖ + ‖g‖) = 1/3
    wrong = gradient_check(model, batch)
    assert wrong["w_out"] == pytest.approx(1 / 3, rel=1e-5) and wrong["dec.w_1"] < 1e-6


def test_gradient_check_refuses_a_tensor_whose_entries_all_have_gradient_zero():
    # with the cross-attention's W_v at 0 the loss does not depend on the encoder: every
    # entry of its matrices has gradient exactly 0 both ways, so nothing would be checked
    from qkv_helpers.translator import gradient_check

    vocab, batch = _small_batch()
    model = Translator(len(vocab), d_model=8, n_heads=1, d_ff=12, seed=1, dtype=np.float64)
    model.params["dec.cross.w_v"][...] = 0
    with pytest.raises(ValueError, match="parameter 'enc.self.w_q' .* gradient exactly 0"):
        gradient_check(model, batch)


def test_translator_gradient_in_a_random_direction():
    vocab, batch = _small_batch()
    model = Translator(len(vocab), d_model=8, n_heads=2, d_ff=12, seed=3, dtype=np.float64)
    _, grads = model.loss_and_grads(batch)
    g = np.random.default_rng(4)
    direction = {n: g.normal(size=p.shape) for n, p in model.params.items()}
    predicted = sum((grads[n] * direction[n]).sum() for n in grads)
    saved = {n: p.copy() for n, p in model.params.items()}

    def loss_at(t):
        for n in model.params:
            model.params[n][...] = saved[n] + t * direction[n]
        return model.loss(batch)

    numeric = (loss_at(1e-6) - loss_at(-1e-6)) / 2e-6
    assert relative_error(predicted, numeric) < 1e-6


def test_padding_changes_nothing():
    # a sentence's logits are the same alone and padded in a batch with a longer one
    vocab, batch = _small_batch()
    model = Translator(len(vocab), d_model=8, n_heads=2, d_ff=12, seed=5, dtype=np.float64)
    logits, _ = model.forward(batch)
    alone, _ = model.forward(type(batch)(*(a[1:2, : 1 + (a[1] != 0).sum() - 1 + 1]
                                           for a in batch)))
    n = alone.shape[1]
    np.testing.assert_allclose(logits[1, :n], alone[0], rtol=1e-12, atol=1e-12)


def test_float32_stays_float32():
    vocab = Vocabulary()
    pairs = make_corpus(n_train=8, n_valid=1, n_heldout=1).train
    model = Translator(len(vocab), seed=0, dtype=np.float32)
    loss, grads = model.loss_and_grads(make_batch(pairs, vocab))
    assert all(g.dtype == np.float32 for g in grads.values())
    assert np.isfinite(loss)


def _torch_model(torch, model, batch):
    """The same forward, written in torch, on the same weights; returns loss, leaves."""
    F = torch.nn.functional
    p = {n: torch.tensor(a, requires_grad=True) for n, a in model.params.items()}
    pe = torch.tensor(model._positions)

    def ln(x):
        return F.layer_norm(x, x.shape[-1:], eps=1e-5)

    def mha(prefix, xq, xkv, mask):
        b, nq, d = xq.shape
        h = model.n_heads

        def split(t):
            return t.reshape(b, -1, h, d // h).transpose(1, 2)

        q, k, v = (split(x @ p[f"{prefix}.{w}"]) for x, w in ((xq, "w_q"), (xkv, "w_k"),
                                                               (xkv, "w_v")))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return out.transpose(1, 2).reshape(b, nq, d) @ p[prefix + ".w_o"]

    src, tin, tout = (torch.tensor(a) for a in batch)
    x = p["embedding"][src] + pe[: src.shape[1]]
    key = (src != 0)[:, None, None, :]
    if model.encoder_self_attention:
        h = ln(x)
        x = x + mha("enc.self", h, h, key)
    x = x + torch.relu(ln(x) @ p["enc.w_1"]) @ p["enc.w_2"]
    memory = ln(x)
    n = tin.shape[1]
    y = p["embedding"][tin] + pe[:n]
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool)) & (tin != 0)[:, None, None, :]
    h = ln(y)
    y = y + mha("dec.self", h, h, causal)
    y = y + mha("dec.cross", ln(y), memory, key)
    y = y + torch.relu(ln(y) @ p["dec.w_1"]) @ p["dec.w_2"]
    logits = ln(y) @ p["w_out"]
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1),
                           ignore_index=0)
    return loss, p


@pytest.mark.parametrize("encoder_self_attention", [True, False])
def test_translator_gradient_equals_torch_autograd(encoder_self_attention):
    torch = pytest.importorskip("torch")
    vocab, batch = _small_batch()
    model = Translator(len(vocab), d_model=16, n_heads=2,
                       encoder_self_attention=encoder_self_attention, seed=6,
                       dtype=np.float64)
    loss, grads = model.loss_and_grads(batch)
    t_loss, leaves = _torch_model(torch, model, batch)
    t_loss.backward()
    assert loss == pytest.approx(t_loss.item(), rel=1e-12)
    for name, leaf in leaves.items():
        assert relative_error(grads[name], leaf.grad.numpy()) < 1e-10, name

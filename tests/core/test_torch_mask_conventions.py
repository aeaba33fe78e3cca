"""What lesson 07 says about PyTorch's masks, checked against PyTorch itself (skipped
without torch): F.scaled_dot_product_attention's boolean mask is True = may attend, like
``causal_mask``; nn.MultiheadAttention's is True = blocked; ``is_causal=True`` with fewer
queries than keys aligns top-left, unlike ``causal_mask(n_q, n_k)`` (bottom-right)."""

from __future__ import annotations

import numpy as np
import pytest

import qkv_helpers as qk

torch = pytest.importorskip("torch")
F = torch.nn.functional


def random_qkv(n_q: int, n_k: int, d: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_q, d)), rng.standard_normal((n_k, d)),
            rng.standard_normal((n_k, d)))


def sdpa(q, k, v, **kwargs):
    t = [torch.tensor(a, dtype=torch.float64)[None, None] for a in (q, k, v)]
    return F.scaled_dot_product_attention(*t, **kwargs)[0, 0].numpy()


def test_sdpa_boolean_mask_true_means_may_attend_like_causal_mask():
    q, k, v = random_qkv(5, 5)
    mask = qk.causal_mask(5)
    ours = qk.scaled_dot_product_attention(q, k, v, mask=mask).output
    np.testing.assert_allclose(sdpa(q, k, v, attn_mask=torch.tensor(mask)), ours, atol=1e-12)


def test_multihead_attention_mask_true_means_blocked():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 1, batch_first=True, dtype=torch.float64)
    x = torch.randn(1, 5, 4, dtype=torch.float64)
    mask = torch.tensor(qk.causal_mask(5))
    _, w_blocked = mha(x, x, x, attn_mask=~mask)   # True = blocked: pass the complement
    assert (w_blocked[0].detach().numpy()[~qk.causal_mask(5)] == 0).all()
    _, w_same = mha(x, x, x, attn_mask=mask)        # our mask as is hides the past instead
    w_same = w_same[0].detach().numpy()
    hidden = qk.causal_mask(5)[:4]                    # rows 0..3 (row 4 would hide every key)
    assert (w_same[:4][hidden] == 0).all() and (w_same[:4][~hidden] > 0).all()


def test_is_causal_aligns_top_left_when_there_are_fewer_queries():
    q, k, v = random_qkv(2, 5)
    top_left = np.tril(np.ones((2, 5), dtype=bool))                  # query i sees keys 0..i
    bottom_right = qk.causal_mask(2, 5)                               # query i sees 0..3 + i
    assert not (top_left == bottom_right).all()
    torch_causal = sdpa(q, k, v, is_causal=True)
    np.testing.assert_allclose(
        torch_causal, qk.scaled_dot_product_attention(q, k, v, mask=top_left).output, atol=1e-12)
    assert not np.allclose(
        torch_causal, qk.scaled_dot_product_attention(q, k, v, mask=bottom_right).output)

"""One transformer block, its forward and its backward side by side (lessons 08-11, 14, 15).

Every model the course builds is a stack of this block: lesson 09's
:class:`~qkv_helpers.decoding.TinyTransformer`, lesson 14's translator (which trains it
with :func:`block_backward`), lesson 11's MiniLM and lesson 15's attention-only decoder
(:class:`~qkv_helpers.induction.InductionModel`). Optional parts are left out by giving
``None``::

    pre-norm (GPT-2; TinyTransformer, the translator):
        x = x + self_attention(LN(x), mask)                   # (tokens, d_model)
        x = x + cross_attention(LN(x), memory)                # a decoder with a source
        x = x + feed_forward(LN(x))
    post-norm (BERT; MiniLM):
        x = LN(x + self_attention(x, mask))
        x = LN(x + feed_forward(x))
    no norm, attention only (lesson 15):
        x = x + self_attention(x, mask)

    self_attention(x) = concat(head_1 … head_H)·W_O + b_O,
        head_h = softmax(q_h·k_hᵀ/√d_k + mask)·v_h,
        q = x·W_Q + b_Q,  k = x·W_K + b_K,  v = x·W_V + b_V          # split into heads
    feed_forward(x) = act(x·W_in + b_in)·W_out + b_out      act: ReLU or GELU

The queries, keys and values all read the block's stream ``x``, unless an experiment gives
one of them another stream (``block(..., x_k=x0)``: the keys read ``x0``; lesson 15's
knock-outs); the residual still adds the attention's output to ``x``.

An attention's weights are anything holding ``n_heads, w_q, w_k, w_v, w_o, b_q, b_k,
b_v, b_o`` (a :class:`~qkv_helpers.attention.MultiHeadAttention`, or
:class:`AttentionWeights` over a trained model's own arrays); a bias may be None. The
forward returns the block's output and a :class:`BlockTrace` of what each sub-layer
computed (the attention weights a lesson looks at, what the backward needs).

Shapes: ``(..., n, d)`` is any batch of ``n`` tokens of width ``d``; heads are
``(..., H, n, d/H)``. Nothing here checks its arguments: the models that call it do,
once, at their entry points.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import fast as fast_paths
from ._text import t
from .attention import attention_unchecked
from .backprop import (
    attention_backward,
    linear_backward,
    merge_heads,
    relu,
    relu_backward,
    split_heads,
)
from .layer_norm import LayerNorm, Normalized, layer_norm_backward, normalize
from .masks import causal_mask

__all__ = [
    "AttentionTrace",
    "AttentionWeights",
    "Block",
    "BlockGradients",
    "BlockOutput",
    "BlockTrace",
    "FeedForwardTrace",
    "NormTrace",
    "block",
    "block_backward",
]


class AttentionWeights(NamedTuple):
    """One multi-head attention's matrices, acting on rows: ``w_q``, ``w_k``, ``w_v``
    ``(d_model, H·d_head)`` and ``w_o`` ``(H·d_head, d_model)``, usually square
    (``H·d_head = d_model``; lesson 15's one head is narrower)."""

    n_heads: int
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    b_q: np.ndarray | None = None
    b_k: np.ndarray | None = None
    b_v: np.ndarray | None = None
    b_o: np.ndarray | None = None


class Block(NamedTuple):
    """One block's weights; ``None`` leaves a part out (see the module's formulas)."""

    attention: object | None
    """Self-attention (:class:`AttentionWeights` or a ``MultiHeadAttention``), or None."""
    w_in: np.ndarray | None
    """``(d_model, d_ff)``: the feed-forward network widens each token...; None: no FFN."""
    w_out: np.ndarray | None
    """``(d_ff, d_model)``: ...and narrows it back."""
    b_in: np.ndarray | None = None
    b_out: np.ndarray | None = None
    cross_attention: object | None = None
    """Cross-attention: queries from the block's tokens, keys and values from ``memory``."""
    norm_attention: LayerNorm | None = None
    """The layer norm of the self-attention sub-layer; None: no learned γ, β."""
    norm_cross: LayerNorm | None = None
    norm_ffn: LayerNorm | None = None
    norm: str = "pre"
    """``"pre"`` (LN before each sub-layer), ``"post"`` (after each residual), ``"none"``."""
    activation: object = relu
    """The feed-forward's non-linearity: :func:`~qkv_helpers.backprop.relu` (the backward
    knows it) or :func:`~qkv_helpers.pretrained.gelu` (MiniLM's)."""

    def feed_forward(self, x):
        """``act(x·W_in + b_in)·W_out + b_out``, each token on its own: ``(..., n, d)``."""
        return feed_forward(self, x).output


NormTrace = Normalized
"""What a layer norm kept: its output ``y`` and ``inv_std``, ``1/σ``."""


class AttentionTrace(NamedTuple):
    """What one attention sub-layer computed (and its backward reads)."""

    x_q: np.ndarray
    """``(..., n_q, d)``: the queries' input."""
    x_kv: np.ndarray
    """``(..., n_k, d)``: the keys' and values' input (None when they were given)."""
    q: np.ndarray
    """``(..., H, n_q, d/H)``"""
    k: np.ndarray
    """``(..., H, n_k, d/H)``: every key attended over (a cache's too)."""
    v: np.ndarray
    """``(..., H, n_k, d/H)``"""
    weights: np.ndarray
    """``(..., H, n_q, n_k)``: each head's attention weights, rows summing to 1."""
    merged: np.ndarray
    """``(..., n_q, d)``: the heads side by side, before ``W_O``."""
    x_v: np.ndarray | None = None
    """The values' input when it is not ``x_kv`` (a knock-out gave the values another
    stream); None: the values read ``x_kv``."""


class FeedForwardTrace(NamedTuple):
    """What the feed-forward network computed: ``x``, ``x·W_in + b_in``, and after act."""

    x: np.ndarray
    pre: np.ndarray
    hidden: np.ndarray


class FeedForwardOutput(NamedTuple):
    """:func:`feed_forward`'s result: its output and what it computed on the way."""

    output: np.ndarray
    trace: FeedForwardTrace


class BlockTrace(NamedTuple):
    """Each sub-layer's trace, None for a part the block leaves out (or ``norm="none"``)."""

    norm_attention: NormTrace | None
    attention: AttentionTrace | None
    norm_cross: NormTrace | None
    cross_attention: AttentionTrace | None
    norm_ffn: NormTrace | None
    feed_forward: FeedForwardTrace | None


class BlockOutput(NamedTuple):
    """:func:`block`'s result."""

    x: np.ndarray
    """``(..., n, d)``: the block's output."""
    trace: BlockTrace | None
    """What each part computed (None when ``keep=False``)."""


class BlockGradients(NamedTuple):
    """:func:`block_backward`'s result."""

    d_x: np.ndarray
    """``(..., n, d)``: the gradient of the block's input."""
    d_memory: np.ndarray | None
    """``(..., n_src, d)``: of the cross-attention's memory (None without one)."""
    weights: dict
    """``self.w_q`` …, ``cross.w_q`` …, ``w_in``, ``w_out``: each weight's gradient."""
    d_cross_heads: np.ndarray | None
    """``(..., H, n_q, d/H)``: the gradient of the cross-attention's heads (before W_O)."""


def _affine(x, w, b):
    """``x·W + b`` (no bias: ``x·W``)."""
    return x @ w if b is None else x @ w + b


# --- the sub-layers, forward ---------------------------------------------------------------------

def project(a, x_q, x_kv, kv=None, kv_cache=None, x_v=None):
    """Each head's queries, keys and values: ``q (..., H, n_q, d/H)``, ``k, v (..., H, n_k, d/H)``.

    ``q = x_q·W_Q + b_Q``, ``k = x_kv·W_K + b_K``, ``v = x_kv·W_V + b_V``, split into heads.
    ``kv``: keys and values already projected (a decoder keeps the cross-attention's);
    ``kv_cache``: a :class:`~qkv_helpers.kv_cache.KVCache` the new keys and values are
    appended to, ``k`` and ``v`` then every key it holds. ``x_v``: the values read this
    instead of ``x_kv`` (a knock-out).
    """
    x_v = x_kv if x_v is None else x_v
    q = split_heads(_affine(x_q, a.w_q, a.b_q), a.n_heads)  # (..., H, n_q, d/H)
    if kv is None:
        k = split_heads(_affine(x_kv, a.w_k, a.b_k), a.n_heads)  # (..., H, n_k, d/H)
        v = split_heads(_affine(x_v, a.w_v, a.b_v), a.n_heads)  # (..., H, n_k, d/H)
    else:
        k, v = kv
    if kv_cache is not None:  # keep the new keys and values, attend over all kept
        kv_cache.append(k, v)
        # (H, context, d/H): the cache's read-only views, as plain numpy arrays (no copy):
        # a CacheView's hook would add a Python call to every product of a decoding step
        k, v = np.asarray(kv_cache.keys), np.asarray(kv_cache.values)
    return q, k, v


def _fast_attention(q, k, v, mask):
    """The heads' attention through :func:`qkv_helpers.fast.decoder_attention` (same
    numbers to float rounding; no weights): ``(heads, None)``. It knows two masks, none
    and the causal one (the last ``n_q`` of ``n_k`` positions); any other mask is refused
    rather than computed as causal."""
    n_q, n_k = q.shape[-2], k.shape[-2]
    if mask is not None and not (np.asarray(mask) == causal_mask(n_q, n_k)).all():
        raise ValueError(t("err_fast_mask", shape=np.shape(mask)))
    return fast_paths.decoder_attention(q, k, v, causal=mask is not None), None


def feed_forward(b: Block, x):
    """``act(x·W_in + b_in)·W_out + b_out``, each token on its own: ``(..., n, d)``."""
    pre = _affine(x, b.w_in, b.b_in)  # (..., n, d_ff)
    hidden = b.activation(pre)  # (..., n, d_ff): ReLU or GELU
    return FeedForwardOutput(_affine(hidden, b.w_out, b.b_out),  # (..., n, d)
                             FeedForwardTrace(x, pre, hidden))


def _sublayer_input(b: Block, stream):
    """What the self-attention reads of ``stream``: ``LN(stream)`` in a pre-norm block, else
    the stream itself."""
    return _norm(b.norm_attention, stream)[0] if b.norm == "pre" else stream


def _norm(learned: LayerNorm | None, x):
    """Layer norm of each token (:func:`~qkv_helpers.layer_norm.normalize`), then γ and β if
    the block learned them: ``(output, NormTrace)``."""
    y, inv_std = normalize(x, 1e-5 if learned is None else learned.eps)
    return (y if learned is None else learned.gamma * y + learned.beta), NormTrace(y, inv_std)


# --- the block ---------------------------------------------------------------------------------

def block(b: Block, x, mask=None, memory=None, memory_mask=None, cross_kv=None,
          kv_cache=None, fast=False, keep=True, x_q=None, x_k=None, x_v=None) -> BlockOutput:
    """Run block ``b`` on ``x (..., n, d)``: the module's formulas, part by part.

    ``mask``: where the self-attention's queries may look (True = may), broadcast to
    ``(..., H, n_q, n_k)``, or a function ``mask(n_q, n_k)`` such as
    :func:`~qkv_helpers.masks.causal_mask`. ``memory (..., n_src, d)`` (or its keys and
    values ``cross_kv``) feeds the cross-attention, ``memory_mask`` masks it.
    ``kv_cache`` keeps the self-attention's keys and values between decoding steps.
    ``fast``: each head's attention through :mod:`qkv_helpers.fast` instead of
    :func:`~qkv_helpers.attention.scaled_dot_product_attention`. ``keep=False``: no trace
    (every part None), each part's arrays freed as soon as it is done, as in decoding.

    ``x_q``, ``x_k``, ``x_v``: another stream ``(..., n, d)`` for the self-attention's
    queries, keys or values to read instead of ``x`` (through the same layer norm): a
    knock-out experiment, e.g. lesson 15's layer 1 whose keys read the stream without layer
    0's head. The residual still adds to ``x``; :func:`block_backward` refuses such a trace.
    """
    pre, post = b.norm == "pre", b.norm == "post"
    attend = _fast_attention if fast else attention_unchecked
    parts = dict.fromkeys(BlockTrace._fields)  # what each part computed
    if b.attention is not None:  # x = x + self_attention(LN(x), mask)
        h = x
        if pre:
            h, parts["norm_attention"] = _norm(b.norm_attention, x)  # (..., n, d)
        # queries, keys and values read LN(x), unless a knock-out gives one another stream
        h_q, h_k, h_v = (h if s is None else _sublayer_input(b, s) for s in (x_q, x_k, x_v))
        q, k, v = project(b.attention, h_q, h_k, kv_cache=kv_cache, x_v=h_v)  # (.., H, n, d/H)
        if not keep:  # decoding: LN(x) is no longer needed
            h = h_q = h_k = h_v = parts["norm_attention"] = None
        m = mask(q.shape[-2], k.shape[-2]) if callable(mask) else mask  # (n_q, n_k)
        heads, weights = attend(q, k, v, m)  # softmax(q·kᵀ/√d_k + m)·v, (..., H, n, d/H)
        merged = merge_heads(heads)  # (..., n, d)
        x = x + _affine(merged, b.attention.w_o, b.attention.b_o)  # ·W_O, the residual
        parts["attention"] = (AttentionTrace(h_q, h_k, q, k, v, weights, merged,
                                             None if h_v is h_k else h_v) if keep else None)
        del q, k, v, heads, weights, merged  # (kept in the trace only)
        if post:
            x, parts["norm_attention"] = _norm(b.norm_attention, x)
    if b.cross_attention is not None and (memory is not None or cross_kv is not None):
        h = x  # x = x + cross_attention(LN(x), memory)
        if pre:
            h, parts["norm_cross"] = _norm(b.norm_cross, x)
        q, k, v = project(b.cross_attention, h, memory, kv=cross_kv)  # k, v: (.., H, n_src, ..)
        if not keep:
            h = parts["norm_cross"] = None
        heads, weights = attend(q, k, v, memory_mask)  # (..., H, n, d/H)
        merged = merge_heads(heads)  # (..., n, d)
        x = x + _affine(merged, b.cross_attention.w_o, b.cross_attention.b_o)
        parts["cross_attention"] = (AttentionTrace(h, memory, q, k, v, weights, merged) if keep
                                else None)
        del q, k, v, heads, weights, merged
        if post:
            x, parts["norm_cross"] = _norm(b.norm_cross, x)
    if b.w_in is not None:  # x = x + feed_forward(LN(x))
        h = x
        if pre:
            h, parts["norm_ffn"] = _norm(b.norm_ffn, x)
        f, trace = feed_forward(b, h)  # (..., n, d)
        x = x + f
        parts["feed_forward"] = trace if keep else None
        del f, trace
        if post:
            x, parts["norm_ffn"] = _norm(b.norm_ffn, x)
    return BlockOutput(x, BlockTrace(**parts) if keep else None)


# --- the block, backward: the same lines in reverse ---------------------------------------------

def attention_sublayer_backward(a, d_out, trace: AttentionTrace, grads: dict, name: str):
    """``(d_x_q, d_x_kv, d_heads)`` of one attention sub-layer; its four weight gradients
    go into ``grads`` as ``name.w_q`` …"""
    d_merged, grads[name + ".w_o"] = linear_backward(d_out, trace.merged, a.w_o)
    d_heads = split_heads(d_merged, a.n_heads)  # (..., H, n_q, d/H)
    d_q, d_k, d_v = attention_backward.unchecked(d_heads, trace.q, trace.k, trace.v,
                                                 trace.weights)
    d_x_q, grads[name + ".w_q"] = linear_backward(merge_heads(d_q), trace.x_q, a.w_q)
    d_x_k, grads[name + ".w_k"] = linear_backward(merge_heads(d_k), trace.x_kv, a.w_k)
    d_x_v, grads[name + ".w_v"] = linear_backward(merge_heads(d_v), trace.x_kv, a.w_v)
    return d_x_q, d_x_k + d_x_v, d_heads


def feed_forward_backward(b: Block, d_out, trace: FeedForwardTrace, grads: dict):
    """``d_x`` of the ReLU feed-forward network; ``w_in``, ``w_out`` go into ``grads``."""
    d_hidden, grads["w_out"] = linear_backward(d_out, trace.hidden, b.w_out)
    d_pre = relu_backward(d_hidden, trace.pre)
    d_x, grads["w_in"] = linear_backward(d_pre, trace.x, b.w_in)
    return d_x


def block_backward(b: Block, d_out, trace: BlockTrace) -> BlockGradients:
    """The gradients of a pre-norm (or norm-free) block without biases, learned γ, β or
    GELU, as lesson 14's translator trains it, from ``d_out`` ``(..., n, d)``.

    Each residual ``x + f(LN(x))`` passes ``d_x`` on unchanged and adds its branch's part:
    ``d_x + LN_backward(f_backward(d_x))``.
    """
    attentions = [a for a in (b.attention, b.cross_attention) if a is not None]
    own = trace.attention
    if own is not None and (own.x_q is not own.x_kv or own.x_v is not None):
        raise ValueError(t("err_block_backward_knock_out"))
    if b.norm == "post" or b.activation is not relu or any(
            n is not None for n in (b.norm_attention, b.norm_cross, b.norm_ffn)) or any(
            getattr(a, bias) is not None for a in attentions
            for bias in ("b_q", "b_k", "b_v", "b_o")) or b.b_in is not None or b.b_out is not None:
        raise ValueError(t("err_block_backward_kind", norm=b.norm,
                           activation=getattr(b.activation, "__name__", b.activation)))
    grads = {}
    d_x, d_memory, d_cross_heads = d_out, None, None
    if trace.feed_forward is not None:  # x += feed_forward(LN(x))
        d_h = feed_forward_backward(b, d_x, trace.feed_forward, grads)
        d_x = d_x + _norm_backward(d_h, trace.norm_ffn)
    if trace.cross_attention is not None:  # x += cross_attention(LN(x), memory)
        d_h, d_memory, d_cross_heads = attention_sublayer_backward(
            b.cross_attention, d_x, trace.cross_attention, grads, "cross")
        d_x = d_x + _norm_backward(d_h, trace.norm_cross)
    if trace.attention is not None:  # x += self_attention(LN(x)): queries, keys, values
        d_q, d_kv, _ = attention_sublayer_backward(b.attention, d_x, trace.attention, grads,
                                                   "self")
        d_x = d_x + _norm_backward(d_q + d_kv, trace.norm_attention)
    return BlockGradients(d_x, d_memory, grads, d_cross_heads)


def _norm_backward(d_y, trace: NormTrace | None):
    return d_y if trace is None else layer_norm_backward(d_y, trace.y, trace.inv_std)


__all__ += ["attention_sublayer_backward", "project", "feed_forward",
            "feed_forward_backward"]

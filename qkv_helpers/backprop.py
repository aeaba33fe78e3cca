"""Every operation of lesson 14's translator, forward and backward side by side.

Each ``op`` computes its output; each ``op_backward`` takes the gradient of the loss
with respect to that output (``d_out``, same shape) and returns the gradients with
respect to the op's inputs and parameters. Written out by hand in numpy, so the
chain rule is visible line by line; :mod:`qkv_helpers.translator` strings them
together, and the tests check every one against finite differences (and against
torch's autograd when torch is installed).

Shapes are written as in the lessons: ``(B, n, d)`` is a batch of ``B`` sentences of
``n`` tokens of width ``d``; ``(B, H, n_q, n_k)`` has one map per head.

dtype: every op keeps the dtype of its inputs. A numpy scalar such as ``np.sqrt(d)``
is float64 and, under numpy 2, turns a float32 array into float64 when they meet;
the scales below are made in the input's own dtype.
"""

from __future__ import annotations

import math

import numpy as np

from . import _validate as validate
from ._text import t
from .attention import scaled_dot_product_attention, softmax
from .layer_norm import layer_norm_backward
from .layer_norm import normalize as layer_norm

__all__ = [
    "adam_step",
    "attention",
    "attention_backward",
    "check_each_operation",
    "clip_by_norm",
    "cross_entropy",
    "cross_entropy_backward",
    "embedding",
    "embedding_backward",
    "layer_norm",
    "layer_norm_backward",
    "learning_rate",
    "linear",
    "linear_backward",
    "merge_heads",
    "relu",
    "relu_backward",
    "softmax_backward",
    "split_heads",
]


# --- embedding: a table lookup ----------------------------------------------------------

def embedding(table, ids):
    """``table[ids]``: each id's row. ``table (V, d)``, ``ids (B, n)`` → ``(B, n, d)``."""
    return table[ids]


def embedding_backward(d_out, ids, vocab_size):
    """Each row's gradient is the sum of ``d_out`` over the positions that looked it up.

    ``d_out (B, n, d)`` → ``d_table (V, d)``; rows never looked up get 0.
    """
    d_table = np.zeros((vocab_size, d_out.shape[-1]), d_out.dtype)  # (V, d)
    np.add.at(d_table, ids.reshape(-1), d_out.reshape(-1, d_out.shape[-1]))
    return d_table


# --- linear: x·W (no bias, as in TinyTransformer) -------------------------------------------

def linear(x, w):
    """``x @ w``: ``(..., d_in) @ (d_in, d_out)`` → ``(..., d_out)``."""
    return x @ w


def linear_backward(d_out, x, w):
    """``d_x = d_out·Wᵀ`` ``(..., d_in)`` and ``d_W = xᵀ·d_out`` ``(d_in, d_out)``.

    ``d_W`` sums over every token of every sentence: each used the same W.
    """
    d_x = d_out @ w.T  # (..., d_in)
    d_w = x.reshape(-1, x.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])  # (d_in, d_out)
    return d_x, d_w


# --- ReLU -----------------------------------------------------------------------------

def relu(x):
    """``max(x, 0)``, elementwise."""
    return np.maximum(x, 0)


def relu_backward(d_out, x):
    """The gradient passes where ``x > 0`` and is 0 elsewhere."""
    return d_out * (x > 0)


# --- layer norm (no learned scale or shift, as in TinyTransformer) --------------------------
# The package's one layer norm and its backward live in layer_norm.py:
# layer_norm(x) here is layer_norm.normalize, returning (y, 1/σ) for the backward.

# --- heads -----------------------------------------------------------------------------------

def split_heads(x, n_heads):
    """``(..., n, d)`` → ``(..., H, n, d/H)``: each head's slice of the columns."""
    *batch, n, d = x.shape
    return x.reshape(*batch, n, n_heads, d // n_heads).swapaxes(-2, -3)


def merge_heads(x):
    """``(..., H, n, d/H)`` → ``(..., n, d)``; also the backward of :func:`split_heads`."""
    *batch, h, n, head_dim = x.shape
    return x.swapaxes(-2, -3).reshape(*batch, n, h * head_dim)


# --- scaled dot-product attention ------------------------------------------------------

def attention(q, k, v, mask=None):
    """``softmax(q·kᵀ/√d_k)·v``: the package's own :func:`scaled_dot_product_attention`.

    Returns ``(output (B, H, n_q, d_k), weights P (B, H, n_q, n_k))``; the backward
    needs P.
    """
    return scaled_dot_product_attention(q, k, v, mask=mask)


@validate.by(validate.softmax_backward_args)
def softmax_backward(d_p, p):
    """The softmax's Jacobian (lesson 03), applied to each row: ``d_s = J·d_p``.

    For one row ``p = softmax(s)``, ``∂p_i/∂s_j = p_i(δ_ij − p_j)``, so
    ``J = diag(p) − p·pᵀ`` and ``d_s = p ⊙ (d_p − (d_p·p))``. A masked key has
    ``p_j = 0`` and gets ``d_s_j = 0``.
    """
    return p * (d_p - (d_p * p).sum(axis=-1, keepdims=True))  # (..., n_q, n_k)


@validate.by(validate.attention_backward_args)
def attention_backward(d_out, q, k, v, p):
    """Gradients of ``out = P·v`` with ``P = softmax(q·kᵀ·scale)``, ``scale = 1/√d_k``.

    ::

        d_v = Pᵀ·d_out            (..., n_k, d_v)
        d_P = d_out·vᵀ            (..., n_q, n_k)
        d_S = J_softmax(d_P)      (..., n_q, n_k)   softmax_backward
        d_q = d_S·k·scale         (..., n_q, d_k)
        d_k = d_Sᵀ·q·scale        (..., n_k, d_k)

    It reads the attention weights P that the forward kept: (n_q, n_k) numbers per
    head. (FlashAttention-2 keeps only the output and each row's log-sum-exp, and
    recomputes P here; FlashAttention-1 kept each row's max and sum.)
    """
    scale = q.dtype.type(1 / math.sqrt(q.shape[-1]))  # q.dtype: float32 → float32
    d_v = p.swapaxes(-1, -2) @ d_out  # (..., n_k, d_v)
    d_p = d_out @ v.swapaxes(-1, -2)  # (..., n_q, n_k)
    d_s = softmax_backward(d_p, p)  # (..., n_q, n_k)
    d_q = (d_s @ k) * scale  # (..., n_q, d_k)
    d_k = (d_s.swapaxes(-1, -2) @ q) * scale  # (..., n_k, d_k)
    return d_q, d_k, d_v


# --- cross-entropy -------------------------------------------------------------------------

def cross_entropy(logits, targets, ignore=0):
    """Mean of ``-log softmax(logits)[target]`` over the targets that are not ``ignore``.

    ``logits (B, n, V)``, ``targets (B, n)`` ints; padding targets (``ignore``) count
    for nothing. Returns ``(loss, probabilities (B, n, V))``.
    """
    shifted = logits - logits.max(axis=-1, keepdims=True)  # (B, n, V), each row's max 0
    log_z = np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # (B, n, 1)
    log_p = shifted - log_z  # (B, n, V): log softmax
    keep = targets != ignore  # (B, n)
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, n)
    loss = -(picked * keep).sum() / keep.sum()
    return loss, np.exp(log_p)


def cross_entropy_backward(probabilities, targets, ignore=0):
    """``d_logits = (softmax(logits) − onehot(target)) / N`` on the N kept targets, 0 on padding."""
    keep = targets != ignore  # (B, n)
    d_logits = probabilities.copy()  # (B, n, V)
    np.put_along_axis(d_logits, targets[..., None],
                      np.take_along_axis(d_logits, targets[..., None], axis=-1) - 1, axis=-1)
    return d_logits * (keep[..., None] / keep.sum()).astype(d_logits.dtype)


# --- the optimiser: Adam, warm-up then cosine decay, gradients clipped -------------------------

def learning_rate(step, peak, warmup, total):
    """Linear warm-up to ``peak`` over ``warmup`` steps, then cosine decay to 0 at ``total``.

    >>> [round(learning_rate(s, 1e-2, 10, 100), 5) for s in (0, 5, 10, 55, 100)]
    [0.00091, 0.00545, 0.01, 0.005, 0.0]
    """
    if step < warmup:
        return peak * (step + 1) / (warmup + 1)
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * 0.5 * (1 + math.cos(math.pi * progress))


def clip_by_norm(grads, max_norm=1.0):
    """Scale every gradient by ``max_norm / ‖all gradients‖`` when that norm is larger.

    Returns the norm before clipping. ``grads`` is a dict of arrays, changed in place.
    """
    norm = math.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads.values()))
    if norm > max_norm:
        for g in grads.values():
            g *= g.dtype.type(max_norm / norm)
    return norm


def adam_step(params, grads, state, lr, beta1=0.9, beta2=0.98, eps=1e-9):
    """One Adam update of every parameter in place; ``state`` holds the moments and step.

    ``m ← β₁m + (1−β₁)g``, ``v ← β₂v + (1−β₂)g²``, bias-corrected, then
    ``θ ← θ − lr · m̂ / (√v̂ + ε)``.
    """
    state["t"] = t = state.get("t", 0) + 1
    for name, g in grads.items():
        m = state.setdefault("m." + name, np.zeros_like(g))
        v = state.setdefault("v." + name, np.zeros_like(g))
        m *= beta1
        m += (1 - beta1) * g
        v *= beta2
        v += (1 - beta2) * g * g
        m_hat = m / (1 - beta1**t)
        v_hat = v / (1 - beta2**t)
        params[name] -= (lr * m_hat / (np.sqrt(v_hat) + eps)).astype(params[name].dtype,
                                                                    copy=False)


# --- each backward checked on its own --------------------------------------------------------

def _relative_error(a, b) -> float:
    """``‖a − b‖ / (‖a‖ + ‖b‖)``, 0 when both are 0."""
    denom = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denom == 0 else float(np.linalg.norm(a - b) / denom)


def _numeric_gradient(forward, inputs, which, d_out, eps):
    """Central differences of ``sum(forward(*inputs) · d_out)`` with respect to
    ``inputs[which]``: what a backward given ``d_out`` must return for that input."""
    x = inputs[which]
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        up = float(np.sum(forward(*inputs) * d_out))
        x[i] = old - eps
        down = float(np.sum(forward(*inputs) * d_out))
        x[i] = old
        numeric[i] = (up - down) / (2 * eps)
    return numeric


def check_each_operation(eps: float = 1e-6, seed: int = 0, **backwards) -> dict:
    """Each op's backward against central differences, on its own small float64 input.

    Returns ``{op: relative error}``, the largest over the op's inputs (by norm, as
    :func:`qkv_helpers.translator.gradient_check`). A whole-model check says only that some
    gradient is off; this says which op. Pass a backward of your own by its name to check
    it in place of the package's, e.g. ``layer_norm_backward=mine``.

    >>> errors = check_each_operation()
    >>> list(errors)[:3], max(errors.values()) < 1e-6
    (['embedding', 'linear', 'relu'], True)
    >>> def forgot_a_term(d_out, y, inv_std):               # no y·mean(d_y·y)
    ...     return (d_out - d_out.mean(axis=-1, keepdims=True)) * inv_std
    >>> errors = check_each_operation(layer_norm_backward=forgot_a_term)
    >>> [op for op, e in errors.items() if e > 1e-6]
    ['layer_norm']
    """
    eps = validate.positive_number(eps, "eps")
    rng = np.random.default_rng(validate.seed(seed))
    known = {"embedding_backward", "linear_backward", "relu_backward", "layer_norm_backward",
             "softmax_backward", "attention_backward", "cross_entropy_backward",
             "merge_heads"}
    unknown = set(backwards) - known
    if unknown:
        raise TypeError(t("err_backward_unknown", got=sorted(unknown), known=sorted(known)))
    for name, fn in backwards.items():
        validate.a_function(fn, name)
    use = {name: backwards.get(name, globals()[name]) for name in known}

    def normal(*shape):
        return rng.standard_normal(shape)

    ids = np.array([[1, 3, 0], [2, 3, 4]])  # (B, n): id 3 looked up twice
    targets = np.array([[1, 4, 0], [2, 0, 0]])  # (B, n): 0 is padding
    mask = np.array([[True, True, True, False]])  # the last key masked
    # op: (forward, its inputs, backward(d_out, *inputs) → one gradient per input)
    ops = {
        "embedding": (lambda table: embedding(table, ids), [normal(5, 3)],
                      lambda d, table: (use["embedding_backward"](d, ids, len(table)),)),
        "linear": (linear, [normal(2, 3, 4), normal(4, 5)], use["linear_backward"]),
        "relu": (relu, [normal(2, 3, 4)], lambda d, x: (use["relu_backward"](d, x),)),
        "layer_norm": (lambda x: layer_norm(x)[0], [normal(2, 3, 6)],
                       lambda d, x: (use["layer_norm_backward"](d, *layer_norm(x)),)),
        "split_heads": (lambda x: split_heads(x, 2), [normal(2, 3, 4)],
                        lambda d, x: (use["merge_heads"](d),)),
        "softmax": (softmax, [normal(2, 3, 4)],
                    lambda d, s: (use["softmax_backward"](d, softmax(s)),)),
        "attention": (lambda q, k, v: attention(q, k, v, mask)[0],
                      [normal(2, 3, 4), normal(2, 4, 4), normal(2, 4, 5)],
                      lambda d, q, k, v: use["attention_backward"](
                          d, q, k, v, attention(q, k, v, mask)[1])),
        "cross_entropy": (lambda logits: cross_entropy(logits, targets)[0], [normal(2, 3, 5)],
                          lambda d, logits: (d * use["cross_entropy_backward"](
                              cross_entropy(logits, targets)[1], targets),)),
    }
    errors = {}
    for op, (forward, inputs, backward) in ops.items():
        d_out = normal(*np.shape(forward(*inputs)))
        grads = backward(d_out, *inputs)
        errors[op] = max(_relative_error(np.asarray(g), _numeric_gradient(forward, inputs, i,
                                                                          d_out, eps))
                         for i, g in enumerate(grads))
    return errors

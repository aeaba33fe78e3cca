"""What attention's backward pass must keep: P itself, or only each row's log-sum-exp.

To compute the gradients of ``out = softmax(q·kᵀ/√d)·v`` the backward needs the
attention weights ``P`` (lesson 14, :func:`qkv_helpers.backprop.attention_backward`).
Plain training keeps ``P``, ``(n, n)`` numbers per head and layer, from the forward pass
to the backward pass. FlashAttention-2 keeps only each query row's log-sum-exp
``L = log Σ_j exp(s_j)`` (``n`` numbers) and the output (FlashAttention-1 kept each row's
max and sum instead of ``L``), and recomputes ``P`` block by block in the backward:
``P = exp(s − L)`` for one block of keys at a time. That costs
the score product ``q·kᵀ`` once more (more FLOPs) and never holds more than an
``(n, block)`` piece of ``P`` (far less memory).

:func:`plain_backward` and :func:`recompute_backward` give the same gradients (tested);
:func:`measure_backward` measures both as ``n`` grows.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import _validate as validate
from ..backprop import attention_backward
from .long_context import measure_peak_memory

__all__ = [
    "BackwardCosts",
    "backward_flops",
    "forward_with_logsumexp",
    "kept_bytes",
    "measure_backward",
    "plain_backward",
    "recompute_backward",
]


@validate.by(validate.one_head_args)
def forward_with_logsumexp(q, k, v):
    """The forward pass and what each backward keeps: ``(out, P, L)``.

    ``out (n_q, d_v)``; ``P (n_q, n_k)``, what plain training keeps; ``L (n_q,)``, each
    row's log-sum-exp of the scaled scores, what FlashAttention-2 keeps instead. ``P`` is
    ``exp(s − L)``, the softmax of each row, computed in place in one ``(n_q, n_k)`` array.
    """
    scale = q.dtype.type(1 / math.sqrt(q.shape[-1]))
    p = (q @ k.T) * scale  # (n_q, n_k): the scores s, then P in place
    row_max = p.max(axis=-1, keepdims=True)  # (n_q, 1)
    p -= row_max
    np.exp(p, out=p)
    row_sum = p.sum(axis=-1, keepdims=True)  # (n_q, 1)
    p /= row_sum  # softmax(s), each row sums to 1
    lse = (row_max + np.log(row_sum))[:, 0]  # (n_q,): log Σ_j exp(s_j)
    return p @ v, p, lse


@validate.by(validate.attention_backward_args)
def plain_backward(d_out, q, k, v, p):
    """The backward of lesson 14, reading the kept ``P (n_q, n_k)``: ``(d_q, d_k, d_v)``."""
    return attention_backward.unchecked(d_out, q, k, v, p)


@validate.by(validate.recompute_backward_args)
def recompute_backward(d_out, q, k, v, out, lse, block_size: int = 64):
    """The same gradients from ``out`` and ``lse (n_q,)`` only, ``P`` recomputed by blocks.

    For each block of keys ``b``::

        P_b  = exp(q·k_bᵀ·scale − L)          (n_q, block)   recomputed, then dropped
        d_v_b = P_bᵀ·d_out
        d_P_b = d_out·v_bᵀ
        d_S_b = P_b ⊙ (d_P_b − D),  D = rowsum(d_out ⊙ out)   (the Jacobian's p·d_p term)
        d_q  += d_S_b·k_b·scale,    d_k_b = d_S_bᵀ·q·scale

    ``D_i = Σ_j P_ij d_P_ij = d_out_i · out_i``: the term of :func:`softmax_backward` that
    needs the whole row, computed once from the output.
    """
    scale = q.dtype.type(1 / math.sqrt(q.shape[-1]))
    big_d = (d_out * out).sum(axis=-1, keepdims=True)  # (n_q, 1)
    d_q = np.zeros_like(q)  # (n_q, d_k)
    d_k = np.empty_like(k)  # (n_k, d_k)
    d_v = np.empty_like(v)  # (n_k, d_v)
    for start in range(0, k.shape[0], block_size):
        b = slice(start, start + block_size)
        p_b = np.exp((q @ k[b].T) * scale - lse[:, None])  # (n_q, block)
        d_v[b] = p_b.T @ d_out
        d_s = p_b * (d_out @ v[b].T - big_d)  # (n_q, block)
        d_q += (d_s @ k[b]) * scale
        d_k[b] = (d_s.T @ q) * scale
    return d_q, d_k, d_v


def backward_flops(n: int, d: int, recompute: bool) -> int:
    """FLOPs of the backward's matrix products for ``n`` queries and keys of width ``d``.

    Four ``(n, n, d)`` products (``d_v``, ``d_P``, ``d_q``, ``d_k``), ``2·n·n·d`` each; the
    recomputation adds a fifth, ``q·kᵀ`` again.

    >>> backward_flops(1024, 64, False), backward_flops(1024, 64, True)
    (536870912, 671088640)
    """
    return (5 if recompute else 4) * 2 * n * n * d


def kept_bytes(n: int, d: int, recompute: bool, itemsize: int = 4) -> int:
    """Bytes kept from the forward for the backward, as :func:`measure_backward` counts
    them: ``q``, ``k``, ``v`` and the output, ``4·n·d`` numbers, and either ``P (n, n)`` or
    the log-sum-exp ``(n,)``.

    Both backwards read ``q``, ``k`` and ``v``. The plain one reads ``P``; the recomputing
    one reads ``L`` and the output (for ``D = rowsum(d_out ⊙ out)``, without ``P``). The
    output is kept in plain training too, as the input of ``W_o``'s backward. So the ratio
    of the two is ``(n² + 4nd) / (n + 4nd)``, about ``n / (4d)`` for ``n`` much larger than
    ``4d``.

    >>> kept_bytes(1024, 64, False) / 2**20, kept_bytes(1024, 64, True) / 2**20
    (5.0, 1.00390625)
    """
    n, d = validate.integer(n, "n", 1), validate.integer(d, "d", 1)
    return itemsize * ((n if recompute else n * n) + 4 * n * d)


class BackwardCosts(NamedTuple):
    """:func:`measure_backward`'s table, one entry per ``n``."""

    lengths: list
    kept_plain: list
    """Bytes kept from forward to backward by plain training: ``P``, and q, k, v, the output."""
    kept_recompute: list
    """Bytes kept by FlashAttention-2's way: the log-sum-exp, and q, k, v, the output."""
    peak_plain: list
    """Peak bytes allocated during the plain backward, on top of what was kept."""
    peak_recompute: list
    """Peak bytes allocated during the recomputing backward, on top of what was kept."""
    flops_plain: list
    flops_recompute: list


def measure_backward(lengths, d: int = 64, block_size: int = 64, seed: int = 0) -> BackwardCosts:
    """Measure both backward passes of one float32 head for each ``n`` in ``lengths``.

    Memory with :func:`~qkv_helpers.measure.long_context.measure_peak_memory` (tracemalloc); FLOPs
    counted by :func:`backward_flops`.
    """
    lengths = [int(n) for n in validate.int_sequence(lengths, "lengths", low=1)]
    d = validate.integer(d, "d", 1)
    block_size = validate.integer(block_size, "block_size", 1)
    seed = validate.seed(seed)
    rng = np.random.default_rng(seed)
    rows = {f: [] for f in BackwardCosts._fields}
    for n in lengths:
        n = validate.integer(n, "n", 1)
        q, k, v, d_out = (rng.standard_normal((n, d), dtype=np.float32) for _ in range(4))
        out, p, lse = forward_with_logsumexp.unchecked(q, k, v)
        rows["lengths"].append(n)
        inputs = q.nbytes + k.nbytes + v.nbytes + out.nbytes  # read by both backwards
        rows["kept_plain"].append(p.nbytes + inputs)
        rows["kept_recompute"].append(lse.nbytes + inputs)
        # the formulas alone (.unchecked): the arguments are known to be right here
        rows["peak_plain"].append(measure_peak_memory(plain_backward.unchecked,
                                                      d_out, q, k, v, p))
        rows["peak_recompute"].append(measure_peak_memory(recompute_backward.unchecked,
                                                          d_out, q, k, v, out, lse, block_size))
        rows["flops_plain"].append(backward_flops(n, d, False))
        rows["flops_recompute"].append(backward_flops(n, d, True))
        del p
    return BackwardCosts(**rows)

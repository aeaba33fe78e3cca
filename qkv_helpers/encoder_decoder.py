"""Attention inside the encoder and the decoder: the experiments of lessons 06, 07 and 08.

- Encoder self-attention (lesson 06): :func:`encoder_example` (multi-head attention on the
  running sentence), :func:`top_keys` (what each head looks at most) and
  :func:`permutation_check` (attention alone does not see the order of the tokens).
- Decoder masked self-attention (lesson 07): :func:`change_future_token` (changing a later
  token changes no earlier output) and :func:`attend_one_at_a_time` (generation's one
  position per step gives the same rows as training's one masked matrix product).
- Cross-attention (lesson 08): :func:`cross_attention_at_step` (the encoder's keys and values
  are the same at every decoder step).

numpy only, like the rest of the math.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t
from .attention import MultiHeadAttention, scaled_dot_product_attention
from .examples import TranslationExample, running_example
from .masks import causal_mask

__all__ = [
    "ENCODER_SEED",
    "CrossStep",
    "EncoderExample",
    "FutureChange",
    "PermutationResult",
    "attend_one_at_a_time",
    "change_future_token",
    "cross_attention_at_step",
    "encoder_example",
    "permutation_check",
    "top_keys",
]

#: Seed of the two-head attention of lesson 06. Chosen (by looking at 300 seeds) so that
#: the two heads give every query a different favourite key, each fairly sharply: the
#: weights are random, not learned, but the heads visibly weigh different pairs.
ENCODER_SEED = 273


class EncoderExample(NamedTuple):
    """The running sentence and a two-head attention layer over it."""

    tokens: tuple[str, ...]
    x: np.ndarray
    """``(tokens, d_model) = (7, 8)``: the running example's embeddings."""
    mha: MultiHeadAttention
    """``MultiHeadAttention(d_model=8, n_heads=2, seed=ENCODER_SEED)``."""


def encoder_example(seed: int = ENCODER_SEED) -> EncoderExample:
    """Multi-head self-attention (2 heads of width 4) on "The cat sat on the mat.".

    Examples
    --------
    >>> enc = encoder_example()
    >>> enc.x.shape, enc.mha.n_heads, enc.mha.head_dim
    ((7, 8), 2, 4)
    >>> out, w = enc.mha(enc.x)
    >>> out.shape, w.shape                   # w: (n_heads, n_q, n_k)
    ((7, 8), (2, 7, 7))
    """
    seed = validate.seed(seed)
    ex = running_example()
    return EncoderExample(ex.tokens, ex.x, MultiHeadAttention(d_model=ex.d_model, n_heads=2,
                                                              seed=seed))


def top_keys(weights, tokens) -> list[list[str]]:
    """For each head and each query, the key token with the largest weight.

    Parameters
    ----------
    weights : array_like, shape (n_heads, n_q, n_k) or (n_q, n_k)
    tokens : sequence of str
        The key tokens, ``n_k`` of them.

    Returns
    -------
    list of list of str
        ``[head][query]``: a key token (one list when ``weights`` is 2-D).

    Examples
    --------
    >>> top_keys([[0.9, 0.1], [0.2, 0.8]], ["a", "b"])
    [['a', 'b']]
    """
    w = validate.array(weights, "weights", ndim=(2, 3), shape="(n_heads, n_q, n_k) or (n_q, n_k)",
                       widen=True, empty=False)
    if w.ndim == 2:
        w = w[None]  # (1, n_q, n_k)
    if w.min() < 0.0 or w.max() > 1.0 + 1e-9:
        raise ValueError(t("err_attention_weights_range", low=f"{w.min():.3g}",
                           high=f"{w.max():.3g}"))
    tokens = validate.label_list(tokens, w.shape[-1], "tokens",
                                 f"keys (weights has shape {w.shape})")
    return [[tokens[j] for j in head.argmax(axis=-1)] for head in w]


class PermutationResult(NamedTuple):
    """What self-attention does with the tokens in another order."""

    order: np.ndarray
    """``(tokens,)``: the new order, ``x_permuted = x[order]``."""
    output: np.ndarray
    """``(tokens, d_model)``: output for the original order."""
    output_permuted: np.ndarray
    """``(tokens, d_model)``: output for ``x[order]``."""
    max_difference: float
    """Largest ``|output_permuted - output[order]|``: 0 up to rounding."""


def permutation_check(mha: MultiHeadAttention, x, order) -> PermutationResult:
    """Run self-attention on ``x`` and on ``x[order]``, and compare row by row.

    Without positional information, attention treats its input as a set: permuting the
    tokens only permutes the output rows, ``mha(x[order]) == mha(x)[order]``.

    Parameters
    ----------
    mha : MultiHeadAttention
    x : array_like, shape (tokens, d_model)
    order : sequence of int
        A permutation of ``range(tokens)``.

    Examples
    --------
    >>> enc = encoder_example()
    >>> result = permutation_check(enc.mha, enc.x, [6, 5, 4, 3, 2, 1, 0])
    >>> result.max_difference < 1e-12
    True
    """
    validate.instance_of(mha, "mha", MultiHeadAttention, "e.g. encoder_example().mha")
    x = validate.array(x, "x", ndim=2, shape="(tokens, d_model)", widen=True, empty=False)
    if x.shape[1] != mha.d_model:
        raise ValueError(t("err_permutation_x", d_model=mha.d_model, shape=x.shape))
    n = x.shape[0]
    if isinstance(order, (str, bytes)) or order is None:
        raise TypeError(t("err_order_type", n=n, got=repr(order)[:100]))
    order = np.asarray(order)
    if order.dtype.kind not in "iu":
        raise TypeError(t("err_order_type", n=n,
                          got=f"dtype {order.dtype}: {order.tolist()}"[:100]))
    if order.shape != (n,) or sorted(order.tolist()) != list(range(n)):
        raise ValueError(t("err_order_values", n=n, got=str(order.tolist())[:100]))
    output = mha(x).output  # (tokens, d_model)
    output_permuted = mha(x[order]).output  # (tokens, d_model)
    diff = float(np.abs(output_permuted - output[order]).max())
    return PermutationResult(order, output, output_permuted, diff)


class FutureChange(NamedTuple):
    """Self-attention's output before and after one token's embedding is replaced."""

    position: int
    """The position whose embedding was replaced."""
    output_before: np.ndarray
    """``(tokens, d_v)``"""
    output_after: np.ndarray
    """``(tokens, d_v)``"""
    row_change: np.ndarray
    """``(tokens,)``: the largest change in each output row."""


def change_future_token(x, w_q, w_k, w_v, position: int, *, masked: bool = True,
                        seed: int = 0) -> FutureChange:
    """Replace the embedding at ``position`` by a random one; see which outputs change.

    With the causal mask (``masked=True``) the rows before ``position`` do not change at
    all (their change is exactly 0): they never look at it. Without the mask every row
    changes.

    Parameters
    ----------
    x : array_like, shape (tokens, d_model)
    w_q, w_k, w_v : array_like, shape (d_model, d_k)
    position : int
        The token to replace, ``0 <= position < tokens``.
    masked : bool
        Use the causal mask (decoder) or not (encoder).
    seed : int
        Seed of the replacement embedding.

    Examples
    --------
    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> change = change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, position=4)
    >>> change.row_change[:4]                  # "The cat sat on": unchanged
    array([0., 0., 0., 0.])
    >>> bool((change.row_change[4:] > 0).all())
    True
    """
    x = validate.array(x, "x", ndim=2, shape="(tokens, d_model)", widen=True, empty=False)
    n, d_model = x.shape
    w_q, w_k, w_v = (validate.array(w, name, ndim=2, shape=f"(d_model, d) = ({d_model}, d)",
                                    widen=True, empty=False)
                     for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")))
    for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")):
        if w.shape[0] != d_model:
            raise ValueError(t("err_future_w_shape", name=name, d_model=d_model,
                               x_shape=x.shape, shape=w.shape))
    if w_q.shape != w_k.shape:
        raise ValueError(t("err_future_wq_wk", q_shape=w_q.shape, k_shape=w_k.shape))
    try:
        position = validate.integer(position, "position", 0, n - 1)
    except (TypeError, ValueError) as error:
        raise type(error)(t("err_x_has_tokens", error=error, n=n)) from None
    masked = validate.flag(masked, "masked")
    rng = np.random.default_rng(validate.seed(seed))
    changed = x.copy()
    changed[position] = rng.normal(0.0, 1.0, d_model)  # (d_model,)
    mask = causal_mask(n) if masked else None

    def attend(xs):
        with np.errstate(over="ignore", invalid="ignore"):
            q, k, v = xs @ w_q, xs @ w_k, xs @ w_v  # (tokens, d_k), (tokens, d_k), (tokens, d_v)
            validate.finite_result(np.concatenate([q.ravel(), k.ravel(), v.ravel(),
                                   (q @ k.T).ravel()]),
                          "Q, K, V or the scores", "x, w_q, w_k and w_v")
            output = scaled_dot_product_attention(q, k, v, mask=mask).output
        return validate.finite_result(output, "the output weights·V", "x and w_v")

    before, after = attend(x), attend(changed)  # (tokens, d_v) each
    return FutureChange(int(position), before, after, np.abs(after - before).max(axis=-1))


def attend_one_at_a_time(q, k, v) -> np.ndarray:
    """Causal self-attention computed as generation does: one query per step.

    At step ``i`` only the first ``i + 1`` tokens exist, so query ``i`` attends to keys and
    values ``0..i`` and nothing is masked. The rows equal one masked matrix product over
    all positions (what training computes at once).

    Parameters
    ----------
    q, k : array_like, shape (tokens, d_k)
    v : array_like, shape (tokens, d_v)

    Returns
    -------
    numpy.ndarray, shape (tokens, d_v)

    Examples
    --------
    >>> from qkv_helpers import running_example, causal_mask
    >>> ex = running_example()
    >>> steps = attend_one_at_a_time(ex.q, ex.k, ex.v)
    >>> at_once = scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=causal_mask(7)).output
    >>> bool(np.allclose(steps, at_once))
    True
    """
    q = validate.array(q, "q", ndim=2, shape="(tokens, d_k)", widen=True, empty=False)
    k = validate.array(k, "k", ndim=2, shape="(tokens, d_k)", widen=True, empty=False)
    v = validate.array(v, "v", ndim=2, shape="(tokens, d_v)", widen=True, empty=False)
    if q.shape[1] != k.shape[1]:
        raise ValueError(t("err_one_at_a_time_d_k", q=q.shape, k=k.shape))
    if not q.shape[0] == k.shape[0] == v.shape[0]:
        raise ValueError(t("err_one_at_a_time_tokens", q=q.shape, k=k.shape, v=v.shape))
    with np.errstate(over="ignore", invalid="ignore"):
        validate.finite_result(q @ k.T, "the scores q·kᵀ", "q and k")
        rows = [scaled_dot_product_attention(q[i:i + 1], k[:i + 1], v[:i + 1]).output[0]
                for i in range(q.shape[0])]
    return validate.finite_result(np.stack(rows), "the output weights·v", "v")  # (tokens, d_v)


class CrossStep(NamedTuple):
    """Cross-attention when the decoder has written its first ``step`` tokens."""

    step: int
    q: np.ndarray
    """``(step, d_k)``: queries of the target tokens written so far."""
    k: np.ndarray
    """``(source tokens, d_k)``: keys of the encoder output."""
    v: np.ndarray
    """``(source tokens, d_v)``: values of the encoder output."""
    weights: np.ndarray
    """``(step, source tokens)``"""


def cross_attention_at_step(example: TranslationExample, step: int) -> CrossStep:
    """Cross-attention for the decoder's first ``step`` target tokens.

    The queries come from the decoder's tokens so far; the keys and values come from the
    encoder's output ``source_x`` only, so they are the same at every step.

    Examples
    --------
    >>> from qkv_helpers import translation_example
    >>> ex = translation_example()
    >>> first, last = cross_attention_at_step(ex, 1), cross_attention_at_step(ex, 5)
    >>> first.q.shape, last.q.shape, last.k.shape
    ((1, 4), (5, 4), (7, 4))
    >>> bool((first.k == last.k).all() and (first.v == last.v).all())
    True
    """
    validate.instance_of(example, "example", TranslationExample, "e.g. translation_example()")
    n_target = len(example.target_tokens)
    try:
        step = validate.integer(step, "step", 1, n_target)
    except (TypeError, ValueError) as error:
        raise type(error)(t("err_target_has_tokens", error=error, n=n_target)) from None
    q = example.target_x[:step] @ example.w_q  # (step, d_k)
    k = example.source_x @ example.w_k  # (source tokens, d_k)
    v = example.source_x @ example.w_v  # (source tokens, d_v)
    return CrossStep(step, q, k, v, scaled_dot_product_attention(q, k, v).weights)

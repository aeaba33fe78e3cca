"""Where is each token? Positions in attention: sinusoidal, learned and rotary (RoPE).

Attention alone treats its input as a set (lesson 06): shuffle the tokens and the output rows
shuffle with them. Order has to be put in. This module holds the three ways lesson 12 shows:

- **sinusoidal** positions, added to the embeddings once (:func:`sinusoidal_positions`, the
  original Transformer's; :func:`sinusoidal_shift_matrix` shows that moving k positions on is a
  fixed rotation of each (sin, cos) pair);
- **learned** positions, a trained table added the same way (lesson 11's model has 512 of them;
  :func:`cosine_similarity_matrix` compares its rows);
- **rotary** positions (RoPE, :func:`apply_rope`), which are *not* added: in every layer they
  rotate each query and key by an angle proportional to its position, so that the score
  ``q_m · k_n`` depends on the positions only through ``m − n``.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t

__all__ = [
    "apply_rope",
    "causal_permutation_check",
    "causal_position_signal",
    "cosine_similarity_matrix",
    "learned_positions",
    "rope_angles",
    "rope_mean_score",
    "rope_rotation_matrix",
    "rope_score_by_distance",
    "sinusoidal_positions",
    "sinusoidal_shift_matrix",
]


def sinusoidal_positions(n_positions: int, d_model: int, dtype=np.float32) -> np.ndarray:
    """The sinusoidal position vectors of "Attention Is All You Need".

    ``PE[pos, 2i] = sin(pos / 10000^(2i/d_model))``, ``PE[pos, 2i+1] = cos(...)``.

    Returns
    -------
    numpy.ndarray, shape (n_positions, d_model)

    Examples
    --------
    >>> sinusoidal_positions(3, 4).round(3)
    array([[ 0.   ,  1.   ,  0.   ,  1.   ],
           [ 0.841,  0.54 ,  0.01 ,  1.   ],
           [ 0.909, -0.416,  0.02 ,  1.   ]], dtype=float32)
    """
    n_positions = validate.integer(n_positions, "n_positions", 1, 2**24,
                                   why=t("err_why_position_rows"))
    d_model = validate.integer(d_model, "d_model", 1, 2**14, why=t("err_why_dimension_columns"))
    dtype = validate.float_dtype(dtype)
    pos = np.arange(n_positions)[:, None]  # (n_positions, 1)
    freq = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)  # (ceil(d_model / 2),)
    pe = np.empty((n_positions, d_model))  # (n_positions, d_model)
    pe[:, 0::2] = np.sin(pos * freq)
    pe[:, 1::2] = np.cos(pos * freq[: d_model // 2])
    return pe.astype(dtype)


def rope_angles(positions, d: int, base: float = 10000.0) -> np.ndarray:
    """The rotation angle of each position and each pair of dimensions: ``m · θ_i``.

    ``θ_i = base^(−2i/d)`` for ``i = 0 … d/2 − 1``: the first pair turns by 1 radian per
    position, the last almost not at all.

    Returns
    -------
    numpy.ndarray, shape (len(positions), d // 2), float64

    Examples
    --------
    >>> rope_angles([0, 1, 2], 4).round(3)
    array([[0.  , 0.  ],
           [1.  , 0.01],
           [2.  , 0.02]])
    """
    d = validate.even_dim(d, "d")
    base = validate.positive_number(base, "base")
    m = validate.token_positions(positions, None)  # (n,)
    theta = base ** (-np.arange(0, d, 2) / d)  # (d/2,)
    return m[:, None] * theta[None, :]  # (n, d/2)


@validate.by(validate.rope_args)
def apply_rope(x, positions=None, base: float = 10000.0) -> np.ndarray:
    """Rotate queries or keys by their positions (rotary position embedding, RoPE).

    Dimension ``i`` is paired with dimension ``i + d/2`` (the "rotate half" layout of the
    common Llama implementations, not the interleaved ``2i, 2i+1`` of the RoPE paper: the same
    rotations on a different ordering of the dimensions). The pair at position ``m`` turns by
    the angle ``m · θ_i``, with ``θ_i = base^(−2i/d)``::

        x1, x2 = x[..., :d/2], x[..., d/2:]
        out = concat(x1·cos − x2·sin, x2·cos + x1·sin)

    Apply it to q and k (never to v) in every layer, right before the scores: then
    ``apply_rope(q)[m] · apply_rope(k)[n]`` depends on ``m`` and ``n`` only through ``m − n``.

    Parameters
    ----------
    x : array_like, shape (..., n, d)
        Queries or keys, ``d`` even.
    positions : sequence of int, shape (n,), optional
        The position of each of the ``n`` tokens; ``0 … n−1`` by default.
    base : float
        10000 in the RoPE paper and Llama 2 (larger in newer long-context models).

    Returns
    -------
    numpy.ndarray, shape (..., n, d)
        float32 in gives float32 out; integers give float64.

    Examples
    --------
    >>> q = np.array([[1.0, 0.0]])           # one token, d = 2: one pair (x1, x2) = (1, 0)
    >>> apply_rope(q, positions=[1]).round(3)  # turned by 1 radian
    array([[0.54 , 0.841]])
    """
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d, 2) / d)  # (d/2,): θ_i = base^(−2i/d)
    angles = positions[:, None] * theta[None, :]  # (n, d/2): m · θ_i
    cos, sin = np.cos(angles).astype(x.dtype), np.sin(angles).astype(x.dtype)  # (n, d/2)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]  # (..., n, d/2) each
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)  # (..., n, d)


def rope_rotation_matrix(position: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The ``(d, d)`` matrix R with ``apply_rope(x, [position]) == x @ R`` for a row x.

    Each pair ``(i, i + d/2)`` gets a 2-D rotation by ``position · θ_i``; everything else is 0.

    Examples
    --------
    >>> rope_rotation_matrix(1, 2).round(3)
    array([[ 0.54 ,  0.841],
           [-0.841,  0.54 ]])
    """
    position = validate.integer(position, "position", 0, validate.MAX_POSITION)
    d = validate.even_dim(d, "d")
    (angles,) = rope_angles([position], d, base)  # (d/2,)
    half = d // 2
    r = np.zeros((d, d))  # (d, d)
    i = np.arange(half)
    r[i, i] = r[i + half, i + half] = np.cos(angles)
    r[i, i + half] = np.sin(angles)    # x1 contributes + x1·sin to the second half
    r[i + half, i] = -np.sin(angles)   # x2 contributes − x2·sin to the first half
    return r


def rope_score_by_distance(d: int, distances, base: float = 10000.0) -> np.ndarray:
    """The average score of a vector with itself placed ``distance`` positions apart.

    For q = k with independent components of variance 1, the expected RoPE score
    ``E[R_m q · R_n q] = Σ_i 2·cos((m − n)·θ_i)``: d at distance 0, and on average smaller the
    farther apart the two positions are (with ripples), the "long-term decay" of RoPE.

    Returns
    -------
    numpy.ndarray, shape (len(distances),)

    Examples
    --------
    >>> rope_score_by_distance(4, [0, 1]).round(3)
    array([4.   , 3.081])
    """
    d = validate.even_dim(d, "d")
    distances = validate.token_positions(distances, None, "distances")  # (n,)
    angles = rope_angles(distances, d, base)  # (n, d/2)
    return 2 * np.cos(angles).sum(axis=-1)  # (n,)


def rope_mean_score(d: int, distances, same: bool, n_pairs: int = 2000, seed: int = 0
                    ) -> np.ndarray:
    """The mean RoPE score of random query–key pairs placed ``distance`` positions apart.

    Draws ``n_pairs`` queries with independent standard-normal components; with ``same=True``
    each key is its query (q = k, the case of :func:`rope_score_by_distance`, whose curve falls
    with the distance), with ``same=False`` an independent draw. For independent q and k the
    expected score is 0 at every distance: RoPE's "decay" is a property of similar vectors,
    not of every pair.

    Returns
    -------
    numpy.ndarray, shape (len(distances),)

    Examples
    --------
    >>> bool(abs(rope_mean_score(64, [0], same=True)[0] - 64) < 5)
    True
    """
    d = validate.even_dim(d, "d")
    distances = validate.token_positions(distances, None, "distances")  # (n,)
    same = validate.flag(same, "same")
    n_pairs = validate.integer(n_pairs, "n_pairs", 1, 100_000)
    rng = np.random.default_rng(validate.seed(seed))
    q = rng.standard_normal((n_pairs, d))  # (n_pairs, d)
    k = q if same else rng.standard_normal((n_pairs, d))  # (n_pairs, d)
    k_at_0 = apply_rope(k, np.zeros(n_pairs, dtype=np.int64))  # position 0: unchanged
    means = [np.mean(np.sum(apply_rope(q, np.full(n_pairs, m)) * k_at_0, axis=-1))
             for m in distances]  # query at position m, key at 0: distance m
    return np.array(means)  # (n,)


def sinusoidal_shift_matrix(shift: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The ``(d_model, d_model)`` matrix M with ``PE[p + shift] == PE[p] @ M`` for every p.

    ``sinusoidal_positions`` puts ``sin(p·ω_i)`` at ``2i`` and ``cos(p·ω_i)`` at ``2i + 1``;
    moving ``shift`` positions on turns each (sin, cos) pair by ``shift·ω_i`` — the same matrix
    for every p. That is why the paper expected a model to find relative positions easy.

    Examples
    --------
    >>> pe = sinusoidal_positions(10, 8, dtype=np.float64)
    >>> bool(np.allclose(pe[:7] @ sinusoidal_shift_matrix(3, 8), pe[3:]))
    True
    """
    if isinstance(shift, bool) or not isinstance(shift, numbers.Integral):
        raise TypeError(t("err_int_needed", name="shift", needs=t("err_int_any"),
                          got=f"{type(shift).__name__} {shift!r}"))
    d_model = validate.even_dim(d_model, "d_model")
    base = validate.positive_number(base, "base")
    omega = base ** (-np.arange(0, d_model, 2) / d_model)  # (d_model/2,)
    angle = int(shift) * omega  # (d_model/2,)
    m = np.zeros((d_model, d_model))  # (d_model, d_model)
    i = np.arange(0, d_model, 2)
    # (sin a, cos a) @ [[cos b, -sin b], [sin b, cos b]] = (sin(a+b), cos(a+b))
    m[i, i], m[i, i + 1] = np.cos(angle), -np.sin(angle)
    m[i + 1, i], m[i + 1, i + 1] = np.sin(angle), np.cos(angle)
    return m


def cosine_similarity_matrix(vectors) -> np.ndarray:
    """Cosine similarity of every row with every row: ``(n, d) → (n, n)``.

    Used on a table of position vectors: how alike are positions p and p'?

    Examples
    --------
    >>> cosine_similarity_matrix([[1.0, 0.0], [1.0, 1.0]]).round(3)
    array([[1.   , 0.707],
           [0.707, 1.   ]])
    """
    v = validate.array(vectors, "vectors", min_ndim=2, bools=False, empty=False)
    if v.ndim != 2:
        raise ValueError(t("err_ndim", name="vectors", ndim=2,
                           need=t("err_need_shape", shape="(n, d)"), got=v.shape))
    largest = np.abs(v).max(axis=1, keepdims=True)  # (n, 1)
    if np.any(largest == 0):
        row = int(np.argmax(largest[:, 0] == 0))
        raise ValueError(t("err_zero_row", row=row))
    v = v / largest  # (n, d): each row scaled to at most 1, so that norms neither overflow
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)  # (n, d)  nor underflow
    return unit @ unit.T  # (n, n)


def learned_positions() -> np.ndarray:
    """The learned position vectors of lesson 11's model (all-MiniLM-L6-v2): ``(512, 384)``.

    BERT-style models train one vector per position and add it to the token's embedding.
    Row p is position p; there is no row for position 512, so the model cannot read longer
    texts. The table is the one :func:`qkv_helpers.pretrained.load_minilm` runs with.

    Examples
    --------
    >>> learned_positions().shape
    (512, 384)
    """
    from safetensors import safe_open

    from .pretrained import POSITION_TABLE, _model_dir

    # This one table from the weights file, not the whole model (90 MB of weights).
    with safe_open(str(_model_dir() / "model.safetensors"), framework="numpy") as weights:
        table = weights.get_tensor(POSITION_TABLE)
    return np.asarray(table, dtype=np.float32)  # (512, 384), as load_minilm holds it


def causal_position_signal(n: int) -> np.ndarray:
    """What a causal mask alone tells each position: ``1/(i + 1)`` at position i.

    Attention with no position information at all: every query is 0 (so every score is 0
    and the weights are uniform over the keys a row may see), the keys are anything, and
    the value is 1 for the first token, 0 elsewhere. Under the causal mask, row i averages
    over exactly i + 1 keys, so its output is ``1/(i + 1)``: absolute position, read from
    the mask (Haviv et al., 2022). Without the mask every row would give ``1/n``.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The output of :func:`~qkv_helpers.attention.scaled_dot_product_attention` at each
        position.

    Examples
    --------
    >>> causal_position_signal(4).round(3)
    array([1.   , 0.5  , 0.333, 0.25 ])
    """
    from .attention import scaled_dot_product_attention
    from .masks import causal_mask

    n = validate.integer(n, "n", 1, 100_000)
    q = np.zeros((n, 1))  # (n, 1): no content in the queries
    k = np.arange(n, dtype=float)[:, None]  # (n, 1): any keys; q = 0 makes every score 0
    v = np.zeros((n, 1))  # (n, 1)
    v[0] = 1.0  # marks the first token
    out = scaled_dot_product_attention(q, k, v, mask=causal_mask(n)).output  # (n, 1)
    return out[:, 0]  # (n,)


class OrderCheck(NamedTuple):
    """Self-attention on tokens in two orders: does the output just follow the tokens?"""

    encoder_difference: float
    """Largest ``|out(x[order]) − out(x)[order]|`` without a mask: 0 up to rounding."""
    causal_difference: float
    """The same with the causal mask: far from 0, the mask itself knows the order."""


def causal_permutation_check(mha, x, order) -> OrderCheck:
    """Shuffle the tokens: the encoder's rows only shuffle, a causal decoder's change.

    Without a mask, ``mha(x[order]) == mha(x)[order]`` (attention sees a set). With the causal
    mask, token ``i`` sees tokens ``0 … i`` — which tokens those are depends on the order, so a
    decoder is *not* permutation-equivariant, even with no position vectors at all.

    Examples
    --------
    >>> from qkv_helpers.encoder_decoder import encoder_example
    >>> enc = encoder_example()
    >>> check = causal_permutation_check(enc.mha, enc.x, [6, 5, 4, 3, 2, 1, 0])
    >>> check.encoder_difference < 1e-12, check.causal_difference > 0.01
    (True, True)
    """
    from .attention import MultiHeadAttention
    from .masks import causal_mask

    validate.instance_of(mha, "mha", MultiHeadAttention, "e.g. encoder_example().mha")
    x = validate.array(x, "x", min_ndim=2)
    if x.ndim != 2 or x.shape[1] != mha.d_model:
        raise ValueError(t("err_x_for_mha", d_model=mha.d_model, got=x.shape))
    n = x.shape[0]
    order = np.asarray(order)
    if order.dtype.kind not in "iu" or order.shape != (n,) or sorted(order.tolist()) != list(
            range(n)):
        raise ValueError(t("err_order_permutation", n=n, got=order.tolist()))
    mask = causal_mask(n)  # (n, n)
    plain = np.abs(mha(x[order]).output - mha(x).output[order]).max()
    causal = np.abs(mha(x[order], mask=mask).output - mha(x, mask=mask).output[order]).max()
    return OrderCheck(float(plain), float(causal))

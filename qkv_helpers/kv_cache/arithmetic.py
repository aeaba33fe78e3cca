"""The arithmetic of the KV cache: its bytes, the FLOPs of decoding, and the speed-up.

Lesson 09 measures all of these on :class:`~qkv_helpers.decoding.TinyTransformer`; the
formulas here say what the measurements should be, so the notebook can put the two side
by side.

Memory. A cache keeps a key and a value vector per layer, K/V head and token::

    bytes = 2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value

It grows linearly with the tokens kept: the cache *costs* memory and saves compute.

Compute. FLOPs are counted as :mod:`qkv_helpers.decoding` counts them: ``2·m·k·n`` for an
``(m, k) @ (k, n)`` matrix product, nothing else. A decoder layer that runs ``n`` new
tokens whose queries attend over ``c`` keys does::

    projections  Q, K, V, W_O     8 · n · d²
    attention    q·kᵀ, weights·v  4 · n · d · c
    MLP          W_1, W_2         4 · n · d · d_ff

Without a cache, step ``t`` runs all ``t`` tokens (``n = c = t``); with a cache only the
newest (``n = 1``, ``c = t``). Per layer that is exactly ``t`` times the work, and over a
whole generation of ``T`` tokens from a one-token prompt the ratio of the totals is about
``(1 + 2 + … + T) / T = (T + 1) / 2``.

numpy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _text
from .. import _validate as validate

__all__ = [
    "StepTimeFit",
    "approx_flop_ratio",
    "decoding_flops",
    "fit_step_time",
    "format_bytes",
    "kv_cache_bytes",
    "predicted_speedup",
    "step_flops",
    "step_flops_by_part",
]


def _count(x, name: str) -> int:
    """``x`` as an int >= 0."""
    return validate.integer(x, name, low=0)


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, tokens: int, batch: int = 1,
                   bytes_per_value: int = 2) -> int:
    """Bytes of a KV cache: ``2 · layers · kv_heads · head_dim · tokens · batch · bytes``.

    The 2 is for keys *and* values. ``bytes_per_value`` is 2 for fp16/bf16, 4 for fp32,
    1 for int8.

    Examples
    --------
    Llama-2-7B (32 layers, 32 K/V heads of width 128) keeping 4096 tokens in fp16:

    >>> kv_cache_bytes(32, 32, 128, tokens=4096, batch=1, bytes_per_value=2)
    2147483648
    >>> format_bytes(_)
    '2.00 GiB'
    >>> kv_cache_bytes(2, 4, 4, tokens=1, bytes_per_value=4)   # one more token, tiny model
    256
    """
    layers = validate.integer(layers, "layers", 1)
    kv_heads = validate.integer(kv_heads, "kv_heads", 1)
    head_dim = validate.integer(head_dim, "head_dim", 1)
    tokens = _count(tokens, "tokens")
    batch = validate.integer(batch, "batch", 1)
    bytes_per_value = validate.integer(bytes_per_value, "bytes_per_value", 1)
    return 2 * layers * kv_heads * head_dim * tokens * batch * bytes_per_value


def format_bytes(n: int) -> str:
    """A byte count in the largest binary unit that keeps it >= 1 (B, KiB, MiB, GiB, TiB).

    Examples
    --------
    >>> format_bytes(256), format_bytes(1536), format_bytes(2 * 1024**3)
    ('256 B', '1.50 KiB', '2.00 GiB')
    """
    n = validate.integer(n, "n", low=0)
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            return f"{value:.2f} {unit}"
    raise AssertionError("unreachable")


def step_flops_by_part(new_tokens: int, context: int, *, d_model: int, n_layers: int,
                       vocab_size: int, d_ff: int | None = None, source_tokens: int = 0,
                       cross_kv: bool = False, encoder: bool = False) -> dict:
    """FLOPs of one decoding step, split as :data:`qkv_helpers.decoding.FLOP_PARTS`.

    Parameters
    ----------
    new_tokens : int
        Tokens run through the decoder this step (``n``): the prompt in the first step,
        then 1 with a cache, or every token so far without one.
    context : int
        Keys each self-attention query attends over (``c``): the tokens so far.
    d_model, n_layers, vocab_size, d_ff : int
        The model's sizes (``d_ff`` is ``4 · d_model`` by default).
    source_tokens : int
        Tokens of the source sentence (0 for a decoder-only model).
    cross_kv : bool
        Whether this step computes the cross-attention keys and values of the encoder
        output (``2 · source · d · 2d`` per layer).
    encoder : bool
        Whether this step runs the encoder over the source sentence.

    Returns
    -------
    dict
        FLOPs by part: ``encoder``, ``cross_kv``, ``projections``, ``attention``, ``mlp``,
        ``logits``.

    Examples
    --------
    One layer, d = 2, d_ff = 8, a vocabulary of 5; one new token attending over 3 keys:
    Q, K, V and W_O cost 8·1·4 = 32, attention 4·1·2·3 = 24, the MLP 4·1·2·8 = 64 and
    the logits 2·2·5 = 20.

    >>> step_flops_by_part(1, 3, d_model=2, n_layers=1, vocab_size=5, d_ff=8)
    {'encoder': 0, 'cross_kv': 0, 'projections': 32, 'attention': 24, 'mlp': 64, 'logits': 20}
    """
    n = validate.integer(new_tokens, "new_tokens", 1)
    c = validate.integer(context, "context", 1)
    if n > c:
        raise ValueError(_text.t("err_new_tokens_context", n=n, c=c))
    d = validate.integer(d_model, "d_model", 1)
    layers = validate.integer(n_layers, "n_layers", 1)
    vocab = validate.integer(vocab_size, "vocab_size", 1)
    d_ff = 4 * d if d_ff is None else validate.integer(d_ff, "d_ff", 1)
    s = _count(source_tokens, "source_tokens")
    cross_kv, encoder = validate.flag(cross_kv, "cross_kv"), validate.flag(encoder, "encoder")
    if (cross_kv or encoder) and s == 0:
        raise ValueError(_text.t("err_source_tokens", got=s))
    parts = {"encoder": 0, "cross_kv": 0, "projections": 0, "attention": 0, "mlp": 0,
             "logits": 2 * d * vocab}
    if encoder:  # per layer: Q, K, V, W_O over the source; attention over it; the MLP
        parts["encoder"] = layers * (8 * s * d * d + 4 * s * d * s + 4 * s * d * d_ff)
    if cross_kv:  # per layer: the encoder output (s, d) @ [W_K | W_V] (d, 2d)
        parts["cross_kv"] = layers * 4 * s * d * d
    cross = s > 0
    parts["projections"] = layers * (8 + 4 * cross) * n * d * d  # + cross Q and W_O
    parts["attention"] = layers * 4 * n * d * (c + s)
    parts["mlp"] = layers * 4 * n * d * d_ff
    return parts


def step_flops(new_tokens: int, context: int, **sizes) -> int:
    """Total FLOPs of one decoding step: the sum of :func:`step_flops_by_part`.

    Examples
    --------
    >>> step_flops(1, 3, d_model=2, n_layers=1, vocab_size=5, d_ff=8)
    140
    """
    return sum(step_flops_by_part(new_tokens, context, **sizes).values())


def decoding_flops(prompt_tokens: int, new_tokens: int, *, use_cache: bool = True,
                   d_model: int, n_layers: int, vocab_size: int, d_ff: int | None = None,
                   source_tokens: int = 0) -> np.ndarray:
    """FLOPs of every step of greedy decoding, as ``TinyTransformer.generate`` counts them.

    Step ``i`` predicts token ``prompt_tokens + i``; the tokens so far are
    ``t = prompt_tokens + i``. Step 0 runs the prompt either way. After that, with a cache
    a step runs one token; without, all ``t``. With a source sentence, the encoder runs
    in step 0, and the cross-attention keys and values are computed in step 0 with a
    cache and at every step without one.

    Returns
    -------
    numpy.ndarray of int64, shape (new_tokens,)

    Examples
    --------
    >>> sizes = dict(d_model=2, n_layers=1, vocab_size=5, d_ff=8)
    >>> decoding_flops(1, 4, **sizes)
    array([124, 132, 140, 148])
    >>> decoding_flops(1, 4, use_cache=False, **sizes)
    array([124, 244, 380, 532])
    """
    prompt = validate.integer(prompt_tokens, "prompt_tokens", 1)
    steps = validate.integer(new_tokens, "new_tokens", 1)
    s = _count(source_tokens, "source_tokens")
    use_cache = validate.flag(use_cache, "use_cache")
    sizes = dict(d_model=d_model, n_layers=n_layers, vocab_size=vocab_size, d_ff=d_ff,
                 source_tokens=s)
    flops = np.empty(steps, np.int64)  # (new_tokens,)
    for i in range(steps):
        t = prompt + i
        n = 1 if use_cache and i > 0 else t
        flops[i] = step_flops(n, t, cross_kv=s > 0 and (i == 0 or not use_cache),
                              encoder=s > 0 and i == 0, **sizes)
    return flops


def approx_flop_ratio(prompt_tokens: int, new_tokens) -> np.ndarray | float:
    """Uncached over cached total FLOPs when every token costs the same per layer.

    Step ``i`` runs ``P + i`` tokens without a cache and one with it (both run the whole
    prompt in step 0)::

        ratio = (P + (P+1) + … + (P+T−1)) / (P + T − 1) = T·(2P + T − 1) / (2·(P + T − 1))

    which is ``(T + 1) / 2`` for a one-token prompt: it grows linearly with ``T``.
    The attention's cost grows with the context, and the logits cost the same with and
    without a cache, so the exact ratio (:func:`decoding_flops`) differs a little.

    Examples
    --------
    >>> approx_flop_ratio(1, 9)
    5.0
    >>> approx_flop_ratio(8, np.array([1, 16, 256]))
    array([  1.        ,  10.7826087 , 131.89353612])
    """
    p = validate.integer(prompt_tokens, "prompt_tokens", 1)
    if isinstance(new_tokens, (bool, np.bool_, str, bytes)) or new_tokens is None:
        raise TypeError(_text.t("err_new_tokens_type", got=repr(new_tokens)))
    t = np.asarray(new_tokens)
    if t.dtype.kind not in "iu" or t.size == 0 or (t < 1).any():
        raise ValueError(_text.t("err_new_tokens_values", got=repr(new_tokens)))
    ratio = t * (2 * p + t - 1) / (2 * (p + t - 1))
    return float(ratio) if ratio.ndim == 0 else ratio


class StepTimeFit(NamedTuple):
    """A step's time modelled as ``overhead + seconds_per_flop · flops``."""

    overhead: float
    """Seconds every step costs whatever its FLOPs (Python, numpy calls, small arrays)."""
    seconds_per_flop: float
    """Seconds per FLOP of the matrix products."""

    def seconds(self, steps, flops):
        """Predicted time of ``steps`` steps doing ``flops`` FLOPs in all.

        Either may be one number for every run (``seconds(1, flops_per_step)``: one step).
        """
        _fit_values(self, "fit")
        steps = _run_values(steps, "steps", ndim=(0, 1))  # (runs,) or one number
        flops = _run_values(flops, "flops", ndim=(0, 1))  # (runs,) or one number
        if steps.ndim == flops.ndim == 1 and steps.shape != flops.shape:
            raise ValueError(_text.t("err_per_run", name="flops", shape=steps.shape,
                                    got=flops.shape))
        return self.overhead * steps + self.seconds_per_flop * flops  # (runs,)


def _fit_values(fit, name: str) -> None:
    """``fit``'s two coefficients must be finite numbers >= 0."""
    validate.instance_of(fit, name, StepTimeFit, "from fit_step_time")
    for value, field in ((fit.overhead, "overhead"), (fit.seconds_per_flop, "seconds_per_flop")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) \
                or not np.isfinite(value) or value < 0:
            raise ValueError(_text.t("err_fit_field", name=name, field=field, got=repr(value)))


def _run_values(x, name: str, shape: tuple | None = None, ndim=1) -> np.ndarray:
    """Per-run counts ``x`` as a 1-D array of finite numbers >= 0 (of ``shape`` if given)."""
    arr = validate.array(x, name, ndim=ndim, shape="(runs,)", widen=True, empty=False)
    if arr.min() < 0:
        raise ValueError(_text.t("err_real_low", name=name, low=0, got=f"{arr.min():g}"))
    if shape is not None and arr.shape != shape:
        raise ValueError(_text.t("err_per_run", name=name, shape=shape, got=arr.shape))
    return arr


def fit_step_time(steps, flops, seconds) -> StepTimeFit:
    """Least-squares fit of ``seconds ≈ overhead · steps + seconds_per_flop · flops``.

    Each entry is one measured run: how many steps it took, its total FLOPs and its
    time. Both coefficients are kept >= 0.

    Examples
    --------
    >>> fit = fit_step_time([10, 10, 20], [1e6, 5e6, 2e7], [0.0011, 0.0015, 0.0040])
    >>> round(fit.overhead * 1e6), round(fit.seconds_per_flop * 1e12)
    (100, 100)
    """
    columns = [validate.array(x, name, ndim=1, shape="(runs,)", widen=True, empty=False) for x,
                              name in
               ((steps, "steps"), (flops, "flops"), (seconds, "seconds"))]
    shapes = [c.shape for c in columns]
    if any(s != shapes[0] for s in shapes) or shapes[0][0] < 2:
        raise ValueError(_text.t("err_fit_lengths", steps=shapes[0], flops=shapes[1],
                                seconds=shapes[2]))
    for column, name in zip(columns, ("steps", "flops", "seconds")):
        if column.min() < 0:
            raise ValueError(_text.t("err_real_low", name=name, low=0, got=f"{column.min():g}"))
    for column, key in ((columns[0], "err_fit_steps_zero"), (columns[1], "err_fit_flops_zero")):
        if not column.any():
            raise ValueError(_text.t(key))
    # Each column divided by its largest entry (so sums of squares cannot overflow), the
    # coefficients scaled back at the end.
    scale = np.array([c.max() or 1.0 for c in columns])  # (3,)
    a = np.column_stack(columns[:2]) / scale[:2]  # (runs, 2)
    y = columns[2] / scale[2]  # (runs,)
    coef = np.linalg.lstsq(a, y, rcond=None)[0]  # (2,)
    if coef[0] < 0:  # the best fit with no overhead
        coef = np.array([0.0, max(float(a[:, 1] @ y / ((a[:, 1] @ a[:, 1]) or 1.0)), 0.0)])
    elif coef[1] < 0:  # the best fit with no cost per FLOP
        coef = np.array([max(float(a[:, 0] @ y / ((a[:, 0] @ a[:, 0]) or 1.0)), 0.0), 0.0])
    with np.errstate(over="ignore"):
        coef = coef * scale[2] / scale[:2]  # (2,)
    if not np.isfinite(coef).all():
        raise ValueError(_text.t("err_fit_overflow", seconds=f"{scale[2]:.3g}",
                                steps=f"{scale[0]:.3g}", flops=f"{scale[1]:.3g}"))
    return StepTimeFit(float(coef[0]), float(coef[1]))


def predicted_speedup(fit: StepTimeFit, steps, flops_cached, flops_uncached) -> np.ndarray:
    """Uncached over cached time that ``fit`` predicts for runs of ``steps`` steps.

    With no overhead this is the FLOP ratio; a fixed cost per step, paid equally with
    and without the cache, pulls it down, most where the cached steps are cheap.

    Examples
    --------
    >>> fit = StepTimeFit(overhead=1e-4, seconds_per_flop=1e-10)
    >>> predicted_speedup(fit, [100], [1e6], [5e7]).round(2)    # FLOP ratio 50
    array([1.49])
    >>> predicted_speedup(StepTimeFit(0.0, 1e-10), [100], [1e6], [5e7])
    array([50.])
    """
    _fit_values(fit, "fit")
    steps = _run_values(steps, "steps")  # (runs,)
    cached = fit.seconds(steps, _run_values(flops_cached, "flops_cached", steps.shape))
    uncached = fit.seconds(steps, _run_values(flops_uncached, "flops_uncached", steps.shape))
    if (cached <= 0).any():
        raise ValueError(_text.t("err_speedup_zero"))
    return np.asarray(uncached / cached, dtype=float)  # (runs,)

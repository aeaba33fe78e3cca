"""Lesson 13's measurements: what attention costs at scale, and what each idea saves.

- the quadratic cost: time and peak memory (``tracemalloc``) of plain attention against
  tiled attention, and the slope of a log–log fit;
- the FLOPs of attention, the same for plain and tiled attention;
- a sliding-window KV cache that keeps only the last ``window`` tokens, and the receptive
  field of stacked sliding-window layers;
- serving a batch of requests: a paged KV cache against one that reserves ``max_len``
  tokens per request;
- prefill and decode: FLOPs per byte read (arithmetic intensity) for Llama-2-7B's shapes,
  against the ridge point of real GPUs (their facts quoted with the source).

numpy only.
"""

from __future__ import annotations

import gc
import math
import time
import tracemalloc
from typing import NamedTuple

import numpy as np

from .. import _text
from .. import _validate as validate
from ..attention import scaled_dot_product_attention
from ..kv_cache import KVCache, PagedKVCache, SlidingWindowKVCache
from ..masks import causal_mask
from ..tiled import tiled_attention_with_work

__all__ = [
    "A100_80GB",
    "H100_SXM",
    "LLAMA_2_7B",
    "Gpu",
    "ModelShape",
    "ServingMemory",
    "SlidingWindowKVCache",
    "StepCost",
    "attention_flops",
    "attention_training_flops",
    "attention_inputs",
    "loglog_slope",
    "measure_costs",
    "CostTable",
    "measure_peak_memory",
    "measure_time",
    "online_softmax_trace",
    "plain_attention_output",
    "causal_tile_work",
    "receptive_field",
    "receptive_field_by_masks",
    "request_lengths",
    "serve_requests",
    "step_cost",
    "windowed_decoding",
]


# --- the quadratic cost ------------------------------------------------------------------


def attention_inputs(n: int, d: int = 64, n_heads: int = 1, seed: int = 0, dtype=np.float32):
    """Random ``q, k, v`` of shape ``(n_heads, n, d)`` (``(n, d)`` for one head), seeded.

    >>> q, k, v = attention_inputs(5, d=4)
    >>> q.shape, q.dtype
    ((5, 4), dtype('float32'))
    """
    n, d = validate.integer(n, "n", 1), validate.integer(d, "d", 1)
    n_heads = validate.integer(n_heads, "n_heads", 1)
    seed, dtype = validate.seed(seed), validate.float_dtype(dtype)
    rng = np.random.default_rng(seed)
    shape = (n, d) if n_heads == 1 else (n_heads, n, d)
    return tuple(rng.standard_normal(shape).astype(dtype) for _ in range(3))


def attention_flops(n_q: int, n_k: int, d_k: int, d_v: int | None = None) -> int:
    """FLOPs of attention for one head: ``2·n_q·n_k·d_k`` (Q·Kᵀ) + ``2·n_q·n_k·d_v`` (weights·V).

    The softmax's exps and sums are left out (``O(n_q·n_k)``, not times ``d``). Plain and
    tiled attention do exactly this many; tiling changes where the numbers live, not how
    many multiplications there are.

    >>> attention_flops(4096, 4096, 64)    # about 4.3 GFLOP
    4294967296
    """
    n_q, n_k = validate.integer(n_q, "n_q", 1), validate.integer(n_k, "n_k", 1)
    d_k = validate.integer(d_k, "d_k", 1)
    d_v = d_k if d_v is None else validate.integer(d_v, "d_v", 1)
    return 2 * n_q * n_k * d_k + 2 * n_q * n_k * d_v


class TrainingFlops(NamedTuple):
    """FLOPs of one head's attention in training: the forward and the backward pass."""

    forward: int
    """``4·n_q·n_k·d`` (Q·Kᵀ and weights·V), as :func:`attention_flops`."""
    backward: int
    """The backward pass's matrix products; with ``recompute`` also Q·Kᵀ done again."""

    @property
    def total(self) -> int:
        return self.forward + self.backward


def attention_training_flops(n_q: int, n_k: int, d_k: int, recompute: bool = False
                             ) -> TrainingFlops:
    """FLOPs of one head's attention, forward and backward (d_v = d_k), counting matrix products.

    Forward: ``2·n_q·n_k·d`` for S = Q·Kᵀ and ``2·n_q·n_k·d`` for O = P·V. Backward, given dO:
    dV = Pᵀ·dO, dP = dO·Vᵀ, dQ = dS·K and dK = dSᵀ·Q, four products of ``2·n_q·n_k·d``
    each (the softmax's own gradient is ``O(n_q·n_k)``, left out). Plain attention keeps P
    from the forward pass for this. Memory-efficient attention keeps no (n_q, n_k) matrix, so
    its backward pass (``recompute=True``) first computes S = Q·Kᵀ again, one product more:
    the same forward FLOPs, more FLOPs in training. Rabe & Staats (2021) did this by
    checkpointing each chunk of keys; FlashAttention (Dao et al., 2022, §3.1–3.2) keeps only
    the output and each row's log-sum-exp and recomputes S tile by tile in fast on-chip
    memory, so it is still faster on a GPU: it moves far fewer bytes.

    >>> plain = attention_training_flops(1024, 1024, 64)
    >>> flash = attention_training_flops(1024, 1024, 64, recompute=True)
    >>> plain.forward == flash.forward, flash.total / plain.total
    (True, 1.1666666666666667)
    """
    n_q, n_k = validate.integer(n_q, "n_q", 1), validate.integer(n_k, "n_k", 1)
    d_k = validate.integer(d_k, "d_k", 1)
    recompute = validate.flag(recompute, "recompute")
    product = 2 * n_q * n_k * d_k  # one (n_q, d)·(d, n_k)-sized matrix product
    forward = attention_flops(n_q, n_k, d_k)  # S = Q·Kᵀ, O = P·V
    backward = 4 * product + (product if recompute else 0)  # dV, dP, dQ, dK (+ S again)
    return TrainingFlops(forward, backward)


def measure_peak_memory(fn, *args, **kwargs) -> int:
    """Peak bytes that numpy and Python allocate while ``fn(*args, **kwargs)`` runs.

    Measured with :mod:`tracemalloc` (numpy reports its arrays to it), started just before
    the call: the inputs, allocated before, are not counted; the result is.

    >>> measure_peak_memory(np.ones, 1_000_000) >= 8_000_000     # a float64 array of 10⁶
    True
    """
    validate.a_function(fn, "fn")
    # No garbage collection while fn runs: freeing older garbage then would lower the count
    # below `start` and hide part of fn's peak. (Disabling it costs nothing; a gc.collect()
    # first would cost a second in a process holding many objects, such as a test run.)
    collecting = gc.isenabled()
    gc.disable()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        result = fn(*args, **kwargs)
        peak = tracemalloc.get_traced_memory()[1] - start
        del result
    finally:
        if not was_tracing:
            tracemalloc.stop()
        if collecting:
            gc.enable()
    return int(peak)


def measure_time(fn, *args, repeats: int = 3, **kwargs) -> float:
    """The fastest of ``repeats`` runs of ``fn(*args, **kwargs)``, in seconds (wall clock).

    The minimum is the run least disturbed by other programs on the machine.

    >>> measure_time(sum, range(10)) < 1.0
    True
    """
    validate.a_function(fn, "fn")
    repeats = validate.integer(repeats, "repeats", 1)
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best


def loglog_slope(x, y) -> float:
    """Slope of the least-squares line through ``(log x, log y)``: ``y ∝ x**slope``.

    >>> round(loglog_slope([1, 2, 4, 8], [3, 12, 48, 192]), 6)       # y = 3·x²
    2.0
    """
    x = validate.array(x, "x")
    y = validate.array(y, "y")
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(_text.t("err_xy_lengths", x=x.shape, y=y.shape))
    if (x <= 0).any() or (y <= 0).any():
        raise ValueError(_text.t("err_xy_positive", x=f"{x.min():g}", y=f"{y.min():g}"))
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def plain_attention_output(q, k, v, mask=None) -> np.ndarray:
    """``scaled_dot_product_attention(q, k, v, mask).output``: plain attention, measured as is."""
    return scaled_dot_product_attention(q, k, v, mask=mask).output


class CostTable(NamedTuple):
    """Plain and tiled attention measured side by side, one entry per length."""

    lengths: np.ndarray
    plain_seconds: np.ndarray
    tiled_seconds: np.ndarray
    plain_peak: np.ndarray
    """Peak bytes allocated by plain attention (the (n, n) weights among them)."""
    tiled_peak: np.ndarray
    """Peak bytes allocated by tiled attention."""
    score_bytes: np.ndarray
    """Bytes of one (n, n) score matrix at the inputs' dtype."""


def measure_costs(lengths, d: int = 64, block_size: int = 64, repeats: int = 2,
                  dtype=np.float32, seed: int = 0, time_it: bool = True) -> CostTable:
    """Time and peak memory of plain and of tiled attention for each ``n`` in ``lengths``.

    One head, ``q, k, v`` of shape ``(n, d)`` (:func:`attention_inputs`). Peak memory by
    :func:`measure_peak_memory`, time by :func:`measure_time` (the best of ``repeats``;
    ``time_it=False`` skips timing and gives NaN).

    >>> table = measure_costs([128, 256], d=8, time_it=False)
    >>> bool((table.plain_peak >= table.score_bytes).all())
    True
    """
    lengths = validate.int_sequence(lengths, "lengths", low=1)  # (rows,)
    d, block_size = validate.integer(d, "d", 1), validate.integer(block_size, "block_size", 1)
    repeats, seed = validate.integer(repeats, "repeats", 1), validate.seed(seed)
    dtype, time_it = validate.float_dtype(dtype), validate.flag(time_it, "time_it")
    rows = []
    for n in lengths:
        q, k, v = attention_inputs(int(n), d, seed=seed, dtype=dtype)
        plain_peak = measure_peak_memory(plain_attention_output, q, k, v)
        tiled_peak = measure_peak_memory(tiled_attention_with_work, q, k, v,
                                         block_size=block_size)
        plain_s = tiled_s = math.nan
        if time_it:
            plain_s = measure_time(plain_attention_output, q, k, v, repeats=repeats)
            tiled_s = measure_time(tiled_attention_with_work, q, k, v, block_size=block_size,
                                   repeats=repeats)
        rows.append((plain_s, tiled_s, plain_peak, tiled_peak,
                     int(n) * int(n) * np.dtype(dtype).itemsize))
    columns = [np.array(c) for c in zip(*rows)]
    return CostTable(lengths, *columns)


# --- the online softmax, one query row at a time (for the tiling widget) -----------------


class OnlineStep(NamedTuple):
    """The running quantities of one query row after each key block."""

    keys_seen: int
    """How many keys were taken in so far."""
    m: float
    """Largest score so far."""
    l: float  # noqa: E741
    """Σ exp(score − m) so far."""
    output: np.ndarray
    """``o / l``: the output if the keys stopped here, ``(d_v,)``."""
    rescale: float
    """``exp(m_old − m_new)`` applied to what was kept (1.0 when the maximum stayed)."""


def online_softmax_trace(scores, v, block_size: int) -> list[OnlineStep]:
    """One row of scores and its values, taken in block by block with the online softmax.

    ``scores (n_k,)`` (already scaled), ``v (n_k, d_v)``. Uses the same update as
    :func:`~qkv_helpers.tiled_attention`; the last step's output is ``softmax(scores) · v``.

    >>> steps = online_softmax_trace(np.array([0.0, 1.0, 3.0]), np.array([[10.], [20.], [30.]]), 2)
    >>> [(s.keys_seen, s.m, round(s.rescale, 3)) for s in steps]
    [(2, 1.0, 0.0), (3, 3.0, 0.135)]
    >>> steps[-1].output.round(3)
    array([28.018])
    """
    from ..tiled import online_softmax_start, online_softmax_update

    scores = validate.array(scores, "scores")
    v = validate.array(v, "v", min_ndim=2)
    block_size = validate.integer(block_size, "block_size", 1)
    if scores.ndim != 1 or v.shape[0] != scores.shape[0]:
        raise ValueError(_text.t("err_trace_shapes", scores=scores.shape, v=v.shape))
    state = online_softmax_start((1,), v.shape[1], np.result_type(scores, v))
    steps = []
    for start in range(0, scores.size, block_size):
        end = min(start + block_size, scores.size)
        old_m = state.m[0, 0]
        state = online_softmax_update(state, scores[None, start:end], v[start:end])
        rescale = float(np.exp(old_m - state.m[0, 0]))
        steps.append(OnlineStep(end, float(state.m[0, 0]), float(state.l[0, 0]),
                                state.o[0] / state.l[0, 0], rescale))
    return steps


# --- sliding windows -----------------------------------------------------------------------


class WindowedDecoding(NamedTuple):
    output: np.ndarray
    """``(n_heads, n, d_v)``: each token's output, decoded one at a time."""
    cache_nbytes: list[int]
    """The window cache's bytes after each token."""
    full_cache_nbytes: list[int]
    """A cache that keeps every token (:class:`~qkv_helpers.KVCache`): bytes after each token."""


def windowed_decoding(q, k, v, window: int) -> WindowedDecoding:
    """Decode token by token with a :class:`SlidingWindowKVCache` beside a full :class:`KVCache`.

    ``q, k, v`` are ``(n_heads, n, d)``. At step ``t`` token ``t``'s key and value go into
    both caches and its query attends to the window cache's keys. The outputs equal
    ``scaled_dot_product_attention(q, k, v, sliding_window_mask(n, window=window))``.

    >>> q, k, v = np.random.default_rng(0).normal(size=(3, 1, 6, 2))
    >>> run = windowed_decoding(q, k, v, window=2)
    >>> run.cache_nbytes[-1], run.full_cache_nbytes[-1]       # 2 tokens kept against 6
    (64, 192)
    """
    q = validate.array(q, "q", min_ndim=3, bools=False, empty=False)
    k = validate.array(k, "k", min_ndim=3, bools=False, empty=False)
    v = validate.array(v, "v", min_ndim=3, bools=False, empty=False)
    if not (q.ndim == k.ndim == v.ndim == 3 and q.shape[:2] == k.shape[:2] == v.shape[:2]):
        raise ValueError(_text.t("err_window_qkv", q=q.shape, k=k.shape, v=v.shape))
    n_heads, n, _ = q.shape
    dtype = np.result_type(q, k, v)
    window_cache = SlidingWindowKVCache(n_heads, k.shape[2], window, dtype)
    full = KVCache(n_heads, k.shape[2], capacity=1, dtype=dtype)
    outputs, small, large = [], [], []
    for t in range(n):
        k_t, v_t = k[:, t:t + 1].astype(dtype), v[:, t:t + 1].astype(dtype)
        window_cache.append(k_t, v_t)
        full.append(np.ascontiguousarray(k_t), np.ascontiguousarray(v_t))
        out = scaled_dot_product_attention(q[:, t:t + 1], window_cache.keys,
                                           window_cache.values).output  # (n_heads, 1, d_v)
        outputs.append(out)
        small.append(window_cache.nbytes)
        large.append(full.nbytes)
    return WindowedDecoding(np.concatenate(outputs, axis=1), small, large)


def receptive_field(window: int, layers: int) -> int:
    """How many positions the last token can draw on through ``layers`` sliding-window layers.

    Each layer reaches ``window − 1`` positions further back: ``layers · (window − 1) + 1``
    (itself included), in a long enough sequence.

    A theoretical reach: what the masks allow, not what a trained model uses. This course's
    ``window`` counts the query itself; Mistral 7B v0.1's W = 4096 leaves it out, so it is
    ``window=4097`` here (W·L = 131,072 positions back, plus the token itself).

    >>> receptive_field(window=4096, layers=32)      # window 4096 (itself included), 32 layers
    131041
    >>> receptive_field(window=4097, layers=32)      # Mistral 7B v0.1: W = 4096, 32 layers
    131073
    """
    return validate.integer(layers, "layers", 1) * (validate.integer(window, "window", 1) - 1) + 1


def receptive_field_by_masks(n: int, window: int, layers: int) -> int:
    """The same, counted: positions reachable from the last token through ``layers`` masks.

    Position ``j`` reaches the last token if a chain of allowed (query, key) pairs leads
    there, one per layer: the boolean product of the mask with itself ``layers`` times.

    >>> receptive_field_by_masks(n=20, window=3, layers=4)
    9
    """
    from ..masks import sliding_window_mask

    mask = sliding_window_mask(validate.integer(n, "n", 1), window=window).astype(np.int64)
    reach = np.eye(n, dtype=np.int64)[-1:]  # (1, n): the last token reaches itself
    for _ in range(validate.integer(layers, "layers", 1)):
        reach = np.minimum(reach @ mask, 1)  # one more layer of attention
    return int(reach.sum())


# --- serving requests: paged against max-length reservation --------------------------------


def request_lengths(n_requests: int, max_len: int, seed: int = 0) -> np.ndarray:
    """Random request lengths (prompt + generated tokens), uniform in ``1 .. max_len``.

    >>> request_lengths(5, 100, seed=0)
    array([86, 64, 52, 27, 31])
    """
    rng = np.random.default_rng(validate.seed(seed))
    return rng.integers(1, validate.integer(max_len, "max_len", 1) + 1,
                        size=validate.integer(n_requests, "n_requests", 1))


class ServingMemory(NamedTuple):
    """Bytes of KV cache for a batch of requests, three ways."""

    used: int
    """Bytes holding tokens: what the requests really need."""
    paged_reserved: int
    """Bytes of the blocks a :class:`~qkv_helpers.PagedKVCache` holds."""
    max_len_reserved: int
    """Bytes reserved by one :class:`~qkv_helpers.KVCache` of ``max_len`` tokens per request."""
    block_tables: dict
    """Each request's blocks in the paged pool."""

    @property
    def paged_waste(self) -> float:
        """Share of the paged cache's held bytes that hold no token."""
        return 1 - self.used / self.paged_reserved

    @property
    def max_len_waste(self) -> float:
        """Share of the max-length reservation that holds no token."""
        return 1 - self.used / self.max_len_reserved


def serve_requests(lengths, max_len: int, block_size: int = 16, n_heads: int = 4,
                   head_dim: int = 16, dtype=np.float32,
                   tokens_per_step: int = 1) -> ServingMemory:
    """Keep the keys and values of requests of the given lengths, paged and reserved.

    Every request's tokens are appended, ``tokens_per_step`` at a time (one decode step, or
    a chunk of prompt) taking turns across the batch, to a
    :class:`PagedKVCache` (blocks of ``block_size``) and, for comparison, to one
    :class:`KVCache` per request made with ``capacity=max_len``, as a server that reserves
    the longest possible request does. Bytes are read from the caches themselves.

    >>> m = serve_requests([3, 17, 40], max_len=64, block_size=16, n_heads=1, head_dim=2)
    >>> m.used, m.paged_reserved, m.max_len_reserved     # 60 tokens; 6 blocks; 3 × 64 tokens
    (960, 1536, 3072)
    """
    lengths = validate.int_sequence(lengths, "lengths", low=1).tolist()
    max_len = validate.integer(max_len, "max_len", 1)
    block_size, n_heads = validate.integer(block_size, "block_size", 1), validate.integer(n_heads,
                                           "n_heads", 1)
    head_dim, dtype = validate.integer(head_dim, "head_dim", 1), validate.float_dtype(dtype)
    if any(n > max_len for n in lengths):
        raise ValueError(_text.t("err_lengths_max_len", max_len=max_len, got=max(lengths)))
    n_blocks = sum(-(-n // block_size) for n in lengths)
    chunk = validate.integer(tokens_per_step, "tokens_per_step", 1)
    tokens = np.zeros((n_heads, chunk, head_dim), dtype)

    def steps():  # all requests side by side, taking turns: (request, its new tokens)
        for start in range(0, max(lengths), chunk):
            for i, n in enumerate(lengths):
                if start < n:
                    yield i, tokens[:, : min(chunk, n - start)]  # (n_heads, new, head_dim)

    # The two servers one after the other (each holds every token; the numbers are the
    # same as side by side, and only one of them is in memory at a time).
    paged = PagedKVCache(n_heads, head_dim, block_size, max(n_blocks, 1), dtype)
    ids = [paged.new_sequence() for _ in lengths]
    for i, new in steps():
        paged.append(ids[i], new, new)
    used, paged_reserved = paged.used_nbytes, paged.reserved_nbytes
    tables = {seq: paged.block_table(seq) for seq in ids}
    del paged
    reserved = [KVCache(n_heads, head_dim, capacity=max_len, dtype=dtype) for _ in lengths]
    for i, new in steps():
        reserved[i].append(new, new)
    assert all(c.capacity == max_len for c in reserved)  # no request outgrew its reservation
    return ServingMemory(used, paged_reserved, sum(c.allocated_nbytes for c in reserved), tables)


# --- prefill and decode: arithmetic intensity ----------------------------------------------


class ModelShape(NamedTuple):
    """The sizes of a decoder-only Transformer that set its FLOPs and bytes."""

    name: str
    layers: int
    d_model: int
    n_heads: int
    kv_heads: int
    head_dim: int
    d_ff: int
    vocab: int

    @property
    def matmul_params(self) -> int:
        """Parameters used in matrix products per token (embedding lookup excluded).

        Per layer W_Q, W_O (d·d each), W_K, W_V (d·kv_heads·head_dim each) and the gated MLP
        (3·d·d_ff); then the output layer (d·vocab).
        """
        d, kv = self.d_model, self.kv_heads * self.head_dim
        per_layer = 2 * d * d + 2 * d * kv + 3 * d * self.d_ff
        return self.layers * per_layer + d * self.vocab


LLAMA_2_7B = ModelShape("Llama-2-7B", layers=32, d_model=4096, n_heads=32, kv_heads=32,
                        head_dim=128, d_ff=11008, vocab=32000)
"""Llama-2-7B's shapes, from its config.json (meta-llama/Llama-2-7b-hf on Hugging Face) and
the Llama 2 paper (Touvron et al., 2023): 32 layers, hidden size 4096, 32 heads (no GQA in
the 7B model), intermediate size 11008, vocabulary 32000."""


class Gpu(NamedTuple):
    """A GPU's peak dense 16-bit matrix throughput and memory bandwidth, with the source."""

    name: str
    peak_flops: float
    """FLOP/s, dense BF16/FP16 on Tensor Cores (no sparsity)."""
    bandwidth: float
    """Bytes/s of its HBM memory."""
    source: str

    @property
    def ridge(self) -> float:
        """FLOPs per byte at which compute and memory take the same time."""
        return self.peak_flops / self.bandwidth


A100_80GB = Gpu("A100 80GB SXM", 312e12, 2039e9,
                "NVIDIA A100 Tensor Core GPU datasheet: BF16 Tensor Core 312 TFLOPS "
                "(624 with sparsity), GPU memory bandwidth 2,039 GB/s (80GB SXM)")
H100_SXM = Gpu("H100 SXM", 989e12, 3.35e12,
               "NVIDIA H100 Tensor Core GPU datasheet: BF16 Tensor Core 1,979 TFLOPS with "
               "sparsity, GPU memory bandwidth 3.35 TB/s (H100 SXM)")  # dense: half, 989


class StepCost(NamedTuple):
    """FLOPs and bytes of one forward step, and their ratio."""

    flops: int
    bytes_read: int
    weight_bytes: int
    kv_bytes: int

    @property
    def intensity(self) -> float:
        """Arithmetic intensity: FLOPs per byte read from memory."""
        return self.flops / self.bytes_read

    def seconds(self, gpu: Gpu) -> float:
        """Lower bound on the step's time: the larger of compute time and memory time."""
        return max(self.flops / gpu.peak_flops, self.bytes_read / gpu.bandwidth)

    def bound(self, gpu: Gpu) -> str:
        """``"compute"`` or ``"memory"``: which of the two limits this step on ``gpu``."""
        return "compute" if self.intensity >= gpu.ridge else "memory"


def step_cost(model: ModelShape, new_tokens: int, context: int = 0, batch: int = 1,
              bytes_per_value: int = 2) -> StepCost:
    """FLOPs and bytes read by one forward step of ``batch`` sequences.

    Each sequence runs ``new_tokens`` tokens whose queries attend over ``context`` earlier
    (cached) tokens plus themselves. A prefill is ``new_tokens = prompt, context = 0``; a
    decode step is ``new_tokens = 1``. Counted (``2·m·k·n`` FLOPs per matrix product):

    - FLOPs: ``2 · matmul_params · new_tokens · batch`` for the weights, plus attention's
      ``4 · layers · n_heads · head_dim · new_tokens · keys · batch`` (Q·Kᵀ and weights·V,
      ``keys = context + new_tokens``, every key counted, as without a causal skip);
    - bytes: every weight once (the batch shares them) and every sequence's cached K and V,
      ``2 · layers · kv_heads · head_dim · context · batch``, at ``bytes_per_value``.

    Activations and the KV cache's writes are left out: negligible in decode; in prefill they
    lower the intensity about 2–3× with fused attention (FlashAttention), about 5× or more if
    the (heads, n, n) scores are written out and read back (at least 1.07 GB more per layer at
    n = 2048).

    >>> prefill = step_cost(LLAMA_2_7B, new_tokens=2048)
    >>> decode = step_cost(LLAMA_2_7B, new_tokens=1, context=2048)
    >>> round(prefill.intensity), round(decode.intensity, 2)
    (2214, 1.0)
    """
    validate.instance_of(model, "model", ModelShape, "e.g. LLAMA_2_7B")
    new_tokens = validate.integer(new_tokens, "new_tokens", 1)
    batch = validate.integer(batch, "batch", 1)
    context = validate.integer(context, "context", low=0)
    bytes_per_value = validate.integer(bytes_per_value, "bytes_per_value", 1)
    keys = context + new_tokens
    m = model
    flops = (2 * m.matmul_params * new_tokens * batch
             + 4 * m.layers * m.n_heads * m.head_dim * new_tokens * keys * batch)
    weight_bytes = m.matmul_params * bytes_per_value
    kv_bytes = 2 * m.layers * m.kv_heads * m.head_dim * context * batch * bytes_per_value
    return StepCost(int(flops), int(weight_bytes + kv_bytes), int(weight_bytes), int(kv_bytes))


def causal_tile_work(n: int, block_size: int, d: int = 64) -> tuple:
    """Tiles and FLOPs of tiled causal attention for ``n`` tokens, with and without skipping.

    Counted by running :func:`~qkv_helpers.tiled.tiled_attention_with_work` on zeros.

    >>> causal_tile_work(256, 64)[:2]      # 16 tiles; 6 above the diagonal skipped
    (16, 10)
    """
    x = np.zeros((validate.integer(n, "n", 1), validate.integer(d, "d", 1)))  # (n, d)
    block_size = validate.integer(block_size, "block_size", 1)
    mask = causal_mask(n)
    full = tiled_attention_with_work(x, x, x, mask, block_size, skip_hidden_blocks=False)
    skip = tiled_attention_with_work(x, x, x, mask, block_size)
    return full.tiles, skip.tiles, full.flops, skip.flops

"""KV caching, measured: decoding speed with and without the cache (FLOP ratio beside it),
the time of one KVCache.append against the cache's length (it must stay flat), and the
cache's bytes against the formula.

Run with BLAS pinned to one thread (``make bench`` does)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        .venv/bin/python benchmarks/bench_kv_cache.py

The machine may be shared, so each measurement is repeated with the two variants
interleaved (their order alternating), and the median is reported. Times are CPU times of
this process (``time.process_time``: with one BLAS thread, the time the work itself took,
without the time other programs held the core); the wall-clock ratio is printed beside
them. Targets are printed with PASS/MISS; nothing here asserts a time.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
import tracemalloc
from typing import NamedTuple

import numpy as np

from qkv_helpers import KVCache, TinyTransformer

VOCAB = 256
PROMPT = list(range(8))  # 8 prompt tokens, then T new ones
LENGTHS = (64, 128, 256, 512)
MODELS = ((1, 128), (2, 256))  # (layers, d_model), 4 heads each
N_HEADS = 4
APPEND_LENGTHS = (256, 1024, 4096, 16384)
TARGET_FLAT = 1.3  # append time per step at T = 4096 within 1.3x of T = 256


class Timing(NamedTuple):
    """Median times of repeated runs, in seconds."""

    cpu: float  # CPU time of this process: leaves out the time other programs held the core
    wall: float  # wall-clock time


def time_pair(run_a, run_b, repeats: int) -> tuple[Timing, Timing, object, object]:
    """Median times of two callables run alternately (a b, b a, a b, ...), and their results."""
    times = {run_a: ([], []), run_b: ([], [])}
    out = {}
    for i in range(repeats):
        for run in ((run_a, run_b) if i % 2 == 0 else (run_b, run_a)):
            cpu, wall = time.process_time(), time.perf_counter()
            out[run] = run()
            times[run][0].append(time.process_time() - cpu)
            times[run][1].append(time.perf_counter() - wall)
    a, b = (Timing(statistics.median(times[r][0]), statistics.median(times[r][1]))
            for r in (run_a, run_b))
    return a, b, out[run_a], out[run_b]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


# --- 1. cached vs uncached greedy decoding ---------------------------------------------


def bench_decoding() -> dict:
    print("1. Greedy decoding, cached vs uncached (decoder-only, vocab 256, 8-token prompt,")
    print("   4 heads, float32; CPU time, median of interleaved runs; FLOP ratio from the")
    print("   counted FLOPs). 'readable' is the default model (the lessons' attention);")
    print("   'fast' is TinyTransformer(..., fast_attention=True) (qkv_helpers.fast).")
    print()
    header = (f"{'attention':>9} {'layers':>6} {'d_model':>7} {'T':>5} {'cached ms':>10} "
              f"{'uncached ms':>12} {'µs/token':>9} {'time ratio':>11} {'FLOP ratio':>11} "
              f"{'wall ratio':>11} {'same ids':>9}")
    print(header)
    print("-" * len(header))
    at_512 = {}
    for fast in (False, True):
        for layers, d_model in MODELS:
            model = TinyTransformer(VOCAB, d_model, N_HEADS, layers, seed=0,
                                    fast_attention=fast)
            model.generate(PROMPT, 16)  # warm up
            for n in LENGTHS:
                repeats = 3 if n * d_model * layers >= 512 * 256 else 5
                cached_t, uncached_t, cached, uncached = time_pair(
                    functools.partial(model.generate, PROMPT, n, use_cache=True),
                    functools.partial(model.generate, PROMPT, n, use_cache=False),
                    repeats,
                )
                ratio = uncached_t.cpu / cached_t.cpu
                flop_ratio = uncached.flops / cached.flops
                same = bool((cached.ids == uncached.ids).all())
                name = "fast" if fast else "readable"
                print(f"{name:>9} {layers:>6} {d_model:>7} {n:>5} {cached_t.cpu * 1e3:>10.1f} "
                      f"{uncached_t.cpu * 1e3:>12.1f} {cached_t.cpu / n * 1e6:>9.1f} "
                      f"{ratio:>10.1f}× {flop_ratio:>10.1f}× "
                      f"{uncached_t.wall / cached_t.wall:>10.1f}× {str(same):>9}")
                if n == 512:
                    at_512[(name, layers, d_model)] = ratio, flop_ratio
                sys.stdout.flush()
    print()
    print("   The time ratio stays below the FLOP ratio: a cached step is small (one token),")
    print("   and numpy's fixed cost per call, not arithmetic, dominates it.")
    print()
    return at_512


# --- 2. one append, against the cache's length ---------------------------------------


def bench_append() -> dict:
    print("2. KVCache.append, one token per step (the public, checked call), timed at")
    print("   several cache lengths T: the cache is filled to T tokens, then 256 single-token")
    print("   appends are timed (preallocated: no growth inside the timing; 4 heads,")
    print("   head_dim 64, float32). The time per step must not depend on T: a slice write")
    print("   of the new token only. For contrast, np.concatenate of the whole cache with the")
    print("   new token per step (what a cache without preallocation does), which grows")
    print("   with T. Medians of interleaved rounds (CPU time), 10th-90th percentile beside.")
    print()
    steps, head_dim = 256, 64
    rng = np.random.default_rng(0)
    ks = list(rng.normal(size=(steps, N_HEADS, 1, head_dim)).astype(np.float32))
    vs = list(rng.normal(size=(steps, N_HEADS, 1, head_dim)).astype(np.float32))
    fill = rng.normal(size=(N_HEADS, max(APPEND_LENGTHS), head_dim)).astype(np.float32)
    caches = {t: KVCache(N_HEADS, head_dim, capacity=t + steps) for t in APPEND_LENGTHS}

    def appends(t):
        cache = caches[t]
        cache.clear()
        cache.append(fill[:, :t], fill[:, :t])  # T tokens kept, not timed
        start = time.process_time()
        for k, v in zip(ks, vs):
            cache.append(k, v)
        return (time.process_time() - start) / steps

    def concatenations(t):
        keys = fill[:, :t]
        start = time.process_time()
        for k in ks[:32]:
            keys = np.concatenate([keys, k], axis=1)
        return (time.process_time() - start) / 32

    per_step = {t: [] for t in APPEND_LENGTHS}
    concat = {t: [] for t in APPEND_LENGTHS}
    for i in range(41):
        order = APPEND_LENGTHS if i % 2 == 0 else APPEND_LENGTHS[::-1]
        for t in order:
            per_step[t].append(appends(t))
            if i < 7:
                concat[t].append(concatenations(t))
    np.testing.assert_array_equal(caches[256].keys[:, 256:], np.concatenate(ks, axis=1))

    header = (f"{'T':>6} {'append µs/step':>15} {'(p10-p90)':>13} {'vs T=256':>9} "
              f"{'concatenate µs/step':>20}")
    print(header)
    print("-" * len(header))
    base = statistics.median(per_step[APPEND_LENGTHS[0]])
    ratios = {}
    for t in APPEND_LENGTHS:
        mid = statistics.median(per_step[t])
        lo, hi = np.percentile(per_step[t], [10, 90])
        ratios[t] = mid / base
        print(f"{t:>6} {mid * 1e6:>15.2f} {f'{lo * 1e6:.2f}-{hi * 1e6:.2f}':>13} "
              f"{mid / base:>8.2f}× {statistics.median(concat[t]) * 1e6:>20.1f}")
    print()
    ok = ratios[4096] <= TARGET_FLAT
    print(f"   target: append per step at T = 4096 within {TARGET_FLAT}× of T = 256: measured "
          f"{ratios[4096]:.2f}× -> {verdict(ok)}")
    print()
    return ratios


# --- 3. cache bytes against the formula ------------------------------------------------


def traced_bytes(make) -> int:
    """Bytes of numpy data that ``make()`` allocated and still holds, as tracemalloc sees them.

    numpy reports its data buffers to tracemalloc in their own domain; counting that domain
    only leaves out the Python objects (the KVCache instances, the list).
    """
    only_numpy = [tracemalloc.DomainFilter(True, np.lib.tracemalloc_domain)]

    def held(snapshot):
        return sum(trace.size for trace in snapshot.filter_traces(only_numpy).traces)

    tracemalloc.start()
    before = held(tracemalloc.take_snapshot())
    kept = make()
    after = held(tracemalloc.take_snapshot())
    tracemalloc.stop()
    del kept
    return after - before


def filled_caches(layers, kv_heads, head_dim, tokens, dtype) -> list:
    """One KVCache per layer, preallocated for ``tokens`` and filled with them."""
    block = np.ones((kv_heads, tokens, head_dim), dtype)
    caches = [KVCache(kv_heads, head_dim, capacity=tokens, dtype=dtype) for _ in range(layers)]
    for cache in caches:
        cache.append(block, block)
    return caches


def bench_bytes() -> bool:
    print("3. Cache bytes: measured against 2 · layers · kv_heads · head_dim · tokens · batch ·")
    print("   bytes_per_value (batch = 1). 'nbytes' is the sum of KVCache.nbytes (or")
    print("   Step.cache_bytes of generate); 'traced' is what tracemalloc saw numpy allocate")
    print("   for caches filled to exactly their capacity.")
    print()
    header = (f"{'what':<26} {'layers':>6} {'kv_heads':>8} {'head_dim':>8} {'tokens':>7} "
              f"{'dtype':>8} {'formula':>12} {'nbytes':>12} {'traced':>12} {'equal':>6}")
    print(header)
    print("-" * len(header))
    all_equal = True

    def row(what, layers, kv_heads, head_dim, tokens, dtype, nbytes, traced):
        nonlocal all_equal
        formula = 2 * layers * kv_heads * head_dim * tokens * 1 * np.dtype(dtype).itemsize
        equal = nbytes == formula and traced in (None, formula)
        all_equal &= equal
        traced_text = "-" if traced is None else f"{traced:,}"
        print(f"{what:<26} {layers:>6} {kv_heads:>8} {head_dim:>8} {tokens:>7} "
              f"{np.dtype(dtype).name:>8} {formula:>12,} {nbytes:>12,} {traced_text:>12} "
              f"{'yes' if equal else 'NO':>6}")

    for layers, d_model in MODELS:
        model = TinyTransformer(VOCAB, d_model, N_HEADS, layers, seed=0)
        result = model.generate(PROMPT, 512)
        last = result.steps[-1]
        row("generate, T = 512", layers, N_HEADS, d_model // N_HEADS, last.context,
            np.float32, last.cache_bytes, None)

    cases = [  # (what, layers, kv_heads, head_dim, tokens, dtype)
        ("KVCache, multi-head", 2, 4, 64, 4096, np.float32),
        ("KVCache, float16", 2, 4, 64, 4096, np.float16),
        ("KVCache, 1 KV head (MQA)", 2, 1, 64, 4096, np.float32),
        ("KVCache, twice the tokens", 2, 4, 64, 8192, np.float32),
        ("KVCache, 12 layers", 12, 12, 64, 1024, np.float32),
    ]
    for what, layers, kv_heads, head_dim, tokens, dtype in cases:
        fill = functools.partial(filled_caches, layers, kv_heads, head_dim, tokens, dtype)
        traced = traced_bytes(fill)
        nbytes = sum(cache.nbytes for cache in fill())
        row(what, layers, kv_heads, head_dim, tokens, dtype, nbytes, traced)
    print()
    print(f"   measured bytes equal the formula in every row: {verdict(all_equal)}")
    print("   The cache costs memory, linear in tokens: it does not save memory. What shrinks")
    print("   it is fewer KV heads, lower precision, or keeping fewer tokens.")
    print()
    return all_equal


def main() -> None:
    start = time.perf_counter()
    print(f"numpy {np.__version__}, Python {sys.version.split()[0]}")
    print()
    decoding = bench_decoding()
    flat = bench_append()
    equal = bench_bytes()
    print("Summary")
    for (name, layers, d_model), (ratio, flop_ratio) in decoding.items():
        print(f"  cached vs uncached, T = 512, {layers} layer(s), d_model {d_model}, {name}: "
              f"{ratio:.1f}× faster (FLOP ratio {flop_ratio:.1f}×)")
    print(f"  append per step, T = 4096 vs T = 256: {flat[4096]:.2f}×   target ≤ {TARGET_FLAT}×  "
          f"{verdict(flat[4096] <= TARGET_FLAT)}")
    print(f"  cache bytes equal the formula: {'yes' if equal else 'no'}   {verdict(equal)}")
    print(f"  (total time {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

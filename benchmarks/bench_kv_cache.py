"""KV caching, measured: decoding speed with and without the cache, the cost of appending to
a preallocated cache against np.concatenate, and the cache's bytes against the formula.

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
TARGET_SPEEDUP = 40.0  # cached vs uncached, T = 512, 1 layer
TARGET_APPEND = 50.0  # append vs concatenate, T = 2048


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


def bench_decoding() -> float:
    print("1. Greedy decoding, cached vs uncached (decoder-only, vocab 256, 8-token prompt,")
    print("   4 heads, float32; CPU time, median of interleaved runs; FLOP ratio from the")
    print("   counted FLOPs)")
    print()
    header = (f"{'layers':>6} {'d_model':>7} {'T':>5} {'cached ms':>10} {'uncached ms':>12} "
              f"{'µs/token':>9} {'time ratio':>11} {'FLOP ratio':>11} {'wall ratio':>11} "
              f"{'same ids':>9}")
    print(header)
    print("-" * len(header))
    at_target = None
    for layers, d_model in MODELS:
        model = TinyTransformer(VOCAB, d_model, N_HEADS, layers, seed=0)
        model.generate(PROMPT, 16)  # warm up
        for n in LENGTHS:
            repeats = 3 if n * d_model * layers >= 512 * 256 else 5
            cached_t, uncached_t, cached, uncached = time_pair(
                functools.partial(model.generate, PROMPT, n, use_cache=True),
                functools.partial(model.generate, PROMPT, n, use_cache=False),
                repeats,
            )
            ratio = uncached_t.cpu / cached_t.cpu
            wall_ratio = uncached_t.wall / cached_t.wall
            same = bool((cached.ids == uncached.ids).all())
            print(f"{layers:>6} {d_model:>7} {n:>5} {cached_t.cpu * 1e3:>10.1f} "
                  f"{uncached_t.cpu * 1e3:>12.1f} {cached_t.cpu / n * 1e6:>9.1f} "
                  f"{ratio:>10.1f}× {uncached.flops / cached.flops:>10.1f}× "
                  f"{wall_ratio:>10.1f}× {str(same):>9}")
            if (layers, n) == (1, 512):
                at_target = ratio, wall_ratio
            sys.stdout.flush()
    print()
    ratio, wall_ratio = at_target
    print(f"   target: cached ≥ {TARGET_SPEEDUP:.0f}× faster than uncached at T = 512, 1 layer: "
          f"measured {ratio:.1f}× (CPU time), {wall_ratio:.1f}× (wall clock) -> "
          f"{verdict(ratio >= TARGET_SPEEDUP)}")
    print()
    return ratio


# --- 2. appending to the cache vs np.concatenate ---------------------------------------


def append_all(ks, vs, checked: bool = True) -> np.ndarray:
    """Keep the tokens one by one in a KVCache preallocated for all of them.

    ``checked=True`` uses the public ``append``; ``False`` uses ``KVCache._append_one``,
    the decoder's internal one-token path without the input checks.
    """
    n_heads, _, head_dim = ks[0].shape
    cache = KVCache(n_heads, head_dim, capacity=len(ks))
    append = cache.append if checked else cache._append_one
    for k, v in zip(ks, vs):
        append(k, v)
    return cache.keys


def concatenate_all(ks, vs) -> np.ndarray:
    """Keep the tokens one by one, concatenating the whole cache with each new token."""
    n_heads, _, head_dim = ks[0].shape
    keys = np.empty((n_heads, 0, head_dim), np.float32)
    values = np.empty((n_heads, 0, head_dim), np.float32)
    for k, v in zip(ks, vs):
        keys = np.concatenate([keys, k], axis=1)
        values = np.concatenate([values, v], axis=1)
    return keys


def bench_append() -> dict:
    print("2. Updating one layer's cache, one token per step: KVCache.append (preallocated,")
    print("   the public, checked call) vs np.concatenate of the whole cache with the new")
    print("   token (4 heads, float32; CPU time, median of interleaved runs). Each token's k")
    print("   and v are separate arrays made before the clock starts, as a decoder hands")
    print("   them over. 'internal' is KVCache._append_one, the decoder's path without")
    print("   the checks, shown beside it; the target is judged on the public append.")
    print()
    header = (f"{'head_dim':>8} {'T':>5} {'append ms':>10} {'concat ms':>10} "
              f"{'append µs/step':>15} {'concat µs/step':>15} {'ratio':>8} {'wall ratio':>11} "
              f"{'internal µs/step':>17} {'ratio':>8}")
    print(header)
    print("-" * len(header))
    at_2048 = {}
    for head_dim in (32, 64):
        for n in (256, 2048, 4096):
            rng = np.random.default_rng(0)
            ks = list(rng.normal(size=(n, N_HEADS, 1, head_dim)).astype(np.float32))
            vs = list(rng.normal(size=(n, N_HEADS, 1, head_dim)).astype(np.float32))
            repeats = 7 if n >= 4096 else 11
            append_t, concat_t, a, b = time_pair(functools.partial(append_all, ks, vs),
                                                 functools.partial(concatenate_all, ks, vs),
                                                 repeats)
            internal_t, _, c, _ = time_pair(functools.partial(append_all, ks, vs, checked=False),
                                            functools.partial(append_all, ks, vs), repeats)
            assert np.array_equal(a, b) and np.array_equal(c, b)
            ratio = concat_t.cpu / append_t.cpu
            print(f"{head_dim:>8} {n:>5} {append_t.cpu * 1e3:>10.2f} {concat_t.cpu * 1e3:>10.1f} "
                  f"{append_t.cpu / n * 1e6:>15.2f} {concat_t.cpu / n * 1e6:>15.1f} "
                  f"{ratio:>7.1f}× {concat_t.wall / append_t.wall:>10.1f}× "
                  f"{internal_t.cpu / n * 1e6:>17.2f} {concat_t.cpu / internal_t.cpu:>7.1f}×")
            if n == 2048:
                at_2048[head_dim] = ratio
            sys.stdout.flush()
    print()
    for head_dim, ratio in at_2048.items():
        print(f"   target: append ≥ {TARGET_APPEND:.0f}× faster than concatenate at T = 2048, "
              f"head_dim {head_dim}: measured {ratio:.1f}× (public append) -> "
              f"{verdict(ratio >= TARGET_APPEND)}")
    print()
    return at_2048


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
    speedup = bench_decoding()
    append = bench_append()
    equal = bench_bytes()
    print("Summary")
    lines = [("cached vs uncached, T = 512, 1 layer", f"{speedup:.1f}×",
              f"≥ {TARGET_SPEEDUP:.0f}×", speedup >= TARGET_SPEEDUP)]
    lines += [(f"append vs concatenate, T = 2048, head_dim {head_dim}", f"{ratio:.1f}×",
               f"≥ {TARGET_APPEND:.0f}×", ratio >= TARGET_APPEND)
              for head_dim, ratio in append.items()]
    lines.append(("cache bytes equal the formula", "yes" if equal else "no", "yes", equal))
    for what, measured, target, ok in lines:
        print(f"  {what:<46} {measured:>7}   target {target:<6} {verdict(ok)}")
    print(f"  (total time {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

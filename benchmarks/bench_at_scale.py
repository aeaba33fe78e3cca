"""Lesson 13's measurements, reproduced side by side (make bench).

1. Peak memory (tracemalloc) and time of plain vs tiled attention, one head, d = 64, float32,
   n = 256 ... 4096; target: tiled at least 16× smaller peak at n = 4096; the two outputs equal.
2. Causal tile skipping: tiles and FLOPs counted, and time with and without skipping
   (interleaved runs, medians of CPU time); the outputs equal.
3. Serving 64 requests of random length 1 ... 2048: bytes used, held by a paged cache (blocks of
   16) and reserved by one max_len cache per request; the waste of each.
4. Prefill vs decode arithmetic intensity at Llama-2-7B's sizes against the ridge of an A100
   and an H100 (datasheet figures quoted in qkv_helpers.measure.long_context).

numpy only (torch is not needed here). Timings are noisy on a shared machine: the spread over
rounds is printed; nothing here asserts a time.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_at_scale.py
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from qkv_helpers import causal_mask, scaled_dot_product_attention, tiled_attention
from qkv_helpers import long_context as sc

MIB = 2**20


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def cpu_times(runs: dict, rounds: int) -> dict:
    """CPU seconds of each callable over ``rounds`` interleaved rounds (order alternating)."""
    names = list(runs)
    times = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            start = time.process_time()
            runs[name]()
            times[name].append(time.process_time() - start)
    return times


def spread(values) -> str:
    return (f"median {statistics.median(values) * 1e3:7.1f} ms "
            f"(min {min(values) * 1e3:.1f}, max {max(values) * 1e3:.1f})")


def bench_memory() -> None:
    print("1. Plain vs tiled attention: peak memory (tracemalloc) and time, one head, d = 64,")
    print("   float32, block_size 64; time = best of 3 wall-clock runs")
    print()
    lengths = [256, 512, 1024, 2048, 4096]
    table = sc.measure_costs(lengths, repeats=3)
    header = (f"{'n':>5} {'scores MiB':>11} {'plain MiB':>10} {'tiled MiB':>10} {'ratio':>6} "
              f"{'plain ms':>9} {'tiled ms':>9}")
    print(header)
    print("-" * len(header))
    for i, n in enumerate(lengths):
        print(f"{n:>5} {table.score_bytes[i] / MIB:>11.1f} {table.plain_peak[i] / MIB:>10.1f} "
              f"{table.tiled_peak[i] / MIB:>10.2f} "
              f"{table.plain_peak[i] / table.tiled_peak[i]:>5.0f}× "
              f"{table.plain_seconds[i] * 1e3:>9.1f} {table.tiled_seconds[i] * 1e3:>9.1f}")
    ratio = table.plain_peak[-1] / table.tiled_peak[-1]
    print()
    print(f"   log-log slope of plain peak memory (n >= 512): "
          f"{sc.loglog_slope(lengths[1:], table.plain_peak[1:]):.2f}; tiled: "
          f"{sc.loglog_slope(lengths[1:], table.tiled_peak[1:]):.2f}")
    q, k, v = sc.attention_inputs(4096)
    same = np.allclose(tiled_attention(q, k, v), scaled_dot_product_attention(q, k, v).output,
                       rtol=1e-4, atol=1e-5)
    print(f"   same FLOPs: {sc.attention_flops(4096, 4096, 64):,} for both (counted by "
          f"tiled_attention_with_work: equal, see tests); outputs equal: {same}")
    print(f"   target: tiled peak at n = 4096 at least 16× smaller: {ratio:.1f}× -> "
          f"{verdict(ratio >= 16 and same)}")
    print()


def bench_causal_skip(rounds: int = 7) -> None:
    print("2. Causal tile skipping in tiled attention, n = 4096, d = 64, block 64, float32")
    print(f"   (CPU time over {rounds} interleaved rounds)")
    print()
    full_tiles, kept_tiles, full_flops, kept_flops = sc.causal_tile_work(4096, 64)
    print(f"   tiles computed: {kept_tiles} of {full_tiles}; FLOPs {kept_flops:,} of "
          f"{full_flops:,} ({kept_flops / full_flops:.1%})")
    q, k, v = sc.attention_inputs(4096)
    mask = causal_mask(4096)
    skip = tiled_attention(q, k, v, mask)
    full = tiled_attention(q, k, v, mask, skip_hidden_blocks=False)
    print(f"   outputs equal: {np.array_equal(skip, full) or np.allclose(skip, full, rtol=1e-6)}")
    times = cpu_times({
        "skip": lambda: tiled_attention(q, k, v, mask),
        "full": lambda: tiled_attention(q, k, v, mask, skip_hidden_blocks=False),
        "plain": lambda: scaled_dot_product_attention(q, k, v, mask),
    }, rounds)
    for name, label in (("skip", "skipping hidden tiles"), ("full", "every tile"),
                        ("plain", "plain attention (masked)")):
        print(f"   {label:<26} {spread(times[name])}")
    ratio = statistics.median(times["skip"]) / statistics.median(times["full"])
    print(f"   time with skipping / without: {ratio:.2f} "
          f"(FLOP ratio {kept_flops / full_flops:.2f})")
    print()


def bench_serving() -> None:
    print("3. Serving 64 requests, lengths uniform in 1..2048 (seed 0), 2 heads, head_dim 32,")
    print("   float32, blocks of 16 tokens")
    print()
    lengths = sc.request_lengths(64, 2048, seed=0)
    m = sc.serve_requests(lengths, max_len=2048, block_size=16, n_heads=2, head_dim=32,
                          tokens_per_step=16)
    print(f"   tokens kept: {int(lengths.sum()):,}")
    print(f"   used by tokens        {m.used / MIB:8.1f} MiB")
    print(f"   paged (held blocks)   {m.paged_reserved / MIB:8.1f} MiB   waste {m.paged_waste:.1%}")
    print(f"   max_len per request   {m.max_len_reserved / MIB:8.1f} MiB   "
          f"waste {m.max_len_waste:.1%}")
    for block in (1, 16, 64, 256):
        w = sc.serve_requests(lengths, max_len=2048, block_size=block, n_heads=1, head_dim=1,
                              tokens_per_step=64).paged_waste
        print(f"   block_size {block:>3}: paged waste {w:.2%}")
    print()


def bench_intensity() -> None:
    print("4. Arithmetic intensity, Llama-2-7B shapes, fp16 (FLOPs per byte read)")
    print()
    cases = {
        "prefill 2048": sc.step_cost(sc.LLAMA_2_7B, 2048),
        "decode, ctx 2048, batch 1": sc.step_cost(sc.LLAMA_2_7B, 1, 2048),
        "decode, ctx 2048, batch 64": sc.step_cost(sc.LLAMA_2_7B, 1, 2048, 64),
        "decode, ctx 128, batch 64": sc.step_cost(sc.LLAMA_2_7B, 1, 128, 64),
    }
    for name, c in cases.items():
        print(f"   {name:<28} {c.flops / 1e12:8.2f} TFLOP {c.bytes_read / 1e9:7.1f} GB "
              f"{c.intensity:8.1f} FLOP/B  A100 {c.bound(sc.A100_80GB):>7}  "
              f"H100 {c.bound(sc.H100_SXM):>7}")
    for gpu in (sc.A100_80GB, sc.H100_SXM):
        print(f"   {gpu.name}: ridge {gpu.ridge:.0f} FLOP/B ({gpu.source})")
    print()


def main() -> int:
    print(f"numpy {np.__version__}, Python {sys.version.split()[0]}")
    print()
    bench_memory()
    bench_causal_skip()
    bench_serving()
    bench_intensity()
    return 0


if __name__ == "__main__":
    sys.exit(main())

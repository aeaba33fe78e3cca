"""Lesson 09's speed measurement, repeated: does the curve the lesson shows come out the same?

The lesson times one decoding step with and without the KV cache at each context length in
``kv_experiments.TIMING_CONTEXTS``
(:func:`qkv_helpers.measure.kv_cache_experiments.measure_step_times`: one BLAS thread, a
warm-up, 5 interleaved repeats, the fastest kept) on
:func:`~qkv_helpers.measure.kv_cache_experiments.timing_model`. This script runs that
measurement ``RUNS`` times, as ``RUNS`` students re-running the cell would, and reports

- how often the uncached step time, and the measured speed-up, climb with every context
  (monotonic curves, what the lesson's text says);
- the spread of the speed-up at each context over the runs;
- the peak memory of one step with and without the cache (tracemalloc), on the lesson's
  small model and on the timing model.

Run with BLAS pinned to one thread (``make bench`` does)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        .venv/bin/python benchmarks/bench_lesson09.py

Nothing here asserts a time; the target (every run monotonic) is printed with PASS/MISS.
"""

from __future__ import annotations

import sys

import numpy as np

from qkv_helpers.measure import kv_cache_experiments as kx

RUNS = 5


def main() -> int:
    model = kx.timing_model()
    contexts = list(kx.TIMING_CONTEXTS)
    print(f"contexts t: {contexts}; model d_model={model.d_model}, layers={model.n_layers}")
    speedups, uncached_up, speedup_up = [], 0, 0
    for run in range(RUNS):
        m = kx.measure_step_times(model, contexts, repeats=5)
        speedups.append(m.speedup)
        uncached_up += kx.is_increasing(m.seconds_uncached)
        speedup_up += kx.is_increasing(m.speedup)
        print(f"run {run + 1}: uncached step µs {np.round(m.seconds_uncached * 1e6).tolist()}"
              f"  cached step µs {np.round(m.seconds_cached * 1e6).tolist()}"
              f"  speed-up {np.round(m.speedup, 1).tolist()}")
    print(f"FLOP ratio {np.round(m.flop_ratio, 1).tolist()}")
    table = np.array(speedups)  # (runs, contexts)
    print("speed-up over the runs, per context: min / median / max")
    for t, column in zip(contexts, table.T):
        print(f"  t = {t:4d}: {column.min():5.1f} / {np.median(column):5.1f} / "
              f"{column.max():5.1f}")
    print(f"uncached step time increasing in {uncached_up}/{RUNS} runs; "
          f"speed-up increasing in {speedup_up}/{RUNS} runs")
    for name, mem_model, mem_contexts in (("lesson model", kx.lesson_model(), [8, 30, 60]),
                                          ("timing model", model, [64, 256, 512])):
        mem = kx.step_memory(mem_model, mem_contexts)
        for t, u, c, kept in zip(mem.contexts, mem.peak_uncached, mem.peak_cached,
                                 mem.cache_nbytes):
            print(f"{name}, t = {t}: peak during an uncached step {u / 1e3:.1f} KB; "
                  f"during a cached step {c / 1e3:.1f} KB, plus {kept / 1e3:.1f} KB of cache")
    ok = uncached_up == RUNS and speedup_up == RUNS
    print(("PASS" if ok else "MISS") + ": every run's curves climb with t")
    return 0


if __name__ == "__main__":
    sys.exit(main())

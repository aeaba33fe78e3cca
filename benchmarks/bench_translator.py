"""Lesson 14's numbers: training time, Run All, kernel memory, the backward's memory and FLOPs.

1. Training (qkv_helpers.translator.train with the committed settings) on one BLAS thread:
   seconds to the first evaluation with >= 95% greedy exact match on the held-out split
   (evaluations included), and for the whole run; target <= 10 s. Also the other seeds.
2. Run All of lesson 14 (English), solutions included, in a fresh kernel (nbclient), and the
   kernel's peak resident memory (ru_maxrss read inside the kernel at the end); targets
   <= 30 s and <= 200 MiB.
3. Attention's backward, one float32 head, d = 64: bytes kept from forward to backward,
   peak bytes during the backward (tracemalloc) and FLOPs, plain (keeps P) against
   recompute (keeps the log-sum-exp, FlashAttention), measured up to n = 4096 and
   extrapolated beyond (P: 4·n² bytes).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_translator.py

Nothing asserts a time: targets are printed with PASS/MISS.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIB = 2**20


def training() -> None:
    from qkv_helpers.translator import TRAINING_SETTINGS, train

    print("1. Training, one BLAS thread (evaluation every 10 steps included)")
    for seed in range(5):
        marks = {}

        def note(record, marks=marks):
            if record["exact_match"] >= 0.95 and "at" not in marks:
                marks["at"] = (record["step"], time.perf_counter() - marks["start"])

        marks["start"] = time.perf_counter()
        run = train(**{**TRAINING_SETTINGS, "seed": seed}, callback=note)
        last = run.history[-1]
        reached = (f"95% at step {marks['at'][0]} after {marks['at'][1]:.2f} s"
                   if "at" in marks else "95% not reached")
        verdict = "PASS" if "at" in marks and marks["at"][1] <= 10 else "MISS"
        print(f"   seed {seed}{' (committed)' if seed == 0 else ''}: {reached}; "
              f"{run.steps} steps {run.seconds:.2f} s; final exact match "
              f"{last['exact_match']:.2f}, alignment {last['alignment']:.3f}  [{verdict}]")


def run_all() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import lesson_memory

    lesson_memory.report_run_all("14_watch_attention_learn")


def backward() -> None:
    from qkv_helpers import attention_backward as ab

    lengths = [256, 512, 1024, 2048, 4096]
    costs = ab.measure_backward(lengths)
    print("3. Attention's backward, one float32 head, d = 64 (MiB; GFLOP)")
    print(f"   {'n':>6} {'kept +P':>9} {'kept +L':>8} {'peak plain':>11} {'peak recomp':>12} "
          f"{'GFLOP plain':>12} {'GFLOP recomp':>13}")
    for i, n in enumerate(lengths):
        print(f"   {n:>6} {costs.kept_plain[i] / MIB:>9.2f} {costs.kept_recompute[i] / MIB:>8.3f} "
              f"{costs.peak_plain[i] / MIB:>11.2f} {costs.peak_recompute[i] / MIB:>12.2f} "
              f"{costs.flops_plain[i] / 1e9:>12.2f} {costs.flops_recompute[i] / 1e9:>13.2f}")
    for n in (16384, 65536):  # kept: q, k, v, the output and P (or L), as measured
        flops = [ab.backward_flops(n, 64, recompute) / 1e9 for recompute in (False, True)]
        kept_p, kept_l = (ab.kept_bytes(n, 64, recompute) / MIB for recompute in (False, True))
        print(f"   {n:>6} {kept_p:>9.0f} {kept_l:>8.3f} {'(extrapolated)':>11} "
              f"{'':>12} {flops[0]:>12.0f} {flops[1]:>13.0f}")
    print("   (kept: q, k, v and the output, 4·4·n·d bytes, plus P = 4·n² or L = 4·n bytes; "
          "extrapolated rows by attention_backward.kept_bytes)")
    ratio = costs.peak_plain[-1] / costs.peak_recompute[-1]
    print(f"   peak ratio plain / recompute at n = {lengths[-1]}: {ratio:.0f}×; FLOPs ratio 1.25")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    training()
    run_all()
    backward()
    return 0


if __name__ == "__main__":
    sys.exit(main())

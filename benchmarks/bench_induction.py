"""Lesson 15's numbers: training time to the cliff, Run All, kernel memory.

1. Training (qkv_helpers.induction.train with the lesson's settings, float64, one BLAS
   thread) for seeds 0-4: the cliff's step (the loss on the repeat 1 nat below chance), the
   seconds to reach it and for the whole run (evaluations included); target <= 10 s. Also
   the process's CPU time for the run, which a busy machine does not inflate as much.
2. Run All of lesson 15 (English), solutions included, in a fresh kernel (nbclient), and the
   kernel's peak resident memory; targets <= 30 s and <= 200 MiB.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_induction.py

Nothing asserts a time: targets are printed with PASS/MISS.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def training() -> None:
    from qkv_helpers.induction import TRAINING_SETTINGS, cliff_step, train

    print("1. Training, one BLAS thread, float64 (evaluation every 50 steps included)")
    for seed in range(5):
        marks = {}

        def note(record, marks=marks):
            if cliff_step([record]) is not None and "at" not in marks:
                marks["at"] = (record["step"], time.perf_counter() - marks["start"])

        marks["start"] = time.perf_counter()
        cpu = time.process_time()
        run = train(**{**TRAINING_SETTINGS, "seed": seed}, callback=note)
        cpu = time.process_time() - cpu
        last = run.history[-1]
        reached = (f"cliff at step {marks['at'][0]} after {marks['at'][1]:.2f} s"
                   if "at" in marks else "no cliff")
        verdict = "PASS" if "at" in marks and marks["at"][1] <= 10 else "MISS"  # to the cliff
        print(f"   seed {seed}{' (the lesson)' if seed == 0 else ''}: {reached}; "
              f"{run.steps} steps {run.seconds:.2f} s (CPU {cpu:.2f} s); repeat loss "
              f"{last['repeat']:.2f}, previous-token {last['previous_token']:.2f}, "
              f"induction {last['induction']:.2f}  [{verdict}]")
    print(f"   load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def run_all() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import lesson_memory

    lesson_memory.report_run_all("15_induction_heads")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    training()
    run_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
